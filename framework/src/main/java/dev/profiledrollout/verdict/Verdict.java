package dev.profiledrollout.verdict;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Locale;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One check's outcome as an assertion (or the framework itself) recorded it: what was measured, in which scope, how
 * it was compared, the measured value and the budget, the relative gap, a detail line, and whether it passed.
 *
 * <p>Written to {@code summary.json} as an element of {@code verdicts}:
 * {@code {"kind":"LATENCY","scope":"","measure":"p99 TTFT","relation":"<","actual":312.4,"budget":250.0,"unit":"ms",
 * "actualText":"312 ms","budgetText":"250 ms","gap":0.2496,"detail":"41 of 256 requests above budget",
 * "passed":false,"enforced":true,"outcome":"FAIL"}}.
 *
 * @param kind       which family of check, not null
 * @param scope      where it applies: {@code ""} for the whole run, else a phase ({@code "PREFILL"}), a rank label
 *                   ({@code "worker-1/TP-0"}), or both joined by {@code " · "}; not null
 * @param measure    what was measured, e.g. {@code "p99 TTFT"}, not null
 * @param relation   {@code <}, {@code ≤}, {@code >}, {@code ≥}, {@code =} or {@code ±} (within a tolerance), not null
 * @param actual     the measured value in {@code unit}
 * @param budget     the budget (or floor, or tolerance) in {@code unit}
 * @param unit       {@code ms} for durations, empty for plain numbers (shares and fractions are 0..1), not null
 * @param actualText the measured value as the failure message prints it, not null
 * @param budgetText the budget as the failure message prints it, not null
 * @param gap        {@code (actual − budget) / |budget|}, or null where a relative gap means nothing (budget 0,
 *                   tolerances, counts of offending items)
 * @param detail     what else the check knows, e.g. {@code "41 of 256 requests above budget"}; {@code ""} for
 *                   nothing; not null
 * @param passed     whether the comparison held
 * @param enforced   whether a failed comparison fails the test; {@code false} makes a failed check a warning
 *                   (e.g. captured steps differing from {@code numSteps} without strict steps)
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record Verdict(Kind kind, String scope, String measure, String relation, double actual, double budget,
                      String unit, String actualText, String budgetText, Double gap, String detail, boolean passed,
                      boolean enforced) {

    /** The family of a check, for grouping in reports. */
    @API(status = EXPERIMENTAL, since = "0.1")
    public enum Kind {
        /** TTFT, ITL, TPOT, E2E percentiles and other request latencies. */
        LATENCY,
        /** Throughput, request counts, failures. */
        THROUGHPUT,
        /** Goodput against an SLO. */
        GOODPUT,
        /** Kernel time, share, count of a kernel selection. */
        KERNEL,
        /** Trace-wide figures: GPU busy fraction, idle time, categories. */
        TRACE,
        /** Engine steps: counts, step durations, steps captured vs asked. */
        STEPS,
        /** Rank set figures: imbalance, expected ranks. */
        RANKS,
        /** Comparison with a recorded baseline. */
        BASELINE,
        /** What the profile window captured: steps captured against {@code numSteps}, workers profiled. */
        CAPTURE,
        /**
         * A metric against the history of earlier runs of the same test and configuration (a regression check); a
         * REGRESSION fails, INSUFFICIENT_HISTORY and a history store that could not be used are warnings.
         */
        HISTORY
    }

    /** How a verdict ended, as reports print it. */
    @API(status = EXPERIMENTAL, since = "0.1")
    public enum Outcome {
        /** The comparison held. */
        PASS,
        /** The comparison failed and fails the test. */
        FAIL,
        /** The comparison failed but does not fail the test. */
        WARN
    }

    public Verdict {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(measure, "measure");
        Objects.requireNonNull(relation, "relation");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(actualText, "actualText");
        Objects.requireNonNull(budgetText, "budgetText");
        Objects.requireNonNull(detail, "detail");
        if (gap != null && !Double.isFinite(gap)) {
            gap = null;
        }
    }

    /**
     * An enforced verdict of the whole run with the relative gap computed from {@code actual} and {@code budget}.
     */
    public static Verdict of(Kind kind, String measure, String relation, double actual, double budget, String unit,
            String actualText, String budgetText, String detail, boolean passed) {
        return new Verdict(kind, "", measure, relation, actual, budget, unit, actualText, budgetText,
                relativeGap(actual, budget), detail, passed, true);
    }

    /** @return {@code (actual − budget) / |budget|}, or null for a zero or non-finite budget */
    public static Double relativeGap(double actual, double budget) {
        if (budget == 0 || !Double.isFinite(budget) || !Double.isFinite(actual)) {
            return null;
        }
        return (actual - budget) / Math.abs(budget);
    }

    /** @return this verdict in {@code scope} (replacing the current one) */
    public Verdict withScope(String newScope) {
        return new Verdict(kind, newScope, measure, relation, actual, budget, unit, actualText, budgetText, gap, detail,
                passed, enforced);
    }

    /** @return this verdict as a warning: a failed comparison that does not fail the test */
    public Verdict asWarning() {
        return new Verdict(kind, scope, measure, relation, actual, budget, unit, actualText, budgetText, gap, detail,
                passed, false);
    }

    /** @return PASS, FAIL (failed and enforced) or WARN (failed, not enforced) */
    public Outcome outcome() {
        return passed ? Outcome.PASS : enforced ? Outcome.FAIL : Outcome.WARN;
    }

    /** @return the gap as text, e.g. {@code "+24.8%"}, or {@code ""} without one */
    public String gapText() {
        return gap == null ? "" : String.format(Locale.ROOT, "%+.1f%%", 100 * gap);
    }

    /**
     * @return one line for consoles and step names, e.g.
     *         {@code "FAIL [PREFILL] p99 TTFT: 312 ms, budget < 250 ms (+24.8%); 41 of 256 requests above budget"}
     */
    public String describe() {
        String g = gapText();
        return outcome() + " " + (scope.isEmpty() ? "" : "[" + scope + "] ") + measure + ": " + actualText
                + ", budget " + relation + " " + budgetText + (g.isEmpty() || passed ? "" : " (" + g + ")")
                + (detail.isEmpty() ? "" : "; " + detail);
    }
}
