package dev.profiledrollout.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import dev.profiledrollout.trace.reading.TraceFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link TraceMerger}: one Perfetto-ready trace from a rank set, checked by reading it back independently. */
class TraceMergerTest {

    /** Exact decimals, so a number's text survives the comparison. */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .disable(com.fasterxml.jackson.databind.cfg.JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES).build();
    private static final Set<String> PROCESS_META = Set.of("process_name", "process_sort_index", "process_labels");

    @TempDir
    Path dir;

    @Test
    void real_hta_ranks_merge_into_one_trace_with_every_event_kept_and_one_named_group_per_rank() throws IOException {
        // file order reversed on purpose: ranks come from distributedInfo, not from the command line
        List<TraceMerger.Input> inputs = TraceMerger.byRank(
                List.of(TestTraces.traceFilter(1), TestTraces.traceFilter(0)), f -> "");
        assertThat(inputs).extracting(TraceMerger.Input::label).containsExactly("rank 0", "rank 1");
        Path out = dir.resolve("merged.json.gz");

        TraceMerger.Result result = TraceMerger.merge(inputs, out);

        JsonNode merged = read(out);
        List<JsonNode> events = list(merged.get("traceEvents"));
        List<JsonNode> rank0 = list(read(TestTraces.traceFilter(0)).get("traceEvents"));
        List<JsonNode> rank1 = list(read(TestTraces.traceFilter(1)).get("traceEvents"));
        // every event but the replaced process metadata, in order, equal to the input but for pid
        List<JsonNode> expected = new ArrayList<>();
        expected.addAll(withoutProcessMeta(rank0));
        expected.addAll(withoutProcessMeta(rank1));
        List<JsonNode> copied = events.subList(0, expected.size());
        for (int i = 0; i < expected.size(); i++) {
            ObjectNode want = ((ObjectNode) expected.get(i)).deepCopy();
            ObjectNode got = ((ObjectNode) copied.get(i)).deepCopy();
            assertThat(got.get("pid").isInt()).isTrue();
            want.remove("pid");
            got.remove("pid");
            assertThat(got).as("event %d", i).isEqualTo(want);
        }
        int processes = result.ranks().stream().mapToInt(r -> r.pids().size()).sum();
        assertThat(events).hasSize(expected.size() + 3 * processes);
        assertThat(result.events()).isEqualTo(events.size());
        assertThat(result.metadataDropped()).isEqualTo(rank0.size() + rank1.size() - expected.size());
        // ten processes per rank (CPU, eight GPUs, Spans), none shared between ranks
        Map<String, Integer> p0 = result.ranks().get(0).pids();
        Map<String, Integer> p1 = result.ranks().get(1).pids();
        assertThat(p0).hasSize(10).containsKeys("4037", "0", "7", "Spans");
        assertThat(p1).hasSize(10).containsKeys("4045", "0", "7", "Spans");
        assertThat(new HashSet<>(p0.values())).doesNotContainAnyElementsOf(p1.values());
        for (int i = 0; i < withoutProcessMeta(rank0).size(); i++) {
            assertThat(p0).containsValue(copied.get(i).get("pid").intValue());
        }
        // named after the rank and Kineto's process label, sorted rank by rank
        Map<Integer, String> names = new HashMap<>();
        Map<Integer, Integer> sort = new HashMap<>();
        for (JsonNode e : events.subList(expected.size(), events.size())) {
            if (e.get("name").asText().equals("process_name")) {
                names.put(e.get("pid").intValue(), e.get("args").get("name").asText());
            } else if (e.get("name").asText().equals("process_sort_index")) {
                sort.put(e.get("pid").intValue(), e.get("args").get("sort_index").intValue());
            }
        }
        assertThat(names.get(p0.get("4037"))).isEqualTo("rank 0 · CPU");
        assertThat(names.get(p0.get("0"))).isEqualTo("rank 0 · GPU 0");
        assertThat(names.get(p1.get("3"))).isEqualTo("rank 1 · GPU 3");
        int last0 = p0.values().stream().mapToInt(sort::get).max().orElseThrow();
        int first1 = p1.values().stream().mapToInt(sort::get).min().orElseThrow();
        assertThat(last0).isLessThan(first1);
        assertThat(sort.get(p0.get("0"))).isLessThan(sort.get(p0.get("7"))); // Kineto's order within a rank
        assertThat(merged.get("schemaVersion").intValue()).isEqualTo(1);
        assertThat(merged.get("profiledRolloutMerge").get("ranks")).hasSize(2);
        assertThat(merged.get("profiledRolloutMerge").get("ranks").get(1).get("distributedInfo").get("rank")
                .intValue()).isEqualTo(1);
    }

