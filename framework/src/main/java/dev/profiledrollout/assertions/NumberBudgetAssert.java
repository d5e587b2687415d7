package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.util.Objects;
import java.util.function.DoubleFunction;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Compares one measured number (a kernel-time share, a busy fraction, an imbalance ratio, a throughput, a count) with
 * a budget.
 *
 * <p>Failure messages name the measure, the actual value, the budget and the relative gap, plus extra facts, for
 * example: {@code GPU kernel-time share of kernels matching /.*gemm.*}/ was 64.2%, budget < 60.0% (+7.0%); 1.23 s
 * of 1.92 s kernel time in 3 distinct kernels}.
 *
 * <p>Every comparison, passed or failed, is also handed to the running test's report as a
 * {@link dev.profiledrollout.verdict.Verdict} of its {@link Verdict.Kind} and scope, with the extra facts as
 * {@code detail} (see {@link Verdicts}). Inside a profiled test (soft budgets, the default) a failed comparison does
 * not throw: the test fails once after its body with every failed budget; with
 * {@code @ProfiledRollout(softBudgets = false)}, or outside a profiled test, it throws at once.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class NumberBudgetAssert extends AbstractAssert<NumberBudgetAssert, Double> {

    private final Verdict.Kind kind;
    private final String scope;
    private final String measure;
    private final DoubleFunction<String> format;
    private final String context;
    /** Why there is nothing to compare, or null when the value was measured on data. */
    private final String noData;

    /**
     * @param actual  the measured value
     * @param measure what was measured, e.g. {@code "busy imbalance (max/mean GPU busy time over ranks)"}
     * @param format  how values print (a percentage, a plain number with a unit)
     * @param context extra facts for the failure message, or null
     */
    public NumberBudgetAssert(double actual, String measure, DoubleFunction<String> format, String context) {
        this(actual, Verdict.Kind.TRACE, "", measure, format, context);
    }

    /**
     * @param actual  the measured value
     * @param kind    the verdict's family, not null
     * @param scope   where the measure applies ({@link Verdict#scope()}): {@code ""} for the whole run, a phase, a
     *                rank label; not null
     * @param measure what was measured, e.g. {@code "busy imbalance (max/mean GPU busy time over ranks)"}
     * @param format  how values print (a percentage, a plain number with a unit)
     * @param context extra facts for the failure message and the verdict's detail, or null
     */
    public NumberBudgetAssert(double actual, Verdict.Kind kind, String scope, String measure,
            DoubleFunction<String> format, String context) {
        super(actual, NumberBudgetAssert.class);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.scope = Objects.requireNonNull(scope, "scope");
        this.measure = measure;
        this.format = format;
        this.context = context;
        this.noData = null;
    }

    private NumberBudgetAssert(NumberBudgetAssert of, String noData) {
        super(of.actual, NumberBudgetAssert.class);
        this.kind = of.kind;
        this.scope = of.scope;
        this.measure = of.measure;
        this.format = of.format;
        this.context = of.context;
        this.noData = noData;
    }

    /**
     * The same measure taken over nothing (no kernel matched, no request finished): every comparison fails, whatever
     * the value, because a budget over no data proves nothing. The verdict's actual text is {@code "no data"} and its
     * detail, like the failure message, says why.
     *
     * @param reason why there is no data, and how to get some; not null
     */
    NumberBudgetAssert withoutData(String reason) {
        return new NumberBudgetAssert(this, Objects.requireNonNull(reason, "reason"));
    }

    public NumberBudgetAssert isLessThan(double budget) {
        return check(actual < budget, "<", budget);
    }

    public NumberBudgetAssert isLessThanOrEqualTo(double budget) {
        return check(actual <= budget, "≤", budget);
    }

    public NumberBudgetAssert isGreaterThan(double floor) {
        return check(actual > floor, ">", floor);
    }

    public NumberBudgetAssert isGreaterThanOrEqualTo(double floor) {
        return check(actual >= floor, "≥", floor);
    }

    /** Passes when {@code low ≤ actual ≤ high}. */
    public NumberBudgetAssert isBetween(double low, double high) {
        isGreaterThanOrEqualTo(low);
        return isLessThanOrEqualTo(high);
    }

    /** Passes when the value equals {@code expected} exactly (for counts). */
    public NumberBudgetAssert isEqualTo(long expected) {
        return check(actual == expected, "=", expected);
    }

    private NumberBudgetAssert check(boolean ok, String relation, double budget) {
        if (noData != null) {
            Verdict verdict = Verdict.of(kind, measure, relation, actual, budget, "", "no data", format.apply(budget),
                    noData, false).withScope(scope);
            Verdicts.check(verdict, () -> failure("%s", Formats.scoped(scope) + measure + " has no data, so budget "
                    + relation + " " + format.apply(budget) + " cannot be checked: " + noData));
            return myself;
        }
        Verdict verdict = Verdict.of(kind, measure, relation, actual, budget, "", format.apply(actual),
                format.apply(budget), context == null ? "" : context, ok).withScope(scope);
        Verdicts.check(verdict, () -> {
            String message = Formats.scoped(scope) + measure + " was " + format.apply(actual) + ", budget " + relation
                    + " " + format.apply(budget) + " (" + Formats.gap(actual, budget) + ")"
                    + (context == null || context.isEmpty() ? "" : "; " + context);
            return failureWithActualExpected(actual, budget, "%s", message);
        });
        return myself;
    }
}
