package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import dev.profiledrollout.trace.KernelMatchers;
import dev.profiledrollout.trace.KernelSelection;
import dev.profiledrollout.trace.KernelStats;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on the kernels a name filter selected from a trace (one rank or all ranks): how many ran, how long, and
 * their share of all GPU kernel time. Every check records a KERNEL {@link Verdict} in the scope of the trace set (or
 * rank) the selection came from.
 *
 * <p><b>A budget over nothing fails.</b> When the filter selected no kernel (a typo in the pattern, a kernel the
 * engine does not run), every budget of the selection fails, whatever its relation: {@code share() < 50 %} of no
 * kernel proves nothing. The failure names the pattern and the five kernel names of the trace nearest to it
 * ({@link #NEAREST}). A test that expects the selection may be empty says so: {@link #isEmpty()} asserts that nothing
 * matched, {@link #mayBeEmpty()} lets the budgets that follow judge the empty selection's zeros as numbers.
 *
 * <pre>{@code
 * assertThat(result.trace()).kernels(matching(".*gemm.*")).share().isLessThan(0.60);
 * assertThat(result.trace()).kernels(glob("*all_reduce*")).totalTime().isLessThan(Duration.ofMillis(5));
 * }</pre>
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class KernelSelectionAssert extends AbstractAssert<KernelSelectionAssert, KernelSelection> {

    /** How many of the trace's kernel names a failure over an empty selection lists as the nearest to the pattern. */
    public static final int NEAREST = 5;

    private final String selection;
    private final String scope;
    private final Predicate<String> filter;
    /** Every kernel of the trace the selection was taken from, largest total time first. */
    private final List<KernelStats> all;
    private final boolean mayBeEmpty;

    /**
     * @param actual    the selection, not null
     * @param selection how it was made, e.g. {@code "kernels matching /.*gemm.*}/"}
     * @param scope     {@link Verdict#scope()} of its verdicts, not null
     * @param filter    the name filter that made it
     * @param all       every kernel it was selected from, largest total time first
     */
    KernelSelectionAssert(KernelSelection actual, String selection, String scope, Predicate<String> filter,
            List<KernelStats> all) {
        this(actual, selection, scope, filter, all, false);
    }

    private KernelSelectionAssert(KernelSelection actual, String selection, String scope, Predicate<String> filter,
            List<KernelStats> all, boolean mayBeEmpty) {
        super(actual, KernelSelectionAssert.class);
        this.selection = selection;
        this.scope = scope;
        this.filter = filter;
        this.all = all;
        this.mayBeEmpty = mayBeEmpty;
    }

    /**
     * Fails when the filter selected no kernel at all, naming the nearest kernel names. Records a KERNEL verdict
     * {@code "distinct kernels matching …" ≥ 1}.
     */
    public KernelSelectionAssert isNotEmpty() {
        isNotNull();
        int matched = actual.kernels().size();
        Verdicts.check(Checks.count(Verdict.Kind.KERNEL, scope, "distinct " + selection, "≥", matched, 1,
                matched == 0 ? noMatch() : matched + " distinct kernel(s)" + top(), matched > 0),
                () -> failure("%s", Formats.scoped(scope) + selection + ": " + noMatch()));
        return myself;
    }

    /**
     * Passes when the filter selected no kernel, e.g. that no fallback kernel ran; fails naming the kernels it did
     * select. Records a KERNEL verdict {@code "distinct kernels matching …" = 0}.
     */
    public KernelSelectionAssert isEmpty() {
        isNotNull();
        int matched = actual.kernels().size();
        Verdicts.check(Checks.count(Verdict.Kind.KERNEL, scope, "distinct " + selection, "=", matched, 0,
                matched == 0 ? "no kernel matched" : matched + " distinct kernel(s)" + top(), matched == 0),
                () -> failure("%s", Formats.scoped(scope) + matched + " distinct kernel(s) matched " + selection
                        + top()));
        return myself;
    }

    /**
     * The budgets that follow judge an empty selection by its numbers (share, time and count 0) instead of failing
     * it: for a kernel that may legitimately not run, e.g. an all-reduce under TP = 1.
     */
    public KernelSelectionAssert mayBeEmpty() {
        isNotNull();
        return new KernelSelectionAssert(actual, selection, scope, filter, all, true);
    }

    /**
     * Σ kernel durations of the selection over Σ of all kernel durations (kernel events only, no memcpy/memset).
     * Fails, whatever the budget, when nothing was selected (see {@link #mayBeEmpty()}).
     */
    public NumberBudgetAssert share() {
        isNotNull();
        return guard(new NumberBudgetAssert(actual.share(), Verdict.Kind.KERNEL, scope,
                "GPU kernel-time share of " + selection, Formats::percent,
                Formats.duration(Duration.ofNanos(actual.totalNs())) + " of "
                        + Formats.duration(Duration.ofNanos(actual.kernelTotalNs())) + " kernel time in "
                        + actual.kernels().size() + " distinct kernel(s)" + top()));
    }

    /** Σ kernel durations of the selection; fails when nothing was selected (see {@link #mayBeEmpty()}). */
    public DurationBudgetAssert totalTime() {
        isNotNull();
        return guard(new DurationBudgetAssert(Duration.ofNanos(actual.totalNs()), Verdict.Kind.KERNEL, scope,
                "total time of " + selection,
                budget -> actual.count() + " launches" + top()));
    }

    /**
     * Mean duration of one kernel execution in the selection; fails when nothing was selected (see
     * {@link #mayBeEmpty()}).
     */
    public DurationBudgetAssert meanTime() {
        isNotNull();
        return guard(new DurationBudgetAssert(Duration.ofNanos(Math.round(actual.meanNs())), Verdict.Kind.KERNEL, scope,
                "mean time of " + selection,
                budget -> actual.count() + " launches" + top()));
    }

    /** Number of kernel executions in the selection; fails when nothing was selected (see {@link #mayBeEmpty()}). */
    public NumberBudgetAssert count() {
        isNotNull();
        return guard(new NumberBudgetAssert(actual.count(), Verdict.Kind.KERNEL, scope,
                "launch count of " + selection,
                v -> String.valueOf((long) v), actual.kernels().size() + " distinct kernel(s)" + top()));
    }

    private NumberBudgetAssert guard(NumberBudgetAssert budget) {
        return actual.kernels().isEmpty() && !mayBeEmpty ? budget.withoutData(noMatch()) : budget;
    }

    private DurationBudgetAssert guard(DurationBudgetAssert budget) {
        return actual.kernels().isEmpty() && !mayBeEmpty ? budget.withoutData(noMatch()) : budget;
    }

    /**
     * {@code no kernel matched; nearest of the trace's 14 kernel names: …; check the pattern, or call
     * isEmpty() / mayBeEmpty() if none may run}.
     */
    private String noMatch() {
        StringBuilder text = new StringBuilder("no kernel matched");
        if (all.isEmpty()) {
            text.append("; the trace has no kernels at all (was GPU among the activities?)");
            return text.toString();
        }
        List<String> names = all.stream().map(KernelStats::name).toList();
        List<String> nearest = KernelMatchers.source(filter)
                .map(p -> NearestNames.nearest(p, names, NEAREST))
                .orElseGet(() -> names.stream().limit(NEAREST).toList());
        text.append(KernelMatchers.source(filter).isPresent() ? "; nearest" : "; largest").append(" of the trace's ")
                .append(names.size()).append(" kernel names: ")
                .append(nearest.stream().map(KernelSelectionAssert::shorten).distinct()
                        .collect(Collectors.joining(", ")))
                .append(". Check the pattern (names match whole and ignore case: matching(\".*gemm.*\")), or call "
                        + "isEmpty() or mayBeEmpty() when no such kernel may run");
        return text.toString();
    }

    private String top() {
        if (actual.kernels().isEmpty()) {
            return " (no kernel matched)";
        }
        return "; largest: " + actual.kernels().stream().limit(3)
                .map(KernelSelectionAssert::describe).collect(Collectors.joining(", "));
    }

    private static String describe(KernelStats k) {
        return shorten(k.name()) + " " + Formats.duration(Duration.ofNanos(k.totalNs())) + " ×" + k.count();
    }

    private static String shorten(String name) {
        return name.length() > 60 ? name.substring(0, 59) + "…" : name;
    }
}
