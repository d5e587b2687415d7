package dev.profiledrollout.assertions;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.baselines.BaselineDiff;
import dev.profiledrollout.trace.baselines.TraceBaseline;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Kernel-time tolerances against a baseline at their boundaries, on hand-built window totals. */
class BaselineToleranceTest {

    private static final long US = 1_000L;

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

    private static BaselineDiff diff(TraceSummary base, TraceSummary now) {
        return TraceBaseline.of(base).diff(now);
    }

    @Test
    void a_change_equal_to_the_tolerance_passes_and_the_worst_kernel_is_named() {
        // gemm +25 %, norm -10 %
        BaselineDiff d = diff(run(new KernelStats("gemm", 4, 400 * US, 1, 1), new KernelStats("norm", 4, 100 * US, 1, 1)),
                run(new KernelStats("gemm", 4, 500 * US, 1, 1), new KernelStats("norm", 4, 90 * US, 1, 1)));
        assertThat(d).kernelTimeWithin(0.25, Duration.ZERO).kernelTimeWithin(0.25, Duration.ZERO);
        Verdict verdict;
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            assertThat(d).kernelTimeWithin(0.24, Duration.ZERO);
            verdict = recording.verdicts().get(0);
            org.assertj.core.api.Assertions.assertThat(recording.failures()).extracting(Throwable::getMessage)
                    .containsExactly("kernel time of gemm was 500 µs vs baseline 400 µs (+25.0%, count 4 → 4), budget"
                            + " ±24.0% of baseline; 1 kernel(s) outside: gemm +25.0%");
        }
        org.assertj.core.api.Assertions.assertThat(verdict.measure()).isEqualTo("kernel time of gemm vs baseline");
        org.assertj.core.api.Assertions.assertThat(verdict.actual()).isEqualTo(0.25);
        org.assertj.core.api.Assertions.assertThat(verdict.actualText()).isEqualTo("+25.0%");
        // total: 590 vs 500 µs = +18 %
        assertThat(d).totalKernelTimeWithin(0.18).totalKernelTimeWithin(0.18);
        assertThatThrownBy(() -> assertThat(d).totalKernelTimeWithin(0.17))
                .hasMessageStartingWith("total kernel time was 590 µs vs baseline 500 µs (+18.0%), budget ±17.0%;"
                        + " largest changes: gemm +25.0%, norm -10.0%");
    }

    @Test
    void kernels_below_the_noise_floor_on_both_sides_are_not_checked() {
        // noise doubles from 10 to 20 µs; gemm unchanged at 1 ms
        BaselineDiff d = diff(run(new KernelStats("gemm", 1, 1_000 * US, 1, 1), new KernelStats("noise", 1, 10 * US, 1, 1)),
                run(new KernelStats("gemm", 1, 1_000 * US, 1, 1), new KernelStats("noise", 1, 20 * US, 1, 1)));
        assertThat(d).kernelTimeWithin(0.05, Duration.ofNanos(20 * US + 1));
        Verdict verdict;
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            assertThat(d).kernelTimeWithin(0.05, Duration.ofNanos(20 * US + 1));
            verdict = recording.verdicts().get(0);
        }
        org.assertj.core.api.Assertions.assertThat(verdict.detail()).isEqualTo("0 kernel(s) outside of 1 checked");
        org.assertj.core.api.Assertions.assertThat(verdict.measure()).isEqualTo("kernel time of gemm vs baseline");
        // at the floor the run's 20 µs counts, as does the baseline's 10 µs at a 10 µs floor
        assertThatThrownBy(() -> assertThat(d).kernelTimeWithin(0.05, Duration.ofNanos(20 * US)))
                .hasMessageContaining("kernel time of noise was 20 µs vs baseline 10 µs (+100.0%");
        BaselineDiff shrinking = diff(run(new KernelStats("noise", 1, 20 * US, 1, 1)),
                run(new KernelStats("noise", 1, 10 * US, 1, 1)));
        assertThatThrownBy(() -> assertThat(shrinking).kernelTimeWithin(0.05, Duration.ofNanos(20 * US)))
                .hasMessageContaining("kernel time of noise was 10 µs vs baseline 20 µs (-50.0%");
        // nothing to compare
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            assertThat(shrinking).kernelTimeWithin(0.05, Duration.ofMillis(1));
            verdict = recording.verdicts().get(0);
        }
        org.assertj.core.api.Assertions.assertThat(verdict.measure())
                .isEqualTo("kernel time vs baseline (no kernel to compare)");
        org.assertj.core.api.Assertions.assertThat(verdict.actual()).isZero();
        org.assertj.core.api.Assertions.assertThat(verdict.passed()).isTrue();
    }

    @Test
    void new_and_vanished_kernels_are_listed_with_count_and_time() {
        BaselineDiff d = diff(run(new KernelStats("gemm", 2, 100 * US, 1, 1), new KernelStats("old", 3, 30 * US, 1, 1)),
                run(new KernelStats("gemm", 2, 100 * US, 1, 1), new KernelStats("fresh", 5, 50 * US, 1, 1)));
        assertThatThrownBy(() -> assertThat(d).hasNoNewKernels())
                .hasMessage("1 kernel(s) not in the baseline, budget 0: fresh (5×, 50 µs)");
        assertThatThrownBy(() -> assertThat(d).hasNoVanishedKernels())
                .hasMessage("1 baseline kernel(s) missing from the run, budget 0: old (baseline 3×, 30 µs)");
        BaselineDiff same = diff(run(new KernelStats("gemm", 2, 100 * US, 1, 1)), run(new KernelStats("gemm", 2, 100 * US, 1, 1)));
        assertThat(same).hasNoNewKernels().hasNoVanishedKernels().hasNoNewKernels();
    }
}
