package dev.profiledrollout.trace.internal;

import java.util.Arrays;

/**
 * An open-addressing hash map from {@code long} keys to two {@code long} values ({@code a}, {@code b}), used to join
 * GPU events to their CPU launches by correlation id and to their CPU ops by {@code External id}.
 *
 * <p>Memory: 24 bytes per slot at a load factor of at most 0.5, so about 48 bytes per entry. {@link Long#MIN_VALUE}
 * cannot be a key. Not thread-safe.
 */
public final class LongLongMap {

    private static final long EMPTY = Long.MIN_VALUE;

    private long[] keys;
    private long[] as;
    private long[] bs;
    private int size;

    public LongLongMap() {
        keys = new long[1024];
        Arrays.fill(keys, EMPTY);
        as = new long[1024];
        bs = new long[1024];
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
        if (size * 2 >= keys.length) {
            grow();
        }
        int i = slot(key, keys);
        if (keys[i] == EMPTY) {
            keys[i] = key;
            as[i] = a;
            bs[i] = b;
            size++;
        }
    }

    /** Adds {@code delta} to value {@code b} of {@code key} when present; returns whether it was. */
    public boolean addToB(long key, long delta) {
        int i = find(key);
        if (i < 0) {
            return false;
        }
        bs[i] += delta;
        return true;
    }

    /** The slot of {@code key}, or −1 when absent; read it with {@link #a(int)}, {@link #b(int)}. */
    public int find(long key) {
        if (key == EMPTY) {
            return -1;
        }
        int i = slot(key, keys);
        return keys[i] == EMPTY ? -1 : i;
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

    /** Calls {@code visitor} for every entry, in no particular order. */
    public void forEach(EntryVisitor visitor) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != EMPTY) {
                visitor.visit(keys[i], as[i], bs[i]);
            }
        }
    }

    /** Receives one entry. */
    @FunctionalInterface
    public interface EntryVisitor {
        void visit(long key, long a, long b);
    }

    private static int slot(long key, long[] table) {
        int mask = table.length - 1;
        int i = (int) (mix(key) & mask);
        while (table[i] != EMPTY && table[i] != key) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private static long mix(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return h ^ (h >>> 29);
    }

    private void grow() {
        long[] oldKeys = keys;
        long[] oldA = as;
        long[] oldB = bs;
        keys = new long[oldKeys.length * 2];
        Arrays.fill(keys, EMPTY);
        as = new long[keys.length];
        bs = new long[keys.length];
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                int j = slot(oldKeys[i], keys);
                keys[j] = oldKeys[i];
                as[j] = oldA[i];
                bs[j] = oldB[i];
            }
        }
    }
}
