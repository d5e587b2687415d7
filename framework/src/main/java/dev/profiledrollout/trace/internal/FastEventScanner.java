package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.apiguardian.api.API;

/**
 * A byte-level scanner for well-formed Kineto trace JSON that feeds the same {@link EventParser.Handler} as
 * {@link EventParser}, several times faster: it compares field names as bytes, skips unneeded values without
 * tokenising them and decodes only the strings the analyses use (names, pids of GPU events), with the same "wanted"
 * rules as {@link EventParser}.
 *
 * <p>It handles only what strict JSON allows. On anything else — bare {@code inf}/{@code NaN}, invalid UTF-8,
 * unescaped quotes, a truncated or damaged file, escapes inside field names, exponents in {@code ts}/{@code dur} that
 * the exact parser would take — it throws {@link Bail}, and the caller re-reads the file with the tolerant Jackson
 * path, which defines the results for such files. Once an event is known to be unneeded (its {@code ph} is not
 * {@code X} or its {@code cat} is one no analysis reads), the rest of it is skipped without syntax checks, so damage
 * confined to such events is not reported. Not thread-safe.
 */
@API(status = INTERNAL, since = "0.1")
public final class FastEventScanner extends ByteCursor {

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
    private static final byte[] K_STREAM = bytes("stream");
    private static final byte[] K_INPUT_DIMS = bytes("Input Dims");
    private static final byte[] K_INPUT_TYPE = bytes("Input type");
    private static final byte[] K_INPUT_STRIDES = bytes("Input Strides");
    private static final byte[] K_CONCRETE_INPUTS = bytes("Concrete Inputs");
    private static final byte[] K_DEVICE_PROPERTIES = bytes("deviceProperties");
    private static final byte[] K_NAME = bytes("name");

    private final RawEvent event = new RawEvent();
    private final StringBuilder dims = new StringBuilder();
    private final boolean pidOfEveryEvent;
    private String lastTidText;
    private long lastTid;
    private boolean lastTidQuoted;

    /** A scanner that reads {@code pid} of GPU events only. */
    public FastEventScanner(InputStream in) {
        this(in, false);
    }

