package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.Arrays;
import org.apiguardian.api.API;

/**
 * A join table from {@code long} ids (correlation ids, External ids) to two {@code long} values ({@code a}, {@code b}),
 * filled while a trace is read and looked up while its GPU events are replayed in start order.
 *
 * <h2>Why not a hash map</h2>
 * The reader appends entries in file order; {@link #find} sorts them by id once, keeping the first entry of an id,
 * and then searches from the position of the previous hit. Profilers hand out these ids from counters, so entries
 * arrive almost sorted (the sort is then a linear pass) and the GPU events of a replay look up almost increasing ids
 * (each search then moves a few slots forward). Both phases therefore walk memory in order; a hash map of a long
 * trace's millions of ids costs a cache and TLB miss per insert and per lookup, and twice the memory.
 *
 * <p>Memory: 24 bytes per entry. {@link Long#MIN_VALUE} cannot be an id. Not thread-safe.
 */
@API(status = INTERNAL, since = "0.1")
public final class IdJoin {

    private long[] keys = new long[256];
    private long[] as = new long[256];
    private long[] bs = new long[256];
    private int size;
    private boolean sorted = true;
    /** The last key appended ({@code Long.MIN_VALUE} is never one), so the order check has no first-entry branch. */
    private long last = Long.MIN_VALUE;
    private boolean sealed;
    private int finger;

    /** Appends {@code (a, b)} for {@code key} unless the key was appended before (the first values win). */
    public void putIfAbsent(long key, long a, long b) {
        if (key == Long.MIN_VALUE) {
            return;
        }
        if (sealed) {
            throw new IllegalStateException("entries are added before the first lookup");
        }
        if (size == keys.length) {
            int n = size * 2;
            keys = Arrays.copyOf(keys, n);
            as = Arrays.copyOf(as, n);
            bs = Arrays.copyOf(bs, n);
        }
        sorted &= key >= last;
        last = key;
        keys[size] = key;
        as[size] = a;
        bs[size] = b;
        size++;
    }

    /** Number of distinct ids (after the first lookup; before it, of appended entries). */
    public int size() {
        return size;
    }

    /** The slot of {@code key}, or −1 when absent; read it with {@link #a(int)}, {@link #b(int)}. */
    public int find(long key) {
        if (!sealed) {
            seal();
        }
        if (size == 0) {
            return -1;
        }
        int f = finger;
        long at = keys[f];
        if (at == key) {
            return f;
        }
        int lo;
        int hi;
        if (at < key) { // gallop forward from the previous hit
            int step = 1;
            lo = f + 1;
            hi = f + 1;
            while (hi < size && keys[hi] < key) {
                lo = hi + 1;
                hi = f + (step <<= 1);
            }
            hi = Math.min(hi, size - 1);
        } else { // or backward
            int step = 1;
            hi = f - 1;
            lo = f - 1;
            while (lo >= 0 && keys[lo] > key) {
                hi = lo - 1;
                lo = f - (step <<= 1);
            }
            lo = Math.max(lo, 0);
        }
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long k = keys[mid];
            if (k < key) {
                lo = mid + 1;
            } else if (k > key) {
                hi = mid - 1;
            } else {
                finger = mid;
                return mid;
            }
        }
        finger = Math.max(0, Math.min(lo, size - 1)); // the next id is likely near this one
        return -1;
    }

    public long a(int slot) {
        return as[slot];
    }

    public long b(int slot) {
        return bs[slot];
    }

    /** Replaces value {@code b} at a slot returned by {@link #find(long)}. */
    public void setB(int slot, long b) {
        bs[slot] = b;
    }

    /** Calls {@code visitor} for every entry, in id order. */
    public void forEach(LongLongMap.EntryVisitor visitor) {
        if (!sealed) {
            seal();
        }
        for (int i = 0; i < size; i++) {
            visitor.visit(keys[i], as[i], bs[i]);
        }
    }

    /**
     * Sorts by id, stable, and keeps the first entry of each id; the first lookup does it when no one did before.
     * A reader that is about to look up calls it first, so the lookups in its hot loop never take the sealing branch:
     * taken only at the first lookup of each file, that branch deoptimised the loop at every file of a rank set.
     */
    public void seal() {
        if (sealed) {
            return;
        }
        sealed = true;
        if (!sorted && !insertionSort(2L * size)) {
            sortByIndex();
        }
        int n = 0;
        for (int i = 0; i < size; i++) {
            if (n > 0 && keys[i] == keys[n - 1]) {
                continue; // a later entry of the same id
            }
            keys[n] = keys[i];
            as[n] = as[i];
            bs[n] = bs[i];
            n++;
        }
        size = n;
    }

    /** Stable insertion sort of the entries within {@code budget} moves; false (entries still complete) when over. */
    private boolean insertionSort(long budget) {
        long moves = 0;
        for (int i = 1; i < size; i++) {
            long k = keys[i];
            if (k >= keys[i - 1]) {
                continue;
            }
            long a = as[i];
            long b = bs[i];
            int j = i - 1;
            while (j >= 0 && keys[j] > k) {
                keys[j + 1] = keys[j];
                as[j + 1] = as[j];
                bs[j + 1] = bs[j];
                j--;
                moves++;
            }
            keys[j + 1] = k;
            as[j + 1] = a;
            bs[j + 1] = b;
            if (moves > budget) {
                return false;
            }
        }
        return true;
    }

    /**
     * Stable sort of the entries by id through an index order (for entries far from id order, such as the ops of
     * several threads): a bottom-up merge sort of indexes that starts from the runs already in order.
     */
    private void sortByIndex() {
        int[] order = new int[size];
        int[] buffer = new int[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        for (int width = 1; width < size; width *= 2) {
            for (int lo = 0; lo < size - width; lo += 2 * width) {
                int mid = lo + width;
                int hi = Math.min(lo + 2 * width, size);
                if (keys[order[mid - 1]] <= keys[order[mid]]) {
                    continue; // already in order: the common case for almost sorted ids
                }
                int i = lo;
                int j = mid;
                int k = lo;
                while (i < mid && j < hi) {
                    buffer[k++] = keys[order[j]] < keys[order[i]] ? order[j++] : order[i++]; // ties: left first
                }
                while (i < mid) {
                    buffer[k++] = order[i++];
                }
                while (j < hi) {
                    buffer[k++] = order[j++];
                }
                System.arraycopy(buffer, lo, order, lo, hi - lo);
            }
        }
        // Entry order[i] goes to slot i: follow each cycle of the permutation in place (buffer marks done slots).
        java.util.Arrays.fill(buffer, 0);
        for (int start = 0; start < size; start++) {
            if (buffer[start] != 0 || order[start] == start) {
                continue;
            }
            long k = keys[start];
            long a = as[start];
            long b = bs[start];
            int i = start;
            while (true) {
                buffer[i] = 1;
                int from = order[i];
                if (from == start) {
                    keys[i] = k;
                    as[i] = a;
                    bs[i] = b;
                    break;
                }
                keys[i] = keys[from];
                as[i] = as[from];
                bs[i] = bs[from];
                i = from;
            }
        }
    }
}
