package dev.profiledrollout.history.stats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apiguardian.api.API;

/**
 * Change points of a whole series by E-Divisive with means (Matteson and James, "A Nonparametric Approach for Multiple
 * Change Point Analysis of Multivariate Data", JASA 109(505), 2014), the method Hunter and its successor Apache Otava
 * run over a benchmark's history (datastax-labs/hunter {@code hunter/analysis.py}: MongoDB's
 * {@code signal_processing_algorithms} E-Divisive with its Q-hat permutation test). Unlike the per-run threshold models,
 * which ask "is this run beyond the earlier ones?", it looks at every run at once and says where the series' level
 * changed, so a shift is found even when no single run stood out.
 *
 * <h2>Algorithm</h2>
 * For one-dimensional values and the paper's exponent {@code α = 1}: the divergence of two samples {@code X} (size m)
 * and {@code Y} (size n) is
 * <pre>
 *   Ê(X, Y) = 2/(mn)·Σ|Xᵢ − Yⱼ| − 1/C(m,2)·Σᵢ&lt;ₖ|Xᵢ − Xₖ| − 1/C(n,2)·Σⱼ&lt;ₖ|Yⱼ − Yₖ|,   Q̂ = mn/(m + n)·Ê(X, Y)
 * </pre>
 * Within a segment {@code [s, e)} the best split is the {@code τ} and {@code κ} ({@code s < τ < κ ≤ e}) that maximise
 * Q̂ of {@code X = x[s, τ)} against {@code Y = x[τ, κ)}, each at least {@code minSize} long. Bisection is hierarchical:
 * of all current segments, the one whose best split has the largest Q̂ is tested; the split is kept when a permutation
 * test finds it significant, and the search goes on in the two halves; otherwise it stops. The test permutes the
 * values within each current segment {@code permutations} times, finds the largest best-split Q̂ of each permuted
 * series the same way, and gives {@code p = (#{permuted ≥ observed} + 1) / (permutations + 1)}; the split is
 * significant when {@code p ≤ significance}. The permutations draw from a seeded generator, so a series gives the same
 * change points every time.
 *
 * <p>Defaults: {@code significance} 0.05 and 199 permutations as the paper's R package ({@code ecp::e.divisive},
 * {@code sig.lvl = 0.05, R = 199}); {@code minSize} 3 rather than its 30, because a performance history holds tens of
 * runs, not thousands of observations (a change needs 3 runs on each side to be told from one outlying run). Cost:
 * {@code O(n³)} per search, so a few milliseconds for a 40-run window times the permutations. Thread-safe: no state
 * beyond the settings.
 */
@API(status = API.Status.EXPERIMENTAL)
public final class EDivisive {

    /** Default significance level of the permutation test (the paper's R package). */
    public static final double DEFAULT_SIGNIFICANCE = 0.05;
    /** Default number of permutations (the paper's R package). */
    public static final int DEFAULT_PERMUTATIONS = 199;
    /** Default smallest segment, in values. */
    public static final int DEFAULT_MIN_SIZE = 3;

    /**
     * One change point.
     *
     * @param index  the index of the first value after the change (0 < index < length)
     * @param qHat   the Q̂ statistic of the split that found it
     * @param pValue the permutation test's p-value
     * @param before the mean of the segment just before it
     * @param after  the mean of the segment just after it
     */
    @API(status = API.Status.EXPERIMENTAL)
    public record ChangePoint(int index, double qHat, double pValue, double before, double after) {

        /** {@code after / before − 1}; infinite when {@code before} is 0. */
        public double relativeChange() {
            return before == 0 ? Math.copySign(Double.POSITIVE_INFINITY, after) : after / before - 1;
        }
    }

    private final double significance;
    private final int permutations;
    private final int minSize;
    private final long seed;

    /** The defaults, seed 0. */
    public EDivisive() {
        this(DEFAULT_SIGNIFICANCE, DEFAULT_PERMUTATIONS, DEFAULT_MIN_SIZE, 0);
    }

    /**
     * @param significance largest p-value accepted, in (0, 1)
     * @param permutations permutations per test, at least 1
     * @param minSize      smallest segment, at least 2
     * @param seed         seed of the permutations
     * @throws IllegalArgumentException naming the setting out of range
     */
    public EDivisive(double significance, int permutations, int minSize, long seed) {
        if (!(significance > 0 && significance < 1)) {
            throw new IllegalArgumentException("E-Divisive significance must be in (0, 1), was " + significance);
        }
        if (permutations < 1) {
            throw new IllegalArgumentException("E-Divisive needs at least 1 permutation, was " + permutations);
        }
        if (minSize < 2) {
            throw new IllegalArgumentException("E-Divisive minSize must be at least 2, was " + minSize);
        }
        this.significance = significance;
        this.permutations = permutations;
        this.minSize = minSize;
        this.seed = seed;
    }

