package dev.profiledrollout.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

class BenchSweepTest {

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
        return new Run(cli.execute(all), out.toString(), err.toString());
    }

    @Test
    void a_concurrency_sweep_writes_one_vllm_result_per_stage_and_a_summary(@TempDir Path dir) throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().build())) {
            Run run = bench("--base-url", sim.baseUri().toString(), "--backend", "sglang", "--sweep",
                    "concurrency=1,4", "--num-prompts", "8", "--random-input-len", "32", "--random-output-len", "4",
                    "--save-result", "--result-dir", dir.toString());
            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.out()).contains("Stage 1: concurrency 1", "Stage 2: concurrency 4",
                    "============ Serving Benchmark Result ============");
            List<Path> results;
            try (Stream<Path> files = Files.list(dir)) {
                results = files.filter(p -> p.getFileName().toString().contains("-sweep")).sorted().toList();
            }
            assertThat(results).hasSize(2);
            ObjectMapper json = new ObjectMapper();
            JsonNode second = json.readTree(results.get(1).toFile());
            assertThat(second.path("completed").asInt()).isEqualTo(8);
            assertThat(second.path("max_concurrency").asInt()).isEqualTo(4);
            JsonNode summary = json.readTree(dir.resolve("sweep-summary.json").toFile());
            assertThat(summary.path("stages")).hasSize(2);
            assertThat(summary.path("stages").get(1).path("label").asText()).isEqualTo("concurrency 4");
        }
    }

    @Test
    void a_sweep_with_a_rate_of_its_own_or_a_bad_list_is_refused() {
        Run rate = bench("--base-url", "http://127.0.0.1:1", "--sweep", "rate=5,10", "--request-rate", "3");
        assertThat(rate.exitCode()).isEqualTo(2);
        assertThat(rate.err()).contains("--sweep sets each stage's load");
        Run bad = bench("--base-url", "http://127.0.0.1:1", "--sweep", "qps=5");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--sweep takes concurrency=N,N,… or rate=R,R,…");
    }
}
