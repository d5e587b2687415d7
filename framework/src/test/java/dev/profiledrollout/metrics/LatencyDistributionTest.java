package dev.profiledrollout.metrics;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LatencyDistributionTest {

    private static final long MS = 1_000_000L;

    @Test
    void should_report_recorded_values_at_three_significant_digits() {
        LatencyDistribution d = LatencyDistribution.of("test", new long[]{10 * MS, 20 * MS, 30 * MS, 40 * MS});
        assertThat(d.count()).isEqualTo(4);
        // HdrHistogram returns a recorded value (equivalent within 0.1 %), never an interpolation
        assertThat(d.percentile(50).toNanos()).isBetween(20 * MS, 20 * MS + 20 * MS / 1000);
        assertThat(d.percentile(100).toNanos()).isBetween(40 * MS, 40 * MS + 40 * MS / 1000);
        assertThat(d.min()).isEqualTo(Duration.ofMillis(10));
        assertThat(d.max()).isEqualTo(Duration.ofMillis(40));
        assertThat(d.mean()).isEqualTo(Duration.ofMillis(25));
    }

    @Test
    void should_never_report_a_percentile_above_the_recorded_maximum_or_below_the_minimum() {
        // 212.798 ms lands in a 131 µs HdrHistogram bucket whose highest equivalent value is 212.860927 ms
        long max = 212_798_000L;
        long min = 150_000_000L;
        LatencyDistribution d = LatencyDistribution.of("TTFT", new long[]{min, 180_000_000L, 200_000_000L, max});
        assertThat(d.histogram().getValueAtPercentile(99)).isGreaterThan(max);
        assertThat(d.histogram().getValueAtPercentile(0)).isLessThan(min);

        assertThat(d.percentile(99)).isEqualTo(Duration.ofNanos(max)).isEqualTo(d.max());
        assertThat(d.percentile(99.9)).isEqualTo(d.max());
        assertThat(d.percentile(100)).isEqualTo(d.max());
        assertThat(d.percentile(0)).isEqualTo(Duration.ofNanos(min)).isEqualTo(d.min());
        for (double p = 0; p <= 100; p += 0.5) {
            assertThat(d.percentile(p)).as("p%s", p).isBetween(d.min(), d.max());
        }
        // inside the range HdrHistogram's value stays: 180 ms comes back as its bucket's highest equivalent value
        assertThat(d.percentile(50).toNanos()).isEqualTo(d.histogram().getValueAtPercentile(50)).isGreaterThan(180 * MS);
    }

    @Test
    void should_report_the_single_sample_as_every_percentile() {
        LatencyDistribution d = LatencyDistribution.of("ITL", new long[]{3_459_123L});
        assertThat(d.percentile(50)).isEqualTo(d.percentile(99)).isEqualTo(d.max()).isEqualTo(d.min());
    }

    @Test
    void should_interpolate_like_numpy_when_asked() {
        LatencyDistribution d = LatencyDistribution.of("test", new long[]{40 * MS, 10 * MS, 30 * MS, 20 * MS});
        // np.percentile([10,20,30,40], 50) == 25; 90 → 37
        assertThat(d.interpolatedPercentile(50)).isEqualTo(Duration.ofMillis(25));
        assertThat(d.interpolatedPercentile(90)).isEqualTo(Duration.ofMillis(37));
        assertThat(d.interpolatedPercentile(0)).isEqualTo(Duration.ofMillis(10));
    }

    @Test
    void should_return_a_copy_of_the_histogram() {
        LatencyDistribution d = LatencyDistribution.of("test", new long[]{MS});
        d.histogram().recordValue(5 * MS);
        assertThat(d.histogram().getTotalCount()).isEqualTo(1);
    }

    @Test
    void should_fail_if_percentile_is_out_of_range() {
        LatencyDistribution d = LatencyDistribution.of("test", new long[]{MS});
        assertThatThrownBy(() -> d.percentile(101)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[0, 100]");
    }
}