    /**
     * The change points of a series, by index, ascending.
     *
     * @param values the series, oldest first; finite
     * @return empty when the series is shorter than {@code 2·minSize} or nothing is significant
     * @throws IllegalArgumentException for a value that is not finite
     */
    public List<ChangePoint> changePoints(double[] values) {
        for (double v : values) {
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException("E-Divisive needs finite values, got " + v);
            }
        }
        SplittableRandom random = new SplittableRandom(seed);
        List<Integer> cuts = new ArrayList<>(List.of(0, values.length));
        List<double[]> found = new ArrayList<>(); // {index, qHat, p}
        while (true) {
            Split best = bestOverSegments(values, cuts);
            if (best == null) {
                break;
            }
            int exceed = 0;
            double[] shuffled = values.clone();
            for (int r = 0; r < permutations; r++) {
                for (int c = 0; c + 1 < cuts.size(); c++) {
                    shuffle(shuffled, cuts.get(c), cuts.get(c + 1), random);
                }
                Split permuted = bestOverSegments(shuffled, cuts);
                if (permuted != null && permuted.qHat >= best.qHat) {
                    exceed++;
                }
            }
            double p = (exceed + 1.0) / (permutations + 1.0);
            if (p > significance) {
                break;
            }
            found.add(new double[] {best.tau, best.qHat, p});
            cuts.add(best.tau);
            cuts.sort(null);
        }
        List<ChangePoint> points = new ArrayList<>();
        for (double[] f : found) {
            int index = (int) f[0];
            int at = cuts.indexOf(index);
            points.add(new ChangePoint(index, f[1], f[2], mean(values, cuts.get(at - 1), index),
                    mean(values, index, cuts.get(at + 1))));
        }
        points.sort((a, b) -> Integer.compare(a.index(), b.index()));
        return points;
    }

    private record Split(int tau, double qHat) {
    }

    private Split bestOverSegments(double[] x, List<Integer> cuts) {
        Split best = null;
        for (int c = 0; c + 1 < cuts.size(); c++) {
            Split s = bestSplit(x, cuts.get(c), cuts.get(c + 1));
            if (s != null && (best == null || s.qHat > best.qHat)) {
                best = s;
            }
        }
        return best;
    }

    /** The τ (and implicitly κ) maximising Q̂ within {@code [start, end)}, or null when the segment is too short. */
    Split bestSplit(double[] x, int start, int end) {
        if (end - start < 2 * minSize) {
            return null;
        }
        Split best = null;
        double withinX = 0; // Σ|xᵢ − xₖ| over i < k < tau, grown with tau
        for (int i = start; i < start + minSize; i++) {
            for (int k = i + 1; k < start + minSize; k++) {
                withinX += Math.abs(x[i] - x[k]);
            }
        }
        for (int tau = start + minSize; tau <= end - minSize; tau++) {
            if (tau > start + minSize) {
                for (int i = start; i < tau - 1; i++) {
                    withinX += Math.abs(x[i] - x[tau - 1]);
                }
            }
            int m = tau - start;
            double between = 0;
            double withinY = 0;
            // grow Y = x[tau, kappa) one value at a time
            for (int kappa = tau + 1; kappa <= end; kappa++) {
                double y = x[kappa - 1];
                for (int i = start; i < tau; i++) {
                    between += Math.abs(x[i] - y);
                }
                for (int j = tau; j < kappa - 1; j++) {
                    withinY += Math.abs(x[j] - y);
                }
                int n = kappa - tau;
                if (n < minSize) {
                    continue;
                }
                double e = 2.0 * between / ((double) m * n) - withinX / (m * (m - 1) / 2.0)
                        - withinY / (n * (n - 1) / 2.0);
                double q = (double) m * n / (m + n) * e;
                if (best == null || q > best.qHat) {
                    best = new Split(tau, q);
                }
            }
        }
        return best;
    }

    private static void shuffle(double[] x, int from, int to, SplittableRandom random) {
        for (int i = to - 1; i > from; i--) {
            int j = from + random.nextInt(i - from + 1);
            double t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }

    private static double mean(double[] x, int from, int to) {
        return Arrays.stream(x, from, to).average().orElse(Double.NaN);
    }
}
