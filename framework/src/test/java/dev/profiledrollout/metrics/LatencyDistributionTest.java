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
