package dev.profiledrollout.history.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * Welch, Mann–Whitney and relative change reject what they cannot compare (non-finite samples, boundaries outside their
 * range, an empty window) and accept the ends of their ranges; their degenerate inputs give a definite verdict.
 */
class InputValidationTest {

    private static final Measure TTFT = new Measure("p99 TTFT", "ms", Direction.LOWER_IS_BETTER);
    private static final double[] EIGHT = {1, 2, 3, 4, 5, 6, 7, 8};

    @Test
    void welch_rejects_non_finite_samples_of_either_run() {
        Welch welch = new Welch(Boundaries.upper(0.99));
        assertThatThrownBy(() -> welch.evaluate(TTFT, new double[] {1, Double.NaN}, EIGHT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("current samples holds NaN");
        assertThatThrownBy(() -> welch.evaluate(TTFT, EIGHT, new double[] {1, Double.POSITIVE_INFINITY}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("previous samples holds Infinity");
    }

    @Test
    void mann_whitney_rejects_non_finite_samples_of_either_run() {
        MannWhitney test = new MannWhitney(Boundaries.upper(0.99));
        assertThatThrownBy(() -> test.evaluate(TTFT, new double[] {1, Double.NaN}, EIGHT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("current samples holds NaN");
        assertThatThrownBy(() -> test.evaluate(TTFT, EIGHT, new double[] {Double.NEGATIVE_INFINITY}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("previous samples holds -Infinity");
    }

    @Test
    void relative_change_rejects_a_non_finite_current_value_or_history_and_an_empty_window() {
        RelativeChange relative = new RelativeChange(RelativeChange.Baseline.MEAN, 5, Boundaries.upper(0.1));
        assertThatThrownBy(() -> relative.evaluate(TTFT, Double.NaN, new double[] {1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("current value holds NaN");
        assertThatThrownBy(() -> relative.evaluate(TTFT, 1, new double[] {1, Double.NaN}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("history holds NaN");
        assertThatThrownBy(() -> new RelativeChange(RelativeChange.Baseline.MEDIAN, 0, Boundaries.upper(0.1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("window 0 is below 1");
        assertThat(new RelativeChange(RelativeChange.Baseline.MEDIAN, 1, Boundaries.upper(0.1))
                .evaluate(TTFT, 2, new double[] {9, 1}).baseline()).isEqualTo(1);
    }

    @Test
    void probability_boundaries_must_lie_in_a_half_to_one() {
        for (double bad : new double[] {0.4999, 1.0, 1.5, 0.0}) {
            assertThatThrownBy(() -> new Welch(Boundaries.upper(bad)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Welch's t boundary " + bad + " is not a cumulative probability in [0.5, 1)");
            assertThatThrownBy(() -> new MannWhitney(Boundaries.lower(bad)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Mann-Whitney U boundary " + bad);
        }
        // 0.5 is the lowest boundary: the median of the statistic, critical value 0
        ThresholdResult welch = new Welch(Boundaries.upper(0.5)).evaluate(TTFT, new double[] {2, 3}, new double[] {1, 2});
        assertThat(welch.threshold()).isCloseTo(0, within(1e-12));
        assertThat(welch.change()).isEqualTo(Change.REGRESSION);
        ThresholdResult mw = new MannWhitney(Boundaries.both(0.5)).evaluate(TTFT, EIGHT, EIGHT);
        assertThat(mw.change()).isEqualTo(Change.NO_CHANGE);
    }

    @Test
    void boundaries_reject_negative_or_infinite_sides_and_accept_zero() {
        assertThatThrownBy(() -> Boundaries.upper(-0.01)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("boundary -0.01 is negative or infinite");
        assertThatThrownBy(() -> Boundaries.lower(Double.POSITIVE_INFINITY))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative or infinite");
        Boundaries zero = Boundaries.upper(0);
        assertThat(zero.hasUpper()).isTrue();
        assertThat(zero.hasLower()).isFalse();
        assertThat(Boundaries.lower(0.2).hasLower()).isTrue();
        assertThat(Boundaries.lower(0.2).hasUpper()).isFalse();
    }

    @Test
    void welch_without_spread_is_infinite_on_any_difference_and_zero_on_none() {
        Welch welch = new Welch(Boundaries.upper(0.99));
        ThresholdResult up = welch.evaluate(TTFT, new double[] {5, 5, 5}, new double[] {4, 4});
        assertThat(up.statistic()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(up.change()).isEqualTo(Change.REGRESSION);
        ThresholdResult down = welch.evaluate(TTFT, new double[] {3, 3}, new double[] {4, 4});
        assertThat(down.statistic()).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(down.change()).isEqualTo(Change.NO_CHANGE);
        ThresholdResult same = welch.evaluate(TTFT, new double[] {4, 4}, new double[] {4, 4});
        assertThat(same.statistic()).isZero();
        assertThat(same.change()).isEqualTo(Change.NO_CHANGE);
        ThresholdResult empty = welch.evaluate(TTFT, new double[0], new double[] {4, 4});
        assertThat(empty.change()).isEqualTo(Change.INSUFFICIENT_HISTORY);
        assertThat(empty.current()).isNaN();
        assertThat(empty.baseline()).isEqualTo(4);
    }

    @Test
    void mann_whitney_u_counts_pairs_with_the_current_sample_larger_and_ties_as_half() {
        // current {3, 5} vs previous {1, 3, 4}: pairs with current larger: 3>1, 5>1, 5>3, 5>4 = 4, tie 3=3 counts ½
        assertThat(MannWhitney.u(new double[] {3, 5}, new double[] {1, 3, 4})).isEqualTo(4.5);
        assertThat(MannWhitney.u(new double[] {0, 0}, new double[] {1, 3, 4})).isZero();
        // all equal: no evidence
        assertThat(MannWhitney.z(new double[] {2, 2}, new double[] {2, 2})).isZero();
        ThresholdResult empty = new MannWhitney(Boundaries.upper(0.99)).evaluate(TTFT, new double[0], EIGHT);
        assertThat(empty.change()).isEqualTo(Change.INSUFFICIENT_HISTORY);
        assertThat(empty.current()).isNaN();
        assertThat(empty.baseline()).isEqualTo(4.5);
    }

    @Test
    void a_value_below_the_history_has_the_same_p_value_as_one_as_far_above_it() {
        double[] history = {250, 260, 240, 255, 245, 250, 248, 252};
        StudentT t = new StudentT(20, Boundaries.both(0.99));
        ThresholdResult above = t.evaluate(TTFT, 262, history);
        ThresholdResult below = t.evaluate(TTFT, 238, history);
        assertThat(below.statistic()).isCloseTo(-above.statistic(), within(1e-12));
        assertThat(below.pValue()).isCloseTo(above.pValue(), within(1e-15)).isLessThan(0.5);
        assertThat(above.model()).isEqualTo(StudentT.NAME).isEqualTo("t-test");
        assertThat(above.statisticName()).isEqualTo("t");
    }

    @Test
    void a_statistic_below_a_zero_threshold_reads_at_most_the_threshold() {
        // the 0.5 boundary's critical value is 0; the current mean is below the previous: no change
        ThresholdResult r = new Welch(Boundaries.upper(0.5)).evaluate(TTFT, new double[] {1, 2}, new double[] {2, 3});
        assertThat(r.change()).isEqualTo(Change.NO_CHANGE);
        assertThat(r.describe()).contains(": t = -1.41 <= 0.00 (50 %)");
    }
}
