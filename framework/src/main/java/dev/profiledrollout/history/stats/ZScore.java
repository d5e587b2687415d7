package dev.profiledrollout.history.stats;

import org.apache.commons.math3.distribution.NormalDistribution;
import org.apiguardian.api.API;

/**
 * Z-score of the current value over the last {@code window} runs: {@code z = (current − mean) / sd} with the sample
 * standard deviation ({@code n − 1} denominator), flagged when {@code z} lies beyond the standard normal quantile of a
 * boundary (e.g. 0.99 → 2.326). This is Bencher's "z-score" test, whose boundaries are cumulative probabilities in
 * {@code [0.5, 1)} (https://bencher.dev/docs/explanation/thresholds/). Needs at least 2 runs of history.
 *
 * <p>Treating the history's mean and sd as the true ones makes the false-alarm rate on normal noise higher than
 * nominal for short histories (about 1.7 % instead of 1 % at 0.99 over 20 runs, 1.1 % over 100): use
 * {@link StudentT} when the history is short.
 */
@API(status = API.Status.EXPERIMENTAL)
public final class ZScore extends SpreadModel {

    /** Name in results. */
    public static final String NAME = "z-score";
    private static final NormalDistribution STANDARD_NORMAL = new NormalDistribution(null, 0, 1);

    /**
     * @param window how many latest runs to use, at least 1 (2 or more to ever test)
     * @param boundaries cumulative probabilities in {@code [0.5, 1)}
     * @throws IllegalArgumentException if {@code window < 1} or a boundary is outside {@code [0.5, 1)}
     */
    public ZScore(int window, Boundaries boundaries) {
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
    public ZScore(int window, Boundaries boundaries, double outlierK) {
        super(window, boundaries, NAME, outlierK);
    }

    @Override
    String name() {
        return NAME;
    }

    @Override
    String statisticName() {
        return "z";
    }

    @Override
    double statistic(double standardized, int n) {
        return standardized;
    }

    @Override
    double critical(double p, int n) {
        return STANDARD_NORMAL.inverseCumulativeProbability(p);
    }

    @Override
    double upperTail(double statistic, int n) {
        return STANDARD_NORMAL.cumulativeProbability(-statistic);
    }
}
