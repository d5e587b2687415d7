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
 * A byte-level scanner for well-formed Kineto trace JSON that feeds the same {@link EventParser.Handler} as
 * {@link EventParser}, several times faster: it compares field names as bytes, skips unneeded values without
 * tokenising them and decodes only the strings the analyses use (names, pids of GPU events), with the same "wanted"
 * rules as {@link EventParser}.
 *
 * <p>It handles only what strict JSON allows. On anything else — bare {@code inf}/{@code NaN}, invalid UTF-8,
 * unescaped quotes, a truncated or damaged file, escapes inside field names, exponents in {@code ts}/{@code dur} that
 * the exact parser would take — it throws {@link Bail}, and the caller re-reads the file with the tolerant Jackson
 * path, which defines the results for such files. Not thread-safe.
 */
public final class FastEventScanner {

    /** Thrown when the input needs the tolerant path. No stack trace. */
    public static final class Bail extends IOException {
        Bail(String why) {
            super(why);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    private static final byte[] K_TRACE_EVENTS = bytes("traceEvents");
    private static final byte[] K_BASE_TIME = bytes("baseTimeNanoseconds");
    private static final byte[] K_DISTRIBUTED = bytes("distributedInfo");
    private static final byte[] K_RANK = bytes("rank");
    private static final byte[] K_CORRELATION = bytes("correlation");
    private static final byte[] K_EXTERNAL_ID = bytes("External id");
    private static final byte[] K_INPUT_DIMS = bytes("Input Dims");

    private final InputStream in;
    private byte[] buf = new byte[1 << 20];
    private int pos;
    private int lim;
    private boolean eof;
    private final RawEvent event = new RawEvent();
    private final StringBuilder dims = new StringBuilder();
    private final char[] chars = new char[64];

    private final boolean pidOfEveryEvent;

    /** A scanner that reads {@code pid} of GPU events only. */
    public FastEventScanner(InputStream in) {
        this(in, false);
    }

    /** @param pidOfEveryEvent read {@code pid} of CPU events too (to split SGLang merged traces by rank) */
    public FastEventScanner(InputStream in, boolean pidOfEveryEvent) {
        this.in = in;
        this.pidOfEveryEvent = pidOfEveryEvent;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Scans the whole document. */
    public void scan(EventParser.Handler handler) throws IOException {
        int first = skipWs();
        if (first == '[') {
            pos++;
            handler.eventsStarted();
            events(handler);
        } else if (first == '{') {
            pos++;
            topLevel(handler);
        } else {
            throw new Bail("not an object or array");
        }
        if (skipWs() != -1) {
            throw new Bail("content after the document");
        }
    }

    // ---- buffer -------------------------------------------------------------------------------------------------

    /** Makes byte {@code pos + ahead} available if the input has it; returns false at end of input. */
    private boolean ensure(int ahead) throws IOException {
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

    private int skipWs() throws IOException {
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

    private void expect(char c) throws IOException {
        if (skipWs() != c) {
            throw new Bail("expected '" + c + "'");
        }
        pos++;
    }

    /** After a member: true when another follows (consumed ','), false at the closing bracket (consumed). */
    private boolean more(char close) throws IOException {
        int b = skipWs();
        if (b == ',') {
            pos++;
            return true;
        }
        if (b == close) {
            pos++;
            return false;
        }
        throw new Bail("expected ',' or '" + close + "'");
    }

    // ---- strings ------------------------------------------------------------------------------------------------

    /**
     * Makes the string starting at {@code pos} (its opening quote) contiguous; returns the index of its closing quote
     * relative to {@code pos}, and whether it has escapes or non-ASCII bytes in {@link #plain}.
     */
    private boolean plain;

    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;

    /** Whether any byte of {@code x} is zero (SWAR). */
    private static long zeroByte(long x) {
        return (x - ONES) & ~x & HIGHS;
    }

    private int stringEnd() throws IOException {
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
                throw new Bail("end of input inside a string");
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
                    throw new Bail("control character in a string");
                }
                plain = false; // non-ASCII
            }
            i++;
        }
    }

    private void skipString() throws IOException {
        int end = stringEnd();
        pos += end + 1;
    }

    private String readString() throws IOException {
        int end = stringEnd();
        int start = pos + 1;
        String s = plain ? cached(start, end - 1) : decode(start, end - 1);
        pos += end + 1;
        return s;
    }

    /** Recently seen ASCII strings by content: kernel names and pids repeat, so most reads allocate nothing. */
    private final String[] cacheStrings = new String[4096];
    private final byte[][] cacheBytes = new byte[4096][];

    private String cached(int start, int len) {
        int h = 1;
        for (int i = start; i < start + len; i++) {
            h = 31 * h + buf[i];
        }
        int slot = (h ^ (h >>> 16)) & (cacheStrings.length - 1);
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

    private String decode(int start, int len) throws IOException {
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
                default -> throw new Bail("escape \\" + (char) e + " (\\u escapes take the tolerant path)");
            }
        }
        try {
            CharBuffer cb = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(raw, 0, n));
            return cb.toString();
        } catch (CharacterCodingException invalid) {
            throw new Bail("invalid UTF-8");
        }
    }

