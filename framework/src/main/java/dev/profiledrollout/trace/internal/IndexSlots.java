package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.Arrays;
import org.apiguardian.api.API;

/**
 * The slots of an open-addressing index over rows that the caller keeps in a list: each slot holds a row index plus
 * one (0: empty), and the index keeps each row's hash. The caller probes with its own key fields, so a lookup
 * allocates nothing and answers an {@code int} (a {@code Map} keyed by a composite object costs a key per lookup and
 * answers {@code null} for a new key, a branch the JIT compiles as a trap). Used by the operator rows and the
 * roofline groups of a trace. Not thread-safe.
 *
 * <pre>{@code
 * for (int s = slots.first(hash); ; s = slots.next(s)) {
 *     int row = slots.row(s);
 *     if (row < 0) { row = addRow(...); slots.add(s, row, hash); return row; }
 *     if (slots.hash(row) == hash && rowIs(row, ...)) { return row; }
 * }
 * }</pre>
 */
@API(status = INTERNAL, since = "0.2")
public final class IndexSlots {

    private int[] slots = new int[64];
    private int[] hashes = new int[32];
    private int rows;

    /** The first slot to probe for {@code hash}. */
    public int first(int hash) {
        return (hash ^ (hash >>> 16)) & (slots.length - 1);
    }

    /** The slot probed after {@code slot}. */
    public int next(int slot) {
        return (slot + 1) & (slots.length - 1);
    }

    /** The row at {@code slot}, or −1 when the slot is empty. */
    public int row(int slot) {
        return slots[slot] - 1;
    }

    /** The hash given when {@code row} was added. */
    public int hash(int row) {
        return hashes[row];
    }

    /**
     * Records {@code row} (the next row, 0, 1, 2, …) at the empty {@code slot} where the probe for {@code hash}
     * ended; slots found before this call are no longer valid.
     */
    public void add(int slot, int row, int hash) {
        if (row != rows) {
            throw new IllegalArgumentException("rows are added in order: expected " + rows + ", got " + row);
        }
        if (row == hashes.length) {
            hashes = Arrays.copyOf(hashes, row * 2);
        }
        hashes[row] = hash;
        slots[slot] = row + 1;
        rows++;
        if (rows * 2 > slots.length) {
            int[] grown = new int[slots.length * 2];
            int mask = grown.length - 1;
            for (int r = 0; r < rows; r++) {
                int s = (hashes[r] ^ (hashes[r] >>> 16)) & mask;
                while (grown[s] != 0) {
                    s = (s + 1) & mask;
                }
                grown[s] = r + 1;
            }
            slots = grown;
        }
    }
}
