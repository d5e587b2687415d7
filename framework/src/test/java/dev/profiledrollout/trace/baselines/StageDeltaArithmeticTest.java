package dev.profiledrollout.trace.baselines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.StepStats;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Per-step-kind comparisons with a baseline on hand-built step kinds: units, changes per step and per token. */
class StageDeltaArithmeticTest {

    private static StageDelta decode(long baseSteps, long steps, long baseRequests, long requests, long baseNs, long ns,
            KernelDelta... kernels) {
        return new StageDelta(StepStats.Stage.DECODE, baseSteps, steps, OptionalLong.empty(), OptionalLong.empty(),
                OptionalLong.of(baseRequests), OptionalLong.of(requests), baseNs, ns, List.of(kernels));
    }

    @Test
    void decode_compares_kernel_time_per_step() {
        // 10 steps for 1000 ns in the baseline, 20 steps for 3000 ns now: 100 → 150 ns per step, +50 %
        KernelDelta gemm = new KernelDelta("gemm", 10, 20, 1_000, 3_000);
        StageDelta d = decode(10, 20, 80, 160, 1_000, 3_000, gemm);
        assertThat(d.presence()).isEqualTo(StageDelta.Presence.BOTH);
        assertThat(d.comparable()).isTrue();
        assertThat(d.perToken()).isFalse();
        assertThat(d.unit()).isEqualTo("step");
        assertThat(d.units()).isEqualTo(20);
        assertThat(d.baseUnits()).isEqualTo(10);
        assertThat(d.kernelTimeChange()).isCloseTo(0.5, within(1e-12));
        assertThat(d.change(gemm)).isCloseTo(0.5, within(1e-12));
        assertThat(d.perStepChange(gemm)).isCloseTo(0.5, within(1e-12));
        assertThat(d.perTokenChange(gemm)).isEmpty();
        assertThat(d.nsPerUnit(gemm)).isEqualTo(150.0);
        assertThat(d.baseNsPerUnit(gemm)).isEqualTo(100.0);
        assertThat(d.nsPerStep(gemm)).isEqualTo(150.0);
        assertThat(d.baseNsPerStep(gemm)).isEqualTo(100.0);
        // a kernel new in the run is an infinite change; absent on both sides no change
        assertThat(d.change(new KernelDelta("new", 0, 1, 0, 5))).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(d.change(new KernelDelta("none", 0, 0, 0, 0))).isZero();
    }

    @Test
    void prefill_compares_per_token_when_both_sides_count_tokens() {
        KernelDelta attn = new KernelDelta("attn", 4, 4, 4_000, 6_000);
        StageDelta p = new StageDelta(StepStats.Stage.PREFILL, 4, 4, OptionalLong.of(1_000), OptionalLong.of(2_000),
                OptionalLong.empty(), OptionalLong.empty(), 4_000, 6_000, List.of(attn));
        assertThat(p.perToken()).isTrue();
        assertThat(p.unit()).isEqualTo("token");
        assertThat(p.units()).isEqualTo(2_000);
        assertThat(p.baseUnits()).isEqualTo(1_000);
        // 4 ns per token → 3 ns per token: -25 %; per step 1000 → 1500 ns: +50 %
        assertThat(p.change(attn)).isCloseTo(-0.25, within(1e-12));
        assertThat(p.kernelTimeChange()).isCloseTo(-0.25, within(1e-12));
        assertThat(p.perStepChange(attn)).isCloseTo(0.5, within(1e-12));
        assertThat(p.perTokenChange(attn)).hasValueCloseTo(-0.25, within(1e-12));
        assertThat(p.nsPerUnit(attn)).isEqualTo(3.0);
        assertThat(p.baseNsPerUnit(attn)).isEqualTo(4.0);
        StageDelta mixed = new StageDelta(StepStats.Stage.MIXED, 4, 4, OptionalLong.of(1), OptionalLong.of(1),
                OptionalLong.empty(), OptionalLong.empty(), 1, 1, List.of());
        assertThat(mixed.perToken()).isTrue();
        StageDelta noRunTokens = new StageDelta(StepStats.Stage.PREFILL, 4, 4, OptionalLong.of(1), OptionalLong.of(0),
                OptionalLong.empty(), OptionalLong.empty(), 1, 1, List.of());
        assertThat(noRunTokens.perToken()).isFalse();
        assertThat(noRunTokens.perTokenChange(attn)).isEqualTo(OptionalDouble.empty());
        StageDelta noBaseTokens = new StageDelta(StepStats.Stage.PREFILL, 4, 4, OptionalLong.of(0), OptionalLong.of(5),
                OptionalLong.empty(), OptionalLong.empty(), 1, 1, List.of());
        assertThat(noBaseTokens.perToken()).isFalse();
        assertThat(noBaseTokens.perTokenChange(attn)).isEmpty();
    }

    @Test
    void batches_differing_by_more_than_ten_percent_per_step_are_not_comparable() {
        // 8 requests per step in both: comparable; 8.7 (+8.75 %) still; 8.9 (+11.25 %) not
        assertThat(decode(10, 10, 80, 80, 1, 1).shapeDiffers()).isEmpty();
        assertThat(decode(10, 10, 80, 87, 1, 1).comparable()).isTrue();
        StageDelta wider = decode(10, 10, 80, 89, 1, 1);
        assertThat(wider.comparable()).isFalse();
        assertThat(wider.shapeDiffers()).contains("DECODE batches differ: 8.0 requests per step in the baseline, 8.9 in"
                + " the run");
        assertThat(decode(10, 10, 80, 71, 1, 1).comparable()).isFalse();
        assertThat(decode(10, 10, 0, 71, 1, 1).comparable()).isTrue(); // no baseline batch to compare with
    }