    /** Reads a field name and the ':' after it; returns its length, the name bytes at {@link #keyStart}. */
    private int keyStart;

    private int key() throws IOException {
        if (skipWs() != '"') {
            throw new Bail("expected a field name");
        }
        int end = stringEnd();
        if (!plain) {
            throw new Bail("escapes in a field name");
        }
        keyStart = pos + 1;
        int len = end - 1;
        // keep the name readable: compare before anything else may compact the buffer
        pos += end + 1;
        return len;
    }

    private boolean keyIs(int len, byte[] name) {
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

    private boolean keyIs(int len, String name) {
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

    private void skipValue() throws IOException {
        int b = skipWs();
        if (b == '"') {
            skipString();
        } else if (b == '{' || b == '[') {
            int depth = 0;
            while (true) {
                if (pos >= lim && !ensure(0)) {
                    throw new Bail("end of input inside a value");
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

    /** Length of the unquoted scalar at {@code pos} in {@link #scalarLength} (made contiguous). */
    private int scalarLength;

    private void scalarEnd() throws IOException {
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
            throw new Bail("missing value");
        }
        byte c0 = buf[pos];
        if (!(c0 == '-' || (c0 >= '0' && c0 <= '9') || c0 == 't' || c0 == 'f' || c0 == 'n')) {
            throw new Bail("not a JSON value: " + (char) c0); // inf, NaN, …
        }
        if (c0 == 'n' && !(i == 4 && buf[pos + 1] == 'u' && buf[pos + 2] == 'l' && buf[pos + 3] == 'l')) {
            throw new Bail("not a JSON value (nan?)");
        }
        scalarLength = i;
    }

    private boolean isNull() throws IOException {
        return skipWs() == 'n';
    }

    /** The text of a string or scalar value (null for JSON null). */
    private String text() throws IOException {
        int b = skipWs();
        if (b == '"') {
            return readString();
        }
        scalarEnd();
        String s = b == 'n' ? null : new String(buf, pos, scalarLength, StandardCharsets.ISO_8859_1);
        pos += scalarLength;
        return s;
    }

    /** ns from a number or numeric string in µs; sets badTime for non-numbers. */
    private long micros(RawEvent e) throws IOException {
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
    private long integer() throws IOException {
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

    // ---- structure ----------------------------------------------------------------------------------------------

    private void topLevel(EventParser.Handler handler) throws IOException {
        if (skipWs() == '}') {
            pos++;
            return;
        }
        do {
            int len = key();
            boolean events = keyIs(len, K_TRACE_EVENTS);
            boolean base = keyIs(len, K_BASE_TIME);
            boolean distributed = keyIs(len, K_DISTRIBUTED);
            expect(':');
            if (events && skipWs() == '[') {
                pos++;
                handler.eventsStarted();
                events(handler);
            } else if (base && skipWs() != '"' && !isNull()) {
                long v = integer();
                if (v != RawEvent.NONE) {
                    handler.baseTimeNanoseconds(v);
                }
            } else if (distributed && skipWs() == '{') {
                pos++;
                distributedInfo(handler);
            } else {
                skipValue();
            }
        } while (more('}'));
    }

    private void distributedInfo(EventParser.Handler handler) throws IOException {
        if (skipWs() == '}') {
            pos++;
            return;
        }
        do {
            int len = key();
            boolean rank = keyIs(len, K_RANK);
            expect(':');
            if (rank) {
                long v = integer();
                if (v != RawEvent.NONE && v == (int) v) {
                    handler.distributedRank((int) v);
                }
            } else {
                skipValue();
            }
        } while (more('}'));
    }

    private void events(EventParser.Handler handler) throws IOException {
        if (skipWs() == ']') {
            pos++;
            return;
        }
        do {
            if (skipWs() == '{') {
                pos++;
                event();
                handler.event(event);
            } else {
                skipValue();
            }
        } while (more(']'));
    }

    private void event() throws IOException {
        RawEvent e = event;
        e.clear();
        if (skipWs() == '}') {
            pos++;
            return;
        }
        do {
            int len = key();
            // Kineto writes ph, cat, name, pid, tid, ts, dur, args; decide on the key before the value moves pos.
            int which = eventKey(len);
            expect(':');
            switch (which) {
                case 1 -> { // ph
                    if (skipWs() == '"') {
                        int end = stringEnd();
                        e.phSeen = true;
                        e.complete = end == 2 && buf[pos + 1] == 'X';
                        pos += end + 1;
                    } else if (isNull()) {
                        skipValue();
                    } else {
                        String ph = text();
                        e.phSeen = true;
                        e.complete = "X".equals(ph);
                    }
                }
                case 2 -> { // cat
                    if (skipWs() == '"') {
                        int end = stringEnd();
                        int catLength = end - 1;
                        if (plain && catLength <= chars.length) {
                            for (int k = 0; k < catLength; k++) {
                                chars[k] = (char) buf[pos + 1 + k];
                            }
                            e.cat = RawEvent.categoryOf(chars, 0, catLength);
                            pos += end + 1;
                        } else {
                            String cat = readString();
                            e.cat = RawEvent.categoryOf(cat.toCharArray(), 0, cat.length());
                        }
                    } else {
                        String cat = text();
                        if (cat != null) {
                            e.cat = RawEvent.categoryOf(cat.toCharArray(), 0, cat.length());
                        }
                    }
                }
                case 3 -> { // name
                    if (e.wanted()) {
                        e.name = text();
                    } else {
                        skipValue();
                    }
                }
                case 4 -> { // pid
                    if (e.wanted() && (pidOfEveryEvent || e.cat == RawEvent.CAT_ABSENT || RawEvent.isGpu(e.cat))) {
                        e.pid = text();
                    } else {
                        skipValue();
                    }
                }
                case 5 -> { // ts
                    if (e.wanted()) {
                        e.tsNs = micros(e);
                    } else {
                        skipValue();
                    }
                }
                case 6 -> { // dur
                    if (e.wanted()) {
                        e.durNs = micros(e);
                    } else {
                        skipValue();
                    }
                }
                case 7 -> { // args
                    if (e.wanted() && skipWs() == '{') {
                        pos++;
                        args(e);
                    } else {
                        skipValue();
                    }
                }
                default -> skipValue();
            }
        } while (more('}'));
    }

    private int eventKey(int len) {
        return switch (len) {
            case 2 -> keyIs(len, "ph") ? 1 : keyIs(len, "ts") ? 5 : 0;
            case 3 -> keyIs(len, "cat") ? 2 : keyIs(len, "pid") ? 4 : keyIs(len, "dur") ? 6 : 0;
            case 4 -> keyIs(len, "name") ? 3 : keyIs(len, "args") ? 7 : 0;
            default -> 0;
        };
    }

    private void args(RawEvent e) throws IOException {
        if (skipWs() == '}') {
            pos++;
            return;
        }
        do {
            int len = key();
            boolean correlation = keyIs(len, K_CORRELATION);
            boolean external = keyIs(len, K_EXTERNAL_ID);
            boolean inputDims = keyIs(len, K_INPUT_DIMS);
            expect(':');
            if (correlation) {
                e.correlation = integer();
            } else if (external) {
                e.externalId = integer();
            } else if (inputDims && skipWs() == '[') {
                dims.setLength(0);
                compact(dims);
                e.inputDims = dims.toString();
            } else {
                skipValue();
            }
        } while (more('}'));
    }

    /** Writes the array or value at pos as compact JSON with ", " separators (as EventParser does). */
    private void compact(StringBuilder out) throws IOException {
        int b = skipWs();
        if (b == '[') {
            pos++;
            out.append('[');
            if (skipWs() == ']') {
                pos++;
                out.append(']');
                return;
            }
            boolean first = true;
            do {
                if (!first) {
                    out.append(", ");
                }
                first = false;
                compact(out);
            } while (more(']'));
            out.append(']');
        } else if (b == '{') {
            skipValue();
            out.append("{}");
        } else if (b == '"') {
            out.append('"').append(readString()).append('"');
        } else {
            out.append(text());
        }
    }
}
