package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.Arrays;
import org.apiguardian.api.API;

/**
 * An open-addressing hash map from {@code long} keys to two {@code long} values ({@code a}, {@code b}), used to join
 * GPU events to their CPU launches by correlation id and to their CPU ops by {@code External id}.
 *
 * <p>Memory: 24 bytes per slot at a load factor of at most 0.5, so about 48 bytes per entry; a slot's key and values
 * are adjacent in one array, so a lookup touches one cache line. {@link Long#MIN_VALUE}
 * cannot be a key. Not thread-safe.
 *
 * <p>Locality: profilers hand out correlation and External ids from counters, so a trace's ids are nearly dense and
 * its GPU events look them up in nearly increasing order. The slot of a key is therefore the key itself (modulo the
 * capacity) as long as that keeps probe sequences short: neighbouring ids share cache lines and pages, and the
 * lookups of a sweep walk the table instead of jumping across it (with a mixing hash, a table of millions of
 * entries cost a cache and TLB miss per lookup). A put that probes more than {@value #MAX_PROBE} slots switches the
 * map to a mixing hash for good (ids with a large power-of-two stride, say), so the worst case stays that of an
 * ordinary hash map.
 */
@API(status = INTERNAL, since = "0.1")
public final class LongLongMap {

    private static final long EMPTY = Long.MIN_VALUE;

    /** Probe length beyond which the map stops placing keys by their own value. */
    static final int MAX_PROBE = 32;

    /** Slot i is {@code table[3i]} (key), {@code table[3i + 1]} (a), {@code table[3i + 2]} (b). */
    private long[] table;
    private int capacity;
    private int size;
    /** Whether slots come from a mixing hash of the key rather than the key itself. */
    private boolean mixed;

    public LongLongMap() {
        capacity = 1024;
        table = emptyTable(capacity);
    }

    private static long[] emptyTable(int capacity) {
        long[] t = new long[capacity * 3];
        for (int i = 0; i < t.length; i += 3) {
            t[i] = EMPTY;
        }
        return t;
    }

    /** Number of keys. */
    public int size() {
        return size;
    }

    /** Puts {@code (a, b)} for {@code key} unless the key is already present (the first value wins). */
    public void putIfAbsent(long key, long a, long b) {
        if (key == EMPTY) {
            return;
        }
        if (size * 2 >= capacity) {
            grow();
        }
        int at = slot(key, table, capacity, mixed) * 3;
        if (at < 0) { // a long probe sequence: place keys by a mixing hash from now on
            mixed = true;
            rehash(capacity);
            at = slot(key, table, capacity, true) * 3;
        }
        if (table[at] == EMPTY) {
            table[at] = key;
            table[at + 1] = a;
            table[at + 2] = b;
            size++;
        }
    }

    /** Adds {@code delta} to value {@code b} of {@code key} when present; returns whether it was. */
    public boolean addToB(long key, long delta) {
        int i = find(key);
        if (i < 0) {
            return false;
        }
        table[i * 3 + 2] += delta;
        return true;
    }

    /** The slot of {@code key}, or −1 when absent; read it with {@link #a(int)}, {@link #b(int)}. */
    public int find(long key) {
        if (key == EMPTY) {
            return -1;
        }
        int i = slot(key, table, capacity, mixed);
        if (i < 0) {
            i = slotAfterLongProbe(key);
        }
        return table[i * 3] == EMPTY ? -1 : i;
    }

    public long a(int slot) {
        return table[slot * 3 + 1];
    }

    public long b(int slot) {
        return table[slot * 3 + 2];
    }

    /** Replaces value {@code b} at a slot returned by {@link #find(long)}. */
    public void setB(int slot, long b) {
        table[slot * 3 + 2] = b;
    }

    /** Calls {@code visitor} for every entry, in no particular order. */
    public void forEach(EntryVisitor visitor) {
        for (int at = 0; at < table.length; at += 3) {
            if (table[at] != EMPTY) {
                visitor.visit(table[at], table[at + 1], table[at + 2]);
            }
        }
    }

    /** Receives one entry. */
    @FunctionalInterface
    public interface EntryVisitor {
        void visit(long key, long a, long b);
    }

    /**
     * The slot holding {@code key}, or the empty slot where it would go; −1 when, placing keys by their own value, that
     * takes more than {@link #MAX_PROBE} probes (the caller then switches to the mixing hash or, for a lookup, finishes
     * the probe with {@link #slotAfterLongProbe}).
     */
    private static int slot(long key, long[] table, int capacity, boolean mixed) {
        int mask = capacity - 1;
        int i = (int) ((mixed ? mix(key) : key) & mask);
        long k;
        int probes = 0;
        while ((k = table[i * 3]) != EMPTY && k != key) {
            i = (i + 1) & mask;
            if (++probes > MAX_PROBE && !mixed) {
                return -1;
            }
        }
        return i;
    }

    /** {@link #slot} without the probe bound: lookups in a table whose puts never met a long probe. */
    private int slotAfterLongProbe(long key) {
        int mask = capacity - 1;
        int i = (int) (key & mask);
        long k;
        while ((k = table[i * 3]) != EMPTY && k != key) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private static long mix(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return h ^ (h >>> 29);
    }

    private void grow() {
        rehash(capacity * 2);
    }

    /** Moves every entry into a fresh table of {@code newCapacity} slots, placed as {@link #mixed} says. */
    private void rehash(int newCapacity) {
        long[] old = table;
        long[] fresh = emptyTable(newCapacity);
        while (!moveAll(old, fresh, newCapacity)) { // only while placing keys by value: switch, and start over
            mixed = true;
            fresh = emptyTable(newCapacity);
        }
        table = fresh;
        capacity = newCapacity;
    }

    private boolean moveAll(long[] from, long[] to, int toCapacity) {
        for (int at = 0; at < from.length; at += 3) {
            if (from[at] != EMPTY) {
                int j = slot(from[at], to, toCapacity, mixed);
                if (j < 0) {
                    return false;
                }
                j *= 3;
                to[j] = from[at];
                to[j + 1] = from[at + 1];
                to[j + 2] = from[at + 2];
            }
        }
        return true;
    }
}
