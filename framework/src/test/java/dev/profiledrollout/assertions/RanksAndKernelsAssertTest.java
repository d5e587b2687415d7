package dev.profiledrollout.assertions;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.matching;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.files.RankIdentity;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Rank comparisons and kernel selections on small hand-built rank sets whose arithmetic is known, and the per-file
 * measures on the repository's real traces.
 */
class RanksAndKernelsAssertTest {

    private static final long MS = 1_000_000L;
    private static final String LONG_NAME = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8>";

    /** A TP rank whose GPU was busy {@code busyMs} of a 100 ms span, with the given kernels. */
    private static TraceSummary rank(int tp, long busyMs, KernelStats... kernels) {
        String file = "1773999986.48-TP-" + tp + ".trace.json.gz";
        long total = 0;
        for (KernelStats k : kernels) {
            total += k.totalNs();
        }
        return new TraceSummary(Path.of(file), RankIdentity.fromSglangFileName(file), kernels.length, 0,
                kernels.length, total, List.of(new DeviceStats("0", busyMs * MS, 100 * MS)), List.of(kernels),
                List.of());
    }

    /** TP-0 busy 40 ms, TP-1 60 ms, TP-2 50 ms; gemm 30/45/40 ms, norm 10 ms on TP-0 only... and TP-2. */
    private static TraceSet three() {
        return TraceSet.of(List.of(
                rank(0, 40, new KernelStats("gemm", 3, 30 * MS, 10 * MS, 10 * MS), new KernelStats("norm", 2, 10 * MS, 5 * MS, 5 * MS)),
                rank(1, 60, new KernelStats("gemm", 3, 45 * MS, 15 * MS, 15 * MS), new KernelStats(LONG_NAME, 1, 15 * MS, 15 * MS, 15 * MS)),
                rank(2, 50, new KernelStats("gemm", 3, 40 * MS, 10 * MS, 20 * MS), new KernelStats("norm", 2, 10 * MS, 5 * MS, 5 * MS))));
    }

    @Test
    void the_straggler_is_compared_with_the_mean_of_the_other_ranks() {
        // TP-1 busy 60 ms against the mean 45 ms of TP-0 and TP-2
        assertThat(three()).ranks().straggler().isGreaterThan(1.333).isLessThan(1.334);
        assertThatThrownBy(() -> assertThat(three()).ranks().straggler().isLessThan(1.2))
                .hasMessage("straggler TP-1: busy time over the other ranks' mean was 1.333, budget < 1.200 (+11.1%);"
                        + " TP-1 busy 60 ms vs mean 45 ms");
        // busy imbalance: max 60 over mean 50
        assertThat(three()).ranks().busyImbalance().isGreaterThanOrEqualTo(1.2).isLessThanOrEqualTo(1.2);
        assertThatThrownBy(() -> assertThat(three()).ranks().busyImbalance().isLessThan(1.1))
                .hasMessageContaining("busy per rank: TP-0 40 ms, TP-1 60 ms, TP-2 50 ms");
        // one rank: no straggler
        TraceSet one = TraceSet.of(List.of(rank(0, 40)));
        assertThatThrownBy(() -> assertThat(one).ranks().straggler().isLessThan(1.0))
                .hasMessageContaining("straggler busy time over the other ranks' mean was 1, budget < 1")
                .hasMessageContaining("1 rank(s)");
        // idle other ranks: ratio 1
        TraceSet idle = TraceSet.of(List.of(rank(0, 40), rank(1, 0)));
        assertThatThrownBy(() -> assertThat(idle).ranks().straggler().isGreaterThan(1.0))
                .hasMessageContaining("straggler TP-0: busy time over the other ranks' mean was 1.000");
    }

    @Test
    void the_rank_count_names_the_ranks_found() {
        assertThat(three()).ranks().hasSize(3).hasSize(3);
        assertThatThrownBy(() -> assertThat(three()).ranks().hasSize(2))
                .hasMessage("expected 2 rank trace files but found 3: [TP-0, TP-1, TP-2]");
    }

