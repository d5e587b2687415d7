package dev.profiledrollout.history.stats;

import java.util.Objects;
import org.apache.commons.math3.distribution.TDistribution;
import org.apache.commons.math3.stat.StatUtils;
import org.apiguardian.api.API;

/**
 * Welch's two-sample t test of the current run's raw samples against the previous run's: do their means differ,
 * without assuming equal variances? With means {@code m₁, m₂}, sample variances {@code v₁, v₂} (denominator
 * {@code n − 1}) and sizes {@code n₁, n₂}: {@code t = (m₁ − m₂)/√(v₁/n₁ + v₂/n₂)} with the Welch–Satterthwaite
 * degrees of freedom {@code (v₁/n₁ + v₂/n₂)² / ((v₁/n₁)²/(n₁−1) + (v₂/n₂)²/(n₂−1))}; the same numbers as
 * {@code scipy.stats.ttest_ind(current, previous, equal_var=False)} (scipy/scipy {@code scipy/stats/_stats_py.py}).
 * Boundaries are cumulative probabilities in {@code [0.5, 1)} as for {@link MannWhitney}. Needs at least
 * {@value #MINIMUM_SAMPLES} samples in each run. Latency samples are skewed; {@link MannWhitney} does not assume
 * normality and is the safer choice for per-request samples, Welch's t compares means.
 */
@API(status = API.Status.EXPERIMENTAL)
public final class Welch {

    /** Name in results. */
    public static final String NAME = "Welch's t";
    /** The fewest samples per run the test uses. */
    public static final int MINIMUM_SAMPLES = 2;

    private final Boundaries boundaries;

    /**
     * @param boundaries cumulative probabilities in {@code [0.5, 1)}
     * @throws IllegalArgumentException if a boundary is outside {@code [0.5, 1)}
     */
    public Welch(Boundaries boundaries) {
        this.boundaries = Objects.requireNonNull(boundaries, "boundaries");
        boundaries.requireProbabilities(NAME);
    }

    /**
     * @param measure what is compared and which way is better
     * @param current this run's samples, in the measure's unit
     * @param previous the previous run's samples
     * @return the verdict, with the two means as current value and baseline; {@link Change#INSUFFICIENT_HISTORY}
     *     when either run has fewer than {@value #MINIMUM_SAMPLES} samples
     * @throws IllegalArgumentException if a sample is NaN or infinite
     */
    public ThresholdResult evaluate(Measure measure, double[] current, double[] previous) {
        Decision.requireFinite("current samples", current);
        Decision.requireFinite("previous samples", previous);
        int n1 = current.length;
        int n2 = previous.length;
        double m1 = n1 == 0 ? Double.NaN : StatUtils.mean(current);
        double m2 = n2 == 0 ? Double.NaN : StatUtils.mean(previous);
        if (n1 < MINIMUM_SAMPLES || n2 < MINIMUM_SAMPLES) {
            return new ThresholdResult(NAME, measure, Change.INSUFFICIENT_HISTORY, m1, m2, "mean", n2, n1, "t",
                    Double.NaN, Double.NaN, Double.NaN, Double.NaN, MINIMUM_SAMPLES);
        }
        double a = StatUtils.variance(current, m1) / n1;
        double b = StatUtils.variance(previous, m2) / n2;
        double se = Math.sqrt(a + b);
        double t = m1 == m2 ? 0 : se == 0 ? Math.copySign(Double.POSITIVE_INFINITY, m1 - m2) : (m1 - m2) / se;
        // Without spread the degrees of freedom are undefined; the statistic is then 0 or infinite and any finite
        // critical value decides the same way.
        double df = se == 0 ? n1 + n2 - 2 : (a + b) * (a + b) / (a * a / (n1 - 1) + b * b / (n2 - 1));
        TDistribution distribution = new TDistribution(null, df);
        Decision d = Decision.of(measure.direction(), t,
                boundaries.hasUpper() ? distribution.inverseCumulativeProbability(boundaries.upper()) : Double.NaN,
                boundaries.hasLower() ? -distribution.inverseCumulativeProbability(boundaries.lower()) : Double.NaN,
                boundaries);
        double p = distribution.cumulativeProbability(-Math.abs(t));
        return new ThresholdResult(NAME, measure, d.change, m1, m2, "mean", n2, n1, "t", t, d.threshold, d.boundary, p,
                MINIMUM_SAMPLES);
    }
}
