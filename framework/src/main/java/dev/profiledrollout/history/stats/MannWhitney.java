package dev.profiledrollout.history.stats;

import java.util.Arrays;
import java.util.Objects;
import org.apache.commons.math3.distribution.NormalDistribution;
import org.apache.commons.math3.stat.descriptive.rank.Median;
import org.apache.commons.math3.stat.ranking.NaNStrategy;
import org.apache.commons.math3.stat.ranking.NaturalRanking;
import org.apache.commons.math3.stat.ranking.TiesStrategy;
import org.apiguardian.api.API;

/**
 * Mann–Whitney U test of the current run's raw samples (e.g. every request's TTFT) against the previous run's:
 * does one run's distribution lie stochastically above the other's? Ranks the pooled samples (ties get their average
 * rank), takes {@code U = R − n₁(n₁+1)/2} for the current samples' rank sum {@code R}, and uses the normal
 * approximation with tie correction, {@code σ² = n₁n₂/12 · ((N+1) − Σ(t³−t)/(N(N−1)))}, and a continuity correction of
 * ½ towards the mean {@code n₁n₂/2}: {@code z = sign(U − μ)·max(0, |U − μ| − ½)/σ}. These are the definitions of
 * {@code scipy.stats.mannwhitneyu(..., method="asymptotic")} (scipy/scipy {@code scipy/stats/_mannwhitneyu.py}) and
 * of the source scipy follows (Wikipedia, "Mann–Whitney U test", section "Normal approximation and tie correction").
 *
 * <p>Boundaries are cumulative probabilities in {@code [0.5, 1)}: an upper boundary {@code b} flags
 * {@code z > Φ⁻¹(b)} (a one-sided test at level {@code 1 − b} that the current samples are larger), a lower one
 * flags {@code z < −Φ⁻¹(b)}; both together make a two-sided test. Needs at least {@value #MINIMUM_SAMPLES} samples
 * in each run, below which the normal approximation is poor.
 */
@API(status = API.Status.EXPERIMENTAL)
public final class MannWhitney {

    /** Name in results. */
    public static final String NAME = "Mann-Whitney U";
    /** The fewest samples per run the test uses. */
    public static final int MINIMUM_SAMPLES = 8;
    private static final NormalDistribution STANDARD_NORMAL = new NormalDistribution(null, 0, 1);

    private final Boundaries boundaries;

    /**
     * @param boundaries cumulative probabilities in {@code [0.5, 1)}
     * @throws IllegalArgumentException if a boundary is outside {@code [0.5, 1)}
     */
    public MannWhitney(Boundaries boundaries) {
        this.boundaries = Objects.requireNonNull(boundaries, "boundaries");
        boundaries.requireProbabilities(NAME);
    }

    /**
     * @param measure what is compared and which way is better
     * @param current this run's samples, in the measure's unit
     * @param previous the previous run's samples
     * @return the verdict; {@link Change#INSUFFICIENT_HISTORY} when either run has fewer than {@value #MINIMUM_SAMPLES}
     *     samples
     * @throws IllegalArgumentException if a sample is NaN or infinite
     */
    public ThresholdResult evaluate(Measure measure, double[] current, double[] previous) {
        Decision.requireFinite("current samples", current);
        Decision.requireFinite("previous samples", previous);
        int n1 = current.length;
        int n2 = previous.length;
        double currentMedian = n1 == 0 ? Double.NaN : new Median().evaluate(current);
        double previousMedian = n2 == 0 ? Double.NaN : new Median().evaluate(previous);
        if (n1 < MINIMUM_SAMPLES || n2 < MINIMUM_SAMPLES) {
            return new ThresholdResult(NAME, measure, Change.INSUFFICIENT_HISTORY, currentMedian, previousMedian, "median",
                    n2, n1, "z", Double.NaN, Double.NaN, Double.NaN, Double.NaN, MINIMUM_SAMPLES);
        }
        double z = z(current, previous);
        Decision d = Decision.of(measure.direction(), z,
                boundaries.hasUpper() ? STANDARD_NORMAL.inverseCumulativeProbability(boundaries.upper()) : Double.NaN,
                boundaries.hasLower() ? -STANDARD_NORMAL.inverseCumulativeProbability(boundaries.lower()) : Double.NaN,
                boundaries);
        double p = STANDARD_NORMAL.cumulativeProbability(-Math.abs(z));
        return new ThresholdResult(NAME, measure, d.change, currentMedian, previousMedian, "median", n2, n1, "z", z,
                d.threshold, d.boundary, p, MINIMUM_SAMPLES);
    }

    /** The U statistic of {@code current}: how many (current, previous) pairs have the current sample larger, ties ½. */
    static double u(double[] current, double[] previous) {
        double[] ranks = ranks(current, previous);
        double rankSum = 0;
        for (int i = 0; i < current.length; i++) {
            rankSum += ranks[i];
        }
        return rankSum - current.length * (current.length + 1) / 2.0;
    }

    /** The tie- and continuity-corrected normal deviate of {@link #u}. */
    static double z(double[] current, double[] previous) {
        int n1 = current.length;
        int n2 = previous.length;
        double n = n1 + n2;
        double[] pooled = pooled(current, previous);
        Arrays.sort(pooled);
        double tieTerm = 0;
        for (int i = 0; i < pooled.length; ) {
            int j = i;
            while (j < pooled.length && pooled[j] == pooled[i]) {
                j++;
            }
            double t = j - i;
            tieTerm += t * t * t - t;
            i = j;
        }
        double variance = n1 * (double) n2 / 12.0 * ((n + 1) - tieTerm / (n * (n - 1)));
        if (variance <= 0) {
            return 0; // every sample equal: no evidence either way
        }
        double distance = u(current, previous) - n1 * (double) n2 / 2.0;
        return Math.signum(distance) * Math.max(0, Math.abs(distance) - 0.5) / Math.sqrt(variance);
    }

    private static double[] ranks(double[] current, double[] previous) {
        return new NaturalRanking(NaNStrategy.FAILED, TiesStrategy.AVERAGE).rank(pooled(current, previous));
    }

    private static double[] pooled(double[] current, double[] previous) {
        double[] pooled = Arrays.copyOf(current, current.length + previous.length);
        System.arraycopy(previous, 0, pooled, current.length, previous.length);
        return pooled;
    }
}
