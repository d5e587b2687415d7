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
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class BenchCommandTest {

    @Test
    void bench_prints_vllms_table_and_saves_vllms_result_keys(@TempDir Path dir) throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().build())) {
            // GIVEN
            StringWriter out = new StringWriter();
            CommandLine cli = new CommandLine(new Main());
            cli.setOut(new PrintWriter(out));
            // WHEN
            int code = cli.execute("bench", "--base-url", sim.baseUri().toString(), "--backend", "sglang",
                    "--num-prompts", "16", "--request-rate", "40", "--burstiness", "1.0", "--max-concurrency", "4",
                    "--random-input-len", "32", "--random-output-len", "4", "--goodput", "ttft:60000", "tpot:60000",
                    "--seed", "3", "--save-result", "--result-dir", dir.toString());
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
    void bad_flags_name_the_fix() {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new Main());
        cli.setErr(new PrintWriter(err));
        int code = cli.execute("bench", "--base-url", "http://127.0.0.1:9", "--goodput", "itl:5", "--model", "m");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("use ttft, tpot or e2el");
    }
}
