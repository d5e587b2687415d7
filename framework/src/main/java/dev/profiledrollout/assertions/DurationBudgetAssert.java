package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.report.Verdict;
import dev.profiledrollout.report.Verdicts;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Compares one measured duration (a latency percentile, a kernel's total time) with a budget.
 *
 * <p>Failure messages name the measure, the actual value, the budget and the relative gap, plus what the measure can
 * say about the budget, for example:
 * {@code p99 TTFT was 312 ms, budget < 250 ms (+24.8%); 41 of 256 requests above budget}.
 *
 * <p>Every comparison, passed or failed, is also handed to the running test's report as a
 * {@link dev.profiledrollout.report.Verdict} (in ms) of its {@link Verdict.Kind} and scope, with the extra facts as
 * {@code detail} (see {@link Verdicts}). Inside a profiled test (soft budgets, the default) a failed comparison does
 * not throw: the test fails once after its body with every failed budget; with
 * {@code @ProfiledRollout(softBudgets = false)}, or outside a profiled test, it throws at once.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class DurationBudgetAssert extends AbstractAssert<DurationBudgetAssert, Duration> {

    private final Verdict.Kind kind;
    private final String scope;
    private final String measure;
    private final Function<Duration, String> context;

    /**
     * @param actual  the measured value, not null
     * @param measure what was measured, e.g. {@code "p99 TTFT"}
     * @param context given the budget, extra facts for the failure message (or null for none); may be null
     */
    public DurationBudgetAssert(Duration actual, String measure, Function<Duration, String> context) {
        this(actual, Verdict.Kind.LATENCY, "", measure, context);
    }

    /**
     * @param actual  the measured value, not null
     * @param kind    the verdict's family, not null
     * @param scope   where the measure applies ({@link Verdict#scope()}): {@code ""} for the whole run, a phase, a
     *                rank label; not null
     * @param measure what was measured, e.g. {@code "p99 TTFT"}
     * @param context given the budget, extra facts for the failure message and the verdict's detail; may be null
     */
    public DurationBudgetAssert(Duration actual, Verdict.Kind kind, String scope, String measure,
            Function<Duration, String> context) {
        super(actual, DurationBudgetAssert.class);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.scope = Objects.requireNonNull(scope, "scope");
        this.measure = measure;
        this.context = context;
    }

    /** Passes when the measured duration is strictly below {@code budget}. */
    public DurationBudgetAssert isLessThan(Duration budget) {
        return check(actual.compareTo(budget) < 0, "<", budget);
    }

    public DurationBudgetAssert isLessThanOrEqualTo(Duration budget) {
        return check(actual.compareTo(budget) <= 0, "≤", budget);
    }

    public DurationBudgetAssert isGreaterThan(Duration floor) {
        return check(actual.compareTo(floor) > 0, ">", floor);
    }

    public DurationBudgetAssert isGreaterThanOrEqualTo(Duration floor) {
        return check(actual.compareTo(floor) >= 0, "≥", floor);
    }

    /** Passes when {@code low ≤ actual ≤ high}. */
    public DurationBudgetAssert isBetween(Duration low, Duration high) {
        isGreaterThanOrEqualTo(low);
        return isLessThanOrEqualTo(high);
    }

    private DurationBudgetAssert check(boolean ok, String relation, Duration budget) {
        isNotNull();
        Objects.requireNonNull(budget, "budget");
        String extra = context == null ? null : context.apply(budget);
        String detail = extra == null ? "" : extra;
        Verdict verdict = Verdict.of(kind, measure, relation, actual.toNanos() / 1e6, budget.toNanos() / 1e6, "ms",
                Formats.duration(actual), Formats.duration(budget), detail, ok).withScope(scope);
        Verdicts.check(verdict, () -> failureWithActualExpected(actual, budget, "%s", Formats.scoped(scope) + measure
                + " was " + Formats.duration(actual) + ", budget " + relation + " " + Formats.duration(budget) + " ("
                + Formats.gap(actual.toNanos(), budget.toNanos()) + ")" + (detail.isEmpty() ? "" : "; " + detail)));
        return myself;
    }
}
