package dev.profiledrollout.metrics;

import static org.apiguardian.api.API.Status.INTERNAL;

import org.HdrHistogram.AbstractHistogram;
import org.apiguardian.api.API;

/**
 * A percentile of an HdrHistogram that never lies outside the exactly recorded range.
 *
 * <p>HdrHistogram reports a percentile as a bucket bound, not as a recorded value: {@code getValueAtPercentile}
 * returns the <em>highest</em> value equivalent to the bucket that holds the percentile (the lowest for p = 0), and
 * {@code getMaxValue} likewise rounds the maximum up to its bucket's highest equivalent value
 * (HdrHistogram/HdrHistogram, {@code src/main/java/org/HdrHistogram/AbstractHistogram.java},
 * {@code getValueAtPercentile}, {@code highestEquivalentValue}, {@code getMaxValue}). With 3 significant digits the
 * values from 134 ms to 268 ms (nanosecond units) share buckets 131 µs (2<sup>17</sup> ns) wide, so a recorded
 * 212.798 ms comes back as 212.861 ms: a p99 above the exact maximum is HdrHistogram's rounding, not a measurement.
 * At p = 0 the lowest equivalent value can likewise fall below the exact minimum. The rule here:
 * the reported percentile is HdrHistogram's value clamped to [exact minimum, exact maximum] of the samples, so
 * min ≤ pNN ≤ max always holds; inside that range HdrHistogram's value (and precision) is unchanged.
 */
@API(status = INTERNAL, since = "0.1")
public final class HistogramPercentile {

    private HistogramPercentile() {
    }

    /**
     * @param histogram the histogram, not null; its unit is the unit of the answer
     * @param p         the percentile, 0 to 100
     * @param min       the exact smallest recorded value
     * @param max       the exact largest recorded value, ≥ {@code min}
     * @return HdrHistogram's {@code getValueAtPercentile(p)} clamped to [{@code min}, {@code max}]; 0 for an empty
     *         histogram
     */
    public static long valueAt(AbstractHistogram histogram, double p, long min, long max) {
        if (histogram.getTotalCount() == 0) {
            return 0;
        }
        return Math.max(min, Math.min(max, histogram.getValueAtPercentile(p)));
    }
}
