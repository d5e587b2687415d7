package dev.profiledrollout.history.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ThresholdModelsTest {

    private static final Measure TTFT = new Measure("p99 TTFT", "ms", Direction.LOWER_IS_BETTER);
    private static final Measure THROUGHPUT = new Measure("output throughput", "tok/s", Direction.HIGHER_IS_BETTER);

    // mean 250, sample sd sqrt(258/7) = 6.071008 (deviations 0,10,-10,5,-5,0,-2,2; squares sum to 258).
    private static final double[] HISTORY = {250, 260, 240, 255, 245, 250, 248, 252};

    @Test
    void z_score_matches_the_hand_computed_value_and_the_normal_quantile() {
        ThresholdResult r = new ZScore(20, Boundaries.upper(0.99)).evaluate(TTFT, 270, HISTORY);

        // z = 20 / 6.071008 = 3.294346; Φ⁻¹(0.99) = 2.326348; p = 1 − Φ(3.294346) = 4.9326e-4
        // (scipy.stats.norm.ppf(0.99), norm.sf(3.294346)).
        assertThat(r.change()).isEqualTo(Change.REGRESSION);
        assertThat(r.statistic()).isCloseTo(3.294346, within(1e-6));
        assertThat(r.threshold()).isCloseTo(2.326348, within(1e-6));
        assertThat(r.pValue()).isCloseTo(4.9326e-4, within(1e-7));
        assertThat(r.baseline()).isEqualTo(250);
        assertThat(r.n()).isEqualTo(8);
        assertThat(r.describe()).isEqualTo("p99 TTFT 270 ms vs mean 250 ms of last 8 runs: z = 3.29 > 2.33 (99 %), p = 0.000493: REGRESSION");
    }

    @Test
    void student_t_uses_the_prediction_interval_with_n_minus_1_degrees_of_freedom() {
        ThresholdResult r = new StudentT(20, Boundaries.upper(0.99)).evaluate(TTFT, 270, HISTORY);

        // t = 20 / (6.071008 · √(1 + 1/8)) = 3.105939; t₀.₉₉ with 7 df = 2.997952; p = 8.5893e-3
        // (scipy.stats.t.ppf(0.99, 7), t.sf(3.105939, 7)).
        assertThat(r.change()).isEqualTo(Change.REGRESSION);
        assertThat(r.statistic()).isCloseTo(3.105939, within(1e-6));
        assertThat(r.threshold()).isCloseTo(2.997952, within(1e-6));
        assertThat(r.pValue()).isCloseTo(8.5893e-3, within(1e-7));

        // 268 → t = 18 / 6.439 = 2.795 < 2.998: within the limit at 0.99 although z = 2.96 would flag it.
        assertThat(new StudentT(20, Boundaries.upper(0.99)).evaluate(TTFT, 268, HISTORY).change()).isEqualTo(Change.NO_CHANGE);
        assertThat(new ZScore(20, Boundaries.upper(0.99)).evaluate(TTFT, 268, HISTORY).change()).isEqualTo(Change.REGRESSION);
    }

    @Test
    void direction_decides_which_side_is_a_regression_and_a_side_without_boundary_is_never_flagged() {
        StudentT twoSided = new StudentT(20, Boundaries.both(0.99));
        assertThat(twoSided.evaluate(TTFT, 230, HISTORY).change()).isEqualTo(Change.IMPROVEMENT);
        assertThat(twoSided.evaluate(THROUGHPUT, 230, HISTORY).change()).isEqualTo(Change.REGRESSION);
        assertThat(twoSided.evaluate(THROUGHPUT, 270, HISTORY).change()).isEqualTo(Change.IMPROVEMENT);
        assertThat(twoSided.evaluate(THROUGHPUT, 230, HISTORY).threshold()).isCloseTo(-2.997952, within(1e-6));

        assertThat(new StudentT(20, Boundaries.upper(0.99)).evaluate(TTFT, 200, HISTORY).change()).isEqualTo(Change.NO_CHANGE);
        assertThat(new StudentT(20, Boundaries.regressionSide(Direction.HIGHER_IS_BETTER, 0.99))
                        .evaluate(THROUGHPUT, 230, HISTORY).change())
                .isEqualTo(Change.REGRESSION);
    }

    @Test
    void window_keeps_only_the_latest_runs() {
        double[] history = {1000, 1000, 1000, 250, 260, 240, 255, 245, 250, 248, 252};
        ThresholdResult r = new ZScore(8, Boundaries.upper(0.99)).evaluate(TTFT, 270, history);
        assertThat(r.n()).isEqualTo(8);
        assertThat(r.baseline()).isEqualTo(250);
        assertThat(r.statistic()).isCloseTo(3.294346, within(1e-6));
    }

    @Test
    void minimum_history_gives_insufficient_history_with_the_minimum_in_the_line() {
        ThresholdResult z = new ZScore(20, Boundaries.upper(0.99)).evaluate(TTFT, 270, new double[] {250});
        assertThat(z.change()).isEqualTo(Change.INSUFFICIENT_HISTORY);
        assertThat(z.describe()).isEqualTo("p99 TTFT 270 ms: 1 run of history, z-score needs >= 2: INSUFFICIENT_HISTORY");
        assertThat(new StudentT(20, Boundaries.upper(0.99)).evaluate(TTFT, 270, new double[] {250}).change())
                .isEqualTo(Change.INSUFFICIENT_HISTORY);
        // Two runs: mean 250.5, sd 0.7071, 1 df: t₀.₉₉ = 31.82, so 270 (t = 22.5) passes and 300 (t = 57.2) does not.
        assertThat(new StudentT(20, Boundaries.upper(0.99)).evaluate(TTFT, 270, new double[] {250, 251}).change())
                .isEqualTo(Change.NO_CHANGE);
        assertThat(new StudentT(20, Boundaries.upper(0.99)).evaluate(TTFT, 300, new double[] {250, 251}).change())
                .isEqualTo(Change.REGRESSION);
        RelativeChange relative = new RelativeChange(RelativeChange.Baseline.MEAN, 5, Boundaries.upper(0.10));
        assertThat(relative.evaluate(TTFT, 270, new double[0]).change()).isEqualTo(Change.INSUFFICIENT_HISTORY);
        assertThat(relative.evaluate(TTFT, 280, new double[] {250}).change()).isEqualTo(Change.REGRESSION);
    }

    @Test
    void a_history_without_spread_flags_any_difference_and_nothing_else() {
        double[] flat = {250, 250, 250};
        assertThat(new ZScore(20, Boundaries.upper(0.99)).evaluate(TTFT, 250, flat).change()).isEqualTo(Change.NO_CHANGE);
        ThresholdResult r = new StudentT(20, Boundaries.upper(0.99)).evaluate(TTFT, 251, flat);
        assertThat(r.change()).isEqualTo(Change.REGRESSION);
        assertThat(r.statistic()).isInfinite();
    }

    @Test
    void relative_change_against_mean_or_median() {
        double[] history = {100, 100, 100, 100, 200}; // mean 120, median 100
        RelativeChange mean = new RelativeChange(RelativeChange.Baseline.MEAN, 20, Boundaries.upper(0.10));
        RelativeChange median = new RelativeChange(RelativeChange.Baseline.MEDIAN, 20, Boundaries.upper(0.10));

        ThresholdResult byMean = mean.evaluate(TTFT, 125, history); // 125/120 − 1 = +4.17 %
        ThresholdResult byMedian = median.evaluate(TTFT, 125, history); // 125/100 − 1 = +25 %
        assertThat(byMean.change()).isEqualTo(Change.NO_CHANGE);
        assertThat(byMean.statistic()).isCloseTo(5.0 / 120, within(1e-12));
        assertThat(byMedian.change()).isEqualTo(Change.REGRESSION);
        assertThat(byMedian.statistic()).isCloseTo(0.25, within(1e-12));
        assertThat(byMedian.describe())
                .isEqualTo("p99 TTFT 125 ms vs median 100 ms of last 5 runs: change = +25.0 % > +10.0 %: REGRESSION");

        // Throughput with a lower boundary of 5 %: 94 against 100 is −6 %, a regression.
        RelativeChange throughput = new RelativeChange(RelativeChange.Baseline.MEDIAN, 20, Boundaries.lower(0.05));
        ThresholdResult drop = throughput.evaluate(THROUGHPUT, 94, history);
        assertThat(drop.change()).isEqualTo(Change.REGRESSION);
        assertThat(drop.threshold()).isCloseTo(-0.05, within(1e-12));
    }

    @Test
    void mann_whitney_matches_scipy_asymptotic_with_ties() {
        double[] current = {19, 22, 16, 29, 24, 25, 28, 30, 22};
        double[] previous = {20, 11, 17, 12, 14, 16, 18, 15};
        // Pooled ranks (ties averaged): the current samples' rank sum R = 112.5, so U = 112.5 − 9·10/2 = 67.5.
        // μ = 9·8/2 = 36; ties 16,16 and 22,22 give Σ(t³ − t) = 12; σ² = 72/12 · (18 − 12/(17·16)) = 107.735294.
        // z = (67.5 − 36 − 0.5)/√107.735294 = 2.986639; one-sided p = 1 − Φ(z) = 1.410314e-3, the value
        // scipy.stats.mannwhitneyu(current, previous, alternative="greater", method="asymptotic") prints.
        assertThat(MannWhitney.u(current, previous)).isEqualTo(67.5);
        ThresholdResult r = new MannWhitney(Boundaries.upper(0.99)).evaluate(TTFT, current, previous);
        assertThat(r.statistic()).isCloseTo(2.986639, within(1e-6));
        assertThat(r.pValue()).isCloseTo(1.410314e-3, within(1e-9));
        assertThat(r.change()).isEqualTo(Change.REGRESSION);
        assertThat(r.baseline()).isEqualTo(15.5);
        assertThat(r.current()).isEqualTo(24);
        assertThat(r.describe()).isEqualTo(
                "p99 TTFT median 24 ms (9 samples) vs median 15.5 ms of the previous run (8 samples): z = 2.99 > 2.33 (99 %), p = 0.00141: REGRESSION");

        // Swapped, with a two-sided 0.999 boundary (|z| > 3.090): not significant; at 0.99 an improvement.
        assertThat(new MannWhitney(Boundaries.both(0.999)).evaluate(TTFT, previous, current).change()).isEqualTo(Change.NO_CHANGE);
        ThresholdResult swapped = new MannWhitney(Boundaries.both(0.99)).evaluate(TTFT, previous, current);
        assertThat(swapped.statistic()).isCloseTo(-2.986639, within(1e-6));
        assertThat(swapped.change()).isEqualTo(Change.IMPROVEMENT);
    }

    @Test
    void welch_matches_scipy_ttest_ind_with_unequal_variances() {
        double[] current = {312, 298, 305, 330, 301, 322, 315, 309};
        double[] previous = {290, 301, 285, 297, 293, 288, 299};
        // Means 311.5 and 293.285714; variances 115.142857 and 35.571429, so v/n = 14.392857 and 5.081633;
        // t = 18.214286/√19.474490 = 4.127424; df = 19.474490²/(14.392857²/7 + 5.081633²/6) = 11.188374;
        // one-sided p = 8.10467e-4 and t₀.₉₉ = 2.710515 — scipy.stats.ttest_ind(current, previous, equal_var=False,
        // alternative="greater") and scipy.stats.t.ppf(0.99, 11.188374).
        ThresholdResult r = new Welch(Boundaries.upper(0.99)).evaluate(TTFT, current, previous);
        assertThat(r.statistic()).isCloseTo(4.127424, within(1e-6));
        assertThat(r.threshold()).isCloseTo(2.710515, within(1e-6));
        assertThat(r.pValue()).isCloseTo(8.10467e-4, within(1e-9));
        assertThat(r.change()).isEqualTo(Change.REGRESSION);
        assertThat(r.describe()).isEqualTo(
                "p99 TTFT mean 312 ms (8 samples) vs mean 293 ms of the previous run (7 samples): t = 4.13 > 2.71 (99 %), p = 0.000810: REGRESSION");
        assertThat(new Welch(Boundaries.upper(0.99)).evaluate(TTFT, new double[] {1}, previous).change())
                .isEqualTo(Change.INSUFFICIENT_HISTORY);
    }

    @Test
    void mann_whitney_needs_eight_samples_per_run_and_all_ties_are_no_change() {
        double[] seven = {1, 2, 3, 4, 5, 6, 7};
        double[] eight = {1, 2, 3, 4, 5, 6, 7, 8};
        MannWhitney test = new MannWhitney(Boundaries.upper(0.99));
        assertThat(test.evaluate(TTFT, eight, seven).change()).isEqualTo(Change.INSUFFICIENT_HISTORY);
        assertThat(test.evaluate(TTFT, seven, eight).describe()).endsWith("Mann-Whitney U needs >= 8: INSUFFICIENT_HISTORY");
        double[] same = {5, 5, 5, 5, 5, 5, 5, 5};
        assertThat(test.evaluate(TTFT, same, same).change()).isEqualTo(Change.NO_CHANGE);
    }

    @Test
    void bad_input_names_the_cause_and_the_fix() {
        assertThatThrownBy(() -> new ZScore(20, Boundaries.upper(2.58)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("z-score boundary 2.58 is not a cumulative probability in [0.5, 1)");
        assertThatThrownBy(() -> new Boundaries(Double.NaN, Double.NaN))
                .hasMessageContaining("set at least one");
        assertThatThrownBy(() -> new StudentT(0, Boundaries.upper(0.99))).hasMessageContaining("window 0 is below 1");
        assertThatThrownBy(() -> new StudentT(20, Boundaries.upper(0.99)).evaluate(TTFT, 1, new double[] {1, Double.NaN}))
                .hasMessageContaining("history holds NaN");
        assertThatThrownBy(() -> new Measure(" ", "ms", Direction.LOWER_IS_BETTER)).hasMessageContaining("blank");
    }
}
