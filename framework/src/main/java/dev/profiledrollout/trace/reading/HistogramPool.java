package dev.profiledrollout.trace.reading;

import dev.profiledrollout.trace.internal.Recycler;
import org.HdrHistogram.IntCountsHistogram;

/**
 * Per-thread free list of the reader's duration histograms (one per kernel name, the launch durations, the launch
 * delays), so that the files read one after another on a thread reuse them: each file's histograms grew their counts
 * arrays from nothing, 12 MiB of resized arrays for the 8 files of the training rank set (JFR allocation samples,
 * bench/README.md, issue 27 sixth round). A histogram taken from the list is {@link IntCountsHistogram#reset() reset}:
 * its counts are zero and it keeps its grown range, which changes no recorded value and no percentile (both follow
 * from the bucket layout of 2 significant digits, the same at every range). At most {@value #KEEP} per thread,
 * softly referenced ({@link Recycler}).
 */
final class HistogramPool {

    static final int KEEP = 2048;

    private static final Recycler<IntCountsHistogram> FREE =
            new Recycler<>(KEEP, () -> new IntCountsHistogram(2));

    private HistogramPool() {
    }

    /** An empty auto-resizing histogram of 2 significant digits (a recycled one when this thread has one). */
    static IntCountsHistogram take() {
        IntCountsHistogram h = FREE.take();
        h.reset(); // a no-op on a fresh one
        return h;
    }

    /** Gives {@code h} back to this thread's list; it must no longer be used by the giver. */
    static void give(IntCountsHistogram h) {
        if (h != null) {
            FREE.give(h);
        }
    }
}
