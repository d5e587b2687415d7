package dev.profiledrollout.history.stats;

import java.util.Arrays;
import org.apache.commons.math3.stat.descriptive.rank.Median;
import org.apiguardian.api.API;

/**
 * The Hampel identifier: the values of a window that lie farther than {@code k · 1.4826 · MAD} from its median are
 * outliers, MAD being the median of the absolute deviations from the median. {@code 1.4826 · MAD} estimates the
 * standard deviation of normal data (1.4826 = 1 / Φ⁻¹(0.75)), yet one wild value moves neither the median nor the MAD
 * by more than one rank. Sources: F. R. Hampel, "The influence curve and its role in robust estimation", Journal of
 * the American Statistical Association 69 (1974) 383–393 (the median and MAD as the most robust estimates of location
 * and scale); B. Iglewicz and D. C. Hoaglin, <i>How to Detect and Handle Outliers</i>, ASQC Quality Press (1993),
 * the modified z-score {@code M = 0.6745 · (x − median) / MAD}, an outlier when {@code |M| > 3.5}, which is this rule
 * with {@code k = 3.5} ({@link #IGLEWICZ_HOAGLIN_K}).
 *
 * <p>Used by {@link StudentT} and {@link ZScore} to take the mean and spread of a history window without the run that
 * went wrong on its own (a prefill fit 15 % low on a run whose steps spanned few token counts), which would otherwise
 * widen the limit for every later run.
 */
@API(status = API.Status.EXPERIMENTAL)
public final class HampelFilter {

    /** Iglewicz and Hoaglin's cut-off, 3.5 robust standard deviations: {@value}. */
    public static final double IGLEWICZ_HOAGLIN_K = 3.5;

    /**
     * The fewest values the filter judges: {@value}; a shorter window is kept whole. The MAD of a few values is itself
     * unstable (C. Croux and P. J. Rousseeuw, "Time-efficient algorithms for two highly robust estimators of scale",
     * Computational Statistics, vol. 1 (COMPSTAT 1992), Physica-Verlag, 411–428, tabulate small-sample correction factors for it up to 9 values), and
     * on normal noise the filter with k = 5 raised Student's t's false alarms at 0.999 from 0.1 % to 0.37–0.76 % over
     * 3 to 7 runs, against 0.175 % over 10 and 0.121 % over 20 ({@code bench/history/hampel-noise.sh},
     * bench/README.md).
     */
    public static final int MINIMUM_VALUES = 10;

    /** 1 / Φ⁻¹(0.75): scales the MAD of normal data to its standard deviation. */
    public static final double MAD_TO_SD = 1.4826;

    private HampelFilter() {
    }

    /**
     * The values within {@code k · 1.4826 · MAD} of the median, in their order. A window of fewer than
     * {@link #MINIMUM_VALUES} values, or whose MAD is 0 (at least half of it one value, as an engine without noise
     * gives: no spread to scale by), is kept whole, and the caller's test sees it as it is.
     *
     * @param values the window, finite values, not null (may be empty)
     * @param k      the cut-off in robust standard deviations, above 0; {@link Double#POSITIVE_INFINITY} keeps all
     * @return a new array with the values kept; the same values when none lies beyond the cut-off
     * @throws IllegalArgumentException when {@code k} is not above 0 (or NaN), or a value is NaN or infinite
     */
    public static double[] inliers(double[] values, double k) {
        if (!(k > 0)) {
            throw new IllegalArgumentException("the Hampel cut-off k is " + k + ": use a number of robust standard "
                    + "deviations above 0, e.g. " + IGLEWICZ_HOAGLIN_K + " (Iglewicz and Hoaglin), or Infinity to keep "
                    + "every value");
        }
        Decision.requireFinite("history", values);
        if (values.length < MINIMUM_VALUES || Double.isInfinite(k)) {
            return values.clone();
        }
        Median median = new Median();
        double centre = median.evaluate(values);
        double[] deviations = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            deviations[i] = Math.abs(values[i] - centre);
        }
        double mad = median.evaluate(deviations);
        if (mad == 0) {
            return values.clone();
        }
        double limit = k * MAD_TO_SD * mad;
        return Arrays.stream(values).filter(v -> Math.abs(v - centre) <= limit).toArray();
    }
}
