package dev.profiledrollout.cli.bench;

import dev.profiledrollout.metrics.ErrorKind;
import dev.profiledrollout.metrics.LatencyDistribution;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.ScheduleReport;
import dev.profiledrollout.metrics.Slo;
import dev.profiledrollout.metrics.TimeSeries;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@link BenchmarkSummary}'s table and JSON on small hand-built runs whose every figure is known: the headline rows,
 * the duration in seconds, population standard deviations, prompt-length mismatches and the optional lines.
 */
class BenchmarkOutputTest {

    private static final long MS = 1_000_000L;

    /** Two successes (3 tokens each), one failure; 1.5 s from the first send to the last end. */
    private static List<RequestRecord> run() {
        return List.of(
                RequestRecord.success(0, 10, 3, 0, new long[]{10 * MS, 12 * MS, 16 * MS}, 10, 3),
                RequestRecord.success(1, 20, 3, 100 * MS, new long[]{130 * MS, 131 * MS, 1_500 * MS}, 20, 3),
                RequestRecord.failure(2, 30, 3, 200 * MS, new long[0], 210 * MS, -1, -1, ErrorKind.HTTP_STATUS,
                        "HTTP 500"));
    }

    private static BenchmarkSummary summary(List<RequestRecord> records, double rate, int maxConcurrency, Slo slo) {
        return new BenchmarkSummary("sglang", "m", records.size(), rate, 1.0, maxConcurrency,
                LatencyReport.of(records, slo), ScheduleReport.of(records), TimeSeries.of(records, 0), slo);
    }

    private static String line(String label, String value) {
        return String.format("%-40s %-10s%n", label, value);
    }

    @Test
    void the_headline_rows_carry_the_runs_counts_tokens_and_duration_in_seconds() {
        BenchmarkSummary s = summary(run(), 4, 8, Slo.none());
        String table = s.toTable();
        assertThat(table).startsWith("=".repeat(12) + " Serving Benchmark Result " + "=".repeat(12) + "\n");
        // the odd pad goes to the right, as Python's str.center does for these titles
        assertThat(table).contains("-".repeat(15) + "Time to First Token" + "-".repeat(16) + "\n");
        assertThat(table).contains(
                line("Successful requests:", "2"),
                line("Failed requests:", "1"),
                line("Maximum request concurrency:", "8"),
                line("Request rate configured (RPS):", "4.00"),
                line("Benchmark duration (s):", "1.50"),
                line("Total input tokens:", "30"),
                line("Total generated tokens:", "6"),
                line("Request throughput (req/s):", "1.33"),
                line("Output token throughput (tok/s):", "4.00"),
                line("Total Token throughput (tok/s):", "24.00"));
        assertThat(table).contains(line("Peak output token throughput (tok/s):",
                        String.format(java.util.Locale.ROOT, "%.2f", (double) s.series().maxOutputTokensPerSecond())),
                line("Peak concurrent requests:", String.valueOf(s.series().maxConcurrentRequests())));
        assertThat(s.series().maxConcurrentRequests()).isPositive();
        assertThat(table).contains("Schedule Lag (actual - intended send)", "TTFT from intended send",
                "E2EL from intended send", "errors: {HTTP_STATUS=1}\n");
        assertThat(table).doesNotContain("Request goodput", "warning:", "had no usage");
        assertThat(table).endsWith("=".repeat(50) + "\nerrors: {HTTP_STATUS=1}\n" + s.schedule().verdict() + "\n");

        JsonNode json = s.toJson();
        assertThat(json.get("duration").asDouble()).isEqualTo(1.5);
        assertThat(json.get("request_rate").asDouble()).isEqualTo(4.0);
        assertThat(json.get("max_concurrency").asInt()).isEqualTo(8);
        assertThat(json.get("request_goodput").isNull()).isTrue();
        assertThat(json.get("client_fell_behind").asBoolean()).isFalse();
        assertThat(json.get("isl_mismatches").asLong()).isZero();
        assertThat(json.get("errors_by_kind").get("HTTP_STATUS").asLong()).isEqualTo(1);
        assertThat(s.requestGoodput()).isNull();
        // schedule-corrected latencies: the records have no schedule, so they equal the service ones
        assertThat(json.get("mean_corrected_ttft_ms").asDouble()).isEqualTo(20.0);
        assertThat(json.get("max_corrected_e2el_ms").asDouble()).isEqualTo(1_400.0);
        assertThat(table).contains(line("Max TTFT (ms):", "30.00"), line("Max E2EL (ms):", "1400.00"));
    }

