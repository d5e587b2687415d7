package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/**
 * When requests are released: all at once (closed loop, gated by the concurrency), at a constant rate, as a
 * Poisson process, with gamma burstiness, or on a linear or exponential ramp, as {@code vllm bench serve}'s
 * {@code get_request} defines them ({@code docs/METRICS.md} §4). Immutable.
 *
 * <ul>
 *   <li>{@code requestRate = +∞}: every request is released at t0 and the concurrency gates them
 *       (vLLM's {@code --request-rate inf}); {@link LoadGenerator} runs this as a closed loop.</li>
 *   <li>finite {@code requestRate}, {@code rampEndRate} NaN: gaps ~ Gamma(shape = burstiness,
 *       scale = 1/(rate·burstiness)), rescaled so the last request lands exactly at N/rate;
 *       {@code burstiness = 1} is Poisson, {@code +∞} constant spacing 1/rate.</li>
 *   <li>finite {@code rampEndRate}: vLLM's ramp-up ({@code --ramp-up-strategy}), request i drawn at
 *       {@code rate_i = start + (end − start)·p} (linear) or {@code start·(end/start)^p} (exponential), with
 *       {@code p = i/(N−1)}; not rescaled.</li>
 * </ul>
 *
 * @param requestRate requests per second (&gt; 0), or {@link Double#POSITIVE_INFINITY}; the ramp's start rate
 * @param burstiness  gamma shape &gt; 0 (vLLM's {@code --burstiness}, default 1), or +∞ for constant gaps
 * @param rampEndRate the ramp's end rate in requests per second (&gt; 0), or {@link Double#NaN} for no ramp
 * @param rampShape   how the rate goes from start to end; not null (ignored without a ramp)
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record ArrivalProcess(double requestRate, double burstiness, double rampEndRate, RampShape rampShape) {

    /** vLLM's {@code --ramp-up-strategy}. */
    public enum RampShape {
        /** {@code rate_i = start + (end − start)·i/(N−1)} */
        LINEAR,
        /** {@code rate_i = start·(end/start)^(i/(N−1))} */
        EXPONENTIAL
    }

    /** Without a ramp, or with a linear one. */
    public ArrivalProcess(double requestRate, double burstiness, double rampEndRate) {
        this(requestRate, burstiness, rampEndRate, RampShape.LINEAR);
    }

    public ArrivalProcess {
        java.util.Objects.requireNonNull(rampShape, "rampShape");
        if (!(requestRate > 0)) {
            throw new IllegalArgumentException("requestRate must be > 0 requests/s (or +∞ for all at once), was "
                    + requestRate);
        }
        if (!(burstiness > 0)) {
            throw new IllegalArgumentException("burstiness must be > 0 (1 = Poisson, +∞ = constant), was " + burstiness);
        }
        if (!Double.isNaN(rampEndRate) && !(rampEndRate > 0 && Double.isFinite(rampEndRate)
                && Double.isFinite(requestRate))) {
            throw new IllegalArgumentException("a ramp needs finite start and end rates > 0, was "
                    + requestRate + " → " + rampEndRate);
        }
    }

    /** @return every request released at t0 ({@code --request-rate inf}): a closed loop under the concurrency */
    public static ArrivalProcess closedLoop() {
        return new ArrivalProcess(Double.POSITIVE_INFINITY, 1.0, Double.NaN);
    }

    /** @return Poisson arrivals at {@code ratePerSecond} (burstiness 1) */
    public static ArrivalProcess poisson(double ratePerSecond) {
        return new ArrivalProcess(ratePerSecond, 1.0, Double.NaN);
    }

    /** @return evenly spaced arrivals, 1/rate apart (burstiness +∞) */
    public static ArrivalProcess constant(double ratePerSecond) {
        return new ArrivalProcess(ratePerSecond, Double.POSITIVE_INFINITY, Double.NaN);
    }

    /** @return gamma-distributed gaps with vLLM's parametrisation */
    public static ArrivalProcess gamma(double ratePerSecond, double burstiness) {
        return new ArrivalProcess(ratePerSecond, burstiness, Double.NaN);
    }

    /** @return vLLM's linear ramp-up from {@code startRate} to {@code endRate} requests/s over the run */
    public static ArrivalProcess linearRamp(double startRate, double endRate, double burstiness) {
        return new ArrivalProcess(startRate, burstiness, endRate);
    }

    /** @return vLLM's exponential ramp-up from {@code startRate} to {@code endRate} requests/s over the run */
    public static ArrivalProcess exponentialRamp(double startRate, double endRate, double burstiness) {
        return new ArrivalProcess(startRate, burstiness, endRate, RampShape.EXPONENTIAL);
    }

    /**
     * @param i the request's index, 0…n−1
     * @param n the number of requests
     * @return the rate request {@code i} is drawn at: the ramp's at progress i/(n−1), else {@link #requestRate()}
     */
    public double rateAt(int i, int n) {
        if (!isRamp()) {
            return requestRate;
        }
        double progress = n == 1 ? 0 : (double) i / (n - 1);
        return rampShape == RampShape.LINEAR ? requestRate + (rampEndRate - requestRate) * progress
                : requestRate * Math.pow(rampEndRate / requestRate, progress);
    }

    /** @return true for {@code requestRate = +∞} (closed loop) */
    public boolean isClosedLoop() {
        return requestRate == Double.POSITIVE_INFINITY;
    }

    /** @return true when a ramp is set */
    public boolean isRamp() {
        return !Double.isNaN(rampEndRate);
    }

    /**
     * @param requests N, ≥ 1
     * @param seed     seed of the gap generator; the same (process, N, seed) gives the same schedule
     * @return the precomputed send offsets
     */
    public ArrivalSchedule schedule(int requests, long seed) {
        return ArrivalSchedule.of(this, requests, seed);
    }

    @Override
    public String toString() {
        if (isClosedLoop()) {
            return "closed loop (request rate inf)";
        }
        String shape = burstiness == 1.0 ? "Poisson" : burstiness == Double.POSITIVE_INFINITY ? "constant"
                : "gamma burstiness " + burstiness;
        return isRamp() ? rampShape.name().toLowerCase(java.util.Locale.ROOT) + " ramp " + requestRate + " → "
                + rampEndRate + " req/s, " + shape
                : requestRate + " req/s, " + shape;
    }
}
