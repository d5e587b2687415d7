package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.report.Verdict;
import dev.profiledrollout.report.Verdicts;
import dev.profiledrollout.trace.KernelSelection;
import dev.profiledrollout.trace.KernelStats;
import java.time.Duration;
import java.util.stream.Collectors;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on the kernels a name filter selected from a trace (one rank or all ranks): how many ran, how long, and
 * their share of all GPU kernel time. Every check records a KERNEL {@link Verdict} in the scope of the trace set (or
 * rank) the selection came from.
 *
 * <pre>{@code
 * assertThat(result.trace()).kernels(matching(".*gemm.*")).share().isLessThan(0.60);
 * assertThat(result.trace()).kernels(glob("*all_reduce*")).totalTime().isLessThan(Duration.ofMillis(5));
 * }</pre>
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class KernelSelectionAssert extends AbstractAssert<KernelSelectionAssert, KernelSelection> {

    private final String selection;
    private final String scope;

    KernelSelectionAssert(KernelSelection actual, String selection, String scope) {
        super(actual, KernelSelectionAssert.class);
        this.selection = selection;
        this.scope = scope;
    }

    /**
     * Fails when the filter selected no kernel at all: a budget on nothing passes vacuously, so say so. Records a
     * KERNEL verdict {@code "distinct kernels matching …" ≥ 1}.
     */
    public KernelSelectionAssert isNotEmpty() {
        isNotNull();
        int matched = actual.kernels().size();
        Verdicts.check(Checks.count(Verdict.Kind.KERNEL, scope, "distinct " + selection, "≥", matched, 1,
                matched == 0 ? "no kernel matched" : matched + " distinct kernel(s)" + top(), matched > 0),
                () -> failure("%s", Formats.scoped(scope) + "no kernel matched " + selection + "; check the pattern "
                        + "against the kernel names in the trace (e.g. `profiled-rollout analyze <trace>`)"));
        return myself;
    }

    /** Σ kernel durations of the selection over Σ of all kernel durations (kernel events only, no memcpy/memset). */
    public NumberBudgetAssert share() {
        isNotNull();
        return new NumberBudgetAssert(actual.share(), Verdict.Kind.KERNEL, scope,
                "GPU kernel-time share of " + selection, Formats::percent,
                Formats.duration(Duration.ofNanos(actual.totalNs())) + " of "
                        + Formats.duration(Duration.ofNanos(actual.kernelTotalNs())) + " kernel time in "
                        + actual.kernels().size() + " distinct kernel(s)" + top());
    }

    /** Σ kernel durations of the selection. */
    public DurationBudgetAssert totalTime() {
        isNotNull();
        return new DurationBudgetAssert(Duration.ofNanos(actual.totalNs()), Verdict.Kind.KERNEL, scope,
                "total time of " + selection,
                budget -> actual.count() + " launches" + top());
    }

    /** Mean duration of one kernel execution in the selection. */
    public DurationBudgetAssert meanTime() {
        isNotNull();
        return new DurationBudgetAssert(Duration.ofNanos(Math.round(actual.meanNs())), Verdict.Kind.KERNEL, scope,
                "mean time of " + selection,
                budget -> actual.count() + " launches" + top());
    }

    /** Number of kernel executions in the selection. */
    public NumberBudgetAssert count() {
        isNotNull();
        return new NumberBudgetAssert(actual.count(), Verdict.Kind.KERNEL, scope,
                "launch count of " + selection,
                v -> String.valueOf((long) v), actual.kernels().size() + " distinct kernel(s)" + top());
    }

    private String top() {
        if (actual.kernels().isEmpty()) {
            return " (no kernel matched)";
        }
        return "; largest: " + actual.kernels().stream().limit(3)
                .map(KernelSelectionAssert::describe).collect(Collectors.joining(", "));
    }

    private static String describe(KernelStats k) {
        String name = k.name().length() > 60 ? k.name().substring(0, 59) + "…" : k.name();
        return name + " " + Formats.duration(Duration.ofNanos(k.totalNs())) + " ×" + k.count();
    }
}
