package dev.profiledrollout.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

class TraceFilesTest {

    @TempDir
    Path dir;

    @Test
    void should_keep_the_frontend_trace_apart_from_rank_traces() {
        assertThat(TraceFiles.isRankTrace("dp0_pp0_tp0_dcp0_ep0_rank0.1773709742341309550.pt.trace.json.gz")).isTrue();
        assertThat(TraceFiles.isRankTrace("node7_4121.async_llm.1773709742351000000.pt.trace.json.gz")).isFalse();
        assertThat(TraceFiles.isFrontend("node7_4121.async_llm.1773709742351000000.pt.trace.json.gz")).isTrue();
        assertThat(TraceFiles.isProfilerTable("profiler_out_1.txt")).isTrue();
        assertThat(TraceFiles.isRankTrace("profiler_out_1.txt")).isFalse();
    }

    @Test
    void should_name_a_host_pid_trace_with_its_distributed_rank() throws IOException {
        // GIVEN a v0.10-era worker trace with distributedInfo after a large first field
        Path trace = dir.resolve("node7_4121.1773709742351000000.pt.trace.json.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(trace))) {
            out.write(("{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"H100\"}],"
                    + "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":3,\"world_size\":4},"
                    + "\"traceEvents\":[]}").getBytes(StandardCharsets.UTF_8));
        }
        // WHEN
        OptionalInt rank = TraceFiles.distributedRank(trace);
        // THEN
        assertThat(rank).isEqualTo(OptionalInt.of(3));
        assertThat(TraceFiles.withRank(trace.getFileName().toString(), 3))
                .isEqualTo("node7_4121_rank3.1773709742351000000.pt.trace.json.gz");
        assertThat(dev.profiledrollout.trace.RankIdentity.fromFileName(
                TraceFiles.withRank(trace.getFileName().toString(), 3)).orElseThrow().tp()).isEqualTo(3);
    }
}
