package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import org.apiguardian.api.API;

/** Epoch nanoseconds with {@link System#nanoTime()} resolution: one wall-clock reading, then monotonic offsets. */
@API(status = INTERNAL, since = "0.1")
public final class EpochClock {
    private final long epochNsAtStart;
    private final long nanoAtStart;

    public EpochClock() {
        java.time.Instant now = java.time.Instant.now();
        this.nanoAtStart = System.nanoTime();
        this.epochNsAtStart = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** Nanoseconds since the Unix epoch. */
    public long nowEpochNs() {
        return epochNsAtStart + (System.nanoTime() - nanoAtStart);
    }

    /** Converts an epoch-ns reading back to the {@link System#nanoTime()} scale, for deadlines. */
    public long toNanoTime(long epochNs) {
        return nanoAtStart + (epochNs - epochNsAtStart);
    }
}
