package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One stage of a staged load ({@link LoadSweep}): a closed loop at a concurrency, or an open loop at a rate with its
 * arrival process, with its own request count or duration and an optional warm-up. The request shape (token lengths,
 * prefix, seed, endpoint) is the sweep's, shared by every stage. Immutable.
 *
 * @param spec the stage's load: {@link LoadSpec#lanes()} for a closed loop, {@link LoadSpec#arrival()} and
 *             {@link LoadSpec#maxInFlight()} for an open loop, {@link LoadSpec#requests()} and
 *             {@link LoadSpec#maxDuration()} for its length, {@link LoadSpec#warmupRequests()} for its warm-up; not
 *             null
 */
@API(status = EXPERIMENTAL, since = "0.2")
public record LoadStage(LoadSpec spec) {

    public LoadStage {
        Objects.requireNonNull(spec, "spec");
    }

    /**
     * @param base  the request shape, request count, duration bound and warm-up; its arrival is replaced
     * @param lanes requests in flight at once, ≥ 1
     * @return a closed-loop stage of {@code lanes} lanes
     * @throws IllegalArgumentException when {@code lanes < 1}
     */
    public static LoadStage closedLoop(LoadSpec base, int lanes) {
        return new LoadStage(base.withArrival(ArrivalProcess.closedLoop(), lanes));
    }

    /**
     * @param base        the request shape, request count, duration bound and warm-up; its arrival is replaced
     * @param arrival     an open-loop arrival process (finite rate), not null
     * @param maxInFlight the cap on requests in flight, 0 for none
     * @return an open-loop stage
     * @throws IllegalArgumentException when {@code arrival} is a closed loop
     */
    public static LoadStage atRate(LoadSpec base, ArrivalProcess arrival, int maxInFlight) {
        if (arrival.isClosedLoop()) {
            throw new IllegalArgumentException("an open-loop stage needs a finite request rate, got " + arrival
                    + "; use LoadStage.closedLoop for a concurrency stage");
        }
        return new LoadStage(base.withArrival(arrival, maxInFlight));
    }

    /** @return this stage with {@code requests} requests, bounded by {@code duration} too when not null */
    public LoadStage sized(int requests, Duration duration) {
        LoadSpec s = spec;
        LoadSpec sized = new LoadSpec(s.concurrency(), requests, s.inputTokens(), s.outputTokens(), s.rangeRatio(),
                s.warmupRequests(), s.seed(), s.arrival(), s.prefixTokens(), duration, s.endpoint());
        return new LoadStage(sized);
    }

    /** @return this stage with {@code n} warm-up requests before it */
    public LoadStage withWarmup(int n) {
        LoadSpec s = spec;
        return new LoadStage(new LoadSpec(s.concurrency(), s.requests(), s.inputTokens(), s.outputTokens(),
                s.rangeRatio(), n, s.seed(), s.arrival(), s.prefixTokens(), s.maxDuration(), s.endpoint()));
    }

    /** @return true for a closed-loop (concurrency) stage */
    public boolean isClosedLoop() {
        return spec.arrival().isClosedLoop();
    }

    /** @return the closed loop's lanes; 0 for an open loop */
    public int concurrency() {
        return spec.lanes();
    }

    /** @return the open loop's mean requested rate in requests/s; NaN for a closed loop */
    public double requestRate() {
        return isClosedLoop() ? Double.NaN : spec.arrival().requestRate();
    }

    /** @return the load level a sweep orders stages by: lanes for a closed loop, requests/s for an open loop */
    public double level() {
        return isClosedLoop() ? spec.lanes() : spec.arrival().requestRate();
    }

    /** @return a short name: {@code "concurrency 16"} or {@code "rate 40.0/s"} */
    public String label() {
        return isClosedLoop() ? "concurrency " + spec.lanes()
                : String.format(Locale.ROOT, "rate %.1f/s", spec.arrival().requestRate());
    }
}
