package dev.profiledrollout.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class QuantileIntervalTest {

    /** 1, 2, …, n ms, so the sample of rank r is r ms. */
    private static LatencyDistribution uniformMs(int n) {
        return LatencyDistribution.of("test", LongStream.rangeClosed(1, n).map(ms -> ms * 1_000_000L).toArray());
    }

    // Expected ranks computed independently with exact rational binomial CDFs (Python fractions + math.comb):
    // l = max{r ≥ 1 : P(B ≤ r−1) ≤ 0.025}, u = min{r ≤ n : P(B ≤ r−1) ≥ 0.975}, B ~ Bin(n, p/100).
    @ParameterizedTest
    @CsvSource({"1000, 50, 469, 532", "1000, 90, 881, 919", "1000, 99, 983, 997", "50, 50, 18, 33"})
    void should_take_the_exact_order_statistics_of_the_binomial_interval(int n, double p, int lower, int upper) {
        // WHEN
        QuantileInterval ci = uniformMs(n).percentileInterval(p);
        // THEN
        assertThat(ci.lowerRank()).isEqualTo(lower);
        assertThat(ci.upperRank()).isEqualTo(upper);
        assertThat(ci.low()).contains(Duration.ofMillis(lower));
        assertThat(ci.high()).contains(Duration.ofMillis(upper));
        assertThat(ci.bounded()).isTrue();
        assertThat(ci.confidence()).isEqualTo(0.95);
        assertThat(ci.count()).isEqualTo(n);
    }

    @Test
    void should_leave_the_upper_end_open_for_p99_of_50_samples() {
        // 0.99^50 ≈ 0.605 > 0.025: even the largest sample is below the true p99 too often to bound it
        QuantileInterval ci = uniformMs(50).percentileInterval(99);
        assertThat(ci.high()).isEmpty();
        assertThat(ci.upperRank()).isZero();
        assertThat(ci.bounded()).isFalse();
        assertThat(ci.low()).contains(Duration.ofMillis(48));
    }

    @Test
    void should_leave_both_ends_open_for_the_median_of_three_samples_and_for_no_samples() {
        // P(B = 0) = P(B = 3) = 1/8 > 0.025
        QuantileInterval three = uniformMs(3).percentileInterval(50);
        assertThat(three.low()).isEmpty();
        assertThat(three.high()).isEmpty();
        QuantileInterval none = LatencyDistribution.of("test", new long[0]).percentileInterval(50);
        assertThat(none.low()).isEmpty();
        assertThat(none.high()).isEmpty();
    }

    @Test
    void should_widen_with_the_confidence() {
        LatencyDistribution d = uniformMs(1000);
        QuantileInterval c90 = d.percentileInterval(50, 0.90);
        QuantileInterval c99 = d.percentileInterval(50, 0.99);
        assertThat(c99.lowerRank()).isLessThan(c90.lowerRank());
        assertThat(c99.upperRank()).isGreaterThan(c90.upperRank());
    }

    @Test
    void should_use_exact_samples_in_any_order() {
        long[] shuffled = {7_000_001L, 1_000_003L, 5_000_002L, 3_000_000L, 9_000_009L, 2_000_000L, 8_000_000L,
                4_000_000L, 6_000_000L, 10_000_000L, 11_000_000L, 12_000_000L, 13_000_000L, 14_000_000L,
                15_000_000L, 16_000_000L, 17_000_000L, 18_000_000L, 19_000_000L, 20_000_000L};
        // n = 20, p50: P(B ≤ 5) ≈ 0.0207 ≤ 0.025 < P(B ≤ 6) so l = 6; by symmetry u = 15
        QuantileInterval ci = LatencyDistribution.of("test", shuffled).percentileInterval(50);
        assertThat(ci.lowerRank()).isEqualTo(6);
        assertThat(ci.upperRank()).isEqualTo(15);
        assertThat(ci.low()).contains(Duration.ofNanos(6_000_000L));
        assertThat(ci.high()).contains(Duration.ofNanos(15_000_000L));
    }

    @Test
    void should_reject_a_confidence_outside_zero_to_one() {
        assertThatThrownBy(() -> uniformMs(10).percentileInterval(50, 95))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confidence must be in (0, 1)");
        assertThatThrownBy(() -> uniformMs(10).percentileInterval(101))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("percentile must be in [0, 100]");
    }
}
