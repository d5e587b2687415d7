package dev.profiledrollout.assertions;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.matching;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.KernelCategory;
import dev.profiledrollout.trace.baselines.BaselineDiff;
import dev.profiledrollout.trace.baselines.TraceBaseline;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.assertj.core.api.Assertions;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class TraceAnalysisAssertionsTest {

    private static TraceSummary decode() throws IOException {
        return KinetoTraceReader.read(TestTraces.resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz"));
    }

    @Test
    void category_share_fails_naming_category_actual_and_budget() throws IOException {
        TraceSummary s = decode();
        assertThat(s).category(KernelCategory.GEMM).isGreaterThan(0.5);
        assertThatThrownBy(() -> assertThat(s).category(KernelCategory.GEMM).isLessThan(0.10))
                .hasMessageContaining("GPU time share of category GEMM in sglang_Qwen3-8B_decode.json.gz was 5")
                .hasMessageContaining("budget < 10.0%")
                .hasMessageContaining("ATTENTION");
    }

    @Test
    void idle_fraction_names_the_largest_gaps() throws IOException {
        TraceSummary s = decode();
        // TraceLens: busy 9.77 ms of 473.75 ms total, so the GPU is ≈ 98 % idle in this decode trace
        assertThat(s).idleFraction().isBetween(0.97, 0.99);
        assertThatThrownBy(() -> assertThat(s).idleFraction().isLessThan(0.5))
                .hasMessageContaining("GPU idle fraction of sglang_Qwen3-8B_decode.json.gz was 9")
                .hasMessageContaining("budget < 50.0%")
                .hasMessageContaining("largest gaps: ");
    }

    @Test
    void steps_name_the_offending_step() throws IOException {
        TraceSummary s = KinetoTraceReader.read(TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz"));
        assertThat(s).steps().count().isEqualTo(2);
        assertThat(s).steps(StepStats.Stage.UNKNOWN).hasSteps();
        assertThatThrownBy(() -> assertThat(s).steps().maxKernelTime().isLessThan(Duration.ofNanos(1)))
                .hasMessageContaining("kernel time of step #")
                .hasMessageContaining("ProfilerStep#55")
                .hasMessageContaining("budget < 1 ns");
        assertThatThrownBy(() -> assertThat(s).steps(StepStats.Stage.DECODE).hasSteps())
                .hasMessageContaining("no DECODE steps of sampled_rank-0.json.gz");
        assertThatThrownBy(() -> assertThat(s).steps().durationPercentile(99).isLessThan(Duration.ofNanos(1)))
                .hasMessageContaining("p99 duration of steps").hasMessageContaining("2 of 2 steps above budget");
    }

    @Test
    void rank_straggler_and_kernel_spread_name_the_rank_and_kernel() throws IOException {
        TraceSet set = TraceSet.read(List.of(TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz"),
                TestTraces.resolve("hta/trace_filter/sampled_rank-1.json.gz")));
        assertThat(set).ranks().straggler().isLessThan(1.5);
        assertThatThrownBy(() -> assertThat(set).ranks().straggler().isLessThan(1.0))
                .hasMessageContaining("straggler rank ").hasMessageContaining("budget < 1.000");
        assertThatThrownBy(() -> assertThat(set).ranks().kernelSpread(matching(".*split_embedding.*")).isLessThan(1.01))
                .hasMessageContaining("kernel time spread (max/mean over ranks) of split_embedding")
                .hasMessageContaining("longest on rank ");
    }

    @Test
    void the_largest_step_gap_names_the_step_the_straggler_and_the_rank_behind() throws IOException {
        TraceSet set = TraceSet.read(List.of(TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz"),
                TestTraces.resolve("hta/trace_filter/sampled_rank-1.json.gz")));
        long gap = set.stepTimeline().maxGapNs();
        Assertions.assertThat(gap).isPositive();

        assertThat(set).ranks().maxStepGap().isLessThanOrEqualTo(Duration.ofNanos(gap));
        assertThatThrownBy(() -> assertThat(set).ranks().maxStepGap().isLessThan(Duration.ofNanos(gap)))
                .hasMessageContaining("largest per-step GPU busy gap to the step's straggler")
                .hasMessageContaining("(ProfilerStep#55").hasMessageContaining(": straggler rank ")
                .hasMessageContaining("steps matched across 2 ranks by ProfilerStep number");
        TraceSet one = TraceSet.of(List.of(set.traces().get(0)));
        assertThat(one).ranks().maxStepGap().isEqualTo(Duration.ZERO);
    }

    @Test
    void baseline_tolerance_names_each_kernel_outside_it() {
        TraceSummary base = run(new KernelStats("gemm", 10, 1_000_000, 1, 1), new KernelStats("norm", 10, 100_000, 1, 1));
        BaselineDiff same = TraceBaseline.of(base).diff(base);
        assertThat(same).kernelTimeWithin(0.0, Duration.ZERO).totalKernelTimeWithin(0.0).hasNoNewKernels()
                .hasNoVanishedKernels();

        BaselineDiff slower = TraceBaseline.of(base).diff(run(new KernelStats("gemm", 10, 1_250_000, 1, 1),
                new KernelStats("norm", 10, 101_000, 1, 1), new KernelStats("new_kernel", 1, 5_000, 1, 1)));
        assertThat(slower).kernelTimeWithin(0.30, Duration.ZERO);
        assertThatThrownBy(() -> assertThat(slower).kernelTimeWithin(0.10, Duration.ZERO))
                .hasMessageContaining("kernel time of gemm was 1.25 ms vs baseline 1 ms (+25.0%, count 10 → 10)")
                .hasMessageContaining("budget ±10.0% of baseline; 1 kernel(s) outside");
        assertThatThrownBy(() -> assertThat(slower).totalKernelTimeWithin(0.05))
                .hasMessageContaining("total kernel time was").hasMessageContaining("budget ±5.0%");
        assertThatThrownBy(() -> assertThat(slower).hasNoNewKernels())
                .hasMessageContaining("1 kernel(s) not in the baseline, budget 0: new_kernel (1×, 5 µs)");
    }

    @Test
    void baseline_checks_record_baseline_verdicts_softly() {
        // GIVEN gemm 25% slower than its baseline and one kernel the baseline lacks
        TraceSummary base = run(new KernelStats("gemm", 10, 1_000_000, 1, 1), new KernelStats("norm", 10, 100_000, 1, 1));
        BaselineDiff slower = TraceBaseline.of(base).diff(run(new KernelStats("gemm", 10, 1_250_000, 1, 1),
                new KernelStats("norm", 10, 101_000, 1, 1), new KernelStats("new_kernel", 1, 5_000, 1, 1)));
        List<Verdict> verdicts;
        // WHEN every baseline check runs in one soft recording
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            assertThat(slower).kernelTimeWithin(0.10, Duration.ZERO).totalKernelTimeWithin(0.50).hasNoNewKernels()
                    .hasNoVanishedKernels();
            verdicts = recording.verdicts();
            Assertions.assertThat(recording.failures()).hasSize(2);
        }
        // THEN
        Assertions.assertThat(verdicts).extracting(Verdict::kind).containsOnly(Verdict.Kind.BASELINE);
        Assertions.assertThat(verdicts).extracting(Verdict::measure, Verdict::relation, Verdict::actualText,
                Verdict::budgetText, Verdict::outcome).containsExactly(
                Tuple.tuple("kernel time of gemm vs baseline", "±", "+25.0%", "10.0%", Verdict.Outcome.FAIL),
                Tuple.tuple("total kernel time vs baseline", "±", "+23.3%", "50.0%", Verdict.Outcome.PASS),
                Tuple.tuple("kernels not in the baseline", "≤", "1", "0", Verdict.Outcome.FAIL),
                Tuple.tuple("baseline kernels missing from the run", "≤", "0", "0", Verdict.Outcome.PASS));
        Assertions.assertThat(verdicts.get(0).detail()).isEqualTo("1 kernel(s) outside: gemm +25.0%");
        Assertions.assertThat(verdicts.get(0).gap()).isNull();
        Assertions.assertThat(verdicts.get(2).detail()).isEqualTo("new_kernel (1×, 5 µs)");
    }

    private static TraceSummary run(KernelStats... kernels) {
        long total = 0;
        long events = 0;
        for (KernelStats k : kernels) {
            total += k.totalNs();
            events += k.count();
        }
        return new TraceSummary(Path.of("t.json"), Optional.empty(), events, 0, kernels.length, total, List.of(),
                List.of(kernels), List.of());
    }
}
