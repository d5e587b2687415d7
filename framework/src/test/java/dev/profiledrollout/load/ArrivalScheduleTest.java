package dev.profiledrollout.load;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class ArrivalScheduleTest {

    private static final int N = 20_000;

    private static double[] gaps(ArrivalSchedule s) {
        double[] g = new double[s.size()];
        long previous = 0;
        for (int i = 0; i < s.size(); i++) {
            g[i] = (s.offsetNanos(i) - previous) / 1e9;
            previous = s.offsetNanos(i);
        }
        return g;
    }

    private static double mean(double[] v, int from, int to) {
        double sum = 0;
        for (int i = from; i < to; i++) {
            sum += v[i];
        }
        return sum / (to - from);
    }

    private static double cv(double[] v) {
        double m = mean(v, 0, v.length);
        double sq = 0;
        for (double x : v) {
            sq += (x - m) * (x - m);
        }
        return Math.sqrt(sq / v.length) / m;
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.25, 0.5, 1.0, 2.0, 8.0})
    void gamma_gaps_have_cv_one_over_sqrt_burstiness(double burstiness) {
        // GIVEN / WHEN
        ArrivalSchedule s = ArrivalProcess.gamma(500, burstiness).schedule(N, 42);
        // THEN: the CV estimate's relative standard error is about sqrt((1+3/(2b))/(2N)) < 2 % here; allow 5 %
        double expected = 1 / Math.sqrt(burstiness);
        assertThat(cv(gaps(s))).isCloseTo(expected, within(0.05 * expected));
    }

    @Test
    void rescaled_last_arrival_is_exactly_n_over_rate_and_first_is_not_zero() {
        ArrivalSchedule s = ArrivalProcess.poisson(250).schedule(1000, 7);
        assertThat(s.offsetNanos(999)).isEqualTo(4_000_000_000L);
        assertThat(s.offsetNanos(0)).isPositive();
        long[] offsets = s.offsetsNanos();
        for (int i = 1; i < offsets.length; i++) {
            assertThat(offsets[i]).isGreaterThanOrEqualTo(offsets[i - 1]);
        }
    }

    @Test
    void poisson_mean_rate_over_any_half_is_within_sampling_tolerance() {
        // GIVEN: 20 000 exponential gaps at 1000 req/s; the first half's mean gap has relative SE 1/sqrt(10 000)
        double[] g = gaps(ArrivalProcess.poisson(1000).schedule(N, 3));
        // THEN: within 5 standard errors
        assertThat(mean(g, 0, N / 2)).isCloseTo(1e-3, within(5e-3 / Math.sqrt(N / 2.0)));
        assertThat(mean(g, 0, N)).isCloseTo(1e-3, within(1e-9));
    }

    @Test
    void infinite_burstiness_is_constant_spacing_starting_at_one_gap() {
        ArrivalSchedule s = ArrivalProcess.constant(100).schedule(5, 1);
        assertThat(s.offsetsNanos()).containsExactly(10_000_000L, 20_000_000L, 30_000_000L, 40_000_000L, 50_000_000L);
    }

    @Test
    void same_seed_same_schedule_other_seed_other_schedule() {
        assertThat(ArrivalProcess.poisson(10).schedule(100, 5).offsetsNanos())
                .containsExactly(ArrivalProcess.poisson(10).schedule(100, 5).offsetsNanos());
        assertThat(ArrivalProcess.poisson(10).schedule(100, 6).offsetsNanos())
                .isNotEqualTo(ArrivalProcess.poisson(10).schedule(100, 5).offsetsNanos());
    }

    @Test
    void linear_ramp_follows_vllms_rate_formula_without_rescaling() {
        // GIVEN: constant gaps so each gap is exactly 1/rate_i, rate_i = 10 + 90·i/(N−1)
        int n = 11;
        ArrivalSchedule s = ArrivalProcess.linearRamp(10, 100, Double.POSITIVE_INFINITY).schedule(n, 0);
        double[] g = gaps(s);
        for (int i = 0; i < n; i++) {
            assertThat(g[i]).isCloseTo(1.0 / (10 + 90.0 * i / (n - 1)), within(2e-9));
        }
    }

    @Test
    void exponential_ramp_follows_vllms_rate_formula_without_rescaling() {
        // GIVEN: constant gaps so each gap is exactly 1/rate_i, rate_i = 10·(100/10)^(i/(N−1))
        int n = 11;
        double[] g = gaps(ArrivalProcess.exponentialRamp(10, 100, Double.POSITIVE_INFINITY).schedule(n, 0));
        for (int i = 0; i < n; i++) {
            assertThat(g[i]).isCloseTo(1.0 / (10 * Math.pow(10, (double) i / (n - 1))), within(2e-9));
        }
        // the geometric midpoint: rate 10·√10 ≈ 31.6 at the middle request, where a linear ramp has 55
        assertThat(ArrivalProcess.exponentialRamp(10, 100, 1).rateAt(5, 11)).isCloseTo(Math.sqrt(1000), within(1e-9));
        assertThat(ArrivalProcess.linearRamp(10, 100, 1).rateAt(5, 11)).isCloseTo(55, within(1e-9));
    }

    @Test
    void poisson_ramp_gaps_average_one_over_the_ramp_rate() {
        double[] g = gaps(ArrivalProcess.linearRamp(100, 1000, 1.0).schedule(N, 11));
        // the mean gap over the first and last 5 % equals the mean of 1/rate_i there, within 5 standard errors
        int k = N / 20;
        for (int from : new int[] {0, N - k}) {
            double expected = 0;
            for (int i = from; i < from + k; i++) {
                expected += 1 / (100 + 900.0 * i / (N - 1));
            }
            expected /= k;
            assertThat(mean(g, from, from + k)).isCloseTo(expected, within(expected * 5 / Math.sqrt(k)));
        }
    }

    @Test
    void closed_loop_releases_everything_at_zero() {
        assertThat(ArrivalProcess.closedLoop().schedule(3, 0).offsetsNanos()).containsExactly(0, 0, 0);
    }

    @Test
    void invalid_processes_are_rejected_with_the_allowed_values() {
        assertThatThrownBy(() -> ArrivalProcess.poisson(0)).hasMessageContaining("requestRate must be > 0");
        assertThatThrownBy(() -> ArrivalProcess.gamma(1, 0)).hasMessageContaining("burstiness must be > 0");
        assertThatThrownBy(() -> ArrivalProcess.linearRamp(Double.POSITIVE_INFINITY, 5, 1))
                .hasMessageContaining("a ramp needs finite start and end rates");
    }
}
