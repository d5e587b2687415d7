package dev.profiledrollout.trace.internal;

import java.util.Arrays;

/**
 * Collects half-open intervals {@code [start, end)} in ns and measures their union and span.
 *
 * <p>Starts and ends are kept in two primitive arrays that grow by doubling: 16 bytes per interval.
 * The union is measured by sorting both arrays independently and sweeping an "active intervals" counter;
 * this is exact because the number of intervals covering a time {@code t} is {@code #starts ≤ t − #ends ≤ t},
 * which depends only on the two sorted sequences. Not thread-safe; one instance per device per reader.
 */
final class IntervalUnion {

    private long[] starts = new long[1024];
    private long[] ends = new long[1024];
    private int size;
    private long minStart = Long.MAX_VALUE;
    private long maxEnd = Long.MIN_VALUE;

    /** Adds {@code [startNs, endNs)}; an end before the start is clamped to the start. */
    public void add(long startNs, long endNs) {
        if (size == starts.length) {
            starts = Arrays.copyOf(starts, size * 2);
            ends = Arrays.copyOf(ends, size * 2);
        }
        long end = Math.max(startNs, endNs);
        starts[size] = startNs;
        ends[size] = end;
        size++;
        minStart = Math.min(minStart, startNs);
        maxEnd = Math.max(maxEnd, end);
    }

    /** Number of intervals added. */
    public int size() {
        return size;
    }

    /** Last end − first start, 0 when empty. */
    public long spanNs() {
        return size == 0 ? 0 : maxEnd - minStart;
    }

    /** Earliest start, or {@link Long#MAX_VALUE} when empty. */
    public long firstStartNs() {
        return minStart;
    }

    /** Length of the union of the intervals. Sorts the internal arrays (idempotent). */
    public long unionNs() {
        Arrays.sort(starts, 0, size);
        Arrays.sort(ends, 0, size);
        long busy = 0;
        int active = 0;
        long openedAt = 0;
        int s = 0;
        int e = 0;
        while (s < size) {
            if (starts[s] <= ends[e]) {
                if (active == 0) {
                    openedAt = starts[s];
                }
                active++;
                s++;
            } else {
                active--;
                if (active == 0) {
                    busy += ends[e] - openedAt;
                }
                e++;
            }
        }
        // Every start is consumed; the remaining ends close the last open stretch at the largest end.
        if (active > 0) {
            busy += ends[size - 1] - openedAt;
        }
        return busy;
    }
}
