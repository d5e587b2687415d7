package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.metrics.LatencyDistribution;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on one latency metric's distribution: choose a statistic, get a {@link DurationBudgetAssert}.
 *
 * <p>Percentiles are HdrHistogram's: the recorded value at 3 significant digits at or above which the percentile
 * falls, not numpy's interpolation ({@code docs/METRICS.md} §2). Failure messages and the verdicts' detail count the
 * samples above the budget; verdicts are LATENCY verdicts in the scope of the {@link
 * dev.profiledrollout.metrics.LatencyReport} the metric came from.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class LatencyMetricAssert extends AbstractAssert<LatencyMetricAssert, LatencyDistribution> {

    private final String metric;
    private final String samples;
    private final String scope;

    LatencyMetricAssert(LatencyDistribution actual, String metric, String samples, String scope) {
        super(actual, LatencyMetricAssert.class);
        this.metric = metric;
        this.samples = samples;
        this.scope = scope;
    }

    /**
     * The percentile's budget, carrying its distribution-free confidence interval from the exact samples
     * ({@link dev.profiledrollout.metrics.QuantileInterval}), shown in the verdict; {@link DurationBudgetAssert#strictly()}
     * makes the interval decide.
     *
     * @param percentile in {@code [0, 100]}, e.g. {@code 99} or {@code 99.9}
     * @throws IllegalArgumentException for a percentile outside {@code [0, 100]}
     */
    public DurationBudgetAssert percentile(double percentile) {
        if (percentile < 0 || percentile > 100 || Double.isNaN(percentile)) {
            throw new IllegalArgumentException("percentile must be in [0, 100], was " + percentile);
        }
        requireSamples();
        String name = "p" + (percentile == Math.rint(percentile)
                ? String.valueOf((long) percentile) : String.format(Locale.ROOT, "%s", percentile)) + " " + metric;
        return budget(actual.percentile(percentile), name)
                .withIntervals(confidence -> actual.percentileInterval(percentile, confidence));
    }

    /** The mean of the samples; fails at once (even with soft budgets) when there is none. */
    public DurationBudgetAssert mean() {
        requireSamples();
        return budget(actual.mean(), "mean " + metric);
    }

    /** The largest sample; fails at once (even with soft budgets) when there is none. */
    public DurationBudgetAssert max() {
        requireSamples();
        return budget(actual.max(), "max " + metric);
    }

    /**
     * Fails when the metric has no samples (all requests failed, or one output token each for ITL/TPOT). Records a
     * LATENCY verdict {@code "<metric> samples" ≥ 1}.
     */
    public LatencyMetricAssert hasSamples() {
        isNotNull();
        Verdicts.check(samplesVerdict(), () -> failure("%s", noSamples()));
        return myself;
    }

    /** A statistic needs samples: a failure here is thrown at once, since no budget after it can be evaluated. */
    private void requireSamples() {
        isNotNull();
        Verdicts.require(samplesVerdict(), false, () -> failure("%s", noSamples()));
    }

    private Verdict samplesVerdict() {
        return Checks.count(Verdict.Kind.LATENCY, scope, metric + " samples", "≥", actual.count(), 1,
                actual.definition(), actual.count() > 0);
    }

    private String noSamples() {
        return Formats.scoped(scope) + metric + " has no samples (" + actual.definition() + ")";
    }

    private DurationBudgetAssert budget(Duration value, String name) {
        return new DurationBudgetAssert(value, Verdict.Kind.LATENCY, scope, name, this::aboveBudget);
    }

    /** Counted on the exact samples: the histogram's buckets would count a sample equal to the budget as above it. */
    private String aboveBudget(Duration budget) {
        long budgetNs = budget.toNanos();
        long above = Arrays.stream(actual.valuesNanos()).filter(v -> v > budgetNs).count();
        return above + " of " + actual.count() + " " + samples + " above budget";
    }
}
