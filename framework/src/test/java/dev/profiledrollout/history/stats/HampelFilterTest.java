package dev.profiledrollout.history.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class HampelFilterTest {

    private static final Measure PREFILL = new Measure("GPU µs per prefill token at 1k", "µs",
            Direction.LOWER_IS_BETTER);

    /**
     * {@code kernel.extend.us_per_token.at1k} of the 20 base runs of history 0 of the 2026-11-28 detection study
     * (/tmp/study3, bench/README.md), oldest first: the last run's fit came out 15 % low. Median 22.8525, MAD 0.2255,
     * so Iglewicz and Hoaglin's cut-off 3.5 · 1.4826 · 0.2255 = 1.1701 leaves out 19.641 alone, and 3.0 (1.0030) also
     * 21.685 (1.1675 from the median).
     */
    private static final double[] PREFILL_FIT_WINDOW = {23.817, 22.796, 22.807, 23.402, 23.087, 22.242, 22.737,
            23.395, 23.063, 22.72, 23.159, 22.578, 22.938, 23.069, 22.669, 22.898, 21.685, 23.252, 22.798, 19.641};

    /** The first of that history's runs with prefill kernels +10 %. */
    private static final double FIRST_SHIFTED = 25.553;

    private static double[] without(double[] values, double... dropped) {
        return Arrays.stream(values).filter(v -> Arrays.stream(dropped).noneMatch(d -> d == v)).toArray();
    }

    @Test
    void leaves_out_the_one_outlying_run_of_a_real_window_and_keeps_the_order() {
        assertThat(HampelFilter.inliers(PREFILL_FIT_WINDOW, HampelFilter.IGLEWICZ_HOAGLIN_K))
                .containsExactly(without(PREFILL_FIT_WINDOW, 19.641));
        assertThat(HampelFilter.inliers(PREFILL_FIT_WINDOW, 3.0))
                .containsExactly(without(PREFILL_FIT_WINDOW, 19.641, 21.685));
        assertThat(HampelFilter.inliers(PREFILL_FIT_WINDOW, 5.0))
                .containsExactly(without(PREFILL_FIT_WINDOW, 19.641));
        assertThat(HampelFilter.inliers(PREFILL_FIT_WINDOW, Double.POSITIVE_INFINITY))
                .containsExactly(PREFILL_FIT_WINDOW);
    }

    @Test
    void a_value_exactly_at_the_cut_off_is_kept_and_one_beyond_it_is_not() {
        // 11 values with median 0 and MAD 1 whatever the last one is, as long as it lies above 1
        double limit = HampelFilter.IGLEWICZ_HOAGLIN_K * HampelFilter.MAD_TO_SD * 1.0;
        double[] at = {-1, -1, -1, 0, 0, 0, 1, 1, 1, 1, limit};
        double[] beyond = {-1, -1, -1, 0, 0, 0, 1, 1, 1, 1, Math.nextUp(limit)};
        assertThat(HampelFilter.inliers(at, HampelFilter.IGLEWICZ_HOAGLIN_K)).containsExactly(at);
        assertThat(HampelFilter.inliers(beyond, HampelFilter.IGLEWICZ_HOAGLIN_K))
                .containsExactly(-1, -1, -1, 0, 0, 0, 1, 1, 1, 1);
    }

    @Test
    void an_outlier_above_the_median_is_left_out_as_one_below() {
        // the window mirrored about its median 22.8525: same median and MAD, the outlier now 3.2 above
        double[] high = Arrays.stream(PREFILL_FIT_WINDOW).map(v -> 2 * 22.8525 - v).toArray();
        assertThat(HampelFilter.inliers(high, HampelFilter.IGLEWICZ_HOAGLIN_K))
                .containsExactly(Arrays.copyOf(high, 19));
        assertThat(HampelFilter.inliers(high, 3.0)).hasSize(18).doesNotContain(high[16], high[19]);
    }

    /**
     * With every run Student's t's limit at 0.999 lies 13.8 % above the mean (t = 3.216 ≤ 3.579 for 19 df), so the
     * +10 % run passed; without the outlying run the limit is 7.4 % above a mean of 22.9006 (t = 5.645 > 3.611 for
     * 18 df; scipy.stats.t.ppf(0.999, 18)).
     */
    @Test
    void student_t_over_the_kept_runs_catches_the_shift_that_the_outlier_hid() {
        Boundaries upper = Boundaries.upper(0.999);

        ThresholdResult all = new StudentT(20, upper).evaluate(PREFILL, FIRST_SHIFTED, PREFILL_FIT_WINDOW);
        ThresholdResult robust = new StudentT(20, upper, HampelFilter.IGLEWICZ_HOAGLIN_K)
                .evaluate(PREFILL, FIRST_SHIFTED, PREFILL_FIT_WINDOW);

        assertThat(all.change()).isEqualTo(Change.NO_CHANGE);
        assertThat(all.statistic()).isCloseTo(3.216, within(1e-3));
        assertThat(all.n()).isEqualTo(20);
        assertThat(robust.change()).isEqualTo(Change.REGRESSION);
        assertThat(robust.statistic()).isCloseTo(5.645, within(1e-3));
        assertThat(robust.threshold()).isCloseTo(3.6105, within(1e-4));
        assertThat(robust.baseline()).isCloseTo(22.9006, within(1e-4));
        assertThat(robust.n()).isEqualTo(19);
    }

    @Test
    void a_window_without_spread_is_kept_whole() {
        // the examples' noise-free simulator: most runs give one figure, a few a wobble; MAD = 0
        double[] flat = {22.0, 22.0, 22.0, 22.0, 22.0, 22.0, 22.0, 22.0, 22.0, 22.0, 22.0, 22.0, 22.0, 22.3, 21.8,
                22.0, 22.0, 22.1, 22.0, 21.9};
        assertThat(HampelFilter.inliers(flat, HampelFilter.IGLEWICZ_HOAGLIN_K)).containsExactly(flat);
        double[] constant = new double[20];
        Arrays.fill(constant, 5.0);
        assertThat(HampelFilter.inliers(constant, 3.0)).containsExactly(constant);

        ThresholdResult plain = new StudentT(20, Boundaries.upper(0.999)).evaluate(PREFILL, 22.2, flat);
        ThresholdResult robust = new StudentT(20, Boundaries.upper(0.999), 3.5).evaluate(PREFILL, 22.2, flat);
        assertThat(robust.statistic()).isEqualTo(plain.statistic());
        assertThat(robust.n()).isEqualTo(20);
    }

    @Test
    void a_window_shorter_than_ten_is_kept_whole_and_the_result_is_a_copy() {
        assertThat(HampelFilter.inliers(new double[0], 3.5)).isEmpty();
        // the last 9 runs of the study window: 19.641 lies as far out as in the 20, but 9 runs are too few to judge
        double[] nine = Arrays.copyOfRange(PREFILL_FIT_WINDOW, 11, 20);
        assertThat(HampelFilter.inliers(nine, 3.5)).containsExactly(nine);
        double[] ten = Arrays.copyOfRange(PREFILL_FIT_WINDOW, 10, 20);
        assertThat(HampelFilter.inliers(ten, 3.5)).containsExactly(Arrays.copyOf(ten, 9));
        double[] window = PREFILL_FIT_WINDOW.clone();
        double[] kept = HampelFilter.inliers(window, Double.POSITIVE_INFINITY);
        kept[0] = -1;
        assertThat(window[0]).isEqualTo(23.817);
    }

    @Test
    void rejects_a_cutoff_not_above_zero_and_values_that_are_not_finite() {
        for (double k : new double[] {0, -3.5, Double.NaN}) {
            assertThatThrownBy(() -> HampelFilter.inliers(PREFILL_FIT_WINDOW, k))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cut-off k is " + k);
        }
        assertThatThrownBy(() -> HampelFilter.inliers(new double[] {1, Double.NaN, 2}, 3.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NaN");
        assertThatThrownBy(() -> HampelFilter.inliers(new double[] {1, 2, Double.POSITIVE_INFINITY}, 3.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Infinity");
        assertThatThrownBy(() -> new StudentT(20, Boundaries.upper(0.99), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outlier cut-off 0.0");
        assertThatThrownBy(() -> new ZScore(20, Boundaries.upper(0.99), Double.NaN))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outlier cut-off NaN");
    }
}
