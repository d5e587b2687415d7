package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.history.HistoryMetrics;
import dev.profiledrollout.history.HistoryThreshold;
import dev.profiledrollout.history.HistoryVerdict;
import dev.profiledrollout.history.RunHistory;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * One metric of a run against the earlier runs of the same test and configuration, with the configured threshold
 * ({@code profiledrollout.history.threshold}, {@code .boundary}, {@code .window}) unless
 * {@link #usingThreshold(HistoryThreshold)} or {@link #window(int)} change it.
 *
 * <p>{@link #hasNoRegression()} records a verdict of kind {@link Verdict.Kind#HISTORY} like every budget: a REGRESSION
 * fails (soft inside a profiled test: collected and reported after the body), IMPROVEMENT and NO_CHANGE pass,
 * INSUFFICIENT_HISTORY and a history store that cannot be used are warnings that never fail.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class HistoryMetricAssert extends AbstractAssert<HistoryMetricAssert, RunHistory> {

    private final String metric;
    private HistoryThreshold threshold;

    HistoryMetricAssert(RunHistory actual, String metric) {
        super(actual, HistoryMetricAssert.class);
        this.metric = metric;
        this.threshold = actual.threshold();
    }

    /** Uses this threshold model, boundary and window instead of the configured one. */
    public HistoryMetricAssert usingThreshold(HistoryThreshold newThreshold) {
        this.threshold = java.util.Objects.requireNonNull(newThreshold, "threshold");
        return this;
    }

    /**
     * Compares with the latest {@code runs} earlier runs.
     *
     * @throws IllegalArgumentException if {@code runs < 1}
     */
    public HistoryMetricAssert window(int runs) {
        this.threshold = threshold.withWindow(runs);
        return this;
    }

    /**
     * Fails when the threshold model finds a REGRESSION of the metric against the history; the message names the
     * metric, the change, the baseline, the confidence and the runs compared with.
     *
     * @throws AssertionError for a REGRESSION (unless a soft recording collects it), or when the run has no figure of
     *                        the metric
     */
    public HistoryMetricAssert hasNoRegression() {
        HistoryVerdict verdict;
        try {
            verdict = actual.check(metric, threshold);
        } catch (RuntimeException storeProblem) {
            String message = storeProblem.getMessage() == null ? storeProblem.getClass().getSimpleName()
                    : storeProblem.getMessage();
            Verdicts.record(new Verdict(Verdict.Kind.HISTORY, actual.scope(), HistoryMetrics.measure(metric).name()
                    + " vs history", "±", 0, 0, "", "unknown", "history unavailable", null, message
                    + " (set " + ProfiledRolloutKeys.HISTORY_URL + " to a reachable, writable store)", false, false));
            return this;
        }
        if (verdict == null) {
            failWithMessage("%s: this run has no figure of %s to compare with its history", scopePrefix()
                    + HistoryMetrics.measure(metric).name(), metric);
        }
        Verdict v = verdict.toVerdict(actual.scope());
        Verdicts.check(v, () -> new AssertionError(scopePrefix() + verdict.failureMessage()));
        return this;
    }

    private String scopePrefix() {
        return actual.scope().isEmpty() ? "" : "[" + actual.scope() + "] ";
    }
}
