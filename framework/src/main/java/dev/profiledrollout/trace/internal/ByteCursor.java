package dev.profiledrollout.trace.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The byte-level primitives of {@link FastEventScanner}: a refillable buffer over an {@link InputStream}, and
 * scanning, skipping and decoding of JSON strings, scalars and nested values. Every irregularity throws
 * {@link FastEventScanner.Bail}. Not thread-safe.
 */
abstract class ByteCursor {

    private final InputStream in;
    protected byte[] buf = new byte[1 << 21];
    protected int pos;
    protected int lim;
    protected boolean eof;
    protected final char[] chars = new char[64];

    ByteCursor(InputStream in) {
        this.in = in;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    // ---- buffer -------------------------------------------------------------------------------------------------

    /** Makes byte {@code pos + ahead} available if the input has it; returns false at end of input. */
    protected boolean ensure(int ahead) throws IOException {
        while (pos + ahead >= lim) {
            if (eof) {
                return false;
            }
            if (pos > 0) {
                System.arraycopy(buf, pos, buf, 0, lim - pos);
                lim -= pos;
                pos = 0;
            }
            if (lim == buf.length) {
                buf = Arrays.copyOf(buf, buf.length * 2);
            }
            int n = in.read(buf, lim, buf.length - lim);
            if (n < 0) {
                eof = true;
            } else {
                lim += n;
            }
        }
        return true;
    }

    /** Bytes kept available ahead of each event start (see {@link #fillAhead()}). */
    protected static final int LOOKAHEAD = 1 << 16;

    /**
     * Called before each event: when fewer than {@value #LOOKAHEAD} bytes are buffered ahead, moves the rest to the
     * front and reads until the buffer is full or the input ends. Events shorter than that then never reach the end
     * of the buffer, so the end-of-buffer branches inside the scanning loops stay untaken: the JIT compiles them as
     * traps, and taking one (about once per buffer before this) deoptimised and recompiled the whole event scanner.
     */
    protected void fillAhead() throws IOException {
        if (lim - pos >= LOOKAHEAD || eof) {
            return;
        }
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, lim - pos);
            lim -= pos;
            pos = 0;
        }
        while (lim < buf.length) {
            int n = in.read(buf, lim, buf.length - lim);
            if (n < 0) {
                eof = true;
                return;
            }
            lim += n;
        }
    }

    protected int skipWs() throws IOException {
        while (true) {
            if (pos >= lim && !ensure(0)) {
                return -1;
            }
            byte b = buf[pos];
            if (b == ' ' || b == '\n' || b == '\r' || b == '\t') {
                pos++;
            } else {
                return b;
            }
        }
    }

    protected void expect(char c) throws IOException {
        if (skipWs() != c) {
            throw new FastEventScanner.Bail("expected '" + c + "'");
        }
        pos++;
    }

    /** After a member: true when another follows (consumed ','), false at the closing bracket (consumed). */
    protected boolean more(char close) throws IOException {
        int b = skipWs();
        if (b == ',') {
            pos++;
            return true;
        }
        if (b == close) {
            pos++;
            return false;
        }
        throw new FastEventScanner.Bail("expected ',' or '" + close + "'");
    }

    // ---- strings ------------------------------------------------------------------------------------------------

    /**
     * Makes the string starting at {@code pos} (its opening quote) contiguous; returns the index of its closing quote
     * relative to {@code pos}, and whether it has escapes or non-ASCII bytes in {@link #plain}.
     */
    protected boolean plain;

    protected static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    protected static final long ONES = 0x0101010101010101L;
    protected static final long HIGHS = 0x8080808080808080L;
    protected static final long QUOTES = 0x2222222222222222L;
    protected static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;

    /** Whether any byte of {@code x} is zero (SWAR). */
    protected static long zeroByte(long x) {
        return (x - ONES) & ~x & HIGHS;
    }

    protected int stringEnd() throws IOException {
        int i = 1;
        plain = true;
        while (true) {
            // Eight bytes at a time while none is a quote, a backslash, a control or a non-ASCII byte.
            while (pos + i + 8 <= lim) {
                long w = (long) LONGS.get(buf, pos + i);
                long special = zeroByte(w ^ QUOTES) | zeroByte(w ^ BACKSLASHES) | (w & HIGHS)
                        | zeroByte(w & 0xE0E0E0E0E0E0E0E0L);
                if (special != 0) {
                    // the lowest flagged byte is a true special byte (borrows only disturb the bytes above it)
                    i += Long.numberOfTrailingZeros(special) >>> 3;
                    break;
                }
                i += 8;
            }
            if (pos + i >= lim && !ensure(i)) {
                throw new FastEventScanner.Bail("end of input inside a string");
            }
            byte b = buf[pos + i];
            if (b == '"') {
                return i;
            }
            if (b == '\\') {
                plain = false;
                i += 2;
                continue;
            }
            if (b < 0x20) {
                if (b >= 0) {
                    throw new FastEventScanner.Bail("control character in a string");
                }
                plain = false; // non-ASCII
            }
            i++;
        }
    }

    protected void skipString() throws IOException {
        int end = stringEnd();
        pos += end + 1;
    }

    protected String readString() throws IOException {
        int end = stringEnd();
        int start = pos + 1;
        String s = plain ? cached(start, end - 1) : decode(start, end - 1);
        pos += end + 1;
        return s;
    }

    /** Recently seen ASCII strings by content: kernel names and pids repeat, so most reads allocate nothing. */
    protected final String[] cacheStrings = new String[4096];
    protected final byte[][] cacheBytes = new byte[4096][];

    protected String cached(int start, int len) {
        // Eight bytes per step: kernel names are hundreds of bytes long, and a byte-wise hash was a visible cost.
        long h = len;
        int i = start;
        int end = start + len;
        for (; i + 8 <= end; i += 8) {
            h = (h ^ (long) LONGS.get(buf, i)) * 0x9E3779B97F4A7C15L;
        }
        for (; i < end; i++) {
            h = (h ^ buf[i]) * 0x9E3779B97F4A7C15L;
        }
        int slot = (int) (h >>> 52) & (cacheStrings.length - 1);
        byte[] known = cacheBytes[slot];
        if (known != null && known.length == len && Arrays.equals(known, 0, len, buf, start, start + len)) {
            return cacheStrings[slot];
        }
        String s = new String(buf, start, len, StandardCharsets.ISO_8859_1);
        if (len <= 4096) {
            cacheBytes[slot] = Arrays.copyOfRange(buf, start, start + len);
            cacheStrings[slot] = s;
        }
        return s;
    }

    protected String decode(int start, int len) throws IOException {
        byte[] raw = new byte[len];
        int n = 0;
        for (int i = start; i < start + len; i++) {
            byte b = buf[i];
            if (b != '\\') {
                raw[n++] = b;
                continue;
            }
            byte e = buf[++i];
            switch (e) {
                case '"', '\\', '/' -> raw[n++] = e;
                case 'b' -> raw[n++] = '\b';
                case 'f' -> raw[n++] = '\f';
                case 'n' -> raw[n++] = '\n';
                case 'r' -> raw[n++] = '\r';
                case 't' -> raw[n++] = '\t';
                default -> throw new FastEventScanner.Bail("escape \\" + (char) e + " (\\u escapes take the tolerant path)");
            }
        }
        try {
            CharBuffer cb = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(raw, 0, n));
            return cb.toString();
        } catch (CharacterCodingException invalid) {
            throw new FastEventScanner.Bail("invalid UTF-8");
        }
    }

    /** Reads a field name and the ':' after it; returns its length, the name bytes at {@link #keyStart}. */
    protected int keyStart;

    protected int key() throws IOException {
        if (skipWs() != '"') {
            throw new FastEventScanner.Bail("expected a field name");
        }
        int end = stringEnd();
        if (!plain) {
            throw new FastEventScanner.Bail("escapes in a field name");
        }
        keyStart = pos + 1;
        int len = end - 1;
        // keep the name readable: compare before anything else may compact the buffer
        pos += end + 1;
        return len;
    }

    protected boolean keyIs(int len, byte[] name) {
        if (len != name.length) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            if (buf[keyStart + i] != name[i]) {
                return false;
            }
        }
        return true;
    }

    protected boolean keyIs(int len, String name) {
        if (len != name.length()) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            if (buf[keyStart + i] != name.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    // ---- values -------------------------------------------------------------------------------------------------

    protected void skipValue() throws IOException {
        int b = skipWs();
        if (b == '"') {
            skipString();
        } else if (b == '{' || b == '[') {
            int depth = 0;
            while (true) {
                if (pos >= lim && !ensure(0)) {
                    throw new FastEventScanner.Bail("end of input inside a value");
                }
                byte c = buf[pos];
                if (c == '"') {
                    skipString();
                    continue;
                }
                pos++;
                if (c == '{' || c == '[') {
                    depth++;
                } else if ((c == '}' || c == ']') && --depth == 0) {
                    return;
                }
            }
        } else {
            scalarEnd();
            pos += scalarLength;
        }
    }

    /**
     * Skips the rest of the current object (its opening brace already consumed) through its closing brace, without
     * checking the syntax of what it skips (strings are still delimited correctly).
     */
    protected void skipRestOfObject() throws IOException {
        int depth = 1;
        while (true) {
            // Eight bytes at a time past everything but quotes and brackets ('[' | 0x20 == '{', ']' | 0x20 == '}').
            while (pos + 8 <= lim) {
                long w = (long) LONGS.get(buf, pos);
                long folded = w | 0x2020202020202020L;
                long special = zeroByte(w ^ QUOTES) | zeroByte(folded ^ 0x7B7B7B7B7B7B7B7BL)
                        | zeroByte(folded ^ 0x7D7D7D7D7D7D7D7DL);
                if (special != 0) {
                    // the lowest flagged byte is a true match (borrows only disturb the bytes above it)
                    pos += Long.numberOfTrailingZeros(special) >>> 3;
                    break;
                }
                pos += 8;
            }
            if (pos >= lim && !ensure(0)) {
                throw new FastEventScanner.Bail("end of input inside an object");
            }
            byte c = buf[pos];
            if (c == '"') {
                skipString();
                continue;
            }
            pos++;
            if (c == '{' || c == '[') {
                depth++;
            } else if ((c == '}' || c == ']') && --depth == 0) {
                return;
            }
        }
    }

    /** Length of the unquoted scalar at {@code pos} in {@link #scalarLength} (made contiguous). */
    protected int scalarLength;

    protected void scalarEnd() throws IOException {
        int i = 0;
        while (true) {
            int end = lim - pos;
            while (i < end) {
                byte c = buf[pos + i];
                if (c == ',' || c == '}' || c == ']' || c <= ' ') {
                    break;
                }
                i++;
            }
            if (i < end || !ensure(i)) {
                break;
            }
        }
        if (i == 0) {
            throw new FastEventScanner.Bail("missing value");
        }
        byte c0 = buf[pos];
        if (!(c0 == '-' || (c0 >= '0' && c0 <= '9') || c0 == 't' || c0 == 'f' || c0 == 'n')) {
            throw new FastEventScanner.Bail("not a JSON value: " + (char) c0); // inf, NaN, …
        }
        if (c0 == 'n' && !(i == 4 && buf[pos + 1] == 'u' && buf[pos + 2] == 'l' && buf[pos + 3] == 'l')) {
            throw new FastEventScanner.Bail("not a JSON value (nan?)");
        }
        scalarLength = i;
    }

    protected boolean isNull() throws IOException {
        return skipWs() == 'n';
    }

    /** The text of a string or scalar value (null for JSON null). */
    protected String text() throws IOException {
        int b = skipWs();
        if (b == '"') {
            return readString();
        }
        scalarEnd();
        String s = b == 'n' ? null : cached(pos, scalarLength); // pids repeat: no String per event
        pos += scalarLength;
        return s;
    }

    /** ns from a number or numeric string in µs; sets badTime for non-numbers. */
    protected long micros(RawEvent e) throws IOException {
        int b = skipWs();
        int start;
        int len;
        if (b == '"') {
            int end = stringEnd();
            start = pos + 1;
            len = end - 1;
            pos += end + 1;
        } else {
            scalarEnd();
            start = pos;
            len = scalarLength;
            pos += len;
            if (b == 'n') {
                return RawEvent.NONE; // null: as if absent
            }
        }
        if (len > chars.length) {
            e.badTime = true;
            return RawEvent.NONE;
        }
        for (int i = 0; i < len; i++) {
            chars[i] = (char) (buf[start + i] & 0xff);
        }
        try {
            return MicrosToNanos.parse(chars, 0, len);
        } catch (NumberFormatException notFinite) {
            e.badTime = true;
            return RawEvent.NONE;
        }
    }

    /** A 64-bit integer value, or {@link RawEvent#NONE} for anything else (skipped). */
    protected long integer() throws IOException {
        int b = skipWs();
        if (b != '-' && (b < '0' || b > '9')) {
            skipValue();
            return RawEvent.NONE;
        }
        scalarEnd();
        int end = pos + scalarLength;
        int i = pos;
        boolean negative = buf[i] == '-';
        if (negative) {
            i++;
        }
        long v = 0;
        int digits = 0;
        for (; i < end; i++) {
            byte c = buf[i];
            if (c < '0' || c > '9') {
                pos = end;
                return RawEvent.NONE; // fraction or exponent: not an integer
            }
            if (digits >= 18) {
                pos = end;
                try {
                    return Long.parseLong(new String(buf, end - scalarLength, scalarLength, StandardCharsets.ISO_8859_1));
                } catch (NumberFormatException wider) {
                    return RawEvent.NONE; // beyond 64 bits, as the Jackson path
                }
            }
            v = v * 10 + (c - '0');
            digits++;
        }
        pos = end;
        return negative ? -v : v;
    }

}