    @Test
    void the_merged_trace_reads_back_as_the_sum_of_its_ranks() throws IOException {
        List<Path> files = List.of(TestTraces.traceFilter(0), TestTraces.traceFilter(1));
        Path out = dir.resolve("merged.json");

        TraceMerger.merge(TraceMerger.byRank(files, f -> ""), out);

        TraceSummary merged = KinetoTraceReader.read(out);
        TraceSet ranks = TraceSet.read(files);
        assertThat(merged.kernelEvents()).isEqualTo(ranks.traces().stream().mapToLong(TraceSummary::kernelEvents).sum());
        assertThat(merged.kernelTotalNs()).isEqualTo(ranks.kernelTotalNs());
        assertThat(merged.busyNs()).isEqualTo(ranks.traces().stream().mapToLong(TraceSummary::busyNs).sum());
        assertThat(merged.devices()).hasSize(ranks.traces().stream().mapToInt(t -> t.devices().size()).sum());
        assertThat(merged.warnings()).isEmpty();
    }

    @Test
    void relative_timestamps_move_exactly_onto_the_smallest_base_and_flow_ids_stay_within_their_rank()
            throws IOException {
        Path r0 = gz("p-TP-0.trace.json.gz", "{\"schemaVersion\":1,\"traceEvents\":["
                + "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1.500,\"dur\":2.000},"
                + "{\"ph\":\"s\",\"id\":5,\"pid\":0,\"tid\":7,\"ts\":1.5,\"cat\":\"ac2g\",\"name\":\"ac2g\"}],"
                + "\"baseTimeNanoseconds\":1000000000}");
        Path r1 = gz("p-TP-1.trace.json.gz", "{\"schemaVersion\":1,\"traceEvents\":["
                + "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1.500,\"dur\":2.000},"
                + "{\"ph\":\"s\",\"id\":5,\"pid\":0,\"tid\":7,\"ts\":1.5,\"cat\":\"ac2g\",\"name\":\"ac2g\"}],"
                + "\"baseTimeNanoseconds\":1000002500}");
        Path out = dir.resolve("m.json");

        TraceMerger.Result result = TraceMerger.merge(TraceMerger.byRank(List.of(r1, r0), f -> ""), out);

        assertThat(result.ranks()).extracting(TraceMerger.Rank::label).containsExactly("TP-0", "TP-1");
        assertThat(result.shiftedNs()).containsExactly(0L, 2500L);
        String text = Files.readString(out);
        assertThat(text).contains("\"ts\":1.500,\"dur\":2.000").contains("\"ts\":4.000,\"dur\":2.000")
                .contains("\"baseTimeNanoseconds\":1000000000");
        JsonNode events = read(out).get("traceEvents");
        assertThat(events.get(1).get("id").intValue()).isEqualTo(10); // 5 × 2 inputs + 0
        assertThat(events.get(3).get("id").intValue()).isEqualTo(11); // 5 × 2 inputs + 1
        assertThat(events.get(0).get("pid").intValue()).isNotEqualTo(events.get(2).get("pid").intValue());
        assertThat(events.get(4).get("args").get("name").asText()).isEqualTo("TP-0 · pid 0");
    }

