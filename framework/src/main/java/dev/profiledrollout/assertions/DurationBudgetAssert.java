package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.metrics.QuantileInterval;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.DoubleFunction;
import java.util.function.Function;
import java.util.function.Predicate;
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
 * {@link dev.profiledrollout.verdict.Verdict} (in ms) of its {@link Verdict.Kind} and scope, with the extra facts as
 * {@code detail} (see {@link Verdicts}). Inside a profiled test (soft budgets, the default) a failed comparison does
 * not throw: the test fails once after its body with every failed budget; with
 * {@code @ProfiledRollout(softBudgets = false)}, or outside a profiled test, it throws at once.
 *
 * <p><b>Confidence intervals and strict budgets.</b> A percentile's budget (from
 * {@link LatencyMetricAssert#percentile(double)}) carries the percentile's 95 % distribution-free confidence
 * interval ({@link QuantileInterval}); the verdict's {@code actualText} and the failure message show it, e.g.
 * {@code 312 ms (95% CI 290–340 ms)}, and a strict budget says so in {@code detail}. By default the point estimate decides. {@link #strictly()} (opt-in) lets the
 * interval decide instead: the budget fails only when the whole interval lies beyond it, so a miss that the run's
 * sampling noise could explain passes (with the interval in the report). For example
 * {@code assertThat(latency).ttft().percentile(99).strictly().isLessThan(Duration.ofMillis(250))} fails only when the
 * interval's lower end is at or above 250 ms. An end that too few samples leave open never fails a strict budget
 * (p99 from 50 samples has no upper end, so a strict {@code isGreaterThan} on it cannot fail).
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class DurationBudgetAssert extends AbstractAssert<DurationBudgetAssert, Duration> {

    private final Verdict.Kind kind;
    private final String scope;
    private final String measure;
    private final Function<Duration, String> context;
    private final DoubleFunction<QuantileInterval> intervals;
    private final double confidence;
    private final boolean strict;
    /** Why there is nothing to compare, or null when the value was measured on data. */
    private final String noData;

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
        this(actual, kind, scope, measure, context, null, QuantileInterval.DEFAULT_CONFIDENCE, false, null);
    }

    private DurationBudgetAssert(Duration actual, Verdict.Kind kind, String scope, String measure,
            Function<Duration, String> context, DoubleFunction<QuantileInterval> intervals, double confidence,
            boolean strict, String noData) {
        super(actual, DurationBudgetAssert.class);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.scope = Objects.requireNonNull(scope, "scope");
        this.measure = measure;
        this.context = context;
        this.intervals = intervals;
        this.confidence = confidence;
        this.strict = strict;
        this.noData = noData;
    }

    /**
     * The same measure taken over nothing (no kernel matched): every comparison fails, whatever the value, because a
     * budget over no data proves nothing. The verdict's actual text is {@code "no data"} and its detail, like the
     * failure message, says why.
     *
     * @param reason why there is no data, and how to get some; not null
     */
    DurationBudgetAssert withoutData(String reason) {
        return new DurationBudgetAssert(actual, kind, scope, measure, context, intervals, confidence, strict,
                Objects.requireNonNull(reason, "reason"));
    }

    /** The same budget with a confidence interval for the measure, given the confidence level. */
    DurationBudgetAssert withIntervals(DoubleFunction<QuantileInterval> intervalAtConfidence) {
        return new DurationBudgetAssert(actual, kind, scope, measure, context,
                Objects.requireNonNull(intervalAtConfidence, "intervalAtConfidence"), confidence, strict, noData);
    }

    /**
     * Strict mode at 95 % confidence: each following comparison fails only when the measure's whole confidence
     * interval lies beyond the budget. See {@link #strictly(double)}.
     */
    public DurationBudgetAssert strictly() {
        return strictly(QuantileInterval.DEFAULT_CONFIDENCE);
    }

    /**
     * Strict mode: each following comparison fails only when the measure's whole confidence interval (at
     * {@code confidence}) lies beyond the budget: {@code isLessThan(b)} fails when the lower end is ≥ b,
     * {@code isLessThanOrEqualTo(b)} when it is &gt; b, {@code isGreaterThan(f)} when the upper end is ≤ f,
     * {@code isGreaterThanOrEqualTo(f)} when it is &lt; f. An end that does not exist (too few samples) never fails.
     * The verdict still reports the point estimate as {@code actual}, with the interval in {@code actualText}.
     *
     * @param confidence the interval's coverage, in (0, 1), e.g. 0.95 or 0.99
     * @return a strict copy of this budget
     * @throws IllegalArgumentException when confidence is outside (0, 1)
     * @throws IllegalStateException    when the measure has no confidence interval (only percentiles have one:
     *                                  use {@code percentile(p).strictly()} instead of {@code mean()} or {@code max()})
     */
    public DurationBudgetAssert strictly(double confidence) {
        if (!(confidence > 0 && confidence < 1)) {
            throw new IllegalArgumentException("strictly(confidence): confidence must be in (0, 1), e.g. 0.95, was "
                    + confidence);
        }
        if (intervals == null) {
            throw new IllegalStateException("strictly(): " + measure + " has no confidence interval; strict budgets "
                    + "apply to percentiles only, e.g. percentile(99).strictly().isLessThan(...)");
        }
        return new DurationBudgetAssert(actual, kind, scope, measure, context, intervals, confidence, true, noData);
    }

    /** Passes when the measured duration is strictly below {@code budget}. */
    public DurationBudgetAssert isLessThan(Duration budget) {
        return check(d -> d.compareTo(budget) < 0, "<", budget);
    }

    public DurationBudgetAssert isLessThanOrEqualTo(Duration budget) {
        return check(d -> d.compareTo(budget) <= 0, "≤", budget);
    }

    public DurationBudgetAssert isGreaterThan(Duration floor) {
        return check(d -> d.compareTo(floor) > 0, ">", floor);
    }

    public DurationBudgetAssert isGreaterThanOrEqualTo(Duration floor) {
        return check(d -> d.compareTo(floor) >= 0, "≥", floor);
    }

    /** Passes when {@code low ≤ actual ≤ high}. */
    public DurationBudgetAssert isBetween(Duration low, Duration high) {
        isGreaterThanOrEqualTo(low);
        return isLessThanOrEqualTo(high);
    }

    private DurationBudgetAssert check(Predicate<Duration> meets, String relation, Duration budget) {
        isNotNull();
        Objects.requireNonNull(budget, "budget");
        if (noData != null) {
            Verdict verdict = Verdict.of(kind, measure, relation, actual.toNanos() / 1e6, budget.toNanos() / 1e6,
                    "ms", "no data", Formats.duration(budget), noData, false).withScope(scope);
            Verdicts.check(verdict, () -> failure("%s", Formats.scoped(scope) + measure + " has no data, so budget "
                    + relation + " " + Formats.duration(budget) + " cannot be checked: " + noData));
            return myself;
        }
        QuantileInterval ci = intervals == null ? null : intervals.apply(confidence);
        boolean ok = strict ? strictlyMeets(meets, relation, ci) : meets.test(actual);
        String extra = context == null ? null : context.apply(budget);
        List<String> facts = new ArrayList<>();
        if (strict) {
            facts.add("strict: fails only when the whole interval lies beyond the budget");
        }
        if (extra != null && !extra.isEmpty()) {
            facts.add(extra);
        }
        String detail = String.join("; ", facts);
        String actualText = Formats.duration(actual) + (ci == null ? "" : " (" + Formats.interval(ci) + ")");
        Verdict verdict = Verdict.of(kind, measure, relation, actual.toNanos() / 1e6, budget.toNanos() / 1e6, "ms",
                actualText, Formats.duration(budget), detail, ok).withScope(scope);
        Verdicts.check(verdict, () -> failureWithActualExpected(actual, budget, "%s", Formats.scoped(scope) + measure
                + " was " + actualText + ", budget " + relation + " " + Formats.duration(budget) + " ("
                + Formats.gap(actual.toNanos(), budget.toNanos()) + ")" + (detail.isEmpty() ? "" : "; " + detail)));
        return myself;
    }

    /**
     * Whether some value in the interval meets the budget, i.e. the interval does not lie wholly beyond it. For an
     * upper budget ({@code <}, {@code ≤}) the interval's lowest value is the one most likely to meet it; for a floor
     * the highest. A missing end is unbounded, so it always has a value meeting the budget.
     */
    private static boolean strictlyMeets(Predicate<Duration> meets, String relation, QuantileInterval ci) {
        Optional<Duration> nearest = relation.startsWith("<") || relation.equals("≤") ? ci.low() : ci.high();
        return nearest.map(meets::test).orElse(true);
    }
}