    @Test
    void kernel_spread_names_the_kernel_and_its_longest_rank() {
        // norm: 10, 0, 10 ms → spread 10 / 6.67 = 1.5; gemm 45 / 38.3 = 1.174; the long name only on TP-1: 3.0
        assertThat(three()).ranks().kernelSpread(matching("norm")).isGreaterThan(1.499).isLessThan(1.501);
        assertThatThrownBy(() -> assertThat(three()).ranks().kernelSpread(matching("gemm")).isLessThan(1.1))
                .hasMessage("kernel time spread (max/mean over ranks) of gemm was 1.174, budget < 1.100 (+6.7%);"
                        + " longest on TP-1: 45 ms vs mean 38.3 ms, min 30 ms");
        assertThatThrownBy(() -> assertThat(three()).ranks().kernelSpread(matching("nothing")).isLessThan(1.0))
                .hasMessageContaining("was 1, budget < 1").hasMessageContaining("no such kernel on two or more ranks");
        assertThat(three()).ranks().kernelSpread(matching(".*")).isGreaterThan(2.9);
    }

    @Test
    void a_missing_rank_fails_at_once_naming_the_ranks_there_are() {
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            assertThatThrownBy(() -> assertThat(three()).rank(5))
                    .hasMessage("no trace of TP rank 5; the capture has [TP-0, TP-1, TP-2]");
            org.assertj.core.api.Assertions.assertThat(recording.verdicts()).extracting(Verdict::detail, Verdict::actual)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("ranks in the capture: [TP-0, TP-1, TP-2]", 0.0));
        }
        Verdict verdict;
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            assertThat(three().withScope("DECODE")).rank(1).gpuBusyFraction().isGreaterThan(0.59);
            verdict = recording.verdicts().get(0);
        }
        org.assertj.core.api.Assertions.assertThat(verdict.scope()).isEqualTo("DECODE · TP-1");
    }

    @Test
    void busy_fraction_sums_busy_and_span_over_every_device() {
        // 150 ms busy of 300 ms span
        assertThat(three()).gpuBusyFraction().isGreaterThanOrEqualTo(0.5).isLessThanOrEqualTo(0.5);
        assertThatThrownBy(() -> assertThat(three()).gpuBusyFraction().isGreaterThan(0.9))
                .hasMessage("GPU busy fraction was 50.0%, budget > 90.0% (-44.4%); busy 150 ms of 300 ms GPU span over"
                        + " 3 device(s)");
        assertThatThrownBy(() -> assertThat(three()).rank(0).gpuBusyFraction().isGreaterThan(0.9))
                .hasMessage("[TP-0] GPU busy fraction was 40.0%, budget > 90.0% (-55.6%); busy 40 ms of 100 ms GPU"
                        + " span over 1 device(s)");
        TraceSummary noSpan = new TraceSummary(Path.of("x.json"), Optional.empty(), 0, 0, 0, 0,
                List.of(new DeviceStats("0", 0, 0)), List.of(), List.of());
        assertThat(TraceSet.of(List.of(noSpan))).gpuBusyFraction().isLessThanOrEqualTo(0);
    }

    @Test
    void a_kernel_selection_reports_its_share_time_and_launches_with_the_largest_kernels() {
        // gemm merged over ranks: 9 launches, 115 ms of 150 ms kernel time
        assertThat(three()).kernels(matching("gemm")).share().isGreaterThan(0.766).isLessThan(0.767);
        assertThat(three()).kernels(matching("gemm")).count().isEqualTo(9).isEqualTo(9);
        assertThat(three()).kernels(matching("gemm")).totalTime().isGreaterThanOrEqualTo(Duration.ofMillis(115))
                .isLessThanOrEqualTo(Duration.ofMillis(115));
        assertThat(three()).kernels(matching("gemm")).meanTime().isGreaterThan(Duration.ofNanos(12_777_777))
                .isLessThan(Duration.ofNanos(12_777_779));
        assertThatThrownBy(() -> assertThat(three()).kernels(matching("gemm")).share().isLessThan(0.5))
                .hasMessageStartingWith("GPU kernel-time share of kernels ")
                .hasMessageEndingWith(" was 76.7%, budget < 50.0% (+53.3%); 115 ms of 150 ms kernel time in 1 distinct"
                        + " kernel(s); largest: gemm 115 ms ×9");
        assertThatThrownBy(() -> assertThat(three()).kernels(matching(".*")).count().isLessThan(1))
                .hasMessageStartingWith("launch count of kernels ")
                .hasMessageEndingWith(" was 14, budget < 1 (+1300.0%); 3 distinct kernel(s); largest: gemm 115 ms ×9,"
                        + " norm 20 ms ×4, " + LONG_NAME.substring(0, 59) + "… 15 ms ×1");
        assertThatThrownBy(() -> assertThat(three()).kernels(matching("norm")).totalTime().isLessThan(Duration.ofMillis(1)))
                .hasMessageContaining("was 20 ms").hasMessageContaining("; 4 launches; largest: norm");
        assertThatThrownBy(() -> assertThat(three()).kernels(matching("norm")).meanTime().isLessThan(Duration.ofMillis(1)))
                .hasMessageContaining("was 5 ms").hasMessageContaining("; 4 launches; largest:");
        assertThat(three()).kernels(matching("norm")).isNotEmpty().isNotEmpty();
    }

    // ---- per-file measures on real traces ----

    @Test
    void idle_fraction_of_a_real_decode_trace_names_the_idle_span_and_gaps() throws IOException {
        TraceSummary s = KinetoTraceReader.read(TestTraces.resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz"));
        var t = s.details().exact();
        double idle = (double) t.idleNs() / t.kernelTimeNs();
        assertThat(s).idleFraction().isLessThanOrEqualTo(idle).isGreaterThanOrEqualTo(idle);
        var gap = s.details().idleGaps().get(0);
        assertThatThrownBy(() -> assertThat(s).idleFraction().isLessThan(0.5))
                .hasMessageContaining("; idle " + Formats.duration(Duration.ofNanos(t.idleNs())) + " of "
                        + Formats.duration(Duration.ofNanos(t.kernelTimeNs())) + " span; largest gaps: "
                        + Formats.duration(Duration.ofNanos(gap.durationNs())) + " on device " + gap.deviceId()
                        + (gap.cpuContext().isEmpty() ? "" : " during " + gap.cpuContext()))
                .hasMessageNotContaining("graph kernels missing");
        assertThat(s).hasKernels().hasKernels().hasNoMissingGraphKernels().hasNoMissingGraphKernels();
    }

    @Test
    void a_file_without_a_rank_label_has_no_scope_and_a_labelled_one_has_its_rank() throws IOException {
        TraceSummary s = KinetoTraceReader.read(TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz"));
        Verdict unlabelled;
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            new TraceSummaryAssert(s).gpuBusyFraction().isGreaterThan(0);
            unlabelled = recording.verdicts().get(0);
        }
        String label = TraceSet.label(s);
        org.assertj.core.api.Assertions.assertThat(unlabelled.scope())
                .isEqualTo(label.equals(s.file().getFileName().toString()) ? "" : label);
        Verdict labelled;
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            new TraceSummaryAssert(three().traces().get(2)).gpuBusyFraction().isGreaterThan(0);
            labelled = recording.verdicts().get(0);
        }
        org.assertj.core.api.Assertions.assertThat(labelled.scope()).isEqualTo("TP-2");
    }

    @Test
    void the_largest_step_gap_names_the_step_its_straggler_and_the_rank_furthest_behind() throws IOException {
        TraceSet set = TraceSet.read(List.of(TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz"),
                TestTraces.resolve("hta/trace_filter/sampled_rank-1.json.gz")));
        var timeline = set.stepTimeline();
        var step = timeline.worstStep().orElseThrow();
        org.assertj.core.api.Assertions.assertThat(step.maxGapNs()).isPositive();
        Duration gap = Duration.ofNanos(step.maxGapNs());
        assertThat(set).ranks().maxStepGap().isLessThanOrEqualTo(gap).isGreaterThanOrEqualTo(gap);
        int least = step.gapNs().indexOf(step.maxGapNs());
        assertThatThrownBy(() -> assertThat(set).ranks().maxStepGap().isLessThan(gap))
                .hasMessageContaining("step " + step.index() + " (" + step.name() + "): straggler "
                        + timeline.ranks().get(step.straggler()) + " busy "
                        + Formats.duration(Duration.ofNanos(step.busyNs().get(step.straggler()))) + ", "
                        + timeline.ranks().get(least) + " busy ");
        // one rank: no gap, and the detail says why
        TraceSet one = TraceSet.read(List.of(TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz")));
        assertThatThrownBy(() -> assertThat(one).ranks().maxStepGap().isGreaterThan(Duration.ZERO))
                .hasMessageContaining("was 0 ns");
    }
}
