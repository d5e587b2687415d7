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
 * <h2>Memory</h2>
 * 24 bytes per entry, 16 for a join without value {@code b} ({@link #keysAndA()}). The columns are kept in blocks of
 * {@value #BLOCK} entries: the first block doubles up to that size, then each new block is added without copying the
 * others. A flat array doubled by copying held up to twice its entries, and every discarded copy of a large one had
 * already been promoted, so it stayed in the old generation as garbage until the end of a read: on a 1 GB trace with
 * recorded shapes the joins took 33 MiB of heap for 10 MiB of entries. Full blocks are reused: {@link #release()} gives
 * a finished join's blocks to its thread, and the next join that grows on that thread takes them (the files of a rank
 * set on a reader thread; {@link Recycler}). Without that, each file's blocks outlived the young collections of its
 * read, were promoted, and stayed in the old generation as garbage: on HTA's training sample tiled to 8 files, the live
 * heap after each G1 collection rose by about 10 MiB per file. {@link Long#MIN_VALUE} cannot be an id. Not thread-safe.
 */
@API(status = INTERNAL, since = "0.1")
public final class IdJoin {

    /** log2 of the entries per block. */
    private static final int SHIFT = 13;
    /** Entries per block (64 KiB per column). */
    public static final int BLOCK = 1 << SHIFT;
    private static final int MASK = BLOCK - 1;
    private static final int FIRST = 256;
    /** Full blocks kept per thread for reuse (32 MiB), softly: the collector may take them under memory pressure. */
    private static final int KEEP_BLOCKS = 512;
    private static final Recycler<long[]> FREE_BLOCKS = new Recycler<>(KEEP_BLOCKS, () -> new long[BLOCK]);
    private static final long[][] RELEASED = {};

    private long[][] keys = {new long[FIRST]};
    private long[][] as = {new long[FIRST]};
    /** Null for a join without value {@code b}. */
    private long[][] bs;
    /** Entries the blocks hold. */
    private int limit = FIRST;
    private int size;
    private boolean sorted = true;
    /** The last key appended ({@code Long.MIN_VALUE} is never one), so the order check has no first-entry branch. */
    private long last = Long.MIN_VALUE;
    private boolean sealed;
    private int finger;

    /** A join with two values per id. */
    public IdJoin() {
        this(true);
    }

    private IdJoin(boolean withB) {
        bs = withB ? new long[][] {new long[FIRST]} : null;
    }

    /** A join that keeps only value {@code a} (8 bytes less per entry): {@link #b(int)} is 0, {@link #setB} fails. */
    public static IdJoin keysAndA() {
        return new IdJoin(false);
    }

    /** Appends {@code (a, b)} for {@code key} unless the key was appended before (the first values win). */
    public void putIfAbsent(long key, long a, long b) {
        if (key == Long.MIN_VALUE) {
            return;
        }
        if (sealed) {
            throw new IllegalStateException("entries are added before the first lookup");
        }
        if (size == limit) {
            grow();
        }
        sorted &= key >= last;
        last = key;
        int block = size >>> SHIFT;
        int at = size & MASK;
        keys[block][at] = key;
        as[block][at] = a;
        if (bs != null) {
            bs[block][at] = b;
        }
        size++;
    }

    private void grow() {
        if (limit < BLOCK) { // the first block doubles, so a small join stays small
            limit *= 2;
            keys[0] = Arrays.copyOf(keys[0], limit);
            as[0] = Arrays.copyOf(as[0], limit);
            if (bs != null) {
                bs[0] = Arrays.copyOf(bs[0], limit);
            }
            return;
        }
        int block = limit >>> SHIFT;
        if (block == keys.length) {
            keys = Arrays.copyOf(keys, block * 2);
            as = Arrays.copyOf(as, block * 2);
            if (bs != null) {
                bs = Arrays.copyOf(bs, block * 2);
            }
        }
        keys[block] = freeBlock();
        as[block] = freeBlock();
        if (bs != null) {
            bs[block] = freeBlock();
        }
        limit += BLOCK;
    }

    /** A block given back on this thread (its old content is overwritten before it is read), else a new one. */
    private static long[] freeBlock() {
        return FREE_BLOCKS.take();
    }

    /**
     * Gives this join's full blocks to the calling thread for the next join that grows on it. The join must not be
     * used afterwards: its lookups and appends then fail with an {@link ArrayIndexOutOfBoundsException}.
     */
    public void release() {
        for (long[][] column : new long[][][] {keys, as, bs == null ? RELEASED : bs}) {
            for (long[] block : column) {
                if (block != null && block.length == BLOCK) {
                    FREE_BLOCKS.give(block);
                }
            }
        }
        keys = RELEASED;
        as = RELEASED;
        if (bs != null) {
            bs = RELEASED;
        }
    }

    private long key(int i) {
        return keys[i >>> SHIFT][i & MASK];
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
        long at = key(f);
        if (at == key) {
            return f;
        }
        int lo;
        int hi;
        if (at < key) { // gallop forward from the previous hit
            int step = 1;
            lo = f + 1;
            hi = f + 1;
            while (hi < size && key(hi) < key) {
                lo = hi + 1;
                hi = f + (step <<= 1);
            }
            hi = Math.min(hi, size - 1);
        } else { // or backward
            int step = 1;
            hi = f - 1;
            lo = f - 1;
            while (lo >= 0 && key(lo) > key) {
                hi = lo - 1;
                lo = f - (step <<= 1);
            }
            lo = Math.max(lo, 0);
        }
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long k = key(mid);
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
        return as[slot >>> SHIFT][slot & MASK];
    }

    public long b(int slot) {
        return bs == null ? 0 : bs[slot >>> SHIFT][slot & MASK];
    }

    /** Replaces value {@code b} at a slot returned by {@link #find(long)}. */
    public void setB(int slot, long b) {
        if (bs == null) {
            throw new IllegalStateException("a join made by keysAndA() has no value b");
        }
        bs[slot >>> SHIFT][slot & MASK] = b;
    }

    /** Calls {@code visitor} for every entry, in id order. */
    public void forEach(LongLongMap.EntryVisitor visitor) {
        if (!sealed) {
            seal();
        }
        for (int i = 0; i < size; i++) {
            visitor.visit(key(i), a(i), b(i));
        }
    }

    /** Copies entry {@code from} to slot {@code to}. */
    private void move(int from, int to) {
        keys[to >>> SHIFT][to & MASK] = keys[from >>> SHIFT][from & MASK];
        as[to >>> SHIFT][to & MASK] = as[from >>> SHIFT][from & MASK];
        if (bs != null) {
            bs[to >>> SHIFT][to & MASK] = bs[from >>> SHIFT][from & MASK];
        }
    }

    private void set(int slot, long key, long a, long b) {
        keys[slot >>> SHIFT][slot & MASK] = key;
        as[slot >>> SHIFT][slot & MASK] = a;
        if (bs != null) {
            bs[slot >>> SHIFT][slot & MASK] = b;
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
            if (n > 0 && key(i) == key(n - 1)) {
                continue; // a later entry of the same id
            }
            if (n != i) {
                move(i, n);
            }
            n++;
        }
        size = n;
    }

    /** Stable insertion sort of the entries within {@code budget} moves; false (entries still complete) when over. */
    private boolean insertionSort(long budget) {
        long moves = 0;
        for (int i = 1; i < size; i++) {
            long k = key(i);
            if (k >= key(i - 1)) {
                continue;
            }
            long a = a(i);
            long b = b(i);
            int j = i - 1;
            while (j >= 0 && key(j) > k) {
                move(j, j + 1);
                j--;
                moves++;
            }
            set(j + 1, k, a, b);
            if (moves > budget) {
                return false;
            }
        }
        return true;
    }

    /**
     * Stable sort of the entries by id through an index order (for entries far from id order, such as the ops of
     * several threads): {@link IndexMergeSort}, then the entries moved into that order in place.
     */
    private void sortByIndex() {
        int[] order = IndexMergeSort.sort(size, (a, b) -> key(a) < key(b)); // ties keep file order
        int[] buffer = ArrayPool.ints(size);
        // Entry order[i] goes to slot i: follow each cycle of the permutation in place (buffer marks done slots).
        java.util.Arrays.fill(buffer, 0, size, 0);
        for (int start = 0; start < size; start++) {
            if (buffer[start] != 0 || order[start] == start) {
                continue;
            }
            long k = key(start);
            long a = a(start);
            long b = b(start);
            int i = start;
            while (true) {
                buffer[i] = 1;
                int from = order[i];
                if (from == start) {
                    set(i, k, a, b);
                    break;
                }
                move(from, i);
                i = from;
            }
        }
        ArrayPool.give(order);
        ArrayPool.give(buffer);
    }
}
