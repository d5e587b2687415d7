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

    private static final int BUFFER = 1 << 21;

    /**
     * A thread's scanner memory, handed from one scanner to the next on the thread ({@link Recycler}): the buffer and
     * the caches of strings by content. The caches outlive a file on purpose: the files of a rank set (and a test's
     * successive traces) share their kernel, operator and shape strings, so the next file's first events find them
     * and take the same code paths as the rest of a file. Fresh caches at every file made those first events take
     * paths that the JIT had compiled as never taken, and the set's later files deoptimised the event loop
     * (measured: C2 time of an 8-file set 1.2–1.3 s against 0.6–0.7 s for one file as large).
     */
    static final class Memory {
        final byte[] buf = new byte[BUFFER];
        final String[] cacheStrings = new String[4096];
        final byte[][] cacheBytes = new byte[4096][];
        final RememberedBytes longStrings = new RememberedBytes();
        final String[] shapeCache = new String[1024];
        final RememberedBytes shapeArrays = new RememberedBytes();
    }

    private static final Recycler<Memory> MEMORY = new Recycler<>(Memory::new);

    private final InputStream in;
    protected final Memory memory = MEMORY.take();
    protected byte[] buf = memory.buf;
    protected int pos;
    protected int lim;
    protected boolean eof;
    protected final char[] chars = new char[64];

    ByteCursor(InputStream in) {
        this.in = in;
    }

    /**
     * Gives the buffer back for the next scanner of this thread ({@link Recycler}); the scanner can no longer be used.
     * Optional: a scanner that is not released is simply collected.
     */
    public void release() {
        if (buf != null) {
            MEMORY.give(memory);
        }
        buf = null;
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
     * front and reads until the buffer is filled to its current target or the input ends. Events shorter than that then never reach the end
     * of the buffer, so the end-of-buffer branches inside the scanning loops stay untaken: the JIT compiles them as
     * traps, and taking one (about once per buffer before this) deoptimised and recompiled the whole event scanner.
     */
    protected void fillAhead() throws IOException {
        if (lim - pos >= LOOKAHEAD || eof) {
            return;
        }
        refill();
    }

    /**
     * How far {@link #refill()} fills the buffer: 2 × {@value #LOOKAHEAD} at first, doubling with each refill up to
     * the buffer's size. The first refills thus come within the first megabyte, while the JIT still profiles the event
     * loop, so it compiles the refill as a rare call rather than a trap that would deoptimise the loop when first hit.
     */
    private int fillTarget = 2 * LOOKAHEAD;

    private void refill() throws IOException {
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, lim - pos);
            lim -= pos;
            pos = 0;
        }
        int target = Math.min(fillTarget, buf.length);
        fillTarget = Math.min(buf.length, fillTarget * 2);
        while (lim < target) {
            int n = in.read(buf, lim, target - lim);
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

    /**
     * Flags (high bit of the byte) quotes, backslashes, control bytes and non-ASCII bytes of {@code w}; the lowest
     * flagged byte is a true one (borrows only disturb the bytes above a flagged byte).
     */
    protected static long specials(long w) {
        return zeroByte(w ^ QUOTES) | zeroByte(w ^ BACKSLASHES) | (((w - 0x2020202020202020L) | w) & HIGHS);
    }

    protected int stringEnd() throws IOException {
        int i = 1;
        plain = true;
        while (true) {
            byte[] b16 = buf; // ensure() below may replace it
            // Sixteen, then eight bytes at a time while none is a quote, a backslash, a control or a non-ASCII byte.
            int p = pos + i;
            int limit = lim;
            while (p + 16 <= limit) {
                long s1 = specials((long) LONGS.get(b16, p));
                long s2 = specials((long) LONGS.get(b16, p + 8));
                if ((s1 | s2) != 0) {
                    p += s1 != 0 ? Long.numberOfTrailingZeros(s1) >>> 3 : 8 + (Long.numberOfTrailingZeros(s2) >>> 3);
                    limit = -1; // found
                    break;
                }
                p += 16;
            }
            if (limit >= 0) {
                while (p + 8 <= limit) {
                    long special = specials((long) LONGS.get(b16, p));
                    if (special != 0) {
                        p += Long.numberOfTrailingZeros(special) >>> 3;
                        break;
                    }
                    p += 8;
                }
            }
            i = p - pos;
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
        String known = knownLongString();
        if (known != null) {
            return known;
        }
        int end = stringEnd();
        int start = pos + 1;
        String s = plain ? cached(start, end - 1, true) : decode(start, end - 1);
        pos += end + 1;
        return s;
    }

    /** Recently seen ASCII strings by content: kernel names and pids repeat, so most reads allocate nothing. */
    protected final String[] cacheStrings = memory.cacheStrings;
    protected final byte[][] cacheBytes = memory.cacheBytes;

    /**
     * The string of {@code len} bytes at {@code start} (ISO-8859-1), from the cache when seen recently;
     * {@code plainString}: the bytes are the content of a plain JSON string (no quote, backslash, control or
     * non-ASCII byte), which alone may be remembered for {@link #knownLongString()}.
     */
    protected String cached(int start, int len, boolean plainString) {
        // Kernel names are hundreds of bytes long: hash eight bytes per step in four independent chains (one chain
        // waits on its multiply every step).
        long h = len;
        long h1 = 0;
        long h2 = 0;
        long h3 = 0;
        int i = start;
        int end = start + len;
        for (; i + 32 <= end; i += 32) {
            h = (h ^ (long) LONGS.get(buf, i)) * 0x9E3779B97F4A7C15L;
            h1 = (h1 ^ (long) LONGS.get(buf, i + 8)) * 0x9E3779B97F4A7C15L;
            h2 = (h2 ^ (long) LONGS.get(buf, i + 16)) * 0x9E3779B97F4A7C15L;
            h3 = (h3 ^ (long) LONGS.get(buf, i + 24)) * 0x9E3779B97F4A7C15L;
        }
        for (; i + 8 <= end; i += 8) {
            h = (h ^ (long) LONGS.get(buf, i)) * 0x9E3779B97F4A7C15L;
        }
        for (; i < end; i++) {
            h = (h ^ buf[i]) * 0x9E3779B97F4A7C15L;
        }
        h = (h ^ Long.rotateLeft(h1, 16) ^ Long.rotateLeft(h2, 32) ^ Long.rotateLeft(h3, 48)) * 0x9E3779B97F4A7C15L;
        int slot = (int) (h >>> 52) & (cacheStrings.length - 1);
        byte[] known = cacheBytes[slot];
        if (known != null && known.length == len && Arrays.equals(known, 0, len, buf, start, start + len)) {
            return cacheStrings[slot];
        }
        String s = new String(buf, start, len, StandardCharsets.ISO_8859_1);
        if (len <= 4096) {
            byte[] copy = Arrays.copyOfRange(buf, start, start + len);
            cacheBytes[slot] = copy;
            cacheStrings[slot] = s;
            if (plainString && len >= PREFIX) {
                longStrings.remember(RememberedBytes.set(buf, start, PREFIX / 8), copy, s);
            }
        }
        return s;
    }

    /*
     * Long plain strings (kernel names: hundreds of bytes, a few dozen distinct ones) by their first PREFIX bytes:
     * a string at pos that equals a remembered one byte for byte and is followed by a quote IS that string (the
     * remembered bytes hold no quote, backslash, control or non-ASCII byte), so it is recognised by one vectorised
     * comparison instead of a scan for its end and a hash of all its bytes.
     */
    private static final int PREFIX = 32;
    private final RememberedBytes longStrings = memory.longStrings; // their bytes are shared with the cache above

    /** The remembered string at pos (its opening quote), moving pos past it; null when there is none. */
    private String knownLongString() {
        int start = pos + 1;
        if (start + PREFIX > lim) {
            return null;
        }
        byte[] b = buf;
        if ((specials((long) LONGS.get(b, start)) | specials((long) LONGS.get(b, start + 8))
                | specials((long) LONGS.get(b, start + 16)) | specials((long) LONGS.get(b, start + 24))) != 0) {
            return null; // shorter than PREFIX, or not plain
        }
        int slot = longStrings.find(RememberedBytes.set(b, start, PREFIX / 8), b, start, lim, '"');
        if (slot < 0) {
            return null;
        }
        pos = start + longStrings.length(slot) + 1;
        return longStrings.string(slot);
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
            int len = plainNumberLength();
            if (len > 0) {
                pos += len;
            } else {
                scalarEnd();
                pos += scalarLength;
            }
        }
    }

    /**
     * The length of the number at {@code pos} when it has the common form {@code -?(0|[1-9][0-9]*)(.[0-9]+)?} and the
     * buffer holds the byte after it, a comma, a closing bracket or JSON whitespace; -1 otherwise. Where it answers,
     * {@link #scalarEnd()} would end the scalar at the same byte and {@link #isJsonScalar} accept it, so the callers
     * take it in one pass over the bytes instead of three (find the end, validate, convert); anything else (an
     * exponent, {@code null}, a malformed or cut value) goes the general way.
     */
    protected final int plainNumberLength() {
        byte[] b = buf;
        int end = lim;
        int p = pos;
        if (p < end && b[p] == '-') {
            p++;
        }
        int digits = p;
        while (p < end && b[p] >= '0' && b[p] <= '9') {
            p++;
        }
        if (p == digits || (p - digits > 1 && b[digits] == '0')) {
            return -1;
        }
        if (p < end && b[p] == '.') {
            int fraction = ++p;
            while (p < end && b[p] >= '0' && b[p] <= '9') {
                p++;
            }
            if (p == fraction) {
                return -1;
            }
        }
        return p < end && endsScalar(b[p]) ? p - pos : -1;
    }

    /** A byte that may follow a JSON scalar in a well-formed document: a comma, '}' or ']', or whitespace. */
    protected static boolean endsScalar(byte c) {
        return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t';
    }

    /** High bit set in exactly the bytes of {@code x} that are zero (no borrows between bytes). */
    protected static long zeroBytes(long x) {
        return ~(((x & 0x7F7F7F7F7F7F7F7FL) + 0x7F7F7F7F7F7F7F7FL) | x) & HIGHS;
    }

    /**
     * Skips the rest of the current object (its opening brace already consumed) through its closing brace, without
     * checking the syntax of what it skips (strings are still delimited correctly, escapes included). Eight bytes at
     * a time: every quote, backslash and bracket of a word is flagged exactly and handled in order, so strings cost
     * no separate scan.
     */
    protected void skipRestOfObject() throws IOException {
        int depth = 1;
        boolean inString = false;
        boolean escaped = false; // the byte at p is escaped (a backslash ended the previous word)
        int p = pos;
        while (true) {
            if (!escaped && p + 8 <= lim) {
                byte[] b = buf;
                long w = (long) LONGS.get(b, p);
                long folded = w | 0x2020202020202020L; // '[' -> '{', ']' -> '}'
                long m = zeroBytes(w ^ QUOTES) | zeroBytes(w ^ BACKSLASHES)
                        | zeroBytes(folded ^ 0x7B7B7B7B7B7B7B7BL) | zeroBytes(folded ^ 0x7D7D7D7D7D7D7D7DL);
                while (m != 0) {
                    int k = Long.numberOfTrailingZeros(m) >>> 3;
                    m &= m - 1;
                    byte c = b[p + k];
                    if (c == '"') {
                        inString = !inString;
                    } else if (inString) {
                        if (c == '\\') {
                            if (k == 7) {
                                escaped = true;
                            } else {
                                m &= ~(0xFFL << ((k + 1) << 3)); // the escaped byte is not special
                            }
                        }
                    } else if (c == '{' || c == '[') {
                        depth++;
                    } else if (c == '}' || c == ']') {
                        if (--depth == 0) {
                            pos = p + k + 1;
                            return;
                        }
                    }
                }
                p += 8;
                continue;
            }
            pos = p;
            if (pos >= lim && !ensure(0)) {
                throw new FastEventScanner.Bail("end of input inside an object");
            }
            byte c = buf[pos];
            if (escaped) {
                escaped = false;
            } else if (c == '"') {
                inString = !inString;
            } else if (inString) {
                escaped = c == '\\';
            } else if (c == '{' || c == '[') {
                depth++;
            } else if ((c == '}' || c == ']') && --depth == 0) {
                pos++;
                return;
            }
            p = pos + 1;
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
        if (!isJsonScalar(buf, pos, i)) { // inf, NaN, 12"3, 1.2.3, …: the tolerant path decides
            throw new FastEventScanner.Bail("not a JSON value: "
                    + new String(buf, pos, Math.min(i, 40), StandardCharsets.ISO_8859_1));
        }
        scalarLength = i;
    }

    /**
     * RFC 8259 §3 and §6: {@code true}, {@code false}, {@code null} or {@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?},
     * exactly, over {@code len} bytes.
     */
    static boolean isJsonScalar(byte[] b, int start, int len) {
        int end = start + len;
        byte c = b[start];
        if (c == 't') {
            return len == 4 && b[start + 1] == 'r' && b[start + 2] == 'u' && b[start + 3] == 'e';
        }
        if (c == 'f') {
            return len == 5 && b[start + 1] == 'a' && b[start + 2] == 'l' && b[start + 3] == 's' && b[start + 4] == 'e';
        }
        if (c == 'n') {
            return len == 4 && b[start + 1] == 'u' && b[start + 2] == 'l' && b[start + 3] == 'l';
        }
        int i = c == '-' ? start + 1 : start;
        if (i == end) {
            return false;
        }
        if (b[i] == '0') {
            i++;
        } else {
            int digits = i;
            while (i < end && b[i] >= '0' && b[i] <= '9') {
                i++;
            }
            if (i == digits) {
                return false;
            }
        }
        if (i < end && b[i] == '.') {
            int digits = ++i;
            while (i < end && b[i] >= '0' && b[i] <= '9') {
                i++;
            }
            if (i == digits) {
                return false;
            }
        }
        if (i < end && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < end && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            int digits = i;
            while (i < end && b[i] >= '0' && b[i] <= '9') {
                i++;
            }
            if (i == digits) {
                return false;
            }
        }
        return i == end;
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
        int len = plainNumberLength();
        if (len > 0) { // a numeric pid or tid
            String s = cached(pos, len, false);
            pos += len;
            return s;
        }
        scalarEnd();
        String s = b == 'n' ? null : cached(pos, scalarLength, false); // pids repeat: no String per event
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
            long quick = quickMicros();
            if (quick != RawEvent.NONE) {
                return quick;
            }
            start = pos;
            len = plainNumberLength();
            if (len < 0) {
                scalarEnd();
                len = scalarLength;
                if (b == 'n') {
                    pos += len;
                    return RawEvent.NONE; // null: as if absent
                }
            }
            pos += len;
        }
        long fast = plainMicros(start, len);
        if (fast != RawEvent.NONE) {
            return fast;
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

    /**
     * {@link #micros} of the usual number in one pass, eight digits at a time: {@code -?(0|[1-9]d{0,17})(.d+)?}
     * followed by a delimiter ({@link #endsScalar}), with its whole µs at most {@code MAX_WHOLE_MICROS}; pos moves past
     * it. {@link RawEvent#NONE} and pos unchanged for anything else, which {@link #micros} then reads as before
     * ({@link #plainNumberLength}, {@link #plainMicros}), so the value is the same either way. Kineto's {@code ts} is 16
     * digits of epoch µs and {@code dur} a few digits, and before this they were scanned twice, byte by byte: a third
     * of the scan of a training trace's events ({@code bench/README.md}, issue 27 sixth round).
     */
    private long quickMicros() {
        byte[] b = buf;
        int end = lim;
        int p = pos;
        boolean negative = b[p] == '-';
        if (negative) {
            p++;
        }
        int first = p;
        long whole = 0;
        while (true) {
            if (p + 8 > end) {
                return RawEvent.NONE; // near the buffer's end: the byte-wise path (it may refill)
            }
            long w = (long) LONGS.get(b, p);
            long other = nonDigits(w);
            if (other == 0) {
                whole = whole * 100_000_000L + eightDigits(w);
                p += 8;
                if (p - first > 16) {
                    return RawEvent.NONE; // at least 17 digits: the byte-wise path checks the range
                }
                continue;
            }
            int k = Long.numberOfTrailingZeros(other) >>> 3;
            if (k > 0) {
                whole = whole * POWERS_OF_TEN[k] + leadingDigits(w, k);
                p += k;
            }
            break;
        }
        int digits = p - first;
        if (digits == 0 || digits > 18 || (digits > 1 && b[first] == '0') || whole > MAX_WHOLE_MICROS) {
            return RawEvent.NONE;
        }
        long fraction = 0;
        if (b[p] == '.') {
            int f = ++p;
            if (p + 8 > end) {
                return RawEvent.NONE;
            }
            long w = (long) LONGS.get(b, p);
            long other = nonDigits(w);
            if (other == 0) {
                return RawEvent.NONE; // eight or more fraction digits: the byte-wise path rounds them
            }
            int k = Long.numberOfTrailingZeros(other) >>> 3;
            if (k == 0) {
                return RawEvent.NONE; // "1." is not a number
            }
            // three digits of ns, the fourth rounds half-up (as plainMicros)
            long value = leadingDigits(w, k);
            if (k <= 3) {
                fraction = value * POWERS_OF_TEN[3 - k];
            } else {
                long scale = POWERS_OF_TEN[k - 3];
                fraction = value / scale;
                if ((value / POWERS_OF_TEN[k - 4]) % 10 >= 5) {
                    fraction++;
                }
            }
            p = f + k;
        }
        if (p >= end || !endsScalar(b[p])) {
            return RawEvent.NONE;
        }
        pos = p;
        long ns = whole * 1000 + fraction;
        return negative ? -ns : ns;
    }

    private static final long[] POWERS_OF_TEN = {1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L,
        100_000_000L};

    /**
     * Flags (high bit of the byte) the bytes of {@code w} that are not ASCII digits: with x = byte ^ '0', a digit is
     * x &lt; 10; (x &amp; 0x7F) + 0x76 carries into the high bit exactly for x &ge; 10 below 0x80, never into the next
     * byte, and x's own high bit flags the rest.
     */
    static long nonDigits(long w) {
        long x = w ^ 0x3030303030303030L;
        return (((x & 0x7F7F7F7F7F7F7F7FL) + 0x7676767676767676L) | x) & HIGHS;
    }

    /**
     * The value of eight ASCII digits read as a little-endian word (first digit in the lowest byte): pairs, then
     * quads, then the whole, each step a multiply-add of neighbouring lanes that cannot carry across lanes.
     */
    static long eightDigits(long w) {
        long v = w - 0x3030303030303030L;
        v = (v * 10 + (v >>> 8)) & 0x00FF00FF00FF00FFL;
        v = (v * 100 + (v >>> 16)) & 0x0000FFFF0000FFFFL;
        return (v * 10_000 + (v >>> 32)) & 0xFFFFFFFFL;
    }

    /** The value of the first {@code k} (1 to 7) bytes of {@code w}, all ASCII digits: '0's pushed in front. */
    static long leadingDigits(long w, int k) {
        int shift = (8 - k) << 3;
        return eightDigits((w << shift) | (0x3030303030303030L >>> (k << 3)));
    }

    /**
     * {@link MicrosToNanos#parse} of the common form {@code -?d{1,18}(.d+)?} (whole µs below 2^63 / 1000) straight from
     * the bytes, or
     * {@link RawEvent#NONE} for anything else (which then takes {@link MicrosToNanos}). Same result: three fraction
     * digits, the fourth rounds half-up (away from zero).
     */
    private long plainMicros(int start, int len) {
        byte[] b = buf;
        int i = start;
        int end = start + len;
        boolean negative = i < end && b[i] == '-';
        if (negative) {
            i++;
        }
        long whole = 0;
        int digitsStart = i;
        while (i < end) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                break;
            }
            whole = whole * 10 + d;
            i++;
        }
        int wholeDigits = i - digitsStart;
        // up to 18 digits fit a long; epoch µs (16 digits) are the usual Kineto timestamps
        if (wholeDigits == 0 || wholeDigits > 18 || whole > MAX_WHOLE_MICROS) {
            return RawEvent.NONE;
        }
        long fraction = 0;
        if (i < end) {
            if (b[i] != '.' || i + 1 == end) {
                return b[i] == 'e' || b[i] == 'E' ? exponentMicros(start, len) : RawEvent.NONE;
            }
            i++;
            int k = 0;
            boolean roundUp = false;
            for (; i < end; i++, k++) {
                int d = b[i] - '0';
                if (d < 0 || d > 9) {
                    return b[i] == 'e' || b[i] == 'E' ? exponentMicros(start, len) : RawEvent.NONE;
                }
                if (k < 3) {
                    fraction = fraction * 10 + d;
                } else if (k == 3) {
                    roundUp = d >= 5;
                }
            }
            for (; k < 3; k++) {
                fraction *= 10;
            }
            if (roundUp) {
                fraction++;
            }
        }
        long ns = whole * 1000 + fraction;
        return negative ? -ns : ns;
    }

    /** The largest whole µs whose ns value (plus a fraction of up to 999 ns) fits a long. */
    private static final long MAX_WHOLE_MICROS = (Long.MAX_VALUE - 999) / 1000;

    private static final long[] POW10 = new long[19];

    static {
        POW10[0] = 1;
        for (int k = 1; k < POW10.length; k++) {
            POW10[k] = POW10[k - 1] * 10;
        }
    }

    /**
     * {@link MicrosToNanos#parse} of {@code -?d+(.d+)?[eE][+-]?d+} with at most 18 mantissa digits (as some JSON
     * writers print doubles, e.g. {@code 4.909914216204635E12}), exactly, in long arithmetic: the mantissa times a
     * power of ten, or divided by one and rounded half-up (away from zero), as the BigDecimal path does. Anything
     * else, or a result that does not fit, gives {@link RawEvent#NONE} (the caller then takes MicrosToNanos).
     */
    private long exponentMicros(int start, int len) {
        byte[] b = buf;
        int i = start;
        int end = start + len;
        boolean negative = b[i] == '-';
        if (negative) {
            i++;
        }
        long mantissa = 0;
        int digits = 0;
        int fractionDigits = 0;
        boolean inFraction = false;
        for (; i < end; i++) {
            byte c = b[i];
            if (c >= '0' && c <= '9') {
                if (++digits > 18) {
                    return RawEvent.NONE;
                }
                mantissa = mantissa * 10 + (c - '0');
                if (inFraction) {
                    fractionDigits++;
                }
            } else if (c == '.' && !inFraction) {
                inFraction = true;
            } else {
                break;
            }
        }
        if (digits == 0 || i == end || (b[i] != 'e' && b[i] != 'E')) {
            return RawEvent.NONE;
        }
        i++;
        boolean negativeExponent = i < end && b[i] == '-';
        if (i < end && (b[i] == '-' || b[i] == '+')) {
            i++;
        }
        if (i == end || end - i > 3) {
            return RawEvent.NONE;
        }
        int exponent = 0;
        for (; i < end; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return RawEvent.NONE;
            }
            exponent = exponent * 10 + d;
        }
        int shift = (negativeExponent ? -exponent : exponent) - fractionDigits + 3; // to ns
        long ns;
        if (shift >= 0) {
            if (shift > 18 || mantissa > Long.MAX_VALUE / POW10[shift]) {
                return RawEvent.NONE;
            }
            ns = mantissa * POW10[shift];
        } else {
            if (-shift > 18) {
                return RawEvent.NONE;
            }
            long p = POW10[-shift];
            ns = mantissa / p;
            if ((mantissa % p) * 2 >= p) {
                ns++;
            }
        }
        return negative ? -ns : ns;
    }

    /** A 64-bit integer value, or {@link RawEvent#NONE} for anything else (skipped). */
    protected long integer() throws IOException {
        int b = skipWs();
        if (b != '-' && (b < '0' || b > '9')) {
            skipValue();
            return RawEvent.NONE;
        }
        // One pass for the usual value (an id, a stream): up to 18 digits then a delimiter; else the general way.
        byte[] bytes = buf;
        int limit = lim;
        int p = b == '-' ? pos + 1 : pos;
        int first = p;
        long value = 0;
        while (p < limit) {
            int d = bytes[p] - '0';
            if (d < 0 || d > 9) {
                break;
            }
            value = value * 10 + d;
            p++;
        }
        int count = p - first;
        if (count > 0 && count <= 18 && (count == 1 || bytes[first] != '0') && p < limit && endsScalar(bytes[p])) {
            pos = p;
            return b == '-' ? -value : value;
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
