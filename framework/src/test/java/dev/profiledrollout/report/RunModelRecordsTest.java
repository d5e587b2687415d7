package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.history.RunIdentity;
import dev.profiledrollout.history.RunRecord;
import dev.profiledrollout.history.RunRecords;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSet;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The history recorder records from the run model it holds in memory (what {@link RunReport#summary} built and the
 * latency log written to memory), not from the files; the record is the one {@link RunRecords#fromDirectory} reads
 * from those files, field by field.
 */
class RunModelRecordsTest {

    @TempDir
    Path dir;

    @Test
    void the_record_from_memory_is_the_record_from_the_files() throws Exception {
        // GIVEN a window of two real ranks (HTA's sampled traces, with steps and categories) and made-up requests
        TraceSet trace = TraceSet.read(List.of(TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz"),
                TestTraces.resolve("hta/trace_filter/sampled_rank-1.json.gz")));
        LatencyReport latency = RunFixtures.latency();
        RunReport report = new RunReport(dir, "RunModelRecordsTest.run", URI.create("http://gpu:30000"), false,
                new ServerInfo(2, 1, 1, 1, "m", true, JsonNodeFactory.instance.objectNode()),
                new LoadSpec(8, 40, 128, 8, 0.25, 16, 1), ProfileRequest.builder().numSteps(5).build())
                .withBackend("SGLANG");
        report.writeRequests(latency);
        SummaryFile written = report.summary(latency, trace, null);
        report.writeSummary(written);
        JsonNode summary = written.toTree();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        latency.writeHistogramLog(log);
        RunIdentity identity = new RunIdentity("RunModelRecordsTest#run", Instant.parse("2026-01-01T00:00:00Z"),
                "c0ffee0", "main", null, null, "host");

        // WHEN
        RunRecord fromMemory = RunRecords.fromModel(List.of(new RunRecords.Window(null, dir, RunHeader.of(summary),
                ReportData.Trace.of(summary), RunRecords.histograms(log.toByteArray()))), identity).get(0);
        RunRecord fromFiles = RunRecords.fromDirectory(dir, identity).get(0);

        // THEN
        assertThat(fromMemory.configuration()).isEqualTo(fromFiles.configuration());
        assertThat(fromMemory.outcome()).isEqualTo(fromFiles.outcome());
        assertThat(fromMemory.metrics()).isEqualTo(fromFiles.metrics()).containsKeys("ttft.p99",
                "trace.gpu_busy_fraction", "trace.kernel_ms");
        assertThat(fromMemory.kernelNames()).isEqualTo(fromFiles.kernelNames()).isNotEmpty();
        assertThat(fromMemory.histograms().keySet()).isEqualTo(fromFiles.histograms().keySet())
                .contains("ttft", "e2e");
        fromFiles.histograms().forEach((name, bytes) -> assertThat(fromMemory.histograms().get(name))
                .as(name).isEqualTo(bytes));
        assertThat(Files.isRegularFile(dir.resolve("latency.hlog"))).isTrue();
    }
}
