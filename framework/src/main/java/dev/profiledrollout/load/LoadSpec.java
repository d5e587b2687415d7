package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.time.Duration;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The shape of a load: how requests arrive, how many at once, how many in all or for how long, and the
 * random-token lengths (vLLM's {@code RandomDataset} law, {@code docs/METRICS.md} §5). Immutable.
 *
 * @param concurrency    the stored in-flight figure, read through what it means for the arrival process:
 *                       {@link #lanes()} in a closed loop (requests in flight at once, ≥ 1) and
 *                       {@link #maxInFlight()} in an open loop (the cap on requests in flight, vLLM's
 *                       {@code --max-concurrency}, 0 for none); build with {@link #closedLoop} or
 *                       {@link #withArrival(ArrivalProcess, int)} rather than reading it directly
 * @param requests       requests in the measured run, ≥ 1 ({@code --num-prompts})
 * @param inputTokens    mean prompt length in tokens, ≥ 1 ({@code --random-input-len}), the shared prefix excluded
 * @param outputTokens   mean {@code max_tokens}, ≥ 1 ({@code --random-output-len}); {@code ignore_eos} makes it exact
 * @param rangeRatio     symmetric spread r of both lengths, 0 ≤ r &lt; 1; 0 gives fixed lengths ({@code --random-range-ratio})
 * @param warmupRequests requests sent by {@link LoadGenerator#warmup()} before the run, ≥ 0
 * @param seed           seed of the workload and of the arrival schedule; vary it (or flush the prefix cache)
 *                       between cells
 * @param arrival        when requests are released, not null; {@link ArrivalProcess#closedLoop()} by default
 * @param prefixTokens   random tokens shared by every prompt, ≥ 0 ({@code --random-prefix-len})
 * @param maxDuration    no request is issued after this much time from the run's start; null for no bound
 * @param endpoint       where {@link LoadGenerator#LoadGenerator(LoadTarget, String, LoadSpec)} sends, not null;
 *                       {@link Endpoint#COMPLETIONS} by default
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record LoadSpec(int concurrency, int requests, int inputTokens, int outputTokens, double rangeRatio,
                       int warmupRequests, long seed, ArrivalProcess arrival, int prefixTokens,
                       Duration maxDuration, Endpoint endpoint) {

    public LoadSpec {
        Objects.requireNonNull(arrival, "arrival");
        Objects.requireNonNull(endpoint, "endpoint");
        atLeast(arrival.isClosedLoop() ? "concurrency" : "concurrency (max-concurrency cap, 0 = none)",
                concurrency, arrival.isClosedLoop() ? 1 : 0);
        atLeast("requests", requests, 1);
        atLeast("inputTokens", inputTokens, 1);
        atLeast("outputTokens", outputTokens, 1);
        atLeast("warmupRequests", warmupRequests, 0);
        atLeast("prefixTokens", prefixTokens, 0);
        if (!(rangeRatio >= 0.0 && rangeRatio < 1.0)) {
            throw new IllegalArgumentException("rangeRatio must be in [0, 1) (0 = fixed lengths), was " + rangeRatio);
        }
        if (maxDuration != null && (maxDuration.isNegative() || maxDuration.isZero())) {
            throw new IllegalArgumentException("maxDuration must be positive or null (no bound), was " + maxDuration);
        }
    }

    /** A closed loop of {@code concurrency} requests in flight, no shared prefix, bounded by the request count. */
    public LoadSpec(int concurrency, int requests, int inputTokens, int outputTokens, double rangeRatio,
                    int warmupRequests, long seed) {
        this(concurrency, requests, inputTokens, outputTokens, rangeRatio, warmupRequests, seed,
                ArrivalProcess.closedLoop(), 0, null, Endpoint.COMPLETIONS);
    }

    /**
     * @return closed loop: the lanes, each a connection sending its next request when the previous one ended, ≥ 1;
     *         open loop: 0 (requests are released by the schedule, not by lanes)
     */
    public int lanes() {
        return arrival.isClosedLoop() ? concurrency : 0;
    }

    /**
     * @return the most requests on the wire at once, 0 for no cap: the lane count in a closed loop, the
     *         {@code --max-concurrency} cap in an open loop (a request finding the cap reached waits, and the wait
     *         counts as schedule lag)
     */
    public int maxInFlight() {
        return concurrency;
    }

    /**
     * A closed loop of {@code lanes} requests in flight, no shared prefix, bounded by the request count; the same
     * as the seven-argument constructor, named for what its first argument means.
     */
    public static LoadSpec closedLoop(int lanes, int requests, int inputTokens, int outputTokens, double rangeRatio,
                                      int warmupRequests, long seed) {
        return new LoadSpec(lanes, requests, inputTokens, outputTokens, rangeRatio, warmupRequests, seed);
    }

    /**
     * @param newArrival     the arrival process, not null
     * @param maxConcurrency open loop: the cap on requests in flight, 0 for none; closed loop: the lanes, ≥ 1
     * @return this spec with another arrival process
     */
    public LoadSpec withArrival(ArrivalProcess newArrival, int maxConcurrency) {
        return new LoadSpec(maxConcurrency, requests, inputTokens, outputTokens, rangeRatio, warmupRequests, seed,
                newArrival, prefixTokens, maxDuration, endpoint);
    }

    /** @return this spec with a shared random prefix of {@code tokens} tokens */
    public LoadSpec withPrefixTokens(int tokens) {
        return new LoadSpec(concurrency, requests, inputTokens, outputTokens, rangeRatio, warmupRequests, seed,
                arrival, tokens, maxDuration, endpoint);
    }

    /** @return this spec bounded by {@code duration} as well as by the request count */
    public LoadSpec withMaxDuration(Duration duration) {
        return new LoadSpec(concurrency, requests, inputTokens, outputTokens, rangeRatio, warmupRequests, seed,
                arrival, prefixTokens, duration, endpoint);
    }

    /** @return this spec sent to another endpoint */
    public LoadSpec withEndpoint(Endpoint target) {
        return new LoadSpec(concurrency, requests, inputTokens, outputTokens, rangeRatio, warmupRequests, seed,
                arrival, prefixTokens, maxDuration, target);
    }

    private static void atLeast(String field, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(field + " must be ≥ " + min + ", was " + value);
        }
    }
}
