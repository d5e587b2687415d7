package dev.profiledrollout.trace.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which files of a profiler directory belong to a capture, and the names they are kept under. */
class TraceFilesTest {

    @TempDir
    Path dir;

    @Test
    void should_keep_the_frontend_trace_apart_from_rank_traces() {
        assertThat(TraceFileName.isRankTrace("dp0_pp0_tp0_dcp0_ep0_rank0.1773709742341309550.pt.trace.json.gz")).isTrue();
        assertThat(TraceFileName.isRankTrace("node7_4121.async_llm.1773709742351000000.pt.trace.json.gz")).isFalse();
        assertThat(TraceFileName.isFrontend("node7_4121.async_llm.1773709742351000000.pt.trace.json.gz")).isTrue();
        assertThat(TraceFileName.isProfilerTable("profiler_out_1.txt")).isTrue();
        assertThat(TraceFileName.isRankTrace("profiler_out_1.txt")).isFalse();
    }

    @Test
    void should_name_a_host_pid_trace_with_its_distributed_rank() throws IOException {
        // GIVEN a v0.10-era worker trace with distributedInfo after a large first field
        Path trace = dir.resolve("node7_4121.1773709742351000000.pt.trace.json.gz");
        writeGzip(trace, "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"H100\"}],"
                + "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":3,\"world_size\":4},\"traceEvents\":[]}");
        // WHEN
        OptionalInt rank = TraceFiles.distributedRank(trace);
        // THEN
        assertThat(rank).isEqualTo(OptionalInt.of(3));
        assertThat(TraceFileName.withRank(trace.getFileName().toString(), 3))
                .isEqualTo("node7_4121_rank3.1773709742351000000.pt.trace.json.gz");
        assertThat(RankIdentity.fromFileName(TraceFileName.withRank(trace.getFileName().toString(), 3))
                .orElseThrow().tp()).isEqualTo(3);
        assertThat(TraceFiles.keptName(trace)).isEqualTo("node7_4121_rank3.1773709742351000000.pt.trace.json.gz");
    }

    @Test
    void a_name_that_carries_its_rank_is_kept_without_reading_the_trace() throws IOException {
        Path notJson = Files.writeString(dir.resolve("dp0_pp0_tp1_dcp0_ep0_rank1.1773709742343012345.pt.trace.json"),
                "not json");
        Path sglang = Files.writeString(dir.resolve("1773999986.4851577-TP-0.trace.json.gz"), "not gzip");

        assertThat(TraceFiles.keptName(notJson)).isEqualTo(notJson.getFileName().toString());
        assertThat(TraceFiles.keptName(sglang)).isEqualTo(sglang.getFileName().toString());
        assertThat(TraceFileName.lacksRank("node7_4121.async_llm.1773709742351000000.pt.trace.json.gz")).isFalse();
    }

    @Test
    void a_capture_is_the_files_that_were_not_there_before_it_one_worker_directory_deep() throws IOException {
        // GIVEN a shared vLLM directory holding an earlier window's files
        touch("old_rank0.1773709742000000000.pt.trace.json.gz");
        touch("profiler_out_0.txt");
        Set<String> before = TraceFiles.snapshot(dir);
        // WHEN this window's workers write theirs, one host per sub-directory
        touch("worker-0/dp0_pp0_tp0_dcp0_ep0_rank0.1773709742343012345.pt.trace.json.gz");
        touch("worker-1/dp0_pp0_tp1_dcp0_ep0_rank1.1773709742343012345.pt.trace.json.gz");
        touch("node7_4121.async_llm.1773709742351000000.pt.trace.json.gz");
        touch("worker-1/profiler_out_1.txt");
        touch("profiler_out_0.txt.partial");
        touch("worker-1/deeper/rank9.1773709742343012345.pt.trace.json.gz");
        // THEN
        assertThat(before).containsExactlyInAnyOrder("old_rank0.1773709742000000000.pt.trace.json.gz",
                "profiler_out_0.txt");
        assertThat(TraceFiles.rankTraces(dir, true, before)).extracting(p -> dir.relativize(p).toString())
                .containsExactly("worker-0/dp0_pp0_tp0_dcp0_ep0_rank0.1773709742343012345.pt.trace.json.gz",
                        "worker-1/dp0_pp0_tp1_dcp0_ep0_rank1.1773709742343012345.pt.trace.json.gz");
        assertThat(TraceFiles.rankTraces(dir, false, Set.of())).extracting(p -> p.getFileName().toString())
                .containsExactly("old_rank0.1773709742000000000.pt.trace.json.gz");
        assertThat(TraceFiles.frontendTraces(dir, before)).extracting(p -> p.getFileName().toString())
                .containsExactly("node7_4121.async_llm.1773709742351000000.pt.trace.json.gz");
        assertThat(TraceFiles.profilerTables(dir, before)).extracting(p -> dir.relativize(p).toString())
                .containsExactly("worker-1/profiler_out_1.txt");
        assertThat(TraceFiles.rankTraces(dir.resolve("absent"), true, Set.of())).isEmpty();
    }

    @Test
    void the_analyze_command_reads_every_json_file_at_any_depth_in_path_order() throws IOException {
        touch("b/deep/er/merged-7.trace.json.gz");
        touch("a.json");
        touch("b/summary.json");
        touch("b/report.rpd");
        touch("b/notes.txt");

        assertThat(TraceFiles.below(dir)).extracting(p -> dir.relativize(p).toString())
                .containsExactly("a.json", "b/deep/er/merged-7.trace.json.gz", "b/summary.json");
    }

    @Test
    void merged_traces_and_other_analysis_inputs_are_told_by_their_names() {
        assertThat(TraceFileName.isMerged("merged-1773999986.48.trace.json.gz")).isTrue();
        assertThat(TraceFileName.mergedProfileId("merged-1773999986.48.trace.json.gz")).isEqualTo("1773999986.48");
        assertThat(TraceFileName.mergedProfileId("1773999986.48-TP-0.trace.json.gz"))
                .isEqualTo("1773999986.48-TP-0.trace.json.gz");
        assertThat(TraceFileName.isRankTrace("merged-1773999986.48.trace.json.gz")).as("one more file of the capture")
                .isTrue();
        assertThat(TraceFileName.sglangRank("rpd-1773999986.48-TP-0.trace.json.gz").orElseThrow().prefix())
                .isEqualTo("rpd");
        assertThat(TraceFileName.isSqlite("trace.RPD")).isTrue();
        assertThat(TraceFileName.isSqlite("report.sqlite")).isTrue();
        assertThat(TraceFileName.isNsysCsv("kern_sum.csv")).isTrue();
        assertThat(TraceFileName.canonicalStage("EXTEND")).isEqualTo("prefill");
        assertThat(TraceFileName.canonicalStage("DECODE")).isEqualTo("decode");
    }

    private void touch(String relative) throws IOException {
        Path file = dir.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{}");
    }

    private static void writeGzip(Path file, String content) throws IOException {
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(content.getBytes(StandardCharsets.UTF_8));
        }
    }
}
