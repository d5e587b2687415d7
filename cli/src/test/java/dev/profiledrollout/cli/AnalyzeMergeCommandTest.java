package dev.profiledrollout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code analyze --merge}: one trace from the ranks of a simulated TP=4 capture and from the real HTA ranks. */
class AnalyzeMergeCommandTest {

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int analyze(String... args) {
        CommandLine cli = new CommandLine(new AnalyzeCommand());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    @Test
    void a_simulated_tp4_capture_merges_into_one_trace_named_and_sorted_by_rank() throws Exception {
        Path capture = simulate(4);
        List<Path> ranks;
        try (Stream<Path> s = Files.list(capture)) {
            ranks = s.filter(p -> p.getFileName().toString().endsWith(".trace.json.gz")).sorted().toList();
        }
        assertThat(ranks).hasSize(4);
        Path merged = dir.resolve("all-ranks.json.gz");

        int exit = analyze("--merge", merged.toString(), capture.toString());

        assertThat(exit).as("stderr: %s", err).isZero();
        assertThat(out.toString()).contains("wrote " + merged + ": 4 ranks");
        assertThat(out.toString().lines().filter(l -> l.startsWith("TP-")).map(l -> l.substring(0, 4)))
                .containsExactly("TP-0", "TP-1", "TP-2", "TP-3");
        // a valid Kineto trace: our reader finds every rank's kernels in it, each rank's GPU its own device
        TraceSummary all = KinetoTraceReader.read(merged);
        TraceSet separate = TraceSet.read(ranks);
        assertThat(all.kernelEvents()).isEqualTo(separate.traces().stream().mapToLong(TraceSummary::kernelEvents)
                .sum());
        assertThat(all.kernelTotalNs()).isEqualTo(separate.kernelTotalNs());
        assertThat(all.devices()).hasSize(separate.traces().stream().mapToInt(t -> t.devices().size()).sum());
        // one group of processes per rank, named after it, sort indices rank by rank
        Map<Integer, String> names = new TreeMap<>();
        Map<Integer, Integer> sort = new TreeMap<>();
        for (JsonNode e : read(merged).get("traceEvents")) {
            if (e.path("ph").asText().equals("M") && e.path("name").asText().equals("process_name")) {
                names.put(e.get("pid").intValue(), e.get("args").get("name").asText());
            } else if (e.path("ph").asText().equals("M") && e.path("name").asText().equals("process_sort_index")) {
                sort.put(e.get("pid").intValue(), e.get("args").get("sort_index").intValue());
            }
        }
        List<String> bySortIndex = new ArrayList<>(names.keySet().stream()
                .sorted((a, b) -> Integer.compare(sort.get(a), sort.get(b))).map(names::get).toList());
        assertThat(bySortIndex).isNotEmpty().allMatch(n -> n.matches("TP-[0-3] · .+"));
        assertThat(bySortIndex.stream().map(n -> n.substring(0, 4)).distinct().toList())
                .containsExactly("TP-0", "TP-1", "TP-2", "TP-3");
        assertThat(bySortIndex).isSortedAccordingTo((a, b) -> a.substring(0, 4).compareTo(b.substring(0, 4)));
    }

    @Test
    void the_real_hta_ranks_merge_under_their_distributed_rank() throws IOException {
        Path merged = dir.resolve("hta.json");

        int exit = analyze("--merge", merged.toString(), TestTraces.resolve("hta/trace_filter").toString());

        assertThat(exit).as("stderr: %s", err).isZero();
        JsonNode ranks = read(merged).get("profiledRolloutMerge").get("ranks");
        assertThat(ranks).extracting(r -> r.get("label").asText()).containsExactly("rank 0", "rank 1");
        assertThat(ranks).extracting(r -> r.get("file").asText())
                .containsExactly("sampled_rank-0.json.gz", "sampled_rank-1.json.gz");
    }

    @Test
    void inputs_without_a_json_trace_are_a_usage_error() {
        Path merged = dir.resolve("m.json.gz");

        int exit = analyze("--merge", merged.toString(), TestTraces.resolve("rpd/matmul_result.rpd").toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("is not a Kineto JSON trace").contains("--merge found no Kineto JSON");
        assertThat(merged).doesNotExist();
    }

    private Path simulate(int tp) throws Exception {
        Path outDir = dir.resolve("capture");
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().tpSize(tp)
                .profilerDir(dir.resolve("default")).build())) {
            URI base = sim.baseUri();
            assertThat(post(base, "/start_profile", "{\"output_dir\":\"" + outDir + "\",\"num_steps\":3}"))
                    .isEqualTo(200);
            assertThat(post(base, "/v1/completions", "{\"prompt\":[1,2,3,4],\"max_tokens\":3,\"ignore_eos\":true}"))
                    .isEqualTo(200);
            // the next batch (a health check's) writes the capture before it answers
            assertThat(http.send(HttpRequest.newBuilder(base.resolve("/health")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
        }
        return outDir;
    }

    private int post(URI base, String path, String body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static JsonNode read(Path file) throws IOException {
        try (InputStream raw = Files.newInputStream(file);
             InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw) {
            return new ObjectMapper().readTree(in);
        }
    }
}
