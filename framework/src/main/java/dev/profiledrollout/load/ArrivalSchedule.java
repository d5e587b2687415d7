package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.apiguardian.api.API;

/**
 * Precomputed intended send times of an open-loop run, as nanosecond offsets from t0, computed as
 * {@code vllm bench serve}'s {@code get_request} does ({@code docs/METRICS.md} §4). Immutable.
 *
 * <p>Without a ramp: {@code gap_k ~ Gamma(shape = b, scale = 1/(rate·b))}, {@code delay_i = Σ_{k≤i} gap_k}, then
 * every delay is multiplied by {@code (N/rate)/delay_{N−1}} so that the last request lands exactly at
 * {@code N/rate} and the first at its rescaled first gap (not at 0). {@code b = +∞} gives {@code gap = 1/rate}.
 * With a ramp, {@code rate_i} is {@link ArrivalProcess#rateAt} and the delays are not rescaled.
 * A closed-loop process gives all zeros.
 *
 * <p>The gamma variates use Marsaglia and Tsang's method on a {@link SplittableRandom} seeded with the given
 * seed, so a schedule is reproducible in this implementation, though not bit-identical with numpy's.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class ArrivalSchedule {

    private final long[] offsetsNanos;

    private ArrivalSchedule(long[] offsetsNanos) {
        this.offsetsNanos = offsetsNanos;
    }

    static ArrivalSchedule of(ArrivalProcess process, int n, long seed) {
        if (n < 1) {
            throw new IllegalArgumentException("a schedule needs ≥ 1 request, was " + n);
        }
        long[] offsets = new long[n];
        if (process.isClosedLoop()) {
            return new ArrivalSchedule(offsets);
        }
        SplittableRandom random = new SplittableRandom(seed);
        double b = process.burstiness();
        double[] delays = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            double rate = process.rateAt(i, n);
            double gap = b == Double.POSITIVE_INFINITY ? 1.0 / rate : gamma(random, b) / (rate * b);
            sum += gap;
            delays[i] = sum;
        }
        double scale = process.isRamp() ? 1.0 : (n / process.requestRate()) / delays[n - 1];
        for (int i = 0; i < n; i++) {
            offsets[i] = Math.round(delays[i] * scale * 1e9);
        }
        if (!process.isRamp()) {
            offsets[n - 1] = Math.round(n / process.requestRate() * 1e9);
        }
        return new ArrivalSchedule(offsets);
    }

    /** A Gamma(shape, 1) variate (Marsaglia and Tsang 2000; shape &lt; 1 via the U^(1/shape) boost). */
    static double gamma(SplittableRandom random, double shape) {
        if (shape < 1) {
            double u = random.nextDouble();
            return gamma(random, shape + 1) * Math.pow(u == 0 ? Double.MIN_VALUE : u, 1.0 / shape);
        }
        double d = shape - 1.0 / 3.0;
        double c = 1.0 / Math.sqrt(9 * d);
        while (true) {
            double x = random.nextGaussian();
            double v = 1 + c * x;
            if (v <= 0) {
                continue;
            }
            v = v * v * v;
            double u = random.nextDouble();
            if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) {
                return d * v;
            }
        }
    }

    /** @return N, the number of requests */
    public int size() {
        return offsetsNanos.length;
    }

    /** @return request i's intended send time, in nanoseconds after t0 */
    public long offsetNanos(int i) {
        return offsetsNanos[i];
    }

    /** @return every offset in nanoseconds, non-decreasing (a copy) */
    public long[] offsetsNanos() {
        return offsetsNanos.clone();
    }

    @Override
    public String toString() {
        return "ArrivalSchedule[n=" + offsetsNanos.length + ", lastNs=" + offsetsNanos[offsetsNanos.length - 1]
                + ", first=" + Arrays.toString(Arrays.copyOf(offsetsNanos, Math.min(3, offsetsNanos.length))) + "]";
    }
}
