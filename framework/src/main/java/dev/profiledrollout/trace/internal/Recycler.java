package dev.profiledrollout.trace.internal;

import java.lang.ref.SoftReference;
import java.util.ArrayDeque;
import java.util.function.Supplier;

/**
 * Per-thread free lists of the trace reader's large working arrays (the GPU timeline's chunk, the scanner's buffer),
 * so that consecutive reads on one thread — the files of a rank set on a pool thread, a test's traces on its thread —
 * reuse memory: fresh arrays cost zeroing, page faults on first touch and young-generation collections that copy the
 * live arrays of the reads in progress. At most {@value #KEEP} objects per thread, softly referenced so the collector
 * may drop them under memory pressure. An object given back must no longer be used by the giver.
 *
 * @param <T> the recycled object
 */
final class Recycler<T> {

    private static final int KEEP = 4;

    private final ThreadLocal<ArrayDeque<SoftReference<T>>> free = ThreadLocal.withInitial(ArrayDeque::new);
    private final Supplier<T> fresh;

    Recycler(Supplier<T> fresh) {
        this.fresh = fresh;
    }

    /** A recycled object of this thread, or a fresh one. */
    T take() {
        ArrayDeque<SoftReference<T>> list = free.get();
        while (!list.isEmpty()) {
            T t = list.pop().get();
            if (t != null) {
                return t;
            }
        }
        return fresh.get();
    }

    /** Gives {@code t} back to this thread's list (dropped when the list is full). */
    void give(T t) {
        ArrayDeque<SoftReference<T>> list = free.get();
        if (list.size() < KEEP) {
            list.push(new SoftReference<>(t));
        }
    }
}
