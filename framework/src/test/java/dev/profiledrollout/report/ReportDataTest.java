package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.CategoryStats;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import dev.profiledrollout.verdict.Verdict;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ReportData} reads {@code summary.json} back with the mapping {@link RunReport} wrote it with. */
class ReportDataTest {

    @TempDir
    Path dir;

    private TraceSet writeRun(Path run) throws Exception {
        Path sglangRank = Files.copy(TestTraces.resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz"),
                dir.resolve("run-1700000000.5-TP-1.trace.json.gz"));
        TraceSet trace = TraceSet.of(List.of(KinetoTraceReader.read(sglangRank),
                KinetoTraceReader.read(TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz"))));
        LatencyReport latency = RunFixtures.latency();
        RunReport report = new RunReport(run, "ReportDataTest.run", URI.create("http://gpu:30000"), true,
                new ServerInfo(2, 1, 1, 1, "m", true, JsonNodeFactory.instance.objectNode()),
                new LoadSpec(8, 40, 128, 8, 0.0, 0, 1), ProfileRequest.builder().numSteps(5).build());
        report.writeRequests(latency);
        report.writeSummary(latency, trace, null);
        return trace;
    }

    @Test
    void should_read_the_trace_records_back_equal_to_those_written() throws Exception {
        // GIVEN
        Path run = dir.resolve("run");
        TraceSet trace = writeRun(run);
        // WHEN
        ReportData data = ReportData.read(run);
        // THEN
        assertThat(data.testName()).isEqualTo("ReportDataTest.run");
        assertThat(data.trace().ranks()).extracting(LabeledTrace::file)
                .containsExactly("run-1700000000.5-TP-1.trace.json.gz", "sampled_rank-0.json.gz");
        for (int i = 0; i < trace.traces().size(); i++) {
            TraceSummary written = trace.traces().get(i);
            TraceSummary read = data.trace().ranks().get(i).summary();
            assertThat(read.rank()).isEqualTo(written.rank());
            assertThat(read.kernels()).isEqualTo(written.kernels());
            assertThat(read.devices()).isEqualTo(written.devices());
            assertThat(read.details().categories()).isEqualTo(written.details().categories());
        }
        assertThat(data.trace().kernels()).isEqualTo(trace.kernels());
        assertThat(data.kernelTotalNs()).isEqualTo(trace.kernelTotalNs());
        assertThat(data.kernels()).extracting(ReportData.Kernel::name, ReportData.Kernel::totalNs).containsExactlyElementsOf(
                trace.kernels().stream().map(k -> org.assertj.core.groups.Tuple.tuple(k.name(), k.totalNs())).toList());
        assertThat(data.rankBusy()).containsExactly(
                new ReportData.RankBusy("TP-1", trace.traces().get(0).busyNs(), trace.traces().get(0).spanNs()),
                new ReportData.RankBusy("rank 0", trace.traces().get(1).busyNs(),
                        trace.traces().get(1).spanNs()));
        Map<String, Long> categories = new LinkedHashMap<>();
        trace.traces().forEach(t -> t.details().categories().forEach(
                (CategoryStats c) -> categories.merge(c.category().name(), c.totalNs(), Long::sum)));
        assertThat(data.categories()).isEqualTo(categories).isNotEmpty();
        assertThat(data.requests()).hasSize(RunFixtures.latency().records().size());
        assertThat(data.requests().get(0))
                .isEqualTo(new ReportData.Request(0, 20_000_000, 55_000_000, null, 55_000_000, 8, 8));
        assertThat(data.verdicts()).isEmpty();
    }

    @Test
    void should_read_a_summary_with_fields_added_by_a_later_version() throws Exception {
        Path run = dir.resolve("run");
        writeRun(run);
        ObjectNode summary = (ObjectNode) ResultsModule.MAPPER.readTree(run.resolve("summary.json").toFile());
        summary.put("addedLater", 1);
        ((ObjectNode) summary.path("trace")).put("addedLater", 1);
        ((ObjectNode) summary.path("trace").path("kernels").get(0)).put("addedLater", 1);
        ((ObjectNode) summary.path("trace").path("ranks").get(0)).put("addedLater", 1);
        ((ObjectNode) summary.path("trace").path("ranks").get(0).path("rank")).put("addedLater", 1);
        ReportData before = ReportData.read(run);
        ResultsModule.MAPPER.writeValue(run.resolve("summary.json").toFile(), summary);

        ReportData after = ReportData.read(run);

        assertThat(after.trace()).isEqualTo(before.trace());
        assertThat(after.kernels()).isEqualTo(before.kernels());
    }

    @Test
    void should_read_a_summary_without_trace_or_test_name() throws Exception {
        Path run = Files.createDirectories(dir.resolve("partial"));
        Files.writeString(run.resolve("summary.json"), "{\"latency\":{},\"error\":\"engine died\"}");

        ReportData data = ReportData.read(run);

        assertThat(data.testName()).isEqualTo("partial");
        assertThat(data.trace()).isEqualTo(ReportData.Trace.NONE);
        assertThat(data.kernels()).isEmpty();
        assertThat(data.rankBusy()).isEmpty();
        assertThat(data.verdicts()).isEmpty();
    }

    @Test
    void should_name_summary_json_and_the_field_when_a_record_cannot_be_read() throws Exception {
        Path run = Files.createDirectories(dir.resolve("broken"));
        Files.writeString(run.resolve("summary.json"), "{\"trace\":{\"kernels\":[{\"count\":3}]}}");

        assertThatThrownBy(() -> ReportData.read(run)).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("Could not read the run in " + run + ": summary.json: ")
                .hasMessageContaining("a kernel needs a \"name\" string")
                .hasMessageContaining("\"kernels\"");
    }

    @Test
    void should_read_verdicts_of_an_older_file_and_of_the_current_shape() throws Exception {
        Path run = Files.createDirectories(dir.resolve("verdicts"));
        Files.writeString(run.resolve("summary.json"), "{\"verdicts\":["
                + "{\"measure\":\"p99 TTFT\",\"relation\":\"<\",\"actual\":312.0,\"budget\":250.0,"
                + "\"actualText\":\"312 ms\",\"budgetText\":\"250 ms\",\"passed\":false},"
                + "{\"kind\":\"CAPTURE\",\"scope\":\"PREFILL\",\"measure\":\"steps captured\",\"relation\":\"=\","
                + "\"actual\":9,\"budget\":10,\"unit\":\"\",\"actualText\":\"9\",\"budgetText\":\"10\",\"gap\":null,"
                + "\"detail\":\"set strictSteps\",\"passed\":false,\"enforced\":false,\"outcome\":\"WARN\"}]}");

        List<Verdict> verdicts = ReportData.read(run).verdicts();

        assertThat(verdicts).extracting(Verdict::describe).containsExactly(
                "FAIL p99 TTFT: 312 ms, budget < 250 ms (+24.8%)",
                "WARN [PREFILL] steps captured: 9, budget = 10; set strictSteps");
    }

    @Test
    void should_label_ranks_from_the_file_and_name_a_straggler_only_among_two_or_more() throws Exception {
        Path run = dir.resolve("run");
        writeRun(run);
        ObjectNode summary = (ObjectNode) ResultsModule.MAPPER.readTree(run.resolve("summary.json").toFile());
        ((ObjectNode) summary.path("trace").path("ranks").get(0)).put("label", "worker-1/TP-1");
        ResultsModule.MAPPER.writeValue(run.resolve("summary.json").toFile(), summary);
        ReportData two = ReportData.read(run);
        ((ObjectNode) summary.path("trace")).putNull("straggler");
        ResultsModule.MAPPER.writeValue(run.resolve("summary.json").toFile(), summary);
        ReportData noneNamed = ReportData.read(run);
        ((ObjectNode) summary.path("trace")).remove("straggler");
        ((com.fasterxml.jackson.databind.node.ArrayNode) summary.path("trace").path("ranks")).remove(1);
        ResultsModule.MAPPER.writeValue(run.resolve("summary.json").toFile(), summary);
        ReportData one = ReportData.read(run);

        assertThat(two.rankBusy()).extracting(ReportData.RankBusy::label)
                .containsExactly("worker-1/TP-1", "rank 0");
        String busiest = two.rankBusy().get(0).busyNs() >= two.rankBusy().get(1).busyNs() ? "worker-1/TP-1"
                : "rank 0";
        assertThat(two.straggler()).contains(busiest);
        assertThat(noneNamed.straggler()).isEmpty();
        assertThat(one.rankBusy()).hasSize(1);
        assertThat(one.straggler()).isEmpty();
    }
}
