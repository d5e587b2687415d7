package dev.profiledrollout.metrics;

import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class LatencyReportTest {

    private static final long MS = 1_000_000L;
    private static final long T0 = 5_000 * MS;

    /** Chunks at the given offsets (ms) from a start at {@code startMs} after T0. */
    private static RequestRecord ok(int index, long startMs, int promptTokens, int completionTokens, long... offsetsMs) {
        long start = T0 + startMs * MS;
        long[] chunks = new long[offsetsMs.length];
        for (int i = 0; i < chunks.length; i++) {
            chunks[i] = start + offsetsMs[i] * MS;
        }
        return RequestRecord.success(index, 100, 16, start, chunks, promptTokens, completionTokens);
    }

    @Test
    void should_compute_ttft_itl_e2e_tpot_as_vllm_defines_them() {
        // GIVEN chunks at +10, +20, +35 ms and 3 completion tokens
        LatencyReport report = LatencyReport.of(List.of(ok(0, 0, 100, 3, 10, 20, 35)));
        // THEN
        assertThat(report.ttft().count()).isEqualTo(1);
        assertThat(report.ttft().min()).isEqualTo(Duration.ofMillis(10));
        assertThat(report.itl().valuesNanos()).containsExactly(10 * MS, 15 * MS);
        assertThat(report.e2e().max()).isEqualTo(Duration.ofMillis(35));
        assertThat(report.tpot().valuesNanos()).containsExactly(12_500_000L);
        assertThat(report.tpot().mean()).isEqualTo(Duration.ofNanos(12_500_000));
        assertThat(report.ttft().definition()).contains("TTFT").contains("vLLM");
        assertThat(report.tpot().definition()).contains("(E2E − TTFT) / (output tokens − 1)");
    }

    @Test
    void should_pool_itl_over_requests_and_skip_tpot_for_single_token_requests() {
        LatencyReport report = LatencyReport.of(List.of(
                ok(0, 0, 100, 3, 10, 20, 35),
                ok(1, 5, 100, 1, 40),             // one token: TTFT and E2E, no ITL, no TPOT
                ok(2, 10, 100, 8, 5, 25)));       // one multi-token chunk: TPOT (25-5)/7
        assertThat(report.ttft().count()).isEqualTo(3);
        assertThat(report.e2e().count()).isEqualTo(3);
        assertThat(report.itl().valuesNanos()).containsExactly(10 * MS, 15 * MS, 20 * MS);
        assertThat(report.tpot().valuesNanos()).containsExactly(Math.round(20.0 * MS / 7), 12_500_000L);
        assertThat(report.outputTokens()).isEqualTo(12);
        assertThat(report.inputTokens()).isEqualTo(300);
    }

    @Test
    void should_exclude_failures_from_latency_but_count_them_by_kind() {
        long start = T0 + 50 * MS;
        RequestRecord http = RequestRecord.failure(1, 100, 16, start, new long[0], start + 2 * MS, -1, -1,
                ErrorKind.HTTP_STATUS, "HTTP 500");
        RequestRecord broken = RequestRecord.failure(2, 100, 16, start, new long[]{start + MS}, start + 3 * MS, -1, -1,
                ErrorKind.CONNECTION, "reset");
        RequestRecord noChunks = RequestRecord.failure(3, 100, 16, start, new long[0], start + MS, -1, -1,
                ErrorKind.HTTP_STATUS, "HTTP 503");
        LatencyReport report = LatencyReport.of(List.of(ok(0, 0, 100, 3, 10, 20, 35), http, broken, noChunks));
        assertThat(report.completed()).isEqualTo(1);
        assertThat(report.failed()).isEqualTo(3);
        assertThat(report.errors()).containsOnly(Map.entry(ErrorKind.HTTP_STATUS, 2L), Map.entry(ErrorKind.CONNECTION, 1L));
        assertThat(report.ttft().count()).isEqualTo(1);
        assertThat(report.itl().count()).isEqualTo(2);
        assertThat(report.outputTokens()).isEqualTo(3);
    }

    @Test
    void should_compute_throughput_over_first_start_to_last_end() {
        // GIVEN request 0: 0 → 35 ms; request 1: 65 → 65 + 35 = 100 ms; a failure ending at 80 ms
        long failStart = T0 + 70 * MS;
        LatencyReport report = LatencyReport.of(List.of(
                ok(0, 0, 100, 3, 10, 20, 35),
                ok(1, 65, 150, 5, 10, 20, 35),
                RequestRecord.failure(2, 100, 16, failStart, new long[0], failStart + 10 * MS, -1, -1,
                        ErrorKind.TIMEOUT, "timeout")));
        // THEN duration 100 ms
        assertThat(report.duration()).isEqualTo(Duration.ofMillis(100));
        assertThat(report.requestThroughput()).isCloseTo(20.0, within(1e-9));
        assertThat(report.outputTokens()).isEqualTo(8);
        assertThat(report.outputTokenThroughput()).isCloseTo(80.0, within(1e-9));
        assertThat(report.inputTokens()).isEqualTo(250);
        assertThat(report.totalTokenThroughput()).isCloseTo(2580.0, within(1e-9));
    }

    @Test
    void should_not_assume_output_tokens_without_usage() {
        LatencyReport report = LatencyReport.of(List.of(ok(0, 0, -1, -1, 10, 20, 35)));
        assertThat(report.outputTokens()).isZero();
        assertThat(report.tpot().count()).isZero();
        assertThat(report.requestsWithoutUsage()).isEqualTo(1);
        assertThat(report.inputTokens()).isEqualTo(100); // falls back to the requested prompt length
        assertThat(report.toTable()).contains("no usage");
    }

    @Test
    void should_answer_zero_for_an_empty_run() {
        LatencyReport report = LatencyReport.of(List.of());
        assertThat(report.duration()).isEqualTo(Duration.ZERO);
        assertThat(report.requestThroughput()).isZero();
        assertThat(report.ttft().percentile(99)).isEqualTo(Duration.ZERO);
        assertThat(report.toTable()).contains("TTFT");
    }

    @Test
    void should_print_a_row_per_metric_with_throughput_and_errors() {
        long start = T0 + 50 * MS;
        LatencyReport report = LatencyReport.of(List.of(ok(0, 0, 100, 3, 10, 20, 35),
                RequestRecord.failure(1, 100, 16, start, new long[0], start + MS, -1, -1, ErrorKind.IN_STREAM_ERROR,
                        "in-stream error: out of memory")));
        String table = report.toTable();
        assertThat(table).containsPattern("(?m)^metric \\| +count \\| +mean ms \\| +p50 ms \\| +p90 ms \\| +p99 ms \\| +max ms");
        assertThat(table).containsPattern("(?m)^TTFT +\\| +1 \\| +10\\.000 \\|");
        assertThat(table).containsPattern("(?m)^ITL +\\| +2 \\|");
        assertThat(table).containsPattern("(?m)^TPOT +\\| +1 \\| +12\\.500 \\|");
        assertThat(table).containsPattern("(?m)^E2E +\\| +1 \\| +35\\.000 \\|");
        assertThat(table).contains("1 completed, 1 failed").contains("req/s").contains("tok/s");
        assertThat(table).contains("IN_STREAM_ERROR=1").contains("out of memory");
    }

    @Test
    void should_print_none_for_a_metric_without_samples_rather_than_a_measured_zero() {
        // GIVEN one-token completions: TTFT and E2E, but no chunk gap and no TPOT
        LatencyReport report = LatencyReport.of(List.of(ok(0, 0, 4096, 1, 40), ok(1, 5, 4096, 1, 45)));
        // WHEN
        String table = report.toTable();
        // THEN
        assertThat(table).containsPattern("(?m)^ITL +\\| +0 \\| +none \\| +none \\| +none \\| +none \\| +none$");
        assertThat(table).containsPattern("(?m)^TPOT +\\| +0 \\| +none \\|");
        assertThat(table).containsPattern("(?m)^TTFT +\\| +2 \\| +42\\.500 \\|");
        assertThat(table).doesNotContainPattern("(?m)^(ITL|TPOT) .*0\\.000");
    }

    @Test
    void should_write_a_histogram_log_readable_with_the_hdr_reader() {
        // GIVEN
        LatencyReport report = LatencyReport.of(List.of(ok(0, 0, 100, 3, 10, 20, 35), ok(1, 5, 100, 2, 12, 30)));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // WHEN
        report.writeHistogramLog(out);
        // THEN
        HistogramLogReader reader = new HistogramLogReader(new ByteArrayInputStream(out.toByteArray()));
        Map<String, Histogram> byTag = new HashMap<>();
        EncodableHistogram h;
        while ((h = reader.nextIntervalHistogram()) != null) {
            byTag.put(h.getTag(), (Histogram) h);
        }
        assertThat(byTag).containsOnlyKeys("TTFT", "ITL", "TPOT", "E2E");
        assertThat(byTag.get("TTFT").getTotalCount()).isEqualTo(2);
        assertThat(byTag.get("ITL").getTotalCount()).isEqualTo(3);
        assertThat(byTag.get("TPOT").getTotalCount()).isEqualTo(2);
        assertThat(byTag.get("E2E").getMaxValue()).isEqualTo(byTag.get("E2E").highestEquivalentValue(35 * MS));
    }
}
