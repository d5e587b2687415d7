package dev.profiledrollout.trace.baselines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.StepStats;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** A baseline diff's step mix, the kinds it cannot compare, and its kernel-time change weighted by the run's mix. */
class BaselineMixTest {

    private static StageKernels kind(StepStats.Stage stage, long steps, long requests, long kernelNs) {
        return new StageKernels(stage, steps, OptionalLong.empty(), OptionalLong.of(requests), kernelNs,
                List.of(new KernelStats("k", steps, kernelNs, -1, -1)));
    }

    private static BaselineDiff diff(List<StageKernels> base, List<StageKernels> run, long baseTotal, long runTotal) {
        TraceBaseline b = new TraceBaseline(baseTotal, 0, List.of(), base);
        TraceBaseline r = new TraceBaseline(runTotal, 0, List.of(), run);
        return new BaselineDiff(b, r, List.of(), StageDelta.compare(base, run));
    }

    @Test
    void the_change_is_the_runs_kernel_time_against_the_baselines_time_per_step_times_the_runs_steps() {
        // baseline: 10 decode steps for 1000 ns, 2 prefill for 800 ns; run: 20 decode for 2400 ns, 2 prefill for 800 ns
        BaselineDiff d = diff(List.of(kind(StepStats.Stage.DECODE, 10, 80, 1_000), kind(StepStats.Stage.PREFILL, 2, 2, 800)),
                List.of(kind(StepStats.Stage.DECODE, 20, 160, 2_400), kind(StepStats.Stage.PREFILL, 2, 2, 800)),
                1_800, 3_200);
        assertThat(d.byStage()).isTrue();
        // expected 2000 + 800 = 2800, actual 3200: +14.29 %
        assertThat(d.kernelTimeByStageChange()).isCloseTo(3_200.0 / 2_800 - 1, within(1e-12));
        assertThat(d.kernelTimeChange()).isCloseTo(3_200.0 / 1_800 - 1, within(1e-12));
        assertThat(d.mixDiffers()).isTrue();
        assertThat(d.mix()).isEqualTo("baseline 2 PREFILL + 10 DECODE steps, run 2 PREFILL + 20 DECODE steps");
        assertThat(d.incomparable()).isEmpty();
        assertThat(d.windowTotalsOnly()).isEmpty();
        assertThat(d.comparedStages()).hasSize(2);
        // the same mix, scaled, does not differ
        BaselineDiff scaled = diff(List.of(kind(StepStats.Stage.DECODE, 10, 80, 1_000), kind(StepStats.Stage.PREFILL, 2, 2, 800)),
                List.of(kind(StepStats.Stage.DECODE, 20, 160, 2_000), kind(StepStats.Stage.PREFILL, 4, 4, 1_600)),
                1_800, 3_600);
        assertThat(scaled.mixDiffers()).isFalse();
        assertThat(scaled.kernelTimeByStageChange()).isCloseTo(0, within(1e-12));
    }

    @Test
    void kinds_on_one_side_or_batched_differently_are_named_as_incomparable() {
        BaselineDiff d = diff(List.of(kind(StepStats.Stage.DECODE, 10, 80, 1_000), kind(StepStats.Stage.PREFILL, 2, 2, 800)),
                List.of(kind(StepStats.Stage.DECODE, 10, 160, 1_000), kind(StepStats.Stage.MIXED, 3, 3, 300)), 1_800, 1_300);
        assertThat(d.comparedStages()).isEmpty();
        assertThat(d.kernelTimeByStageChange()).isZero();
        assertThat(d.incomparable()).contains("PREFILL steps in the baseline (2) but none in the run; DECODE batches"
                + " differ: 8.0 requests per step in the baseline, 16.0 in the run; MIXED steps in the run (3) but none"
                + " in the baseline: the step mix differs, so those steps' kernels are not compared");
        assertThat(d.mix()).isEqualTo("baseline 2 PREFILL + 10 DECODE steps, run 10 DECODE + 3 MIXED steps");
        BaselineDiff runOnly = diff(List.of(), List.of(kind(StepStats.Stage.DECODE, 1, 1, 5)), 0, 5);
        assertThat(runOnly.byStage()).isFalse(); // a side without step kinds: window totals only
        assertThat(runOnly.windowTotalsOnly()).isPresent();
        assertThat(runOnly.kernelTimeByStageChange()).isZero();
        assertThat(runOnly.kernelTimeChange()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(diff(List.of(), List.of(), 0, 0).kernelTimeChange()).isZero();
    }

    @Test
    void window_totals_say_which_side_lacks_step_kinds() {
        BaselineDiff none = diff(List.of(), List.of(), 1, 1);
        assertThat(none.byStage()).isFalse();
        assertThat(none.mix()).isEqualTo("step mix unknown");
        assertThat(none.windowTotalsOnly()).isEmpty();
        TraceBaseline withKinds = new TraceBaseline(1, 0, List.of(), List.of(kind(StepStats.Stage.DECODE, 1, 1, 1)));
        TraceBaseline without = new TraceBaseline(1, 0, List.of(), List.of());
        assertThat(new BaselineDiff(without, withKinds, List.of(), List.of()).windowTotalsOnly().orElseThrow())
                .startsWith("the baseline holds window totals only");
        assertThat(new BaselineDiff(withKinds, without, List.of(), List.of()).windowTotalsOnly().orElseThrow())
                .startsWith("the run has no engine step annotations");
    }
}
