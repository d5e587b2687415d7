package dev.profiledrollout.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.profiledrollout.trace.analysis.IdleGap;
import dev.profiledrollout.trace.analysis.KernelCategories;
import dev.profiledrollout.trace.analysis.LaunchStats;
import dev.profiledrollout.trace.analysis.OperatorStats;
import dev.profiledrollout.trace.files.RankIdentity;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Analyses on small hand-written traces whose answers are known exactly. */
class TraceAnalysesCraftedTest {

    @TempDir
    Path dir;

    private Path gz(String name, String json) throws IOException {
        Path file = dir.resolve(name);
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(json.getBytes(StandardCharsets.UTF_8));
        }
        return file;
    }

    private static String x(String cat, String name, Object pid, String ts, String dur, String args) {
        String p = pid instanceof String s ? "\"" + s + "\"" : String.valueOf(pid);
        return "{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":\"" + name + "\",\"pid\":" + p + ",\"tid\":7,\"ts\":" + ts
                + ",\"dur\":" + dur + (args.isEmpty() ? "" : ",\"args\":{" + args + "}") + "}";
    }

    private static String trace(String... events) {
        return "{\"schemaVersion\":1,\"traceEvents\":[" + String.join(",", events) + "]}";
    }

    @Test
    void kernel_percentiles_never_exceed_the_exact_maximum_duration() throws IOException {
        // 101.234 µs falls in a 512 ns bucket of the 2-significant-digit histogram: its highest equivalent value is
        // 101.375 µs, above the exact maximum
        TraceSummary s = KinetoTraceReader.read(gz("p.json.gz", trace(
                x("kernel", "k", 0, "0", "50", ""),
                x("kernel", "k", 0, "100", "101.234", ""))));

        KernelStats k = s.kernels().get(0);
        assertThat(k.maxNs()).isEqualTo(101_234L);
        assertThat(k.p99Ns()).isEqualTo(101_234L);
        assertThat(k.p50Ns()).isBetween(k.minNs(), k.maxNs());
    }

    @Test
    void graph_launches_without_kernels_are_flagged_instead_of_a_silently_idle_gpu() throws IOException {
        // 4 cudaGraphLaunch calls, only the first has its kernels in the trace
        StringBuilder events = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            events.append(x("cuda_runtime", "cudaGraphLaunch", 100, String.valueOf(1000 * i), "5",
                    "\"correlation\":" + (10 + i))).append(',');
        }
        events.append(x("kernel", "gemm_a", 0, "10", "100", "\"correlation\":10")).append(',');
        events.append(x("kernel", "gemm_b", 0, "110", "100", "\"correlation\":10"));
        TraceSummary s = KinetoTraceReader.read(gz("g.json.gz", trace(events.toString())));

        LaunchStats l = s.details().launches();
        assertThat(l.graphLaunches()).isEqualTo(4);
        assertThat(l.graphLaunchesWithoutKernels()).isEqualTo(3);
        assertThat(l.graphKernels()).isEqualTo(2);
        assertThat(l.graphKernelsMissing()).isTrue();
        assertThat(l.launches()).isEqualTo(4);
        // kernel at 10 µs, launch ended at 5 µs; HdrHistogram with 2 significant digits
        assertThat(l.delayP50Ns()).isCloseTo(5_000L, org.assertj.core.api.Assertions.withinPercentage(1));
        assertThat(s.warnings()).anySatisfy(w -> assertThat(w).startsWith("graph kernels missing: 3 of 4"));
    }

    @Test
    void idle_gaps_are_the_largest_first_with_the_enclosing_cpu_annotation() throws IOException {
        Path file = gz("gaps.json.gz", trace(
                x("user_annotation", "step[DECODE bs=4]", 100, "0", "1000", ""),
                x("user_annotation", "sample", 100, "650", "100", ""),
                x("kernel", "k", 0, "0", "100", ""),
                x("kernel", "k", 0, "150", "50", ""),    // gap 100..150 (50 µs)
                x("kernel", "k", 0, "600", "100", ""),   // gap 200..600 (400 µs)
                x("gpu_memcpy", "Memcpy HtoD", 0, "900", "10", "")));  // gap 700..900 (200 µs)
        TraceSummary s = KinetoTraceReader.read(file);

        assertThat(s.details().idleGaps()).extracting(IdleGap::durationNs)
                .containsExactly(400_000L, 200_000L, 50_000L);
        assertThat(s.details().idleGaps().get(0).startNs()).isEqualTo(200_000);
        assertThat(s.details().idleGaps().get(0).cpuContext()).isEqualTo("step[DECODE bs=4]");
        assertThat(s.details().idleGaps().get(1).cpuContext()).isEqualTo("sample"); // innermost at 700 µs
    }

    @Test
    void idle_gaps_keep_the_earliest_of_equally_long_gaps_beyond_the_limit() throws IOException {
        // 30 kernels of 10 µs every 20 µs: 29 gaps of 10 µs each, then one of 50 µs; 20 are kept
        String[] events = new String[31];
        for (int i = 0; i < 30; i++) {
            events[i] = x("kernel", "k", 0, String.valueOf(20 * i), "10", "");
        }
        events[30] = x("kernel", "k", 0, "640", "10", ""); // after the kernel ending at 590 µs
        TraceSummary s = KinetoTraceReader.read(gz("ties.json.gz", trace(events)));

        List<IdleGap> gaps = s.details().idleGaps();
        assertThat(gaps).hasSize(TraceDetails.MAX_IDLE_GAPS);
        assertThat(gaps.get(0).durationNs()).isEqualTo(50_000L);
        assertThat(gaps.get(0).startNs()).isEqualTo(590_000L);
        // the 19 earliest of the 29 equal gaps, in start order: 10, 30, ..., 370 µs
        assertThat(gaps.subList(1, gaps.size())).extracting(IdleGap::startNs)
                .containsExactlyElementsOf(java.util.stream.LongStream.range(0, 19).map(i -> 10_000L + 20_000L * i)
                        .boxed().toList());
    }

    @Test
    void unescaped_quotes_inside_strings_from_old_kineto_are_repaired_and_counted() throws IOException {
        String json = "{\"traceEvents\":[" + x("kernel", "void f<\"quoted\" arg>(int)", 0, "0", "10", "") + ","
                + x("kernel", "plain", 0, "20", "5", "") + "]}";
        TraceSummary s = KinetoTraceReader.read(gz("q.json.gz", json));

        assertThat(s.kernels()).extracting(KernelStats::name).containsExactly("void f<\"quoted\" arg>(int)", "plain");
        assertThat(s.warnings()).anySatisfy(w -> assertThat(w).startsWith("escaped 2 unescaped quotes"));
    }

    @Test
    void an_sglang_merged_trace_splits_back_into_ranks_by_pid_label() throws IOException {
        Path merged = gz("merged-1773999986.48.trace.json.gz", trace(
                x("kernel", "gemm", "[TP00] 0", "0", "100", ""),
                x("kernel", "nccl_allreduce", "[TP00] 0", "100", "50", ""),
                x("kernel", "gemm", "[TP01] 1", "0", "300", ""),
                x("cpu_op", "aten::mm", "[TP01] 4242", "0", "7", "\"External id\":1"),
                x("kernel", "gemm", "[TP01-DP01] 3", "0", "10", "")));
        List<TraceSummary> ranks = KinetoTraceReader.readRanks(merged, KernelCategories.defaults());

        assertThat(ranks).extracting(t -> t.rank().orElseThrow().label())
                .containsExactly("TP-0", "TP-1", "TP-1-DP-1");
        assertThat(ranks).extracting(TraceSummary::kernelTotalNs).containsExactly(150_000L, 300_000L, 10_000L);
        assertThat(ranks.get(0).rank().orElseThrow().profileId()).isEqualTo("1773999986.48");
        assertThat(ranks.get(1).details().operators()).extracting(OperatorStats::name).containsExactly("aten::mm");

        TraceSet set = TraceSet.read(List.of(merged));
        assertThat(set.traces()).hasSize(3);
        assertThat(set.straggler().orElseThrow().rank().orElseThrow().label()).isEqualTo("TP-1");
        assertThat(set.busyImbalance()).isCloseTo(300.0 / (460.0 / 3), within(1e-9));
        KernelSpread gemm = set.kernelSpread().stream().filter(k -> k.name().equals("gemm")).findFirst().orElseThrow();
        assertThat(gemm.maxNs()).isEqualTo(300_000);
        assertThat(gemm.minNs()).isEqualTo(10_000);
        assertThat(gemm.maxLabel()).isEqualTo("TP-1");
        assertThat(gemm.spread()).isCloseTo(300.0 / (410.0 / 3), within(1e-9));
        KernelSpread nccl = set.kernelSpread().get(0);
        assertThat(nccl.name()).isEqualTo("nccl_allreduce"); // only on one rank: spread 3.0
        assertThat(nccl.spread()).isCloseTo(3.0, within(1e-9));
    }

    @Test
    void operators_group_by_input_shapes_and_receive_their_kernels_gpu_time() throws IOException {
        TraceSummary s = KinetoTraceReader.read(gz("ops.json.gz", trace(
                x("cpu_op", "aten::mm", 100, "0", "20", "\"External id\":1,\"Input Dims\":[[8,16],[16,32]]"),
                x("cpu_op", "aten::mm", 100, "30", "10", "\"External id\":2,\"Input Dims\":[[8,16],[16,32]]"),
                x("cpu_op", "aten::mm", 100, "50", "10", "\"External id\":3,\"Input Dims\":[[1,16],[16,32]]"),
                x("kernel", "gemm", 0, "5", "4", "\"External id\":1"),
                x("kernel", "gemm", 0, "35", "6", "\"External id\":2"),
                x("kernel", "gemm", 0, "55", "1", "\"External id\":3"),
                x("kernel", "graph_kernel", 0, "70", "2", ""))));

        assertThat(s.details().operators()).containsExactly(
                new OperatorStats("aten::mm", "[[8, 16], [16, 32]]", 2, 30_000, 2, 10_000),
                new OperatorStats("aten::mm", "[[1, 16], [16, 32]]", 1, 10_000, 1, 1_000));
        assertThat(s.details().launches().kernelNsWithoutCpuOp()).isEqualTo(2_000);
    }

    @Test
    void vllm_file_names_give_the_rank() {
        assertThat(RankIdentity.fromFileName("dp0_pp0_tp1_dcp0_ep0_rank1.1773709742343012345.pt.trace.json.gz"))
                .hasValueSatisfying(r -> {
                    assertThat(r.tp()).isEqualTo(1);
                    assertThat(r.dp()).hasValue(0);
                    assertThat(r.profileId()).isEqualTo("1773709742343012345");
                });
        assertThat(RankIdentity.fromVllmFileName("abcde-rank-3.1773709742343012345.pt.trace.json"))
                .hasValueSatisfying(r -> assertThat(r.tp()).isEqualTo(3));
        assertThat(RankIdentity.fromVllmFileName("node7_4121.async_llm.1773709742351000000.pt.trace.json.gz")).isEmpty();
        assertThat(RankIdentity.fromFileName("rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")).isEmpty();
        assertThat(StepStats.parse("execute_context_2(300)_generation_6(6)", 0, 1).stage())
                .isEqualTo(StepStats.Stage.MIXED);
        assertThat(StepStats.parse("execute_context_0(0)_generation_6(6)", 0, 1).stage())
                .isEqualTo(StepStats.Stage.DECODE);
        assertThat(StepStats.parse("execute_context_1(512)_generation_0(0)", 0, 1).tokens()).hasValue(512);
    }

    @Test
    void distributed_info_rank_is_read_from_the_shared_trace_filter_files() throws IOException {
        TraceSet set = TraceSet.read(List.of(TestTraces.traceFilter(1), TestTraces.traceFilter(0)));
        assertThat(set.anyRank(1).orElseThrow().file()).isEqualTo(TestTraces.traceFilter(1));
        assertThat(TraceSet.label(set.anyRank(0).orElseThrow())).isEqualTo("rank 0");
        assertThat(set.traces().get(0).details().steps()).extracting(StepStats::name)
                .containsExactly("ProfilerStep#551", "ProfilerStep#552");
    }
}
