package dev.profiledrollout.trace.baselines;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.StepStats.Stage;
import dev.profiledrollout.trace.TraceDetails;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.GpuTimelineBreakdown;
import dev.profiledrollout.trace.analysis.LaunchStats;
import dev.profiledrollout.trace.analysis.TemporalBreakdown;
import dev.profiledrollout.trace.reading.TraceFormatException;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Baseline files and diffs per step kind, on crafted summaries (the simulator runs are in StepMixBaselineTest). */
class StageBaselineTest {

    @TempDir
    Path dir;

    @Test
    void should_round_trip_the_step_kinds_of_a_version_2_baseline() throws Exception {
        // GIVEN a run with 2 prefills of 1000 tokens in all and 8 decodes
        TraceBaseline recorded = TraceBaseline.of(run(prefill(2, 1000, 4_000_000), decode(8, 1_000_000)));
        // WHEN written and read back
        Path file = dir.resolve("b.json");
        recorded.write(file);
        TraceBaseline read = TraceBaseline.read(file);
        // THEN the step kinds survive, tokens unknown stays unknown
        assertThat(Files.readString(file)).contains("\"baselineVersion\" : 2");
        assertThat(read).isEqualTo(recorded);
        assertThat(read.stage(Stage.PREFILL).orElseThrow().tokens()).hasValue(1000);
        assertThat(read.stage(Stage.DECODE).orElseThrow().tokens()).isEmpty();
        assertThat(read.stage(Stage.DECODE).orElseThrow().kernelNsPerStep()).isEqualTo(1_500_000.0);
    }

    @Test
    void should_pass_the_same_work_per_step_in_another_mix_that_window_totals_fail() {
        // GIVEN the same time per prefill token and per decode step, in windows of 2+8 and 1+9 steps
        TraceBaseline baseline = TraceBaseline.of(run(prefill(2, 1000, 4_000_000), decode(8, 1_000_000)));
        BaselineDiff diff = baseline.diff(run(prefill(1, 500, 4_000_000), decode(9, 1_000_000)));
        // THEN window totals change, but per step kind nothing does
        assertThat(diff.mixDiffers()).isTrue();
        assertThat(diff.mix()).isEqualTo("baseline 2 PREFILL + 8 DECODE steps, run 1 PREFILL + 9 DECODE steps");
        assertThat(diff.kernelTimeChange()).isLessThan(-0.10);
        assertThat(diff.kernelTimeByStageChange()).isCloseTo(0, within(1e-12));
        assertThat(diff).kernelTimeWithin(0.01, Duration.ZERO).totalKernelTimeWithin(0.01).hasNoNewKernels()
                .hasNoVanishedKernels();
        assertThatThrownBy(() -> assertThat(new BaselineDiff(diff.baseline(), diff.run(), diff.kernels()))
                .totalKernelTimeWithin(0.10)).hasMessageContaining("total kernel time was");
    }

    @Test
    void should_fail_a_slower_decode_kernel_per_decode_step() {
        TraceBaseline baseline = TraceBaseline.of(run(prefill(2, 1000, 4_000_000), decode(8, 1_000_000)));
        BaselineDiff diff = baseline.diff(run(prefill(1, 500, 4_000_000), decode(9, 1_200_000)));
        assertThatThrownBy(() -> assertThat(diff).kernelTimeWithin(0.10, Duration.ZERO))
                .hasMessageContaining("kernel time of decode_attention per DECODE step was")
                .hasMessageContaining("+20.0%")
                .hasMessageContaining("DECODE steps 8 → 9");
    }

    @Test
    void should_report_a_step_kind_on_one_side_only_as_incomparable() {
        // GIVEN a baseline with prefills and decodes, and a run of decodes only
        TraceBaseline baseline = TraceBaseline.of(run(prefill(2, 1000, 4_000_000), decode(8, 1_000_000)));
        BaselineDiff decodesOnly = baseline.diff(run(decode(10, 1_000_000)));
        // THEN decodes are compared, prefill kernels are not missing but incomparable
        assertThat(decodesOnly.incomparable()).hasValueSatisfying(i -> assertThat(i)
                .startsWith("PREFILL steps in the baseline (2) but none in the run"));
        assertThat(decodesOnly).kernelTimeWithin(0.01, Duration.ZERO).totalKernelTimeWithin(0.01)
                .hasNoVanishedKernels();
        // AND with no step kind in common, nothing can be compared: the checks warn, they do not fail
        BaselineDiff prefillsOnly = TraceBaseline.of(run(prefill(2, 1000, 4_000_000))).diff(run(decode(10, 1_000_000)));
        try (Verdicts.Recording recording = Verdicts.start(false)) {
            assertThat(prefillsOnly).kernelTimeWithin(0.10, Duration.ZERO).totalKernelTimeWithin(0.10);
            assertThat(recording.verdicts()).extracting(Verdict::outcome)
                    .containsExactly(Verdict.Outcome.WARN, Verdict.Outcome.WARN);
            assertThat(recording.verdicts().get(0).actualText()).isEqualTo("incomparable");
            assertThat(recording.verdicts().get(0).detail()).startsWith("incomparable: no step kind is comparable")
                    .contains("numSteps");
        }
    }

