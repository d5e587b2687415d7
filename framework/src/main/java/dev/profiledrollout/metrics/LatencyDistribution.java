package dev.profiledrollout.metrics;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One latency metric over a run: an HdrHistogram of nanosecond values (3 significant digits, auto-resizing)
 * plus the raw samples, and the definition of the metric. Immutable.
 *
 * <p><b>Percentile method.</b> {@link #percentile(double)} is HdrHistogram's {@code getValueAtPercentile}: a
 * recorded value, reported at 3-significant-digit precision (the highest value equivalent to it), not numpy's
 * linearly interpolated {@code np.percentile} that {@code vllm bench serve} prints. For small samples the two
 * differ; {@link #interpolatedPercentile(double)} computes the numpy value from the raw samples.
 *
 * <p><b>Percentiles never leave [min, max].</b> HdrHistogram's highest-equivalent-value rounding can put a
 * percentile above the exact maximum of the samples (a p99 of 212.861 ms beside a max of 212.798 ms); every
 * percentile here is clamped to [{@link #min()}, {@link #max()}] ({@link HistogramPercentile}), so
 * {@code min() ≤ percentile(p) ≤ max()} for every p.
 *
 * <p>An empty distribution answers {@link Duration#ZERO} everywhere, as vLLM reports 0 for an empty list.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class LatencyDistribution {

    private final String definition;
    private final Histogram histogram;
    private final long[] sortedNanos;

    private LatencyDistribution(String definition, long[] valuesNanos) {
        this.definition = Objects.requireNonNull(definition, "definition");
        this.sortedNanos = valuesNanos.clone();
        Arrays.sort(sortedNanos);
        this.histogram = new Histogram(3);
        for (long v : sortedNanos) {
            histogram.recordValue(Math.max(0, v));
        }
    }

    /**
     * @param definition  what the values mean and whose definition it is, e.g. "TTFT per vLLM bench serve: …"
     * @param valuesNanos the samples in nanoseconds; negative values are recorded as 0 in the histogram
     * @return the distribution
     */
    public static LatencyDistribution of(String definition, long[] valuesNanos) {
        return new LatencyDistribution(definition, valuesNanos);
    }

    /** @return the number of samples */
    public long count() {
        return sortedNanos.length;
    }

    /**
     * @param p the percentile, 0 to 100 (e.g. 99 or 99.9)
     * @return the recorded value at that percentile, at 3-significant-digit precision and clamped to
     *         [{@link #min()}, {@link #max()}] (negative samples count as 0 in the histogram); {@link Duration#ZERO}
     *         if empty
     * @throws IllegalArgumentException when p is outside [0, 100]
     */
    public Duration percentile(double p) {
        checkPercentile(p);
        return count() == 0 ? Duration.ZERO : Duration.ofNanos(HistogramPercentile.valueAt(histogram, p,
                sortedNanos[0], sortedNanos[sortedNanos.length - 1]));
    }

    /**
     * The 95 % distribution-free confidence interval of a percentile from the exact samples (see
     * {@link QuantileInterval} for the definition and its source).
     *
     * @param p the percentile, 0 to 100
     * @return the interval, with absent ends where there are too few samples for them to exist
     * @throws IllegalArgumentException when p is outside [0, 100]
     */
    public QuantileInterval percentileInterval(double p) {
        return percentileInterval(p, QuantileInterval.DEFAULT_CONFIDENCE);
    }

    /**
     * @param p          the percentile, 0 to 100
     * @param confidence the coverage, in (0, 1), e.g. 0.95
     * @return the distribution-free confidence interval of the percentile ({@link QuantileInterval})
     * @throws IllegalArgumentException when p is outside [0, 100] or confidence outside (0, 1)
     */
    public QuantileInterval percentileInterval(double p, double confidence) {
        checkPercentile(p);
        return QuantileInterval.of(sortedNanos, p, confidence);
    }

    /**
     * numpy's default ({@code method="linear"}) percentile over the raw samples, as {@code vllm bench serve}
     * reports it.
     *
     * @param p the percentile, 0 to 100
     * @return the interpolated value rounded to the nanosecond; {@link Duration#ZERO} if empty
     */
    public Duration interpolatedPercentile(double p) {
        checkPercentile(p);
        int n = sortedNanos.length;
        if (n == 0) {
            return Duration.ZERO;
        }
        double rank = p / 100.0 * (n - 1);
        int lo = (int) Math.floor(rank);
        int hi = Math.min(lo + 1, n - 1);
        double value = sortedNanos[lo] + (rank - lo) * (sortedNanos[hi] - sortedNanos[lo]);
        return Duration.ofNanos(Math.round(value));
    }

    /** @return the smallest sample (exact), or {@link Duration#ZERO} if empty */
    public Duration min() {
        return count() == 0 ? Duration.ZERO : Duration.ofNanos(sortedNanos[0]);
    }

    /** @return the largest sample (exact), or {@link Duration#ZERO} if empty */
    public Duration max() {
        return count() == 0 ? Duration.ZERO : Duration.ofNanos(sortedNanos[sortedNanos.length - 1]);
    }

    /** @return the arithmetic mean of the raw samples rounded to the nanosecond, or {@link Duration#ZERO} if empty */
    public Duration mean() {
        if (count() == 0) {
            return Duration.ZERO;
        }
        double sum = 0;
        for (long v : sortedNanos) {
            sum += v;
        }
        return Duration.ofNanos(Math.round(sum / sortedNanos.length));
    }

    /** @return the raw samples in nanoseconds, ascending (a copy) */
    public long[] valuesNanos() {
        return sortedNanos.clone();
    }

    /** @return a copy of the histogram (values in nanoseconds) */
    public Histogram histogram() {
        return histogram.copy();
    }

    /** @return the metric's definition and its source, e.g. "TPOT per vLLM bench serve: …" */
    public String definition() {
        return definition;
    }

    private static void checkPercentile(double p) {
        if (!(p >= 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile must be in [0, 100], was " + p);
        }
    }

    @Override
    public String toString() {
        return "LatencyDistribution[count=" + count() + ", p50=" + percentile(50) + ", p99=" + percentile(99)
                + ", max=" + max() + "; " + definition + "]";
    }
}
