package dev.profiledrollout.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class BenchCommandTest {

    private record Run(int exitCode, String out, String err) {
    }

    private static Run bench(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        String[] all = new String[args.length + 1];
        all[0] = "bench";
        System.arraycopy(args, 0, all, 1, args.length);
        int code = cli.execute(all);
        return new Run(code, out.toString(), err.toString());
    }

    private static JsonNode onlyJson(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return new ObjectMapper().readTree(files.filter(p -> p.toString().endsWith(".json")).findFirst()
                    .orElseThrow().toFile());
        }
    }

    private static String[] small(String base, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("--base-url", base, "--model", "m", "--num-prompts", "6",
                "--random-input-len", "16", "--random-output-len", "4"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    @Test
    void defaults_report_vllms_percentile_metrics_and_percentiles(@TempDir Path dir) throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().build())) {
            Run run = bench(small(sim.baseUri().toString(), "--save-result", "--result-dir", dir.toString()));

            assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
            assertThat(run.out()).contains("Mean TTFT (ms):", "Median TPOT (ms):", "P99 ITL (ms):", "Max ITL (ms):",
                    "P99 lag (ms):").doesNotContain("End-to-end Latency", "P90 TTFT", "P99.9 TTFT");
            assertThat(run.out()).contains("Request parameters: ignore_eos true; temperature not sent");
            JsonNode result = onlyJson(dir);
            assertThat(result.has("p99_ttft_ms")).isTrue();
            assertThat(result.has("median_itl_ms")).isTrue();
            assertThat(result.has("p50_ttft_ms")).isFalse();
            assertThat(result.has("mean_e2el_ms")).isFalse();
            assertThat(result.has("ttfts")).isFalse();
            assertThat(result.get("p99_ttft_ms").asDouble()).isLessThanOrEqualTo(result.get("max_ttft_ms").asDouble());
        }
    }

    @Test
    void metric_selection_percentiles_and_detailed_records_as_vllm_names_them(@TempDir Path dir) throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().build())) {
            Run run = bench(small(sim.baseUri().toString(), "--percentile-metrics", "e2el,ttft",
                    "--metric-percentiles", "25,99.9", "--save-result", "--save-detailed", "--result-dir",
                    dir.toString()));

            assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
            assertThat(run.out()).contains("P25 E2EL (ms):", "P99.9 TTFT (ms):").doesNotContain("Inter-token Latency");
            // vLLM's order, whatever the order given
            assertThat(run.out().indexOf("Time to First Token")).isLessThan(run.out().indexOf("End-to-end Latency"));
            JsonNode result = onlyJson(dir);
            assertThat(result.has("p25_e2el_ms")).isTrue();
            assertThat(result.has("p99.9_ttft_ms")).isTrue();
            assertThat(result.has("p99_ttft_ms")).isFalse();
            assertThat(result.has("mean_itl_ms")).isFalse();
            for (String key : List.of("input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times",
                    "errors")) {
                assertThat(result.get(key)).as(key).hasSize(6);
            }
            assertThat(result.get("output_lens").get(0).asInt()).isEqualTo(4);
            assertThat(result.get("itls").get(0)).hasSize(3);
            assertThat(result.get("ttfts").get(0).asDouble()).isPositive()
                    .isLessThanOrEqualTo(result.get("latencies").get(0).asDouble());
        }
    }

    @Test
    void headers_go_on_every_request_and_the_model_lookup() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().apiKey("sk-bench").servedModelName("sim-model").build())) {
            String base = sim.baseUri().toString();
            Run without = bench("--base-url", base, "--num-prompts", "3", "--random-input-len", "16",
                    "--random-output-len", "2");
            Run with = bench("--base-url", base, "--num-prompts", "3", "--random-input-len", "16",
                    "--random-output-len", "2", "--header", "Authorization=Bearer sk-bench", "X-Tenant=a", "--header",
                    "X-Run=7");

            assertThat(without.out()).contains("Successful requests:                     0",
                    "Failed requests:                         3");
            assertThat(with.exitCode()).as(with.out() + with.err()).isZero();
            assertThat(with.out()).contains("Successful requests:                     3", "(sim-model)");
        }
    }

    @Test
    void ignore_eos_and_sampling_parameters_are_sent_only_when_given(@TempDir Path dir) throws Exception {
        Path prompts = Files.writeString(dir.resolve("prompts.jsonl"),
                "{\"prompt\":\"one two three\"}\n".repeat(8));
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().seed(5).build())) {
            String base = sim.baseUri().toString();
            Run stopAtEos = bench("--base-url", base, "--model", "m", "--num-prompts", "8", "--dataset-name", "jsonl",
                    "--dataset-path", prompts.toString(), "--random-output-len", "24");
            Run ignoreEos = bench("--base-url", base, "--model", "m", "--num-prompts", "8", "--dataset-name",
                    "jsonl", "--dataset-path", prompts.toString(), "--random-output-len", "24", "--ignore-eos",
                    "--temperature", "0", "--top-p", "0.9", "--top-k", "5", "--min-p", "0.05",
                    "--frequency-penalty", "0.1", "--presence-penalty", "0.2", "--repetition-penalty", "1.1");

            assertThat(stopAtEos.exitCode()).as(stopAtEos.err()).isZero();
            assertThat(stopAtEos.out()).contains("Request parameters: ignore_eos not sent; temperature not sent")
                    .doesNotContain("Total generated tokens:                  192");
            assertThat(ignoreEos.exitCode()).as(ignoreEos.err()).isZero();
            assertThat(ignoreEos.out()).contains("Request parameters: ignore_eos true, temperature 0.0, top_p 0.9,"
                            + " top_k 5, min_p 0.05, frequency_penalty 0.1, presence_penalty 0.2, repetition_penalty 1.1\n")
                    .contains("Total generated tokens:                  192");
        }
    }

    @Test
    void profile_starts_the_servers_profiler_before_the_run_and_stops_it_after(@TempDir Path dir) throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().profilerDir(dir).build())) {
            Run run = bench(small(sim.baseUri().toString(), "--backend", "sglang", "--profile", "--num-warmups", "1"));

            assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
            assertThat(run.out()).contains("Profiler started on " + sim.baseUri(), "Profiler stopped on "
                    + sim.baseUri() + ": STOPPED");
            assertThat(run.out().indexOf("Profiler started")).isLessThan(run.out().indexOf("Serving Benchmark Result"));
            assertThat(sim.profiling()).isFalse();
            try (Stream<Path> files = Files.walk(dir)) {
                assertThat(files.filter(p -> p.toString().endsWith(".trace.json.gz"))).isNotEmpty();
            }
        }
    }

    @Test
    void profile_is_stopped_when_the_run_is_interrupted(@TempDir Path dir) throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().profilerDir(dir).build())) {
            AtomicReference<Run> result = new AtomicReference<>();
            // an open loop of 2 requests/s over 200 requests: far from done when interrupted
            Thread bench = new Thread(() -> result.set(bench("--base-url", sim.baseUri().toString(), "--model", "m",
                    "--backend", "sglang", "--profile", "--request-rate", "2", "--num-prompts", "200",
                    "--random-input-len", "16", "--random-output-len", "4")), "bench-under-test");
            bench.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> sim.profiling() || !bench.isAlive());
            assertThat(bench.isAlive()).as("bench ended early: %s", result.get()).isTrue();

            bench.interrupt();
            bench.join(Duration.ofSeconds(60).toMillis());

            assertThat(bench.isAlive()).isFalse();
            assertThat(result.get().exitCode()).isEqualTo(1);
            assertThat(result.get().err()).contains("bench: interrupted");
            assertThat(result.get().out()).contains("Profiler stopped on " + sim.baseUri() + ": STOPPED")
                    .doesNotContain("Serving Benchmark Result");
            assertThat(sim.profiling()).isFalse();
            assertThat(sim.requestCount("/stop_profile")).isEqualTo(1);
        }
    }

    @Test
    void profile_on_vllm_uses_its_profiler_config_and_a_refused_start_sends_no_load(@TempDir Path dir)
            throws Exception {
        try (EngineSimulator configured = EngineSimulator.start(SimulatorConfig.builder().backend("vllm")
                .profilerConfig("{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + dir + "\"}").build());
             EngineSimulator unconfigured = EngineSimulator.start(SimulatorConfig.builder().backend("vllm").build())) {
            Run ok = bench(small(configured.baseUri().toString(), "--backend", "vllm", "--profile"));
            Run refused = bench(small(unconfigured.baseUri().toString(), "--backend", "vllm", "--profile"));

            assertThat(ok.exitCode()).as(ok.out() + ok.err()).isZero();
            assertThat(ok.out()).contains("Profiler stopped on " + configured.baseUri() + ": STOPPED");
            assertThat(configured.profiling()).isFalse();
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.map(p -> p.getFileName().toString())).anyMatch(n -> n.contains(".pt.trace.json"));
            }
            assertThat(refused.exitCode()).isEqualTo(1);
            assertThat(refused.err()).contains("404", "/start_profile");
            assertThat(unconfigured.requestCount("/v1/completions")).isZero();
        }
    }

    @Test
    void bench_prints_vllms_table_and_saves_vllms_result_keys(@TempDir Path dir) throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().build())) {
            // GIVEN
            StringWriter out = new StringWriter();
            CommandLine cli = Main.commandLine();
            cli.setOut(new PrintWriter(out));
            // WHEN
            int code = cli.execute("bench", "--base-url", sim.baseUri().toString(), "--backend", "sglang",
                    "--num-prompts", "16", "--request-rate", "40", "--burstiness", "1.0", "--max-concurrency", "4",
                    "--random-input-len", "32", "--random-output-len", "4", "--goodput", "ttft:60000", "tpot:60000",
                    "--seed", "3", "--percentile-metrics", "ttft,tpot,itl,e2el", "--metric-percentiles", "50,99",
                    "--save-result", "--result-dir", dir.toString());
            // THEN
            assertThat(code).as(out.toString()).isZero();
            String text = out.toString();
            assertThat(text).contains("============ Serving Benchmark Result ============",
                    "Successful requests:                     16",
                    "Maximum request concurrency:             4",
                    "Benchmark duration (s):", "Total input tokens:                      512",
                    "Total generated tokens:                  64", "Request throughput (req/s):",
                    "Request goodput (req/s):", "Output token throughput (tok/s):", "Total Token throughput (tok/s):",
                    "---------------Inter-token Latency----------------",
                    "----------------End-to-end Latency----------------", "Mean TTFT (ms):", "P99 ITL (ms):");
            Path json;
            try (Stream<Path> files = Files.list(dir)) {
                json = files.filter(p -> p.getFileName().toString().matches("sglang-40qps-concurrency4-.*\\.json"))
                        .findFirst().orElseThrow();
            }
            JsonNode result = new ObjectMapper().readTree(json.toFile());
            assertThat(result.get("completed").asInt()).isEqualTo(16);
            assertThat(result.get("request_rate").asDouble()).isEqualTo(40.0);
            assertThat(result.get("max_concurrency").asInt()).isEqualTo(4);
            for (String key : List.of("request_goodput", "p99_ttft_ms", "median_itl_ms", "std_e2el_ms",
                    "max_output_tokens_per_s", "max_concurrent_requests")) {
                assertThat(result.has(key)).as(key).isTrue();
            }
        }
    }

    @Test
    void bad_vllm_style_flags_name_the_accepted_values() {
        Run header = bench("--base-url", "http://127.0.0.1:9", "--model", "m", "--header", "X-Tenant");
        Run metric = bench("--base-url", "http://127.0.0.1:9", "--model", "m", "--percentile-metrics",
                "ttft,client_queue_time");
        Run percentile = bench("--base-url", "http://127.0.0.1:9", "--model", "m", "--metric-percentiles", "99,101");

        assertThat(header.exitCode()).isEqualTo(2);
        assertThat(header.err()).contains("--header must be KEY=VALUE", "X-Tenant");
        assertThat(metric.exitCode()).isEqualTo(2);
        assertThat(metric.err()).contains("ttft, tpot, itl, e2el", "'client_queue_time' is not one");
        assertThat(percentile.exitCode()).isEqualTo(2);
        assertThat(percentile.err()).contains("[0, 100]", "'101' is not one");
    }

    @Test
    void bad_flags_name_the_fix() {
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err));
        int code = cli.execute("bench", "--base-url", "http://127.0.0.1:9", "--goodput", "itl:5", "--model", "m");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("use ttft, tpot or e2el");
    }
}
