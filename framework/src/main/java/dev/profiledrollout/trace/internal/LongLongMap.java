package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.Arrays;
import org.apiguardian.api.API;

/**
 * An open-addressing hash map from {@code long} keys to two {@code long} values ({@code a}, {@code b}) that is read
 * while it is filled (the reader's lane index). The joins by id, filled first and read afterwards, use
 * {@link IdJoin}.
 *
 * <p>Memory: 24 bytes per slot at a load factor of at most 0.5, so about 48 bytes per entry; a slot's key and values
 * are adjacent in one array, so a lookup touches one cache line. {@link Long#MIN_VALUE}
 * cannot be a key. Not thread-safe.
 */
@API(status = INTERNAL, since = "0.1")
public final class LongLongMap {

    private static final long EMPTY = Long.MIN_VALUE;

    /** Slot i is {@code table[3i]} (key), {@code table[3i + 1]} (a), {@code table[3i + 2]} (b). */
    private long[] table;
    private int capacity;
    private int size;

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
        int at = slot(key, table, capacity) * 3;
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
        int i = slot(key, table, capacity);
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

    private static int slot(long key, long[] table, int capacity) {
        int mask = capacity - 1;
        int i = (int) (mix(key) & mask);
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
        long[] old = table;
        capacity *= 2;
        table = emptyTable(capacity);
        for (int at = 0; at < old.length; at += 3) {
            if (old[at] != EMPTY) {
                int j = slot(old[at], table, capacity) * 3;
                table[j] = old[at];
                table[j + 1] = old[at + 1];
                table[j + 2] = old[at + 2];
            }
        }
    }
}
