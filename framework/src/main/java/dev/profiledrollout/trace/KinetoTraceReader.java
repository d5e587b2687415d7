package dev.profiledrollout.trace;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import dev.profiledrollout.trace.internal.IntervalUnion;
import dev.profiledrollout.trace.internal.MicrosToNanos;
import dev.profiledrollout.trace.internal.NonFiniteLiteralReader;
import dev.profiledrollout.trace.internal.Ordering;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Reads a PyTorch profiler (Kineto) / Chrome trace JSON file into a {@link TraceSummary} in one streaming
 * pass, without building a tree of the file.
 *
 * <pre>{@code
 * TraceSummary summary = KinetoTraceReader.read(Path.of("1773999986.4851577-TP-0.trace.json.gz"));
 * KernelStats top = summary.kernels().get(0);
 * }</pre>
 *
 * <h2>Input</h2>
 * A {@code {"traceEvents":[…]}} object or a bare array of events, plain or gzip (recognised by its magic
 * bytes, not by the name). {@code ts}/{@code dur} are µs, given as JSON numbers or numeric strings, and are
 * converted to ns exactly from their decimal text. {@code baseTimeNanoseconds} may come before or after
 * the events; busy and span do not depend on it.
 *
 * <h2>Tolerance (TRACES.md §1.6)</h2>
 * Bare {@code inf}/{@code NaN}, numbers with a leading or trailing decimal point, leading/missing/trailing
 * commas, integers wider than 64 bits in {@code args} and invalid UTF-8 (replaced) are accepted. Events
 * without {@code ph}, {@code cat}, {@code ts} or {@code dur} are skipped; a GPU event whose {@code ts} or
 * {@code dur} is not a finite number is skipped and counted in a warning. A truncated gzip or JSON stream
 * yields what was read before the damage, plus a warning. A file that is not a trace at all throws
 * {@link TraceFormatException}.
 *
 * <h2>Memory</h2>
 * No events are kept: per kernel name four longs, and per device the GPU intervals as two primitive
 * {@code long} arrays, so memory is O(GPU events × 16 bytes) plus the distinct kernel names.
 *
 * <h2>Thread safety</h2>
 * Stateless; {@link #read(Path)} may be called from several threads at once.
 */
public final class KinetoTraceReader {

    private static final JsonFactory JSON = new JsonFactoryBuilder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(JsonReadFeature.ALLOW_LEADING_DECIMAL_POINT_FOR_NUMBERS)
            .enable(JsonReadFeature.ALLOW_TRAILING_DECIMAL_POINT_FOR_NUMBERS)
            .enable(JsonReadFeature.ALLOW_LEADING_PLUS_SIGN_FOR_NUMBERS)
            .enable(JsonReadFeature.ALLOW_MISSING_VALUES)
            .enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
            .enable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS)
            .enable(JsonReadFeature.ALLOW_BACKSLASH_ESCAPING_ANY_CHARACTER)
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNumberLength(100_000)
                    .maxStringLength(Integer.MAX_VALUE)
                    .maxNestingDepth(10_000)
                    .build())
            .build();

    private static final int GZIP_MAGIC_1 = 0x1f;
    private static final int GZIP_MAGIC_2 = 0x8b;

    private KinetoTraceReader() {
    }

    /**
     * Reads one trace file.
     *
     * @param file a {@code .json} or {@code .json.gz} Kineto trace, not null
     * @return the summary; {@link TraceSummary#warnings()} lists damage that was worked around
     * @throws TraceFormatException when the file is not a trace (not JSON, or JSON without events)
     * @throws IOException          when the file cannot be opened or read
     */
    public static TraceSummary read(Path file) throws IOException {
        Accumulator acc = new Accumulator();
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
             InputStream in = decompressed(file, raw);
             // A decoding Reader replaces invalid UTF-8 instead of failing mid-file.
             NonFiniteLiteralReader reader = new NonFiniteLiteralReader(
                     new InputStreamReader(in, StandardCharsets.UTF_8));
             JsonParser parser = JSON.createParser(reader)) {
            parse(file, parser, acc);
            if (reader.repairs() > 0) {
                acc.warnings.add("read " + reader.repairs() + " bare inf/nan literals (invalid JSON) as non-finite numbers");
            }
        }
        return acc.summary(file);
    }

    private static InputStream decompressed(Path file, InputStream raw) throws IOException {
        if (!isGzip(raw)) {
            return raw;
        }
        try {
            return new GZIPInputStream(raw, 1 << 16);
        } catch (ZipException | EOFException e) {
            throw new TraceFormatException(file, "it starts like gzip but its header is damaged (" + e.getMessage() + ")", e);
        }
    }

    private static boolean isGzip(InputStream in) throws IOException {
        in.mark(2);
        int b1 = in.read();
        int b2 = in.read();
        in.reset();
        return b1 == GZIP_MAGIC_1 && b2 == GZIP_MAGIC_2;
    }

    private static void parse(Path file, JsonParser parser, Accumulator acc) throws IOException {
        JsonToken first;
        try {
            first = parser.nextToken();
        } catch (JsonProcessingException | ZipException | EOFException e) {
            throw new TraceFormatException(file, "it does not start with JSON (" + firstLine(e.getMessage()) + ")", e);
        }
        if (first == null) {
            throw new TraceFormatException(file, "the file is empty", null);
        }
        try {
            if (first == JsonToken.START_ARRAY) {
                acc.sawEvents = true;
                readEvents(parser, acc);
            } else if (first == JsonToken.START_OBJECT) {
                readTopLevelObject(parser, acc);
                if (!acc.sawEvents) {
                    throw new TraceFormatException(file, "a JSON object without a \"traceEvents\" array", null);
                }
            } else {
                throw new TraceFormatException(file, "expected a JSON object or array, found " + first, null);
            }
        } catch (JsonProcessingException | ZipException | EOFException damage) {
            if (!acc.sawEvents && acc.gpuEvents() == 0 && damage instanceof JsonProcessingException
                    && !(damage instanceof com.fasterxml.jackson.core.io.JsonEOFException)) {
                throw new TraceFormatException(file, "malformed JSON before any event ("
                        + damage.getMessage() + ")", damage);
            }
            acc.warnings.add("truncated or damaged at " + location(parser) + " (" + firstLine(damage.getMessage())
                    + "); the summary covers the " + acc.eventsSeen + " events read before that");
        }
    }

    private static String location(JsonParser parser) {
        var loc = parser.currentLocation();
        return "line " + loc.getLineNr() + ", column " + loc.getColumnNr();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "end of input";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    private static void readTopLevelObject(JsonParser parser, Accumulator acc) throws IOException {
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            if ("traceEvents".equals(field) && value == JsonToken.START_ARRAY) {
                acc.sawEvents = true;
                readEvents(parser, acc);
            } else {
                // baseTimeNanoseconds shifts every ts equally, so busy and span do not need it.
                parser.skipChildren();
            }
        }
        if (token == null) {
            throw new EOFException("end of input inside the top-level object");
        }
    }

    private static void readEvents(JsonParser parser, Accumulator acc) throws IOException {
        JsonToken token;
        while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
            if (token == null) {
                throw new EOFException("end of input inside the event array");
            }
            if (token == JsonToken.START_OBJECT) {
                readEvent(parser, acc);
            } else {
                parser.skipChildren();
            }
        }
    }

    /** Reads one event object; the parser is on its START_OBJECT and ends on its END_OBJECT. */
    private static void readEvent(JsonParser parser, Accumulator acc) throws IOException {
        acc.eventsSeen++;
        String ph = null;
        String cat = null;
        String name = null;
        String pid = null;
        String ts = null;
        String dur = null;
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            if (value == null) {
                throw new EOFException("end of input inside an event");
            }
            if (value.isStructStart()) {
                parser.skipChildren();
                continue;
            }
            if (value == JsonToken.VALUE_NULL) {
                continue;
            }
            switch (field) {
                case "ph" -> ph = parser.getText();
                case "cat" -> cat = parser.getText();
                case "name" -> name = parser.getText();
                case "pid" -> pid = parser.getText();
                case "ts" -> ts = parser.getText();
                case "dur" -> dur = parser.getText();
                default -> {
                    // Values we do not need are never converted, so inf/NaN or >64-bit integers cannot fail here.
                }
            }
        }
        if (token == null) {
            throw new EOFException("end of input inside an event");
        }
        if (!"X".equals(ph) || cat == null || ts == null || dur == null) {
            return;
        }
        GpuKind kind = GpuKind.of(cat);
        if (kind == null) {
            return;
        }
        long tsNs;
        long durNs;
        try {
            tsNs = MicrosToNanos.parse(ts);
            durNs = MicrosToNanos.parse(dur);
        } catch (NumberFormatException e) {
            acc.badTimes++;
            return;
        }
        acc.add(kind, name == null ? "" : name, pid == null ? "" : pid, tsNs, durNs);
    }

    private enum GpuKind {
        KERNEL, MEMORY;

        static GpuKind of(String cat) {
            return switch (cat.toLowerCase(Locale.ROOT)) {
                case "kernel" -> KERNEL;
                case "gpu_memcpy", "gpu_memset", "memcpy", "memset" -> MEMORY;
                default -> null;
            };
        }
    }

    /** Per-file aggregates; confined to the reading thread. */
    private static final class Accumulator {
        final Map<String, long[]> kernels = new HashMap<>(); // count, total, min, max
        final Map<String, IntervalUnion> devices = new HashMap<>();
        final List<String> warnings = new ArrayList<>();
        boolean sawEvents;
        long eventsSeen;
        long kernelEvents;
        long memoryEvents;
        long badTimes;

        long gpuEvents() {
            return kernelEvents + memoryEvents;
        }

        void add(GpuKind kind, String name, String pid, long tsNs, long durNs) {
            if (kind == GpuKind.KERNEL) {
                kernelEvents++;
                long[] k = kernels.get(name);
                if (k == null) {
                    kernels.put(name, new long[] {1, durNs, durNs, durNs});
                } else {
                    k[0]++;
                    k[1] += durNs;
                    k[2] = Math.min(k[2], durNs);
                    k[3] = Math.max(k[3], durNs);
                }
            } else {
                memoryEvents++;
            }
            devices.computeIfAbsent(pid, p -> new IntervalUnion()).add(tsNs, tsNs + durNs);
        }

        TraceSummary summary(Path file) {
            List<KernelStats> kernelStats = new ArrayList<>(kernels.size());
            long kernelTotal = 0;
            for (Map.Entry<String, long[]> e : kernels.entrySet()) {
                long[] k = e.getValue();
                kernelStats.add(new KernelStats(e.getKey(), k[0], k[1], k[2], k[3]));
                kernelTotal += k[1];
            }
            kernelStats.sort(KernelStats.BY_TOTAL_DESCENDING);
            List<DeviceStats> deviceStats = new ArrayList<>(devices.size());
            devices.entrySet().stream()
                    .sorted(Map.Entry.comparingByKey(Ordering.DEVICE_ID))
                    .forEach(e -> deviceStats.add(new DeviceStats(e.getKey(), e.getValue().unionNs(),
                            e.getValue().spanNs())));
            if (badTimes > 0) {
                warnings.add("skipped " + badTimes + " GPU events whose ts or dur is not a finite number");
            }
            Path name = file.getFileName();
            return new TraceSummary(file,
                    name == null ? java.util.Optional.empty() : RankIdentity.fromFileName(name.toString()),
                    kernelEvents, memoryEvents, kernelStats.size(), kernelTotal, deviceStats, kernelStats, warnings);
        }
    }
}
