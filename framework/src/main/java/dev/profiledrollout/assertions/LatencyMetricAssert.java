package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.metrics.LatencyDistribution;
import java.time.Duration;
import java.util.Locale;
import org.HdrHistogram.Histogram;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on one latency metric's distribution: choose a statistic, get a {@link DurationBudgetAssert}.
 *
 * <p>Percentiles are HdrHistogram's: the recorded value at 3 significant digits at or above which the percentile
 * falls, not numpy's interpolation ({@code docs/METRICS.md} §2). Failure messages count the samples above the budget.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class LatencyMetricAssert extends AbstractAssert<LatencyMetricAssert, LatencyDistribution> {

    private final String metric;
    private final String samples;

    LatencyMetricAssert(LatencyDistribution actual, String metric, String samples) {
        super(actual, LatencyMetricAssert.class);
        this.metric = metric;
        this.samples = samples;
    }

    /**
     * @param percentile in {@code [0, 100]}, e.g. {@code 99} or {@code 99.9}
     * @throws IllegalArgumentException for a percentile outside {@code [0, 100]}
     */
    public DurationBudgetAssert percentile(double percentile) {
        if (percentile < 0 || percentile > 100 || Double.isNaN(percentile)) {
            throw new IllegalArgumentException("percentile must be in [0, 100], was " + percentile);
        }
        hasSamples();
        String name = "p" + (percentile == Math.rint(percentile)
                ? String.valueOf((long) percentile) : String.format(Locale.ROOT, "%s", percentile)) + " " + metric;
        return new DurationBudgetAssert(actual.percentile(percentile), name, this::aboveBudget);
    }

    public DurationBudgetAssert mean() {
        hasSamples();
        return new DurationBudgetAssert(actual.mean(), "mean " + metric, this::aboveBudget);
    }

    public DurationBudgetAssert max() {
        hasSamples();
        return new DurationBudgetAssert(actual.max(), "max " + metric, this::aboveBudget);
    }

    /** Fails when the metric has no samples (all requests failed, or one output token each for ITL/TPOT). */
    public LatencyMetricAssert hasSamples() {
        isNotNull();
        if (actual.count() == 0) {
            failWithMessage("%s", metric + " has no samples (" + actual.definition() + ")");
        }
        return myself;
    }

    private String aboveBudget(Duration budget) {
        Histogram h = actual.histogram();
        long budgetNs = budget.toNanos();
        long above = budgetNs >= h.getMaxValue() ? 0 : h.getCountBetweenValues(budgetNs + 1, h.getMaxValue());
        return above + " of " + h.getTotalCount() + " " + samples + " above budget";
    }
}
