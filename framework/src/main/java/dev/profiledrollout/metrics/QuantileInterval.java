package dev.profiledrollout.metrics;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.time.Duration;
import java.util.Optional;
import org.apache.commons.math3.distribution.BinomialDistribution;
import org.apiguardian.api.API;

/**
 * A distribution-free confidence interval for a percentile, from the order statistics of the run's own samples.
 *
 * <p><b>Definition.</b> With n samples sorted as X<sub>(1)</sub> ≤ … ≤ X<sub>(n)</sub> and q = percentile / 100,
 * the number B of samples at or below the true q-quantile follows Bin(n, q) for any continuous distribution, and
 * P(X<sub>(l)</sub> ≤ ξ<sub>q</sub> &lt; X<sub>(u)</sub>) = P(l ≤ B &lt; u). The interval is
 * [X<sub>(l)</sub>, X<sub>(u)</sub>] with the equal-tailed ranks
 * <ul>
 *   <li>l = the largest rank with P(B ≤ l − 1) ≤ α/2,</li>
 *   <li>u = the smallest rank with P(B ≤ u − 1) ≥ 1 − α/2,</li>
 * </ul>
 * α = 1 − confidence, so its coverage is at least the confidence (Conover, "Practical Nonparametric Statistics",
 * 3rd ed., §3.2 "the quantile test" and its confidence interval; Hahn &amp; Meeker, "Statistical Intervals",
 * §5.2 distribution-free intervals for a percentile).
 *
 * <p><b>Unbounded ends.</b> With too few samples a rank does not exist: no l ≥ 1 when (1 − q)<sup>n</sup> &gt; α/2
 * (the interval is unbounded below) and no u ≤ n when q<sup>n</sup> &gt; α/2 (unbounded above; e.g. p99 from 50
 * samples, since 0.99<sup>50</sup> ≈ 0.61). Such an end is reported as absent, never invented. An empty
 * distribution is unbounded on both ends.
 *
 * @param percentile the percentile, 0 to 100
 * @param confidence the nominal coverage, in (0, 1), e.g. 0.95
 * @param count      the number of samples n
 * @param lowerRank  l, 1-based, or 0 when the interval is unbounded below
 * @param upperRank  u, 1-based, or 0 when the interval is unbounded above
 * @param lowNanos   X<sub>(l)</sub> in nanoseconds (exact sample value); meaningless when {@code lowerRank == 0}
 * @param highNanos  X<sub>(u)</sub> in nanoseconds (exact sample value); meaningless when {@code upperRank == 0}
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record QuantileInterval(double percentile, double confidence, long count, int lowerRank, int upperRank,
        long lowNanos, long highNanos) {

    /** The confidence used where none is given: 95 %. */
    public static final double DEFAULT_CONFIDENCE = 0.95;

    /**
     * @param sortedNanos the samples in nanoseconds, ascending (not copied, not modified)
     * @param percentile  0 to 100
     * @param confidence  in (0, 1)
     * @return the interval
     * @throws IllegalArgumentException when percentile is outside [0, 100] or confidence outside (0, 1)
     */
    static QuantileInterval of(long[] sortedNanos, double percentile, double confidence) {
        if (!(percentile >= 0 && percentile <= 100)) {
            throw new IllegalArgumentException("percentile must be in [0, 100], was " + percentile);
        }
        checkConfidence(confidence);
        int n = sortedNanos.length;
        if (n == 0) {
            return new QuantileInterval(percentile, confidence, 0, 0, 0, 0, 0);
        }
        int[] ranks = ranks(n, percentile, confidence);
        int lower = ranks[0];
        int upper = ranks[1];
        return new QuantileInterval(percentile, confidence, n, lower, upper,
                lower == 0 ? 0 : sortedNanos[lower - 1], upper == 0 ? 0 : sortedNanos[upper - 1]);
    }

    /** Ranks already computed, by (n, percentile, confidence): they depend on nothing else. Bounded. */
    private static final java.util.Map<String, int[]> RANKS = new java.util.concurrent.ConcurrentHashMap<>();
    private static final int MAX_CACHED_RANKS = 4096;

    /**
     * The interval's ranks l and u for {@code n} samples (see the class comment), 0 for an absent end. They depend
     * only on n, the percentile and the confidence, so they are computed once and kept; computing them ahead (a
     * capacity search does so for its next stage's size) keeps the binomial CDF off the path that judges a stage.
     *
     * @param n          the sample count, ≥ 1
     * @param percentile 0 to 100
     * @param confidence in (0, 1)
     * @return {@code {l, u}}
     * @throws IllegalArgumentException when n &lt; 1, or percentile or confidence is out of range
     */
    public static int[] ranks(int n, double percentile, double confidence) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be ≥ 1, was " + n);
        }
        if (!(percentile >= 0 && percentile <= 100)) {
            throw new IllegalArgumentException("percentile must be in [0, 100], was " + percentile);
        }
        checkConfidence(confidence);
        String key = n + "/" + percentile + "/" + confidence;
        int[] cached = RANKS.get(key);
        if (cached != null) {
            return cached.clone();
        }
        double q = percentile / 100.0;
        double halfAlpha = (1 - confidence) / 2;
        BinomialDistribution b = new BinomialDistribution(null, n, q);
        // l: largest in [1, n] with P(B ≤ l − 1) ≤ α/2; the CDF is non-decreasing, so both ranks are found by binary search
        int lower = 0;
        int lo = 1;
        int hi = n;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (b.cumulativeProbability(mid - 1) <= halfAlpha) {
                lower = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        // u: smallest in [1, n] with P(B ≤ u − 1) ≥ 1 − α/2
        int upper = 0;
        lo = 1;
        hi = n;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (b.cumulativeProbability(mid - 1) >= 1 - halfAlpha) {
                upper = mid;
                hi = mid - 1;
            } else {
                lo = mid + 1;
            }
        }
        if (RANKS.size() >= MAX_CACHED_RANKS) {
            RANKS.clear();
        }
        RANKS.put(key, new int[] {lower, upper});
        return new int[] {lower, upper};
    }

    /**
     * The fewest samples for which the interval of a percentile has an upper end: the smallest n with
     * q<sup>n</sup> ≤ α/2 (see "Unbounded ends" above), e.g. 368 for p99 and 36 for p90 at 95 %.
     *
     * @param percentile in (0, 100)
     * @param confidence in (0, 1)
     * @throws IllegalArgumentException outside those ranges
     */
    public static int samplesForUpperEnd(double percentile, double confidence) {
        if (!(percentile > 0 && percentile < 100)) {
            throw new IllegalArgumentException("percentile must be in (0, 100), was " + percentile);
        }
        checkConfidence(confidence);
        return (int) Math.ceil(Math.log((1 - confidence) / 2) / Math.log(percentile / 100.0) - 1e-9);
    }

    static void checkConfidence(double confidence) {
        if (!(confidence > 0 && confidence < 1)) {
            throw new IllegalArgumentException("confidence must be in (0, 1), e.g. 0.95, was " + confidence);
        }
    }

    /** @return the lower end, or empty when the interval is unbounded below (too few samples) */
    public Optional<Duration> low() {
        return lowerRank == 0 ? Optional.empty() : Optional.of(Duration.ofNanos(lowNanos));
    }

    /** @return the upper end, or empty when the interval is unbounded above (too few samples) */
    public Optional<Duration> high() {
        return upperRank == 0 ? Optional.empty() : Optional.of(Duration.ofNanos(highNanos));
    }

    /** @return whether both ends exist */
    public boolean bounded() {
        return lowerRank > 0 && upperRank > 0;
    }
}
