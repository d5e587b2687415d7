package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import org.apiguardian.api.API;

/**
 * Length of the union of intervals fed in start order, merged the way HTA does
 * ({@code hta/analyzers/breakdown_analysis.py}: a new group starts when {@code start > } the running maximum end;
 * each group contributes {@code max end − first start}, which is negative for a lone HTA-rounded sub-µs event).
 * Also tracks the first start and last end. Optionally reports each gap between groups. Not thread-safe.
 */
@API(status = INTERNAL, since = "0.1")
public final class RunningUnion {

    /** Receives the gap between two consecutive groups. */
    @FunctionalInterface
    public interface GapListener {
        void gap(long startNs, long durationNs);
    }

    private final GapListener gaps;
    private boolean open;
    private long groupStart;
    private long groupEnd;
    private long closed;
    private long first = Long.MAX_VALUE;
    private long last = Long.MIN_VALUE;

    public RunningUnion() {
        this(null);
    }

    /** @param gaps receives gaps between groups, or null */
    public RunningUnion(GapListener gaps) {
        this.gaps = gaps;
    }

    /** Adds {@code [start, end)}; starts must not decrease between calls. */
    public void add(long start, long end) {
        first = Math.min(first, start);
        last = Math.max(last, end);
        if (!open) {
            open = true;
            groupStart = start;
            groupEnd = end;
        } else if (start > groupEnd) {
            closed += groupEnd - groupStart;
            if (gaps != null) {
                gaps.gap(groupEnd, start - groupEnd);
            }
            groupStart = start;
            groupEnd = end;
        } else {
            groupEnd = Math.max(groupEnd, end);
        }
    }

    /** Σ group lengths so far. */
    public long total() {
        return open ? closed + groupEnd - groupStart : closed;
    }

    /** Last end − first start, 0 when empty. */
    public long span() {
        return open ? last - first : 0;
    }

    public boolean isEmpty() {
        return !open;
    }
}