    @Test
    void should_not_compare_a_step_kind_whose_batches_differ() {
        // GIVEN prefills of one 500-token prompt each in the baseline, of three batched prompts in the run
        TraceBaseline baseline = TraceBaseline.of(run(prefill(2, 1000, 4_000_000), decode(8, 1_000_000)));
        StageKernels batched = new StageKernels(Stage.PREFILL, 1, OptionalLong.of(1500), OptionalLong.of(3), 9_000_000,
                List.of(new KernelStats("gemm", 10, 6_000_000, -1, -1),
                        new KernelStats("lm_head", 3, 3_000_000, -1, -1)));
        BaselineDiff diff = baseline.diff(run(batched, decode(9, 1_000_000)));
        // THEN prefill is incomparable, decode is still compared, and lm_head is not a new kernel
        assertThat(diff.incomparable()).hasValueSatisfying(i -> assertThat(i).startsWith(
                "PREFILL batches differ: 1.0 requests per step in the baseline, 3.0 in the run, 500.0 tokens per step"
                        + " in the baseline, 1500.0 in the run"));
        assertThat(diff.comparedStages()).extracting(StageDelta::stage).containsExactly(Stage.DECODE);
        assertThat(diff).kernelTimeWithin(0.01, Duration.ZERO).hasNoNewKernels();
    }

    @Test
    void should_read_a_version_1_baseline_as_window_totals_and_say_so() throws Exception {
        Path file = dir.resolve("v1.json");
        Files.writeString(file, """
                {"baselineVersion":1, "kernelTotalNs":3000000, "busyNs":0,
                 "kernels":[{"name":"gemm","count":30,"totalNs":3000000}]}
                """);
        BaselineDiff diff = TraceBaseline.read(file).diff(run(decode(8, 1_000_000)));
        assertThat(diff.byStage()).isFalse();
        assertThat(diff.windowTotalsOnly()).hasValueSatisfying(w -> assertThat(w).contains("window totals only")
                .contains("re-record"));
        assertThatThrownBy(() -> assertThat(diff).kernelTimeWithin(0.10, Duration.ZERO))
                .hasMessageContaining("window totals, not per step kind");
    }

    @Test
    void should_reject_a_baseline_stage_it_does_not_know() throws Exception {
        Path file = dir.resolve("bad.json");
        Files.writeString(file, """
                {"baselineVersion":2, "kernelTotalNs":1, "busyNs":0, "kernels":[],
                 "stages":[{"stage":"EXTEND","steps":1,"tokens":null,"kernelNs":1,"kernels":[]}]}
                """);
        assertThatThrownBy(() -> TraceBaseline.read(file)).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("EXTEND").hasMessageContaining("PREFILL");
    }

    /** Prefill steps: a GEMM and prefill attention, ns per step × steps. */
    private static StageKernels prefill(int steps, long tokens, long gemmNsPerStep) {
        return new StageKernels(Stage.PREFILL, steps, OptionalLong.of(tokens), OptionalLong.of(steps), steps * gemmNsPerStep * 5 / 4,
                List.of(new KernelStats("gemm", 10L * steps, steps * gemmNsPerStep, -1, -1),
                        new KernelStats("prefill_attention", 2L * steps, steps * gemmNsPerStep / 4, -1, -1)));
    }

    /** Decode steps: a GEMM (1 ms per step) and decode attention. */
    private static StageKernels decode(int steps, long attentionNsPerStep) {
        return new StageKernels(Stage.DECODE, steps, OptionalLong.empty(), OptionalLong.of(4L * steps),
                steps * (1_000_000 + attentionNsPerStep / 2),
                List.of(new KernelStats("gemm", 10L * steps, steps * 1_000_000L, -1, -1),
                        new KernelStats("decode_attention", 2L * steps, steps * attentionNsPerStep / 2, -1, -1)));
    }

    private static TraceSummary run(StageKernels... stages) {
        java.util.Map<String, long[]> merged = new java.util.LinkedHashMap<>();
        for (StageKernels s : stages) {
            for (KernelStats k : s.kernels()) {
                long[] m = merged.computeIfAbsent(k.name(), n -> new long[2]);
                m[0] += k.count();
                m[1] += k.totalNs();
            }
        }
        List<KernelStats> kernels = new ArrayList<>(StageKernels.toStats(merged));
        long total = kernels.stream().mapToLong(KernelStats::totalNs).sum();
        long events = kernels.stream().mapToLong(KernelStats::count).sum();
        TraceDetails details = new TraceDetails(OptionalInt.empty(), OptionalLong.empty(), List.of(),
                TemporalBreakdown.empty(false), TemporalBreakdown.empty(true), List.of(), List.of(),
                LaunchStats.empty(), List.of(), GpuTimelineBreakdown.empty(), Optional.empty(), List.of(), List.of(stages));
        return new TraceSummary(Path.of("t.json"), Optional.empty(), events, 0, kernels.size(), total, List.of(),
                kernels, List.of(), details);
    }
}
