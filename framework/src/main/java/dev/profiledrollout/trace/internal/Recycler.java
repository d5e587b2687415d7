package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.lang.ref.SoftReference;
import java.util.ArrayDeque;
import java.util.function.Supplier;
import org.apiguardian.api.API;

/**
 * Per-thread free lists of the trace reader's large working objects (the GPU timeline's chunk, the scanner's buffer,
 * the duration histograms, the id joins' blocks), so that consecutive reads on one thread — the files of a rank set on
 * a pool thread, a test's traces on its thread — reuse memory: fresh arrays cost zeroing, page faults on first touch
 * and young-generation collections that copy the live arrays of the reads in progress. At most {@code keep} objects per
 * thread ({@value #KEEP} unless given), softly referenced so the collector may drop them under memory pressure. An
 * object given back must no longer be used by the giver. Not shared between threads: each thread has its own list.
 *
 * @param <T> the recycled object
 */
@API(status = INTERNAL, since = "0.2")
public final class Recycler<T> {

    private static final int KEEP = 4;

    private final ThreadLocal<ArrayDeque<SoftReference<T>>> free = ThreadLocal.withInitial(ArrayDeque::new);
    private final int keep;
    private final Supplier<T> fresh;

    Recycler(Supplier<T> fresh) {
        this(KEEP, fresh);
    }

    /**
     * @param keep  how many objects a thread keeps at most
     * @param fresh a new object, for a thread whose list is empty
     */
    public Recycler(int keep, Supplier<T> fresh) {
        this.keep = keep;
        this.fresh = fresh;
    }

    /** A recycled object of this thread, or a fresh one. */
    public T take() {
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
    public void give(T t) {
        ArrayDeque<SoftReference<T>> list = free.get();
        if (list.size() < keep) {
            list.push(new SoftReference<>(t));
        }
    }
}