    /** @param pidOfEveryEvent read {@code pid} of CPU events too (to split SGLang merged traces by rank) */
    public FastEventScanner(InputStream in, boolean pidOfEveryEvent) {
        super(in);
        this.pidOfEveryEvent = pidOfEveryEvent;
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
            boolean devices = keyIs(len, K_DEVICE_PROPERTIES);
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
            } else if (devices && skipWs() == '[') {
                pos++;
                deviceProperties(handler);
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

    /** {@code deviceProperties}: hands over each device's {@code name}. */
    private void deviceProperties(EventParser.Handler handler) throws IOException {
        if (skipWs() == ']') {
            pos++;
            return;
        }
        do {
            if (skipWs() != '{') {
                skipValue();
                continue;
            }
            pos++;
            if (skipWs() == '}') {
                pos++;
                continue;
            }
            do {
                int len = key();
                boolean name = keyIs(len, K_NAME);
                expect(':');
                if (name && skipWs() == '"') {
                    handler.deviceName(readString());
                } else {
                    skipValue();
                }
            } while (more('}'));
        } while (more(']'));
    }

    private void events(EventParser.Handler handler) throws IOException {
        if (skipWs() == ']') {
            pos++;
            return;
        }
        do {
            fillAhead();
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
        // Each value reader has one call site: the JIT inlines what it calls at every site, and this loop runs for
        // every event, so fewer sites keep its compiled form small and quick to compile.
        do {
            // Kineto writes ph, cat, name, pid, tid, ts, dur, args; decide on the key before the value moves pos.
            int which = eventKey();
            expect(':');
            boolean read = true;
            if (which == 1) {
                ph(e);
            } else if (which == 2) {
                cat(e);
            } else if (!e.wanted()) {
                read = false;
            } else if (which == 3 || which == 4 || which == 8) {
                if (which != 4 || pidOfEveryEvent || e.cat == RawEvent.CAT_ABSENT || RawEvent.isGpu(e.cat)) {
                    boolean quoted = skipWs() == '"';
                    String text = text();
                    if (which == 3) {
                        e.name = text;
                    } else if (which == 4) {
                        e.pid = text;
                    } else { // tid: joins launches to the CPU ops around them
                        if (text != lastTidText || quoted != lastTidQuoted) { // mostly the last event's String
                            lastTidText = text;
                            lastTidQuoted = quoted;
                            lastTid = quoted ? text.hashCode() : integerOf(text);
                        }
                        e.tid = lastTid;
                    }
                } else {
                    read = false;
                }
            } else if (which == 5 || which == 6) {
                long ns = micros(e);
                if (which == 5) {
                    e.tsNs = ns;
                } else {
                    e.durNs = ns;
                }
            } else if (which == 7 && skipWs() == '{') {
                pos++;
                args(e);
            } else {
                read = false;
            }
            if (!read) {
                skipValue();
            }
            if (!e.wanted()) {
                // python_function, ac2g flows, …: nothing more is needed, so skip to the closing brace unparsed
                skipRestOfObject();
                return;
            }
        } while (more('}'));
    }

    private void ph(RawEvent e) throws IOException {
        int c;
        if (skipWs() == '"' && pos + 2 < lim && buf[pos + 2] == '"'
                && (c = buf[pos + 1]) >= 0x20 && c != '"' && c != '\\') {
            // a one-character plain string (0x7F and non-ASCII bytes are negative or fail the test)
            e.phSeen = true;
            e.complete = PHASE_X[c]; // a load, not a branch (see PHASE_X)
            pos += 3;
        } else {
            phOther(e);
        }
    }

    /**
     * {@code PHASE_X[c]}: whether the phase byte {@code c} (0x20–0x7F) is {@code 'X'}. A comparison here would be a
     * branch that the JIT profiles; in a trace whose events up to the compilation were all complete events ("X"), it
     * compiled the other side as a trap, and the first metadata event ("M") after it deoptimised and recompiled the
     * whole event scanner (C2 log of the training rank set: {@code unstable_if} at this comparison).
     */
    private static final boolean[] PHASE_X = new boolean[128];

    static {
        PHASE_X['X'] = true;
    }

    private void phOther(RawEvent e) throws IOException {
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

    private void cat(RawEvent e) throws IOException {
        int known = skipWs() == '"' ? knownCategory() : -1;
        if (known >= 0) {
            e.cat = known;
        } else {
            catOther(e);
        }
    }

    private void catOther(RawEvent e) throws IOException {
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

    /**
     * The JSON scalar {@code text} (validated, possibly {@code null}) as a 64-bit integer, or {@link RawEvent#NONE}
     * for anything else, as {@link #integer()} reads it.
     */
    static long integerOf(String text) {
        if (text == null || text.isEmpty() || (text.charAt(0) != '-' && (text.charAt(0) < '0' || text.charAt(0) > '9'))) {
            return RawEvent.NONE;
        }
        // Digits by hand up to 18 (no overflow possible), rather than Long.parseLong: its Character.digit made the
        // compiled scanner depend on java.lang.CharacterData having one subclass, and the first non-Latin-1 character
        // handled anywhere in the JVM (CharacterData00 loaded) deoptimised the event scanner (C2 log, rank set).
        int i = text.charAt(0) == '-' ? 1 : 0;
        int n = text.length();
        if (n - i < 1 || n - i > 18) {
            return wideIntegerOf(text);
        }
        long v = 0;
        for (; i < n; i++) {
            int d = text.charAt(i) - '0';
            if (d < 0 || d > 9) {
                return RawEvent.NONE; // a fraction or an exponent: not an integer
            }
            v = v * 10 + d;
        }
        return text.charAt(0) == '-' ? -v : v;
    }

    /** {@link #integerOf} beyond 18 digits (or a lone minus sign): {@link RawEvent#NONE} beyond 64 bits. */
    private static long wideIntegerOf(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException fractionOrWider) {
            return RawEvent.NONE;
        }
    }

    private static final long MASK4 = 0xFFFFFFFFL;
    private static final long MASK5 = 0xFFFFFFFFFFL;
    private static final long MASK6 = 0xFFFFFFFFFFFFL;
    private static final long W_PH = word("\"ph\"");
    private static final long W_TS = word("\"ts\"");
    private static final long W_CAT = word("\"cat\"");
    private static final long W_PID = word("\"pid\"");
    private static final long W_TID = word("\"tid\"");
    private static final long W_DUR = word("\"dur\"");
    private static final long W_NAME = word("\"name\"");
    private static final long W_ARGS = word("\"args\"");

    private static final long MASK3 = 0xFFFFFFL;
    private static final long MASK7 = 0xFFFFFFFFFFFFFFL;
    private static final long W_KERNEL = word("kernel\"");
    private static final long W_CPU_OP = word("cpu_op\"");
    private static final long W_AC2G = word("ac2g\"");
    private static final long W_PYTHON_F = word("python_f");
    private static final long W_UNCTION = word("unction\"");
    private static final long W_CUDA_RUN = word("cuda_run");
    private static final long W_TIME = word("time\"");
    private static final long W_GPU_MEMC = word("gpu_memc");
    private static final long W_PY = word("py\"");
    private static final long W_USER_ANN = word("user_ann");
    private static final long W_OTATION = word("otation\"");

    /**
     * The category code of the {@code cat} string at pos (its opening quote) when it is one of the usual Kineto
     * categories spelled in lower case, matched together with its closing quote from two eight-byte loads, moving
     * pos past it; otherwise -1 and pos unchanged (the general path, {@link RawEvent#categoryOf}, decides).
     */
    private int knownCategory() {
        if (pos + 17 > lim) {
            return -1;
        }
        long w = (long) LONGS.get(buf, pos + 1);
        if ((w & MASK7) == W_KERNEL) {
            pos += 8;
            return RawEvent.CAT_KERNEL;
        }
        if ((w & MASK5) == W_AC2G) {
            pos += 6;
            return RawEvent.CAT_OTHER;
        }
        if ((w & MASK7) == W_CPU_OP) {
            pos += 8;
            return RawEvent.CAT_CPU_OP;
        }
        long w2 = (long) LONGS.get(buf, pos + 9);
        if (w == W_PYTHON_F && w2 == W_UNCTION) {
            pos += 17;
            return RawEvent.CAT_OTHER;
        }
        if (w == W_CUDA_RUN && (w2 & MASK5) == W_TIME) {
            pos += 14;
            return RawEvent.CAT_RUNTIME;
        }
        if (w == W_GPU_MEMC && (w2 & MASK3) == W_PY) {
            pos += 12;
            return RawEvent.CAT_MEMCPY;
        }
        if (w == W_USER_ANN && w2 == W_OTATION) {
            pos += 17;
            return RawEvent.CAT_USER_ANNOTATION;
        }
        return -1;
    }

    /** The bytes of {@code quoted} (at most 8) as a little-endian long, as {@code LONGS.get} reads them. */
    private static long word(String quoted) {
        long w = 0;
        for (int i = quoted.length() - 1; i >= 0; i--) {
            w = (w << 8) | quoted.charAt(i);
        }
        return w;
    }

    /**
     * Reads an event field name and returns its code (see {@link #event()}); the usual Kineto names are recognised
     * from one eight-byte load (the closing quote included, so a longer name cannot match), others through
     * {@link #key()}.
     */
    private int eventKey() throws IOException {
        if (skipWs() == '"' && pos + 8 <= lim) {
            long w = (long) LONGS.get(buf, pos);
            long w4 = w & MASK4;
            if (w4 == W_PH) {
                pos += 4;
                return 1;
            }
            if (w4 == W_TS) {
                pos += 4;
                return 5;
            }
            long w5 = w & MASK5;
            if (w5 == W_CAT) {
                pos += 5;
                return 2;
            }
            if (w5 == W_PID) {
                pos += 5;
                return 4;
            }
            if (w5 == W_TID) {
                pos += 5;
                return 8;
            }
            if (w5 == W_DUR) {
                pos += 5;
                return 6;
            }
            long w6 = w & MASK6;
            if (w6 == W_NAME) {
                pos += 6;
                return 3;
            }
            if (w6 == W_ARGS) {
                pos += 6;
                return 7;
            }
        }
        return eventKey(key());
    }

    private int eventKey(int len) {
        return switch (len) {
            case 2 -> keyIs(len, "ph") ? 1 : keyIs(len, "ts") ? 5 : 0;
            case 3 -> keyIs(len, "cat") ? 2 : keyIs(len, "pid") ? 4 : keyIs(len, "dur") ? 6
                    : keyIs(len, "tid") ? 8 : 0;
            case 4 -> keyIs(len, "name") ? 3 : keyIs(len, "args") ? 7 : 0;
            default -> 0;
        };
    }

    private static final int ARG_OTHER = 0;
    private static final int ARG_CORRELATION = 1;
    private static final int ARG_EXTERNAL_ID = 2;
    private static final int ARG_STREAM = 3;
    private static final int ARG_INPUT_DIMS = 4;
    private static final int ARG_INPUT_TYPE = 5;
    private static final int ARG_INPUT_STRIDES = 6;
    private static final int ARG_CONCRETE_INPUTS = 7;

    private void args(RawEvent e) throws IOException {
        if (skipWs() == '}') {
            pos++;
            return;
        }
        do {
            int field = argField(key(), e.name);
            expect(':');
            if (field >= ARG_CORRELATION && field <= ARG_STREAM) {
                long v = integer();
                if (field == ARG_CORRELATION) {
                    e.correlation = v;
                } else if (field == ARG_EXTERNAL_ID) {
                    e.externalId = v;
                } else {
                    e.stream = v;
                }
            } else if (field >= ARG_INPUT_DIMS && skipWs() == '[') {
                String text = knownShapes();
                if (text == null) {
                    int start = pos;
                    dims.setLength(0);
                    boolean plain = compact(dims);
                    text = shapes(dims);
                    if (plain) {
                        rememberShapes(start, text);
                    }
                }
                switch (field) {
                    case ARG_INPUT_DIMS -> e.inputDims = text;
                    case ARG_INPUT_TYPE -> e.inputTypes = text;
                    case ARG_INPUT_STRIDES -> e.inputStrides = text;
                    default -> e.concreteInputs = text;
                }
            } else {
                skipValue();
            }
        } while (more('}'));
    }

    /** Recent shape strings by content: an op's shapes repeat every step, so most events allocate none. */
    private final String[] shapeCache = memory.shapeCache;

    /** {@code text} as a String, the cached one when the same shapes were seen recently. */
    private String shapes(StringBuilder text) {
        int h = text.length();
        for (int i = 0; i < text.length(); i++) {
            h = 31 * h + text.charAt(i);
        }
        int slot = (h ^ (h >>> 16)) & (shapeCache.length - 1);
        String known = shapeCache[slot];
        if (known != null && known.contentEquals(text)) {
            return known;
        }
        String s = text.toString();
        shapeCache[slot] = s;
        return s;
    }

    /**
     * The args field just read by {@link #key()}; the shape fields other than Input Dims only for the ops that
     * {@link RooflineOps#wantsArguments} names (asked only when such a field comes, not for every event's args).
     */
    private int argField(int len, String name) {
        return switch (len) {
            case 6 -> keyIs(len, K_STREAM) ? ARG_STREAM : ARG_OTHER;
            case 10 -> keyIs(len, K_INPUT_DIMS) ? ARG_INPUT_DIMS
                    : keyIs(len, K_INPUT_TYPE) && RooflineOps.wantsArguments(name) ? ARG_INPUT_TYPE : ARG_OTHER;
            case 11 -> keyIs(len, K_CORRELATION) ? ARG_CORRELATION
                    : keyIs(len, K_EXTERNAL_ID) ? ARG_EXTERNAL_ID : ARG_OTHER;
            case 13 -> keyIs(len, K_INPUT_STRIDES) && RooflineOps.wantsArguments(name) ? ARG_INPUT_STRIDES : ARG_OTHER;
            case 15 -> keyIs(len, K_CONCRETE_INPUTS) && RooflineOps.wantsArguments(name) ? ARG_CONCRETE_INPUTS
                    : ARG_OTHER;
            default -> ARG_OTHER;
        };
    }

    /**
     * Writes the array at pos as compact JSON with ", " separators (as EventParser does); true when it took the plain
     * path, which reads the array within the buffer, so the array's bytes stay where they were.
     */
    private boolean compact(StringBuilder out) throws IOException {
        int start = pos;
        if (compactPlain(out)) {
            return true;
        }
        pos = start;
        out.setLength(0);
        compactValue(out);
        return false;
    }

    /*
     * Shape arrays by their raw bytes: an op's Input Dims / Input type repeat byte for byte, so the array at pos is
     * recognised by comparing it with remembered raw arrays, found by a hash of the 16 bytes at pos, instead of being
     * compacted character by character and hashed again. A remembered array is a whole array from '[' to its matching
     * ']' that the plain path read, so bytes at pos equal to it ARE that array (its end follows from its content),
     * and its compact string is the one the plain path made of them. With many small events that carry shapes (a
     * training step's CPU ops), building the compact string was a quarter of the scan.
     */
    private final RememberedBytes shapeArrays = memory.shapeArrays;

    /** The compact string of the array at pos (its '['), moving pos past it, when its raw bytes are remembered. */
    private String knownShapes() {
        if (pos + 16 > lim) {
            return null;
        }
        int slot = shapeArrays.find(RememberedBytes.set(buf, pos, 2), buf, pos, lim, -1);
        if (slot < 0) {
            return null;
        }
        pos += shapeArrays.length(slot);
        return shapeArrays.string(slot);
    }

    /** Remembers the raw array from {@code start} to pos as {@code text} (short arrays only). */
    private void rememberShapes(int start, String text) {
        if (start + 16 <= lim && pos - start <= 1024) {
            shapeArrays.remember(RememberedBytes.set(buf, start, 2), java.util.Arrays.copyOfRange(buf, start, pos),
                    text);
        }
    }

    /**
     * {@link #compactValue} of an array of arrays, plain strings and JSON scalars in one pass over its bytes (the
     * shapes of {@code record_shapes}); false when it holds anything else (an object, an escape, a non-ASCII byte, the
     * end of the buffer), and the caller then takes the general path from the start.
     */
    private boolean compactPlain(StringBuilder out) {
        byte[] b = buf;
        int p = pos;
        int end = lim;
        int depth = 0;
        // what may come next: 0 a value or a closing bracket (after '['), 1 a value (after ','), 2 ',' or ']'
        int expect = 1;
        do {
            if (p >= end) {
                return false;
            }
            byte c = b[p];
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                p++;
                continue;
            }
            if (c == ']' || c == ',') {
                if (expect == 1 || (c == ',' && expect == 0)) {
                    return false; // "[,", ",]", ",,": the general path reports it
                }
                out.append(c == ']' ? "]" : ", ");
                depth -= c == ']' ? 1 : 0;
                expect = c == ']' ? 2 : 1;
                p++;
                continue;
            }
            if (expect == 2) {
                return false; // two values without a comma
            }
            if (c == '[') {
                out.append('[');
                depth++;
                expect = 0;
                p++;
                continue;
            }
            int q = p;
            if (c == '"') {
                q++;
                while (q < end && b[q] >= 0x20 && b[q] != '"' && b[q] != '\\') {
                    q++;
                }
                if (q >= end || b[q] != '"') {
                    return false; // escape, control or non-ASCII byte: the general path decodes it
                }
                q++;
            } else {
                while (q < end && b[q] != ',' && b[q] != ']' && b[q] != '}' && b[q] > ' ') {
                    q++;
                }
                if (q == p || q >= end || !isJsonScalar(b, p, q - p)) {
                    return false; // an object, a non-JSON scalar: the general path decides
                }
            }
            for (int k = p; k < q; k++) {
                out.append((char) b[k]);
            }
            p = q;
            expect = 2;
        } while (depth > 0);
        pos = p;
        return true;
    }

    /** Writes the array or value at pos as compact JSON with ", " separators (as EventParser does). */
    private void compactValue(StringBuilder out) throws IOException {
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
                compactValue(out);
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