    @Test
    void percentiles_0_and_100_are_reported_and_beyond_them_rejected() {
        BenchmarkSummary s = summary(run(), 4, 0, Slo.none()).withPercentiles(List.of("ttft"), List.of(0.0, 100.0));
        assertThat(s.toJson().get("p0_ttft_ms").asDouble()).isEqualTo(10.0);
        assertThat(s.toJson().get("p100_ttft_ms").asDouble()).isEqualTo(30.0);
        for (double bad : new double[]{-0.5, 100.5, Double.NaN}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.withPercentiles(List.of("ttft"), List.of(bad)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[0, 100]");
        }
    }

    @Test
    void an_unbounded_rate_no_concurrency_limit_and_no_failure_print_as_vllm_does() {
        List<RequestRecord> ok = run().subList(0, 2);
        BenchmarkSummary s = summary(ok, Double.POSITIVE_INFINITY, 0, Slo.none());
        String table = s.toTable();
        assertThat(table).contains(line("Request rate configured (RPS):", "inf"))
                .doesNotContain("Maximum request concurrency", "errors:");
        JsonNode json = s.toJson();
        assertThat(json.get("request_rate").asText()).isEqualTo("inf");
        assertThat(json.get("max_concurrency").isNull()).isTrue();
        assertThat(json.get("errors_by_kind").size()).isZero();
    }

    @Test
    void goodput_appears_with_an_slo_only() {
        Slo slo = new Slo(Duration.ofMillis(20), null, null); // request 0 (TTFT 10 ms) is good, request 1 (30 ms) not
        BenchmarkSummary s = summary(run(), 4, 0, slo);
        assertThat(s.requestGoodput()).isCloseTo(1 / 1.5, within(1e-9));
        assertThat(s.toTable()).contains(line("Request goodput (req/s):", "0.67"));
        assertThat(s.toJson().get("request_goodput").asDouble()).isCloseTo(1 / 1.5, within(1e-9));
    }

    @Test
    void standard_deviations_are_numpys_population_ones_in_milliseconds() {
        LatencyDistribution d = LatencyDistribution.of("d", new long[]{1 * MS, 2 * MS, 3 * MS, 6 * MS});
        // mean 3 ms; squared deviations 4 + 1 + 0 + 9 = 14; population variance 3.5 ms²
        assertThat(BenchmarkSummary.std(d)).isCloseTo(Math.sqrt(3.5), within(1e-12));
        assertThat(BenchmarkSummary.std(LatencyDistribution.of("d", new long[]{5 * MS}))).isZero();
        assertThat(BenchmarkSummary.std(LatencyDistribution.of("d", new long[0]))).isZero();

        BenchmarkSummary s = summary(run(), 4, 0, Slo.none());
        // TTFTs 10 and 30 ms: population standard deviation 10 ms
        assertThat(s.toJson().get("std_ttft_ms").asDouble()).isCloseTo(10.0, within(1e-9));
        assertThat(s.toJson().get("std_e2el_ms").asDouble()).isCloseTo((1_400 - 16) / 2.0, within(1e-9));
    }

    @Test
    void isl_mismatches_count_successes_whose_server_prompt_length_differs_from_the_requested_one() {
        List<RequestRecord> records = List.of(
                RequestRecord.success(0, 10, 1, 0, new long[]{MS}, 10, 1),      // same: no
                RequestRecord.success(1, 20, 1, 0, new long[]{MS}, 21, 1),      // differs: yes
                RequestRecord.success(2, 5, 1, 0, new long[]{MS}, 0, 1),        // server says 0: yes
                RequestRecord.success(3, 0, 1, 0, new long[]{MS}, 7, 1),        // requested 0: yes
                RequestRecord.success(4, 8, 1, 0, new long[]{MS}, -1, 1),       // server did not say: no
                RequestRecord.success(5, -1, 1, 0, new long[]{MS}, 9, 1),       // nothing requested: no
                RequestRecord.failure(6, 4, 1, 0, new long[0], MS, 6, -1, ErrorKind.TIMEOUT, null)); // failed: no
        BenchmarkSummary s = summary(records, 1, 0, Slo.none());
        assertThat(s.islMismatches()).isEqualTo(3);
        assertThat(s.toJson().get("isl_mismatches").asLong()).isEqualTo(3);
        assertThat(s.toTable()).contains("warning: 3 requests: server prompt_tokens differ from the requested input");

        BenchmarkSummary one = summary(records.subList(1, 2), 1, 0, Slo.none());
        assertThat(one.islMismatches()).isEqualTo(1);
        assertThat(one.toTable()).contains("warning: 1 requests: server prompt_tokens differ");
    }

    @Test
    void requests_without_usage_are_named_in_the_table() {
        List<RequestRecord> records = List.of(RequestRecord.success(0, 10, 3, 0, new long[]{MS, 2 * MS}, 10, -1));
        assertThat(summary(records, 1, 0, Slo.none()).toTable())
                .contains("1 successful requests had no usage; their output tokens are not counted\n");
    }

    @Test
    void detailed_json_uses_the_server_prompt_length_only_without_a_requested_one_and_itls_in_seconds() {
        List<RequestRecord> records = List.of(
                RequestRecord.success(0, 0, 2, 0, new long[]{4 * MS, 7 * MS}, 9, 2),
                RequestRecord.success(1, -1, 2, 10 * MS, new long[]{12 * MS, 20 * MS}, 9, 2),
                RequestRecord.success(2, -1, 2, 20 * MS, new long[]{22 * MS, 30 * MS}, -1, 2));
        JsonNode json = summary(records, 1, 0, Slo.none()).toJson(true);
        assertThat(json.get("input_lens").toString()).isEqualTo("[0,9,0]");
        assertThat(json.get("itls").get(0).get(0).asDouble()).isEqualTo(0.003);
        assertThat(json.get("itls").get(1).get(0).asDouble()).isEqualTo(0.008);
        assertThat(json.get("start_times").toString()).isEqualTo("[0.0,0.01,0.02]");
    }
}