    @Test
    void a_kind_on_one_side_only_has_nothing_per_step_to_compare() {
        StageDelta baseOnly = decode(5, 0, 5, 0, 100, 0);
        assertThat(baseOnly.presence()).isEqualTo(StageDelta.Presence.BASELINE_ONLY);
        assertThat(baseOnly.shapeDiffers()).isEmpty();
        assertThat(baseOnly.comparable()).isFalse();
        KernelDelta k = new KernelDelta("k", 5, 0, 100, 0);
        assertThat(baseOnly.nsPerUnit(k)).isZero();
        assertThat(baseOnly.nsPerStep(k)).isZero();
        assertThat(baseOnly.baseNsPerStep(k)).isEqualTo(20.0);
        assertThatThrownBy(baseOnly::kernelTimeChange).isInstanceOf(IllegalStateException.class)
                .hasMessage("DECODE steps were captured on one side only (baseline 5, run 0): nothing per step to compare");
        assertThatThrownBy(() -> baseOnly.perStepChange(k)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> baseOnly.perTokenChange(k)).isInstanceOf(IllegalStateException.class);
        StageDelta runOnly = decode(0, 5, 0, 5, 0, 100);
        assertThat(runOnly.presence()).isEqualTo(StageDelta.Presence.RUN_ONLY);
        assertThat(runOnly.baseNsPerUnit(k)).isZero();
        assertThat(runOnly.baseNsPerStep(k)).isZero();
    }

    @Test
    void compare_pairs_step_kinds_and_orders_kernels_by_their_change_per_step() {
        StageKernels base = new StageKernels(StepStats.Stage.DECODE, 10, OptionalLong.empty(), OptionalLong.of(80), 3_000,
                List.of(new KernelStats("a", 10, 1_000, 1, 1), new KernelStats("b", 10, 2_000, 1, 1)));
        StageKernels run = new StageKernels(StepStats.Stage.DECODE, 20, OptionalLong.empty(), OptionalLong.of(160), 9_000,
                List.of(new KernelStats("a", 20, 6_000, 1, 1), new KernelStats("b", 20, 3_000, 1, 1)));
        StageKernels prefill = new StageKernels(StepStats.Stage.PREFILL, 2, OptionalLong.of(100), OptionalLong.of(2), 500,
                List.of(new KernelStats("c", 2, 500, 1, 1)));
        List<StageDelta> deltas = StageDelta.compare(List.of(base, prefill), List.of(run));
        assertThat(deltas).extracting(StageDelta::stage).containsExactly(StepStats.Stage.PREFILL, StepStats.Stage.DECODE);
        StageDelta decode = deltas.get(1);
        assertThat(decode.baseSteps()).isEqualTo(10);
        assertThat(decode.steps()).isEqualTo(20);
        assertThat(decode.baseKernelNs()).isEqualTo(3_000);
        assertThat(decode.kernelNs()).isEqualTo(9_000);
        assertThat(decode.requests()).hasValue(160);
        // a: 100 → 300 ns per step (+200 ns), b: 200 → 150 (-50 ns): a first
        assertThat(decode.kernels()).containsExactly(new KernelDelta("a", 10, 20, 1_000, 6_000),
                new KernelDelta("b", 10, 20, 2_000, 3_000));
        StageDelta onlyBase = deltas.get(0);
        assertThat(onlyBase.presence()).isEqualTo(StageDelta.Presence.BASELINE_ONLY);
        assertThat(onlyBase.baseTokens()).hasValue(100);
        assertThat(onlyBase.tokens()).isEmpty();
        assertThat(onlyBase.kernelNs()).isZero();
        assertThat(onlyBase.kernels()).containsExactly(new KernelDelta("c", 2, 0, 500, 0));
    }

    @Test
    void kernel_deltas_know_their_status_and_changes() {
        KernelDelta k = new KernelDelta("k", 4, 6, 1_000, 1_500);
        assertThat(k.status()).isEqualTo(KernelDelta.Status.PRESENT);
        assertThat(k.deltaNs()).isEqualTo(500);
        assertThat(k.deltaCount()).isEqualTo(2);
        assertThat(k.relativeChange()).isEqualTo(0.5);
        assertThat(new KernelDelta("n", 0, 1, 0, 10).status()).isEqualTo(KernelDelta.Status.NEW);
        assertThat(new KernelDelta("n", 0, 1, 0, 10).relativeChange()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(new KernelDelta("z", 1, 1, 0, 0).relativeChange()).isZero();
        assertThat(new KernelDelta("v", 1, 0, 10, 0).status()).isEqualTo(KernelDelta.Status.VANISHED);
        List<KernelDelta> sorted = new ArrayList<>(List.of(new KernelDelta("small", 1, 1, 100, 110),
                new KernelDelta("b", 1, 1, 100, 50), new KernelDelta("a", 1, 1, 100, 150)));
        sorted.sort(KernelDelta.BY_ABSOLUTE_CHANGE);
        assertThat(sorted).extracting(KernelDelta::name).containsExactly("a", "b", "small");
    }
}
