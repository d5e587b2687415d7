package dev.profiledrollout.assertions;

import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.glob;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.matching;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A capture without trace files, a trace without kernels and a selection without kernels say so, and every measure on
 * them fails at once; soft assertions collect failures and throw once.
 */
class EmptyCapturesTest {

    private static final String NO_TRACES = "the capture produced no trace files (activities without CPU/GPU/RPD write none)";

    private static TraceSummary summary(long kernelEvents, List<String> warnings, KernelStats... kernels) {
        long total = 0;
        for (KernelStats k : kernels) {
            total += k.totalNs();
        }
        return new TraceSummary(Path.of("cpu-only.json"), Optional.empty(), kernelEvents, 0, kernels.length, total,
                List.of(), List.of(kernels), warnings);
    }

    @Test
    void every_measure_of_a_capture_without_trace_files_fails_at_once() {
        TraceSet none = TraceSet.of(List.of()).withScope("PREFILL");
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            assertThatThrownBy(() -> assertThat(none).kernels(matching(".*"))).hasMessage("[PREFILL] " + NO_TRACES);
            assertThatThrownBy(() -> assertThat(none).operators("aten::mm")).hasMessage("[PREFILL] " + NO_TRACES);
            assertThatThrownBy(() -> assertThat(none).ranks()).hasMessage("[PREFILL] " + NO_TRACES);
            assertThatThrownBy(() -> assertThat(none).rank(0)).hasMessage("[PREFILL] " + NO_TRACES);
            assertThatThrownBy(() -> assertThat(none).gpuBusyFraction()).hasMessage("[PREFILL] " + NO_TRACES);
            assertThat(none).hasTraces();
            org.assertj.core.api.Assertions.assertThat(recording.failures()).extracting(Throwable::getMessage)
                    .containsExactly("[PREFILL] " + NO_TRACES);
            org.assertj.core.api.Assertions.assertThat(recording.verdicts()).extracting(Verdict::detail)
                    .containsOnly("0 trace file(s)");
        }
        TraceSet one = TraceSet.of(List.of(summary(1, List.of(), new KernelStats("k", 1, 10, 10, 10))));
        assertThat(one).hasTraces().hasTraces().kernels(matching("k")).count().isEqualTo(1);
    }

    @Test
    void a_trace_without_kernels_says_so_with_the_readers_warnings() {
        TraceSummary cpuOnly = summary(0, List.of("no GPU events"));
        assertThatThrownBy(() -> assertThat(cpuOnly).hasKernels())
                .hasMessage("cpu-only.json has no kernel events; was GPU among the activities? Reader warnings:"
                        + " [no GPU events]");
        assertThatThrownBy(() -> assertThat(summary(0, List.of())).hasKernels())
                .hasMessage("cpu-only.json has no kernel events; was GPU among the activities?");
        Verdict passed;
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            assertThat(summary(1, List.of("w"), new KernelStats("k", 1, 10, 10, 10))).hasKernels().hasKernels();
            passed = recording.verdicts().get(0);
        }
        org.assertj.core.api.Assertions.assertThat(passed.passed()).isTrue();
        org.assertj.core.api.Assertions.assertThat(passed.detail()).isEmpty();
        org.assertj.core.api.Assertions.assertThat(passed.actual()).isEqualTo(1);
    }

    @Test
    void a_selection_without_kernels_fails_naming_the_selection_and_a_non_empty_one_lists_its_largest() {
        TraceSummary s = summary(3, List.of(), new KernelStats("gemm_a", 2, 200, 100, 100),
                new KernelStats("x".repeat(60), 1, 50, 50, 50), new KernelStats("y".repeat(61), 1, 40, 40, 40));
        assertThatThrownBy(() -> assertThat(s).kernels(glob("*attention*")).isNotEmpty())
                .hasMessageStartingWith("kernels matching glob '*attention*' in cpu-only.json: no kernel matched; "
                        + "nearest of the trace's 3 kernel names: gemm_a, ")
                .hasMessageEndingWith("or call isEmpty() or mayBeEmpty() when no such kernel may run");
        Verdict verdict;
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            assertThat(s).kernels(matching(".*")).isNotEmpty().isNotEmpty();
            verdict = recording.verdicts().get(0);
        }
        // a 60-character name is kept whole, a 61-character one cut to 59 characters and an ellipsis
        org.assertj.core.api.Assertions.assertThat(verdict.detail()).isEqualTo("3 distinct kernel(s); largest: gemm_a"
                + " 200 ns ×2, " + "x".repeat(60) + " 50 ns ×1, " + "y".repeat(59) + "… 40 ns ×1");
        org.assertj.core.api.Assertions.assertThat(verdict.actual()).isEqualTo(3);
        org.assertj.core.api.Assertions.assertThat(verdict.passed()).isTrue();
        // a budget over the empty selection fails whatever it is, with no number to compare
        assertThatThrownBy(() -> assertThat(s).kernels(glob("*attention*")).totalTime().isGreaterThanOrEqualTo(
                Duration.ZERO)).hasMessageContaining("total time of kernels matching glob '*attention*' in "
                + "cpu-only.json has no data, so budget ≥ 0 ns cannot be checked: no kernel matched");
    }

    @Test
    void soft_assertions_collect_every_failed_budget_and_throw_once() {
        TraceSummary s = summary(1, List.of(), new KernelStats("k", 1, 10, 10, 10));
        assertThatThrownBy(() -> ProfiledRolloutSoftAssertions.assertSoftly(() -> {
            assertThat(s).kernels(matching("k")).count().isLessThan(1);
            assertThat(s).kernels(matching("k")).count().isGreaterThan(5);
            assertThat(s).kernels(matching("k")).count().isEqualTo(1);
        })).hasMessageContaining("2 of 3 budgets failed");
        AssertionError thrown = new AssertionError("body failed");
        assertThatThrownBy(() -> ProfiledRolloutSoftAssertions.assertSoftly(() -> {
            assertThat(s).kernels(matching("k")).count().isLessThan(1);
            throw thrown;
        })).isSameAs(thrown).satisfies(e -> org.assertj.core.api.Assertions.assertThat(e.getSuppressed()).hasSize(1));
        ProfiledRolloutSoftAssertions.assertSoftly(() -> assertThat(s).kernels(matching("k")).count().isEqualTo(1));
        try (ProfiledRolloutSoftAssertions softly = ProfiledRolloutSoftAssertions.softly()) {
            assertThat(s).kernels(matching("k")).count().isEqualTo(1);
            org.assertj.core.api.Assertions.assertThat(softly.failures()).isEmpty();
            org.assertj.core.api.Assertions.assertThat(softly.verdicts()).hasSize(1);
        }
    }
}