    @Test
    void events_in_any_field_order_keep_their_fields_and_metadata_is_replaced_in_any_order() throws IOException {
        String events = "{\"name\":\"k\",\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":3,\"tid\":7,\"ts\":1.250,\"dur\":1e1},"
                + "{\"ph\":\"X\",\"name\":\"no pid\",\"ts\":2,\"args\":{\"a\":[1,{\"b\":null}]}},"
                + "{\"ph\":null,\"name\":\"odd\",\"pid\":3},"
                + "{},"
                + "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":3,\"args\":{\"name\":\"python\"}},"
                + "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":3,\"args\":{\"labels\":\"GPU 3\"}},"
                + "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":3,\"tid\":7,\"args\":{\"name\":\"stream 7\"}}";
        Path in = gz("o-TP-0.trace.json.gz", "{\"traceEvents\":[" + events + "]}");
        Path out = dir.resolve("o.json");

        TraceMerger.Result result = TraceMerger.merge(TraceMerger.byRank(List.of(in), f -> ""), out);

        List<JsonNode> merged = list(read(out).get("traceEvents"));
        int gpu = result.ranks().get(0).pids().get("3");
        int none = result.ranks().get(0).pids().get("");
        assertThat(result.metadataDropped()).isEqualTo(2);
        assertThat(merged.get(0).toString()).isEqualTo(
                "{\"name\":\"k\",\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":" + gpu + ",\"tid\":7,\"ts\":1.250,\"dur\":1E+1}");
        assertThat(merged.get(1).toString()).isEqualTo(
                "{\"ph\":\"X\",\"name\":\"no pid\",\"ts\":2,\"args\":{\"a\":[1,{\"b\":null}]},\"pid\":" + none + "}");
        assertThat(merged.get(2).toString()).isEqualTo("{\"ph\":null,\"name\":\"odd\",\"pid\":" + gpu + "}");
        assertThat(merged.get(3).toString()).isEqualTo("{\"pid\":" + none + "}");
        assertThat(merged.get(4).toString()).isEqualTo("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + gpu
                + ",\"tid\":7,\"args\":{\"name\":\"stream 7\"}}");
        assertThat(merged.subList(5, merged.size())).filteredOn(e -> e.get("name").asText().equals("process_name"))
                .extracting(e -> e.get("args").get("name").asText()).containsExactly("TP-0 · GPU 3", "TP-0");
    }

    @Test
    void workers_prefix_the_labels_and_group_the_ranks() throws IOException {
        Path a = gz("w1-TP-1.trace.json.gz", "{\"traceEvents\":[]}");
        Path b = gz("w2-TP-0.trace.json.gz", "{\"traceEvents\":[]}");
        Path c = gz("w1-TP-0.trace.json.gz", "{\"traceEvents\":[]}");

        List<TraceMerger.Input> inputs = TraceMerger.byRank(List.of(a, b, c),
                f -> f.getFileName().toString().startsWith("w1") ? "worker-1" : "worker-2");

        assertThat(inputs).extracting(TraceMerger.Input::label)
                .containsExactly("worker-1/TP-0", "worker-1/TP-1", "worker-2/TP-0");
    }

    @Test
    void a_file_that_is_not_a_trace_is_named_with_the_position_and_leaves_no_output() throws IOException {
        Path good = gz("a-TP-0.trace.json.gz", "{\"traceEvents\":[]}");
        Path bad = dir.resolve("a-TP-1.trace.json");
        Files.writeString(bad, "{\"traceEvents\":[{\"ph\":\"X\",");
        Path out = dir.resolve("m.json.gz");

        assertThatThrownBy(() -> TraceMerger.merge(TraceMerger.byRank(List.of(good, bad), f -> ""), out))
                .isInstanceOf(TraceFormatException.class).hasMessageContaining(bad.toString())
                .hasMessageContaining("line 1");
        assertThat(out).doesNotExist();
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".part"));
        }
    }

    private static List<JsonNode> withoutProcessMeta(List<JsonNode> events) {
        return events.stream().filter(e -> !(e.path("ph").asText().equals("M")
                && PROCESS_META.contains(e.path("name").asText()))).toList();
    }

    private static List<JsonNode> list(JsonNode array) {
        List<JsonNode> list = new ArrayList<>();
        array.forEach(list::add);
        return list;
    }

    private static JsonNode read(Path file) throws IOException {
        try (InputStream raw = Files.newInputStream(file);
             InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw) {
            return JSON.readTree(in);
        }
    }

    private Path gz(String name, String json) throws IOException {
        Path file = dir.resolve(name);
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(json.getBytes(StandardCharsets.UTF_8));
        }
        return file;
    }
}
