package dev.profiledrollout.cli.bench;

import dev.profiledrollout.load.Endpoint;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.metrics.Slo;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LoadTestSimulatorTest {

    @Test
    void builder_runs_an_open_loop_against_the_simulator_and_writes_vllm_shaped_results(@TempDir Path dir)
            throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().build())) {
            // GIVEN
            LoadTestResult result = LoadTest.builder().baseUri(sim.baseUri()).model("m").backend("sglang")
                    .requestRate(50).burstiness(1.0).maxConcurrency(8).requests(24).randomTokens(64, 8, 0.0)
                    .warmupRequests(2).goodput(Slo.parse(List.of("ttft:60000", "e2el:60000")))
                    .scrapeMetrics(Duration.ofMillis(200)).timeout(Duration.ofMinutes(2)).build().run();
            // THEN
            assertThat(result.warmup()).hasSize(2);
            assertThat(result.latency().completed()).isEqualTo(24);
            assertThat(result.latency().outputTokens()).isEqualTo(24 * 8);
            assertThat(result.serverMetricsNote()).contains("404");
            String table = result.summary().toTable();
            assertThat(table).startsWith("============ Serving Benchmark Result ============\n")
                    .contains("Successful requests:                     24")
                    .contains("Maximum request concurrency:             8")
                    .contains("Request rate configured (RPS):           50.00")
                    .contains("Request goodput (req/s):")
                    .contains("---------------Time to First Token----------------")
                    .contains("-----Time per Output Token (excl. 1st token)------")
                    .contains("P99 TTFT (ms):", "Median TPOT (ms):", "P99.9 ITL (ms):", "Mean E2EL (ms):",
                            "P99 lag (ms):");
            result.writeTo(dir);
            JsonNode json = new ObjectMapper().readTree(dir.resolve("result.json").toFile());
            for (String key : List.of("date", "backend", "model_id", "num_prompts", "request_rate", "burstiness",
                    "max_concurrency", "duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
                    "request_throughput", "request_goodput", "output_throughput", "total_token_throughput",
                    "max_output_tokens_per_s", "max_concurrent_requests", "mean_ttft_ms", "median_ttft_ms",
                    "std_ttft_ms", "p99_ttft_ms", "p99.9_itl_ms", "mean_tpot_ms", "p90_e2el_ms", "p99_schedule_lag_ms")) {
                assertThat(json.has(key)).as("key %s", key).isTrue();
            }
            assertThat(json.get("completed").asInt()).isEqualTo(24);
            assertThat(json.get("request_goodput").asDouble()).isPositive();
            List<String> lines = Files.readAllLines(dir.resolve("requests.jsonl"));
            assertThat(lines).hasSize(24);
            assertThat(lines.get(0)).contains("\"intendedNs\"", "\"sendNs\"", "\"firstChunkNs\"", "\"endNs\"",
                    "\"scheduleLagNs\"", "\"completionTokens\":8");
            assertThat(Files.readAllLines(dir.resolve("timeseries.csv")).get(0))
                    .isEqualTo("second,started,completed,failed,output_tokens,in_flight,mean_in_flight");
            assertThat(dir.resolve("latency.hlog")).isNotEmptyFile();
            org.HdrHistogram.HistogramLogReader reader = new org.HdrHistogram.HistogramLogReader(
                    dir.resolve("schedule.hlog").toFile());
            org.HdrHistogram.EncodableHistogram lag = reader.nextIntervalHistogram();
            assertThat(lag.getTag()).isEqualTo("LAG");
            assertThat(((org.HdrHistogram.Histogram) lag).getTotalCount()).isEqualTo(24);
        }
    }

    @Test
    void generate_endpoint_against_the_simulator_counts_tokens_from_meta_info() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().build())) {
            LoadTestResult result = LoadTest.builder().baseUri(sim.baseUri()).endpoint(Endpoint.GENERATE)
                    .closedLoop(4).requests(8).randomTokens(32, 6, 0.0).timeout(Duration.ofMinutes(2)).build().run();
            assertThat(result.latency().completed()).isEqualTo(8);
            assertThat(result.latency().outputTokens()).isEqualTo(48);
            assertThat(result.latency().inputTokens()).isEqualTo(8 * 32);
            assertThat(result.summary().islMismatches()).isZero();
        }
    }
}
