package dev.profiledrollout.load;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Byte searches of the SSE hot path, eight bytes at a time ("SWAR": a word with a zero byte where the searched
 * byte was is found with {@code (x - 0x01…) & ~x & 0x80…}, Hacker's Delight §6-1). Candidates are checked byte by
 * byte, so the method's false positives above a real match cost time, never correctness.
 */
final class Bytes {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long LF = ONES * '\n';
    private static final long CR = ONES * '\r';
    /** Bytes 0x08–0x0F, masked with {@link #LOW_CONTROL_MASK}, equal this. */
    private static final long LOW_CONTROL = ONES * 0x08;
    private static final long LOW_CONTROL_MASK = ONES * 0xF8;

    private Bytes() {
    }

    private static long zeroBytes(long x) {
        return (x - ONES) & ~x & HIGHS;
    }

    /**
     * @return the index of the first LF or CR in {@code [from, end)}, or {@code end} when there is none. A word is
     *         first tested for bytes in 0x08–0x0F (one mask and one zero-byte test: LF is 0x0A, CR 0x0D), sixteen
     *         bytes per step; the rare candidates (TAB, and the test's borrows) are then checked byte by byte.
     */
    static int lineEnd(byte[] bytes, int from, int end) {
        int i = from;
        for (; i + 16 <= end; i += 16) {
            long a = (long) LONGS.get(bytes, i) & LOW_CONTROL_MASK;
            long b = (long) LONGS.get(bytes, i + 8) & LOW_CONTROL_MASK;
            if ((zeroBytes(a ^ LOW_CONTROL) | zeroBytes(b ^ LOW_CONTROL)) != 0) {
                break; // a candidate in these sixteen bytes: the eight-byte loop finds it
            }
        }
        for (; i + 8 <= end; i += 8) {
            long w = (long) LONGS.get(bytes, i);
            long hits = zeroBytes(w ^ LF) | zeroBytes(w ^ CR);
            while (hits != 0) {
                int at = i + (Long.numberOfTrailingZeros(hits) >>> 3);
                if (bytes[at] == '\n' || bytes[at] == '\r') {
                    return at;
                }
                hits &= hits - 1;
            }
        }
        for (; i < end; i++) {
            if (bytes[i] == '\n' || bytes[i] == '\r') {
                return i;
            }
        }
        return end;
    }

    /**
     * @return the index of the first {@code b} in {@code [from, end)}, or {@code end} when there is none
     */
    static int indexOf(byte[] bytes, int from, int end, byte b) {
        long pattern = ONES * (b & 0xff);
        int i = from;
        for (; i + 8 <= end; i += 8) {
            long hits = zeroBytes((long) LONGS.get(bytes, i) ^ pattern);
            while (hits != 0) {
                int at = i + (Long.numberOfTrailingZeros(hits) >>> 3);
                if (bytes[at] == b) {
                    return at;
                }
                hits &= hits - 1;
            }
        }
        for (; i < end; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return end;
    }

    private static final long BRACKETS = ONES * '[';
    private static final long BRACES = ONES * '{';
    private static final byte[] CHOICES = ascii("\"choices\":");
    private static final byte[] USAGE = ascii("\"usage\":");
    private static final byte[] ERROR = ascii("\"error\":");

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** Bit of {@link #chunkKeys}: {@code "choices":[{} (a non-empty choices array). */
    static final int CHOICES_ARRAY = 1;
    /** Bit of {@link #chunkKeys}: {@code "usage":{} (a usage object, not null). */
    static final int USAGE_OBJECT = 2;
    /** Bit of {@link #chunkKeys}: {@code "error":{} (an error object). */
    static final int ERROR_OBJECT = 4;

    /**
     * Which of the OpenAI stream's telling keys open an array or object in compact JSON in {@code [from, end)}, as
     * the bits {@link #CHOICES_ARRAY}, {@link #USAGE_OBJECT}, {@link #ERROR_OBJECT}. Only the {@code [} and
     * {@code &#123;} bytes are visited (a handful per chunk), eight bytes at a time; a key is recognised by the
     * bytes just before them.
     */
    static int chunkKeys(byte[] bytes, int from, int end) {
        int keys = 0;
        int i = from;
        for (; i + 8 <= end; i += 8) {
            long w = (long) LONGS.get(bytes, i);
            long hits = zeroBytes(w ^ BRACKETS) | zeroBytes(w ^ BRACES);
            while (hits != 0) {
                keys |= keyBefore(bytes, from, end, i + (Long.numberOfTrailingZeros(hits) >>> 3));
                hits &= hits - 1;
            }
        }
        for (; i < end; i++) {
            keys |= keyBefore(bytes, from, end, i);
        }
        return keys;
    }

    private static int keyBefore(byte[] bytes, int from, int end, int at) {
        byte b = bytes[at];
        if (b == '[') {
            return at + 1 < end && bytes[at + 1] == '{' && endsWith(bytes, from, at, CHOICES) ? CHOICES_ARRAY : 0;
        }
        if (b == '{') {
            return endsWith(bytes, from, at, USAGE) ? USAGE_OBJECT : endsWith(bytes, from, at, ERROR) ? ERROR_OBJECT : 0;
        }
        return 0;
    }

    /** {@code needle} ends just before {@code at} and starts at or after {@code from}. */
    private static boolean endsWith(byte[] bytes, int from, int at, byte[] needle) {
        return at - from >= needle.length && startsWith(bytes, at - needle.length, at, needle);
    }

    /** @return whether {@code needle} occurs in {@code [from, end)} */
    static boolean contains(byte[] bytes, int from, int end, byte[] needle) {
        for (int i = indexOf(bytes, from, end, needle[0]); i < end; i = indexOf(bytes, i + 1, end, needle[0])) {
            if (startsWith(bytes, i, end, needle)) {
                return true;
            }
        }
        return false;
    }

    /** {@code needle} starts at {@code i} and ends before {@code end}. */
    static boolean startsWith(byte[] bytes, int i, int end, byte[] needle) {
        if (end - i < needle.length) {
            return false;
        }
        for (int k = 0; k < needle.length; k++) {
            if (bytes[i + k] != needle[k]) {
                return false;
            }
        }
        return true;
    }
}
