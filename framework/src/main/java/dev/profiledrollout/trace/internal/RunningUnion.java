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
    /*
     * Before the first interval the current group is the placeholder [MIN_VALUE, MIN_VALUE]: the first add then takes
     * the new-group path like every later group does, with no first-add branch (the sweep's JIT-compiled code would
     * otherwise treat that branch as never taken and deoptimise at each new file of a rank set). The placeholder adds
     * 0 to the closed total, and its "gap" to the first interval starts at MIN_VALUE (see GapListener).
     */
    private long groupStart = Long.MIN_VALUE;
    private long groupEnd = Long.MIN_VALUE;
    private long closed;
    private long first = Long.MAX_VALUE;
    private long last = Long.MIN_VALUE;

    public RunningUnion() {
        this(null);
    }

    /**
     * @param gaps receives gaps between groups, or null; it is also called once before the first group with a start
     *             of {@code Long.MIN_VALUE}, which it must ignore
     */
    public RunningUnion(GapListener gaps) {
        this.gaps = gaps;
    }

    /** Adds {@code [start, end)}; starts must not decrease between calls, and no start is {@code Long.MIN_VALUE}. */
    public void add(long start, long end) {
        first = Math.min(first, start);
        last = Math.max(last, end);
        if (start > groupEnd) {
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
        return closed + groupEnd - groupStart;
    }

    /** Last end − first start, 0 when empty. */
    public long span() {
        return isEmpty() ? 0 : last - first;
    }

    public boolean isEmpty() {
        return groupEnd == Long.MIN_VALUE;
    }
}
