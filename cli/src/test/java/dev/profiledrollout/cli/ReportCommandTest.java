package dev.profiledrollout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ReportCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @TempDir
    Path dir;

    private int run(String... args) {
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    @Test
    void should_render_every_run_below_a_directory_from_its_summary_files() throws Exception {
        // GIVEN a run directory as a test leaves it, without the rendered files
        Path run = Files.createDirectories(dir.resolve("SomeTest/someMethod"));
        Files.writeString(run.resolve("summary.json"), """
                {"test":"SomeTest.someMethod","engine":{"backend":"VLLM","url":"http://u:p@h:8000/?x=1","kind":"attached"},
                 "latency":{"completed":2,"failed":0,"durationMs":100.0,"requestThroughput":20.0,
                   "ttft":{"definition":"first chunk","count":2,"meanMs":10.0,"p50Ms":9.5,"p90Ms":11.25,"p99Ms":11.25,"maxMs":11.25}},
                 "trace":{"kernelTotalNs":3000,"ranks":[{"file":"a.json","devices":[{"id":"0","busyNs":3000,"spanNs":5000}],
                   "kernels":[{"name":"gemm_kernel","count":3,"totalNs":3000,"minNs":900,"maxNs":1100}],"rank":null}]},
                 "error":null}
                """);
        Files.writeString(run.resolve("requests.jsonl"), """
                {"sendNs":0,"ttftNs":9500000,"e2eNs":50000000,"error":null}
                {"sendNs":1000000,"ttftNs":11250000,"e2eNs":60000000,"error":null}
                """);
        Files.writeString(run.resolve("timeseries.csv"), "second,started,completed,failed,output_tokens,in_flight\n"
                + "0,2,2,0,64,2\n");
        // WHEN
        int exit = run("report", dir.toString());
        // THEN
        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString()).contains(run.resolve("report.html").toString()).contains("(4 charts)");
        String html = Files.readString(run.resolve("report.html"));
        assertThat(html).contains("<td>11.250</td>").contains("gemm_kernel").contains("http://h:8000/")
                .doesNotContain("u:p@");
        assertThat(run.resolve("charts/latency-over-time.png")).isNotEmptyFile();
        assertThat(run.resolve("charts/top-kernels.png")).isNotEmptyFile();
        assertThat(Files.readAllLines(run.resolve("kernels.csv"))).contains("\"gemm_kernel\",3,3000,900,1100,1000.0,1.000000");
    }

    @Test
    void should_render_a_bench_saved_result_named_by_its_result_json() throws Exception {
        // GIVEN a benchmark against the simulator, saved as bench --save-result saves it
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().build())) {
            assertThat(run("bench", "--base-url", "http://user:secret@" + sim.baseUri().getAuthority(),
                    "--backend", "sglang", "--num-prompts", "6", "--request-rate", "inf", "--random-input-len", "16",
                    "--random-output-len", "3", "--seed", "5", "--save-result", "--result-dir", dir.toString(),
                    "--result-filename", "sim-run.json")).as(err.toString()).isZero();
        }
        Path details = dir.resolve("sim-run-details");
        assertThat(details.resolve("summary.json")).isNotEmptyFile();
        // the benchmark's summary.json has the fields a run without a profile window has, in the file's order
        JsonNode written = new ObjectMapper().readTree(details.resolve("summary.json").toFile());
        assertThat(written.fieldNames()).toIterable().containsExactly("test", "engine", "load", "latency", "error");
        assertThat(written.path("engine").fieldNames()).toIterable().containsExactly("backend", "url", "kind",
                "model");
        assertThat(written.path("engine").path("url").asText()).doesNotContain("secret");
        assertThat(written.path("error").isNull()).isTrue();
        out.getBuffer().setLength(0);
        // WHEN the result JSON is given
        int exit = run("report", dir.resolve("sim-run.json").toString());
        // THEN the details directory is rendered from its summary.json and request files: latency, no trace
        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString()).contains(details.resolve("report.html").toString());
        String html = Files.readString(details.resolve("report.html"));
        assertThat(html).contains("bench sim-run").contains("TTFT").contains("<td>6</td>")
                .doesNotContain("<h2>Kernels</h2>").doesNotContain("secret");
        assertThat(details.resolve("charts/latency-over-time.png")).isNotEmptyFile();
        JsonNode summary = new ObjectMapper().readTree(details.resolve("summary.json").toFile());
        assertThat(summary.get("latency").get("ttft").get("count").asInt()).isEqualTo(6);
        assertThat(summary.get("engine").get("url").asText()).doesNotContain("secret");
        assertThat(summary.get("load").isObject()).isTrue();

        // and the result directory above it renders the same run
        out.getBuffer().setLength(0);
        assertThat(run("report", dir.toString())).as(err.toString()).isZero();
        assertThat(out.toString()).contains(details.resolve("report.html").toString());
    }

    @Test
    void should_exit_2_naming_the_fix_for_a_json_without_a_run_directory() throws Exception {
        Path json = Files.writeString(dir.resolve("other.json"), "{}");
        assertThat(run("report", json.toString())).isEqualTo(2);
        assertThat(err.toString()).contains(json + " is neither a summary.json nor a bench result with a "
                + "other-details/summary.json next to it").contains("bench --save-result writes summary.json there");
    }

    @Test
    void should_exit_2_for_a_directory_without_summary() {
        assertThat(run("report", dir.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("no summary.json in or below " + dir);
    }
}
