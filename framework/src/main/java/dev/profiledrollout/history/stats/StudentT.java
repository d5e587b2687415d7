package dev.profiledrollout.history.stats;

import org.apache.commons.math3.distribution.TDistribution;
import org.apiguardian.api.API;

/**
 * Student's t test of one new value against the last {@code window} runs: with mean {@code m} and sample standard
 * deviation {@code s} of {@code n} runs, {@code t = (current − m) / (s·√(1 + 1/n))} follows Student's t with
 * {@code n − 1} degrees of freedom when runs are independent draws from one normal distribution (the prediction
 * interval for a new observation from a normal sample with unknown mean and variance; Wikipedia, "Prediction
 * interval", section "Normal distribution"). Flagged when
 * {@code t} lies beyond the t quantile of a boundary. Bencher offers a "t-test" model with cumulative-probability
 * boundaries in {@code [0.5, 1)} (https://bencher.dev/docs/explanation/thresholds/); the {@code √(1 + 1/n)} factor
 * here makes the false-alarm rate on normal noise equal the nominal one at every history length. Needs at least 2
 * runs of history.
 */
@API(status = API.Status.EXPERIMENTAL)
public final class StudentT extends SpreadModel {

    /** Name in results. */
    public static final String NAME = "t-test";

    /**
     * @param window how many latest runs to use, at least 1 (2 or more to ever test)
     * @param boundaries cumulative probabilities in {@code [0.5, 1)}
     * @throws IllegalArgumentException if {@code window < 1} or a boundary is outside {@code [0.5, 1)}
     */
    public StudentT(int window, Boundaries boundaries) {
        this(window, boundaries, Double.POSITIVE_INFINITY);
    }

    /**
     * The model over the window's values that the Hampel identifier keeps ({@link HampelFilter#inliers}).
     *
     * @param window     how many latest runs to use, at least 1 (2 or more to ever test)
     * @param boundaries cumulative probabilities in {@code [0.5, 1)}
     * @param outlierK   the Hampel cut-off in robust standard deviations, above 0
     *                   ({@link HampelFilter#IGLEWICZ_HOAGLIN_K}); {@link Double#POSITIVE_INFINITY}: every run is used
     * @throws IllegalArgumentException if {@code window < 1}, a boundary is outside {@code [0.5, 1)} or the cut-off is
     *                                  not above 0
     */
    public StudentT(int window, Boundaries boundaries, double outlierK) {
        super(window, boundaries, NAME, outlierK);
    }

    @Override
    String name() {
        return NAME;
    }

    @Override
    String statisticName() {
        return "t";
    }

    @Override
    double statistic(double standardized, int n) {
        return standardized / Math.sqrt(1 + 1.0 / n);
    }

    @Override
    double critical(double p, int n) {
        return new TDistribution(null, n - 1).inverseCumulativeProbability(p);
    }

    @Override
    double upperTail(double statistic, int n) {
        return new TDistribution(null, n - 1).cumulativeProbability(-statistic);
    }
}
