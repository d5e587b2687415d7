package dev.profiledrollout.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** analyze on traces the engine simulator writes: operator shapes (SGLang) and the frontend trace (vLLM). */
class AnalyzeSimulatorTracesTest {

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int analyze(String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        CommandLine cli = new CommandLine(new AnalyzeCommand());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    private int post(URI base, String path, String body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    /** One SGLang capture of 2 steps (prefill of 8 tokens, one decode) with the given {@code record_shapes}. */
    private Path sglangCapture(boolean recordShapes) throws Exception {
        Path outDir = dir.resolve("shapes-" + recordShapes);
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().profilerDir(dir.resolve("default"))
                .build())) {
            URI base = sim.baseUri();
            assertThat(post(base, "/start_profile", "{\"output_dir\":\"" + outDir + "\",\"num_steps\":2,"
                    + "\"record_shapes\":" + recordShapes + "}")).isEqualTo(200);
            assertThat(post(base, "/v1/completions", "{\"prompt\":[1,2,3,4,5,6,7,8],\"max_tokens\":2,"
                    + "\"ignore_eos\":true}")).isEqualTo(200);
            // the next batch (a health check's) writes the capture before it answers
            assertThat(http.send(HttpRequest.newBuilder(base.resolve("/health")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
        }
        return outDir;
    }

    private List<String[]> csvRows() {
        List<String[]> rows = new ArrayList<>();
        for (String line : out.toString().split("\n")) {
            // inputDims is quoted (it holds commas): split it out first
            int open = line.indexOf('"');
            int close = line.lastIndexOf('"');
            if (open < 0) {
                rows.add(line.split(","));
            } else {
                List<String> cells = new ArrayList<>(Arrays.asList(line.substring(0, open - 1).split(",")));
                cells.add(line.substring(open + 1, close));
                cells.addAll(Arrays.asList(line.substring(close + 2).split(",")));
                rows.add(cells.toArray(String[]::new));
            }
        }
        return rows;
    }

    @Test
    void by_operator_shows_the_input_dims_the_cost_model_sized_each_operator_by() throws Exception {
        Path capture = sglangCapture(true);

        assertThat(analyze("--by", "operator", "--format", "csv", capture.toString())).as(err.toString()).isZero();

        List<String[]> rows = csvRows();
        assertThat(rows.get(0)).containsExactly("file", "operator", "inputDims", "count", "cpuNs", "gpuEvents",
                "gpuNs");
        List<String[]> ops = rows.subList(1, rows.size());
        assertThat(ops).isNotEmpty().allSatisfy(r -> assertThat(r[2]).as(r[1]).isNotEmpty());
        // Llama 3.1 8B, TP 1: QKV projection of the 8-token prefill, [T, hidden]·[hidden, (32 + 2·8)·128]; the weight
        // [6144, 4096] enters aten::linear and its transposed view aten::mm, which launches the kernel (32 layers)
        assertThat(ops).anySatisfy(r -> assertThat(new String[] {r[1], r[2], r[3], r[5]})
                .containsExactly("aten::mm", "[[8, 4096], [4096, 6144]]", "32", "32"));
        assertThat(ops).anySatisfy(r -> assertThat(new String[] {r[1], r[2], r[3], r[5]})
                .containsExactly("aten::linear", "[[8, 4096], [6144, 4096], []]", "32", "0"));
        // decode: one request; the LM head runs on one row per request
        assertThat(ops).anySatisfy(r -> assertThat(new String[] {r[1], r[2]})
                .containsExactly("aten::mm", "[[1, 4096], [4096, 128256]]"));
        assertThat(ops).anySatisfy(r -> assertThat(new String[] {r[1], r[2]})
                .containsExactly("flashinfer::paged_attention", "[[8, 32, 128], [8, 8, 128], [8, 8, 128]]"));

        Path file;
        try (Stream<Path> files = Files.list(capture)) {
            file = files.filter(p -> p.getFileName().toString().endsWith(".trace.json.gz")).findFirst().orElseThrow();
        }
        JsonNode mm = firstCpuOp(file, "aten::mm");
        assertThat(mm.get("args").get("Input type").toString()).isEqualTo("[\"c10::BFloat16\",\"c10::BFloat16\"]");
        assertThat(mm.get("args").get("Input Strides").toString()).isEqualTo("[[4096,1],[1,4096]]");
        assertThat(mm.get("args").get("Concrete Inputs").toString()).isEqualTo("[\"\",\"\"]");
    }

    @Test
    void without_record_shapes_operators_have_no_input_dims() throws Exception {
        Path capture = sglangCapture(false);

        assertThat(analyze("--by", "operator", "--format", "csv", capture.toString())).as(err.toString()).isZero();

        List<String[]> ops = csvRows().subList(1, csvRows().size());
        assertThat(ops).isNotEmpty().allSatisfy(r -> assertThat(r[2]).as(r[1]).isEmpty());
    }

    @Test
    void a_vllm_capture_lists_its_frontend_trace_apart_from_the_ranks() throws Exception {
        Path torchDir = dir.resolve("vllm");
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().backend("vllm").tpSize(2)
                .profilerConfig("{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + torchDir
                        + "\",\"torch_profiler_record_shapes\":true}").build())) {
            URI base = sim.baseUri();
            assertThat(post(base, "/start_profile", "")).isEqualTo(200);
            assertThat(post(base, "/v1/completions", "{\"model\":\"" + sim.config().servedModelName()
                    + "\",\"prompt\":[1,2,3,4],\"max_tokens\":3}")).isEqualTo(200);
            assertThat(post(base, "/stop_profile", "")).isEqualTo(200);
        }

        assertThat(analyze("--all-ranks", torchDir.toString())).as(err.toString()).isZero();
        String table = out.toString();
        assertThat(table).contains("All ranks: 2 traces");
        String frontendPart = table.substring(table.indexOf("Frontend traces (vLLM API server"));
        assertThat(frontendPart.lines().skip(1).findFirst().orElseThrow()).contains(".async_llm.");
        assertThat(table.substring(0, table.indexOf("Frontend traces"))).doesNotContain(".async_llm.");

        assertThat(analyze("--format", "json", torchDir.toString())).as(err.toString()).isZero();
        JsonNode json = new ObjectMapper().readTree(out.toString());
        assertThat(json.get("traces")).hasSize(2).allSatisfy(t -> {
            assertThat(t.get("file").asText()).doesNotContain(".async_llm.");
            assertThat(t.get("kernelEvents").asLong()).isPositive();
        });
        assertThat(json.get("frontendTraces")).hasSize(1)
                .allSatisfy(t -> assertThat(t.get("file").asText()).contains(".async_llm."));
        // torch_profiler_record_shapes: TP 2 halves the QKV projection's output, (32 + 2·8)·128 / 2
        assertThat(json.get("traces").get(0).get("operators")).anySatisfy(o -> assertThat(
                o.get("name").asText() + " " + o.get("inputDims").asText())
                .isEqualTo("aten::mm [[4, 4096], [4096, 3072]]"));

        assertThat(analyze("--format", "csv", torchDir.toString())).as(err.toString()).isZero();
        assertThat(out.toString()).doesNotContain(".async_llm.");
        assertThat(err.toString()).contains(".async_llm.").contains("frontend (API server) trace: CPU only, not a rank");
    }

    private static JsonNode firstCpuOp(Path gz, String name) throws IOException {
        try (var in = new java.util.zip.GZIPInputStream(Files.newInputStream(gz))) {
            for (JsonNode e : new ObjectMapper().readTree(in).get("traceEvents")) {
                if ("cpu_op".equals(e.path("cat").asText()) && name.equals(e.path("name").asText())) {
                    return e;
                }
            }
        }
        throw new AssertionError("no " + name + " in " + gz);
    }
}
