package dev.profiledrollout.history.stats;

import org.apache.commons.math3.stat.StatUtils;
import org.apache.commons.math3.stat.descriptive.rank.Median;
import org.apiguardian.api.API;

/**
 * Relative change against the mean or median of the last {@code window} runs: Bencher's "Percentage" test
 * (https://bencher.dev/docs/explanation/thresholds/), where a boundary is a fraction of the baseline and the limits are
 * {@code baseline × (1 + upper)} and {@code baseline × (1 − lower)}. The statistic is {@code current / baseline − 1}.
 * Needs at least 1 run of history. It has no false-alarm rate of its own: how often it fires on noise depends on
 * the measure's spread, which it ignores. A baseline of 0 gives an infinite change for any non-zero current value.
 */
@API(status = API.Status.EXPERIMENTAL)
public final class RelativeChange implements ThresholdModel {

    /** Name in results. */
    public static final String NAME = "relative change";
    /** A default boundary: 10 % of the baseline. */
    public static final double DEFAULT_FRACTION = 0.10;

    /** Which figure of the history is the baseline. */
    @API(status = API.Status.EXPERIMENTAL)
    public enum Baseline { MEAN, MEDIAN }

    private final Baseline baseline;
    private final int window;
    private final Boundaries boundaries;

    /**
     * @param baseline mean or median of the window
     * @param window how many latest runs to use (Bencher's maximum sample size), at least 1
     * @param boundaries fractions of the baseline, e.g. {@code Boundaries.upper(0.10)}
     * @throws IllegalArgumentException if {@code window < 1}
     */
    public RelativeChange(Baseline baseline, int window, Boundaries boundaries) {
        Decision.requireWindow(window);
        this.baseline = java.util.Objects.requireNonNull(baseline, "baseline");
        this.window = window;
        this.boundaries = java.util.Objects.requireNonNull(boundaries, "boundaries");
    }

    @Override
    public int minimumHistory() {
        return 1;
    }

    @Override
    public ThresholdResult evaluate(Measure measure, double current, double[] history) {
        Decision.requireFinite("current value", current);
        Decision.requireFinite("history", history);
        double[] used = Decision.window(history, window);
        String kind = baseline == Baseline.MEAN ? "mean" : "median";
        if (used.length < minimumHistory()) {
            return new ThresholdResult(NAME, measure, Change.INSUFFICIENT_HISTORY, current, Double.NaN, kind, used.length, 1,
                    "change", Double.NaN, Double.NaN, Double.NaN, Double.NaN, minimumHistory());
        }
        double base = baseline == Baseline.MEAN ? StatUtils.mean(used) : new Median().evaluate(used);
        double change = current == base ? 0 : base == 0 ? Math.copySign(Double.POSITIVE_INFINITY, current) : (current - base) / Math.abs(base);
        Decision d = Decision.of(measure.direction(), change,
                boundaries.hasUpper() ? boundaries.upper() : Double.NaN,
                boundaries.hasLower() ? -boundaries.lower() : Double.NaN, boundaries);
        return new ThresholdResult(NAME, measure, d.change, current, base, kind, used.length, 1, "change", change,
                d.threshold, d.boundary, Double.NaN, minimumHistory());
    }
}
