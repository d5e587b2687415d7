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

    private Bytes() {
    }

    private static long zeroBytes(long x) {
        return (x - ONES) & ~x & HIGHS;
    }

    /** @return the index of the first LF or CR in {@code [from, end)}, or {@code end} when there is none */
    static int lineEnd(byte[] bytes, int from, int end) {
        int i = from;
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

    private static final long QUOTES = ONES * '"';
    private static final byte[] CHOICES = ascii("\"choices\":[{");
    private static final byte[] FINISH_REASON = ascii("\"finish_reason\":\"");
    private static final byte[] USAGE_OBJECT = ascii("\"usage\":{");
    private static final byte[] ERROR = ascii("\"error\"");

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * Which of the OpenAI stream's telling keys occur in {@code [from, end)}, as bits: 1 {@code "choices":[{},
     * 2 {@code "finish_reason":"} (a string, not null), 4 {@code "usage":{} (an object, not null), 8
     * {@code "error"}. One pass over the quotes, eight bytes at a time.
     */
    static int quotedKeys(byte[] bytes, int from, int end) {
        int keys = 0;
        int i = from;
        for (; i + 8 <= end; i += 8) {
            long hits = zeroBytes((long) LONGS.get(bytes, i) ^ QUOTES);
            while (hits != 0) {
                int at = i + (Long.numberOfTrailingZeros(hits) >>> 3);
                if (bytes[at] == '"') {
                    keys |= keyAt(bytes, at, end);
                }
                hits &= hits - 1;
            }
        }
        for (; i < end; i++) {
            if (bytes[i] == '"') {
                keys |= keyAt(bytes, i, end);
            }
        }
        return keys;
    }

    private static int keyAt(byte[] bytes, int quote, int end) {
        if (quote + 1 >= end) {
            return 0;
        }
        switch (bytes[quote + 1]) {
            case 'c':
                return startsWith(bytes, quote, end, CHOICES) ? 1 : 0;
            case 'f':
                return startsWith(bytes, quote, end, FINISH_REASON) ? 2 : 0;
            case 'u':
                return startsWith(bytes, quote, end, USAGE_OBJECT) ? 4 : 0;
            case 'e':
                return startsWith(bytes, quote, end, ERROR) ? 8 : 0;
            default:
                return 0;
        }
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
