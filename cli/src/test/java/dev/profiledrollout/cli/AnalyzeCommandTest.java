package dev.profiledrollout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

class AnalyzeCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = new CommandLine(new AnalyzeCommand());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    private static Map<String, JsonNode> expectedByFileName(Path root) throws IOException {
        Map<String, JsonNode> byFile = new HashMap<>();
        ObjectMapper mapper = new ObjectMapper();
        try (Stream<Path> files = Files.list(root.resolve("expected"))) {
            for (Path p : files.filter(f -> f.toString().endsWith(".summary.json")).toList()) {
                JsonNode node = mapper.readTree(p.toFile());
                byFile.put(node.get("file").asText(), node);
            }
        }
        return byFile;
    }

    @Test
    void should_print_json_equal_to_expected_summaries_for_the_real_traces_directory() throws IOException {
        // GIVEN
        Path root = TestTraces.resolve("");
        Map<String, JsonNode> expected = expectedByFileName(root);
        // WHEN
        int exit = run("--format", "json", root.toString());
        // THEN
        assertThat(exit).as("exit code; stderr: %s", err).isZero();
        JsonNode traces = new ObjectMapper().readTree(out.toString()).get("traces");
        List<String> names = new ArrayList<>();
        for (JsonNode trace : traces) {
            String name = Path.of(trace.get("file").asText()).getFileName().toString();
            names.add(name);
            JsonNode want = expected.get(name);
            assertThat(want).as("expected summary for %s", name).isNotNull();
            assertThat(trace.get("kernelEvents").asLong()).as(name).isEqualTo(want.get("kernel_events").asLong());
            assertThat(trace.get("memoryEvents").asLong()).as(name).isEqualTo(want.get("memory_events").asLong());
            assertThat(trace.get("distinctKernels").asLong()).as(name).isEqualTo(want.get("distinct_kernels").asLong());
            assertThat(trace.get("kernelTotalNs").asLong()).as(name).isEqualTo(want.get("kernel_total_ns").asLong());
            assertThat(trace.get("devices")).hasSize(want.get("devices").size());
            for (JsonNode device : trace.get("devices")) {
                JsonNode wantDevice = want.get("devices").get(device.get("id").asText());
                assertThat(device.get("busyNs").asLong()).as(name).isEqualTo(wantDevice.get("busy_ns").asLong());
                assertThat(device.get("spanNs").asLong()).as(name).isEqualTo(wantDevice.get("span_ns").asLong());
            }
            assertThat(trace.get("kernels")).as("all kernels listed").hasSize(want.get("distinct_kernels").asInt());
            JsonNode wantTop = want.get("top_kernels");
            for (int i = 0; i < wantTop.size(); i++) {
                JsonNode got = trace.get("kernels").get(i);
                assertThat(got.get("name").asText()).as("%s kernel #%d", name, i).isEqualTo(wantTop.get(i).get("name").asText());
                assertThat(got.get("count").asLong()).isEqualTo(wantTop.get(i).get("count").asLong());
                assertThat(got.get("totalNs").asLong()).isEqualTo(wantTop.get(i).get("total_ns").asLong());
            }
            assertThat(trace.get("rank").isNull()).isTrue();
            assertThat(trace.get("warnings")).isEmpty();
        }
        assertThat(names).containsExactlyInAnyOrderElementsOf(expected.keySet());
        assertThat(err.toString()).as("the expected/*.summary.json files are skipped as non-traces")
                .contains("skipped").contains("summary.json");
    }

    @Test
    void should_print_a_table_with_the_top_kernel_name_truncated_to_80_characters() {
        Path trace = TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz");

        int exit = run(trace.toString());

        assertThat(exit).isZero();
        assertThat(out.toString())
                .contains(trace.toString())
                .contains("1154 kernel events, 50 memcpy/memset events, 194 distinct kernels")
                .contains("device 0: busy 547.656 ms of 1222.847 ms span (44.8 % busy)")
                .contains("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWor…")
                .contains("396.199");
        assertThat(out.toString().lines().filter(l -> l.matches("\\s+\\d+ +[\\d.]+ +[\\d.]+ +[\\d.]+%  .*"))).hasSize(15);
    }

    @Test
    void should_exit_2_naming_a_missing_path(@TempDir Path dir) {
        Path missing = dir.resolve("no-such-trace.json.gz");

        int exit = run("--format", "json", missing.toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains(missing.toString()).contains("does not exist");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void should_exit_1_naming_a_file_that_is_not_a_trace(@TempDir Path dir) throws IOException {
        Path notATrace = Files.writeString(dir.resolve("config.json"), "{\"tp\":2}");

        int exit = run(notATrace.toString());

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains(notATrace + " is not a Kineto trace");
    }

    @Test
    void should_keep_input_order_for_results_and_messages_when_files_are_read_in_parallel(@TempDir Path dir)
            throws IOException {
        // GIVEN five inputs, more than one per core, with two non-traces among them
        Path first = TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz");
        Path second = TestTraces.resolve("hta/trace_filter/sampled_rank-1.json.gz");
        Path badA = Files.writeString(dir.resolve("a-config.json"), "{\"tp\":2}");
        Path badB = Files.writeString(dir.resolve("b-config.json"), "{\"dp\":4}");
        // WHEN
        int exit = run("--format", "json", second.toString(), badB.toString(), first.toString(), badA.toString(),
                second.toString());
        // THEN the good files are summarised in the order given, and the messages come in that order too
        assertThat(exit).isEqualTo(1);
        List<String> files = new ArrayList<>();
        new ObjectMapper().readTree(out.toString()).get("traces").forEach(t -> files.add(t.get("file").asText()));
        assertThat(files).containsExactly(second.toString(), first.toString(), second.toString());
        assertThat(err.toString().lines().filter(l -> l.contains("is not a Kineto trace")).toList())
                .hasSize(2)
                .satisfies(lines -> assertThat(lines.get(0)).contains(badB.toString()))
                .satisfies(lines -> assertThat(lines.get(1)).contains(badA.toString()));
    }

    @Test
    void should_reject_an_unknown_format() {
        assertThat(run("--format", "xml", TestTraces.resolve("").toString())).isEqualTo(2);
        assertThat(err.toString()).contains("'xml' is not a format; use table, json or csv");
    }
}
