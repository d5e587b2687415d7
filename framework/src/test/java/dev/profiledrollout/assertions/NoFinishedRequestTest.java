package dev.profiledrollout.assertions;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.metrics.ErrorKind;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.Slo;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Throughput and goodput budgets over a load in which no request finished fail whatever the budget, where the zero
 * rates would otherwise pass a floor of 0 or any ceiling; latency statistics over no samples fail at once.
 */
class NoFinishedRequestTest {

    private static final long MS = 1_000_000;

    private static LatencyReport allFailed() {
        return LatencyReport.of(List.of(
                RequestRecord.failure(0, 16, 4, 0, new long[0], 5 * MS, 0, 0, ErrorKind.HTTP_STATUS, "HTTP 503"),
                RequestRecord.failure(1, 16, 4, MS, new long[] {2 * MS}, 9 * MS, 16, 1, ErrorKind.TIMEOUT,
                        "no chunk for 5 ms")),
                Slo.parse(List.of("ttft:250")));
    }

    @Test
    void goodput_and_throughput_over_no_finished_request_fail_even_against_a_floor_of_zero() {
        LatencyReport report = allFailed();

        assertThatThrownBy(() -> assertThat(report).goodput().isGreaterThanOrEqualTo(0))
                .hasMessageContaining("request goodput (SLO ttft:250) has no data")
                .hasMessageContaining("no request finished: 2 sent, 2 failed");
        assertThatThrownBy(() -> assertThat(report).goodRequests().isLessThan(10))
                .hasMessageContaining("good requests (SLO ttft:250) has no data");
        assertThatThrownBy(() -> assertThat(report).goodRequestFraction().isLessThanOrEqualTo(1))
                .hasMessageContaining("no request finished");
        assertThatThrownBy(() -> assertThat(report).requestThroughput().isGreaterThanOrEqualTo(0))
                .hasMessageContaining("request throughput has no data");
        assertThatThrownBy(() -> assertThat(report).outputTokenThroughput().isLessThan(1e9))
                .hasMessageContaining("output token throughput has no data");
    }

    @Test
    void a_percentile_over_no_sample_fails_at_once() {
        LatencyReport report = allFailed();

        assertThatThrownBy(() -> assertThat(report).ttft().percentile(99).isLessThan(Duration.ofSeconds(1)))
                .hasMessageContaining("TTFT has no samples");
    }

    @Test
    void one_finished_request_is_data() {
        LatencyReport report = LatencyReport.of(List.of(
                RequestRecord.success(0, 16, 2, 0, new long[] {3 * MS, 4 * MS}, 16, 2)), Slo.parse(List.of("ttft:250")));

        assertThat(report).goodRequests().isEqualTo(1);
        assertThat(report).requestThroughput().isGreaterThan(0);
    }
}
