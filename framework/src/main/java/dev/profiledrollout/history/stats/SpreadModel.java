package dev.profiledrollout.history.stats;

import java.util.Objects;
import org.apache.commons.math3.stat.StatUtils;

/**
 * Shared body of the models that scale the distance from the history's mean by its sample standard deviation. With an
 * outlier cut-off the mean and deviation are those of the window's values that {@link HampelFilter} keeps, and the
 * result's {@code n} counts those.
 */
abstract class SpreadModel implements ThresholdModel {

    private final int window;
    private final Boundaries boundaries;
    private final double outlierK;

    SpreadModel(int window, Boundaries boundaries, String name, double outlierK) {
        Decision.requireWindow(window);
        if (!(outlierK > 0)) {
            throw new IllegalArgumentException("outlier cut-off " + outlierK + ": use a number of robust standard "
                    + "deviations above 0 (" + HampelFilter.IGLEWICZ_HOAGLIN_K + " in Iglewicz and Hoaglin), or "
                    + "Infinity for none");
        }
        this.window = window;
        this.boundaries = Objects.requireNonNull(boundaries, "boundaries");
        this.outlierK = outlierK;
        boundaries.requireProbabilities(name);
    }

    abstract String name();

    abstract String statisticName();

    /** The statistic for a distance {@code (current − mean) / sd} over {@code n} runs. */
    abstract double statistic(double standardized, int n);

    /** The critical statistic for cumulative probability {@code p} over {@code n} runs. */
    abstract double critical(double p, int n);

    /** The upper-tail probability of {@code statistic} over {@code n} runs. */
    abstract double upperTail(double statistic, int n);

    @Override
    public int minimumHistory() {
        return 2;
    }

    @Override
    public ThresholdResult evaluate(Measure measure, double current, double[] history) {
        Decision.requireFinite("current value", current);
        Decision.requireFinite("history", history);
        double[] used = HampelFilter.inliers(Decision.window(history, window), outlierK);
        int n = used.length;
        if (n < minimumHistory()) {
            return new ThresholdResult(name(), measure, Change.INSUFFICIENT_HISTORY, current, Double.NaN, "mean", n, 1,
                    statisticName(), Double.NaN, Double.NaN, Double.NaN, Double.NaN, minimumHistory());
        }
        double mean = StatUtils.mean(used);
        double sd = Math.sqrt(StatUtils.variance(used, mean)); // n − 1 denominator
        // A history without spread: any difference is infinitely many standard deviations away.
        double standardized = current == mean ? 0 : sd == 0 ? Math.copySign(Double.POSITIVE_INFINITY, current - mean) : (current - mean) / sd;
        double statistic = statistic(standardized, n);
        Decision d = Decision.of(measure.direction(), statistic,
                boundaries.hasUpper() ? critical(boundaries.upper(), n) : Double.NaN,
                boundaries.hasLower() ? -critical(boundaries.lower(), n) : Double.NaN, boundaries);
        double p = statistic >= 0 ? upperTail(statistic, n) : upperTail(-statistic, n);
        return new ThresholdResult(name(), measure, d.change, current, mean, "mean", n, 1, statisticName(), statistic,
                d.threshold, d.boundary, p, minimumHistory());
    }
}
