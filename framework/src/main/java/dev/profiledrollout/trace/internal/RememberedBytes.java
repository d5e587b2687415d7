package dev.profiledrollout.trace.internal;

/**
 * Byte sequences remembered with the string read from them, found again by a hash of their first bytes: 256 sets of
 * 8 ways, replaced round robin. The scanner keeps two (long plain strings such as kernel names, and shape arrays), so
 * that a sequence met again is recognised by one vectorised comparison at the cursor instead of a scan for its end
 * and a hash of all its bytes. The caller decides what makes equal bytes at the cursor the same value (a closing
 * quote after a plain string; nothing more for a whole JSON array). Not thread-safe: one per thread's scanner memory.
 */
final class RememberedBytes {

    private static final int WAYS = 8;
    private static final long K = 0x9E3779B97F4A7C15L;

    private final byte[][] bytes = new byte[256 * WAYS][];
    private final String[] strings = new String[256 * WAYS];
    private int next;

    /** The set of the {@code longs} × 8 bytes at {@code at}, which must lie within {@code b}. */
    static int set(byte[] b, int at, int longs) {
        long h = (long) ByteCursor.LONGS.get(b, at);
        for (int i = 1; i < longs; i++) {
            h = (h * K) ^ (long) ByteCursor.LONGS.get(b, at + 8 * i);
        }
        return (int) ((h * K) >>> 56);
    }

    /**
     * The slot of a remembered sequence in {@code set} equal to {@code b} from {@code at}, ending before {@code lim}
     * and, when {@code follow} is not −1, followed by the byte {@code follow} before {@code lim}; −1 when there is none.
     */
    int find(int set, byte[] b, int at, int lim, int follow) {
        int base = set * WAYS;
        for (int way = 0; way < WAYS; way++) {
            byte[] known = bytes[base + way];
            if (known == null) {
                continue;
            }
            int end = at + known.length;
            if (firstWordEqual(known, b, at)
                    && (follow < 0 ? end <= lim : end < lim && b[end] == follow)
                    && java.util.Arrays.equals(known, 0, known.length, b, at, end)) {
                return base + way;
            }
        }
        return -1;
    }

    /**
     * Whether the first 8 bytes of {@code known} (its first byte when shorter) equal the bytes of {@code b} at
     * {@code at}, as far as {@code b} reaches: a quick first test, the length and the whole sequence are checked
     * after it. It makes the ways holding other sequences fail early, and it leaves {@code Arrays.equals} only
     * sequences whose first bytes are equal. The JDK's comparison is shared by every caller and was compiled with its
     * branch for a differing first byte as a trap, since that was rare; the first such miss then deoptimised the
     * whole event scanner it was compiled into (C2 log of a rank set: {@code unstable_if} in
     * {@code ArraysSupport.mismatch}).
     */
    private static boolean firstWordEqual(byte[] known, byte[] b, int at) {
        if (known.length >= 8 && at + 8 <= b.length) {
            return (long) ByteCursor.LONGS.get(known, 0) == (long) ByteCursor.LONGS.get(b, at);
        }
        return known.length == 0 || at < b.length && known[0] == b[at];
    }

    /** Length of the sequence in {@code slot}. */
    int length(int slot) {
        return bytes[slot].length;
    }

    /** The string of the sequence in {@code slot}. */
    String string(int slot) {
        return strings[slot];
    }

    /** Remembers {@code copy} (no longer changed by the caller) with its string in {@code set}. */
    void remember(int set, byte[] copy, String string) {
        int slot = set * WAYS + (next++ & (WAYS - 1));
        bytes[slot] = copy;
        strings[slot] = string;
    }
}
