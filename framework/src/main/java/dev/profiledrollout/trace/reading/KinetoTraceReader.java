package dev.profiledrollout.trace.reading;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;
import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TraceDetails;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.KernelCategories;
import dev.profiledrollout.trace.analysis.LaunchStats;
import dev.profiledrollout.trace.analysis.StreamQueue;
import dev.profiledrollout.trace.files.RankIdentity;
import dev.profiledrollout.trace.files.TraceFileName;
import dev.profiledrollout.trace.internal.EventParser;
import dev.profiledrollout.trace.internal.FastEventScanner;
import dev.profiledrollout.trace.internal.NonFiniteLiteralReader;
import dev.profiledrollout.trace.internal.Ordering;
import dev.profiledrollout.trace.internal.PipedInflater;
import dev.profiledrollout.trace.roofline.OperatorRoofline;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;
import org.apiguardian.api.API;

/**
 * Reads a PyTorch profiler (Kineto) / Chrome trace JSON file into a {@link TraceSummary} in one streaming
 * pass, without building a tree of the file.
 *
 * <pre>{@code
 * TraceSummary summary = KinetoTraceReader.read(Path.of("1773999986.4851577-TP-0.trace.json.gz"));
 * KernelStats top = summary.kernels().get(0);
 * TemporalBreakdown hta = summary.details().htaCompatible();
 * }</pre>
 *
 * <h2>Input</h2>
 * A {@code {"traceEvents":[…]}} object or a bare array of events, plain or gzip (recognised by its magic
 * bytes, not by the name). {@code ts}/{@code dur} are µs, given as JSON numbers or numeric strings, and are
 * converted to ns exactly from their decimal text. {@code baseTimeNanoseconds} may come before or after
 * the events; busy and span do not depend on it.
 *
 * <h2>Speed</h2>
 * gzip is inflated on a second thread ({@code PipedInflater}; on the reading thread itself when {@link TraceSet#read}
 * already runs one reader per core) while this thread scans bytes with
 * {@code FastEventScanner}, which compares field names as bytes and decodes only the values the analyses use. When
 * the file is not strict, well-formed JSON (bare {@code inf}, invalid UTF-8, unescaped quotes, truncation) it is read
 * again from the start with Jackson's byte parser and, if that fails too, through the repairing character filter;
 * those passes define the results and warnings for damaged files.
 *
 * <h2>Tolerance ({@code docs/TRACES.md} §1.6)</h2>
 * Bare {@code inf}/{@code NaN}, numbers with a leading or trailing decimal point, leading/missing/trailing
 * commas, integers wider than 64 bits in {@code args}, invalid UTF-8 (replaced) and unescaped quotes inside strings
 * (escaped, counted in a warning) are accepted. Events without {@code ph}, {@code cat}, {@code ts} or {@code dur} are
 * skipped; a GPU event whose {@code ts} or {@code dur} is not a finite number is skipped and counted in a warning.
 * A truncated gzip or JSON stream yields what was read before the damage, plus a warning. A file that is not a trace
 * at all throws {@link TraceFormatException}.
 *
 * <h2>Memory</h2>
 * Bounded independently of the file size for the GPU timeline (see {@code GpuTimeline}: about 5 MiB in memory, the
 * rest in sorted temporary runs on disk, deleted before returning). What grows with the file: one entry per distinct
 * kernel name (with a small histogram), 24 to 48 bytes per CPU runtime event carrying a correlation id and 24 per
 * {@code cpu_op} with an {@code External id} (the launch and operator joins), another 24 per runtime event
 * and six longs per GEMM/attention call with recorded shapes (the roofline join, {@link OperatorRoofline}), and at
 * most 200 000 CPU annotations.
 *
 * <h2>Thread safety</h2>
 * Stateless; {@link #read(Path)} may be called from several threads at once.
 */
@API(status = EXPERIMENTAL, since = "0.1")
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
     * Reads one trace file with the {@link KernelCategories#defaults() default} kernel categories.
     *
     * @param file a {@code .json} or {@code .json.gz} Kineto trace, not null
     * @return the summary; {@link TraceSummary#warnings()} lists damage that was worked around
     * @throws TraceFormatException when the file is not a trace (not JSON, or JSON without events)
     * @throws IOException          when the file cannot be opened or read
     */
    public static TraceSummary read(Path file) throws IOException {
        return read(file, KernelCategories.defaults());
    }

    /**
     * Reads one trace file, classifying kernels with {@code categories}.
     *
     * @param file       a {@code .json} or {@code .json.gz} Kineto trace, not null
     * @param categories the kernel category rules, not null
     * @throws TraceFormatException when the file is not a trace (not JSON, or JSON without events)
     * @throws IOException          when the file cannot be opened or read
     */
    public static TraceSummary read(Path file, KernelCategories categories) throws IOException {
        return read(file, categories, true);
    }

    /** {@link #read(Path, KernelCategories)}; {@code fast = false} skips the byte scanner (for equivalence tests). */
    static TraceSummary read(Path file, KernelCategories categories, boolean fast) throws IOException {
        return read(file, categories, fast, true);
    }

    /**
     * {@link #read(Path, KernelCategories)}; {@code pipe = false} inflates gzip on the calling thread instead of a
     * second one, for callers that already keep every core busy with a reader each ({@link TraceSet#read}).
     */
    @API(status = INTERNAL, since = "0.2")
    public static TraceSummary read(Path file, KernelCategories categories, boolean fast, boolean pipe) throws IOException {
        KinetoAccumulator acc = readWith(file, () -> new KinetoAccumulator(categories), false, fast, pipe);
        try {
            return summary(file, acc);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } finally {
            acc.close();
        }
    }

    /**
     * The queue-length series of every GPU stream of a Kineto JSON trace ({@link StreamQueue.Point}: a point at each
     * launch and at each start of a launched GPU event, HTA's {@code get_queue_length_time_series}), by device, stream,
     * then time. {@link TraceDetails#streamQueues()} summarises the same series; this reads the file again and holds
     * two points per launched GPU event, so it is for one trace at a time.
     *
     * @throws TraceFormatException when the file is not a trace
     * @throws IOException          when the file cannot be read
     */
    public static List<StreamQueue.Point> queueLengthSeries(Path file) throws IOException {
        KinetoAccumulator acc = readWith(file, () -> new KinetoAccumulator(KernelCategories.defaults()), false, true,
                true);
        try {
            TimelineSweep sweep = new TimelineSweep(acc);
            sweep.run();
            List<StreamQueue.Point> series = sweep.queueSeries();
            sweep.release();
            return series;
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } finally {
            acc.close();
        }
    }

    /**
     * Reads an SGLang merged trace ({@code merged-{id}.trace.json.gz}, {@code docs/PROTOCOLS.md} §1.4), whose events
     * carry string pids such as {@code "[TP01-DP00] 1234"}, and splits it back into one summary per rank label, sorted
     * by rank. Events whose pid has no label form one more summary without a rank. A file without labels gives one
     * summary, as {@link #read(Path)}.
     *
     * @throws TraceFormatException when the file is not a trace
     * @throws IOException          when the file cannot be read
     */
    public static List<TraceSummary> readRanks(Path file, KernelCategories categories) throws IOException {
        return readRanks(file, categories, true);
    }

    /** {@link #readRanks(Path, KernelCategories)}; {@code pipe} as in {@link #read(Path, KernelCategories, boolean, boolean)}. */
    @API(status = INTERNAL, since = "0.2")
    public static List<TraceSummary> readRanks(Path file, KernelCategories categories, boolean pipe) throws IOException {
        RankSplitter splitter = readWith(file, () -> new RankSplitter(categories), true, true, pipe);
        try {
            String name = String.valueOf(file.getFileName());
            String profileId = TraceFileName.mergedProfileId(name);
            List<TraceSummary> ranks = new ArrayList<>();
            for (var entry : splitter.byLabel().entrySet()) {
                KinetoAccumulator acc = entry.getValue();
                acc.warnings.addAll(0, splitter.warnings());
                Optional<RankIdentity> rank = entry.getKey().isEmpty() ? Optional.empty()
                        : RankIdentity.fromMergedPid(entry.getKey(), profileId);
                ranks.add(summary(file, acc).withRank(rank.isPresent() ? rank : RankIdentity.fromFileName(name)));
            }
            ranks.sort(Comparator.comparing((TraceSummary t) -> t.rank().isEmpty())
                    .thenComparing((a, b) -> a.rank().isPresent() && b.rank().isPresent()
                            ? a.rank().get().compareTo(b.rank().get()) : 0));
            return ranks;
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } finally {
            splitter.close();
        }
    }

    /** What a parse pass feeds: events plus the state the reader checks. */
    interface Sink extends EventParser.Handler, AutoCloseable {
        boolean sawEvents();

        long gpuEvents();

        List<String> warnings();

        @Override
        void close();
    }

    private static <S extends Sink> S readWith(Path file, java.util.function.Supplier<S> fresh, boolean allPids,
                                               boolean fast, boolean pipe) throws IOException {
        if (fast) {
            S sink = fresh.get();
            try (InputStream in = open(file, pipe)) {
                FastEventScanner scanner = new FastEventScanner(in, allPids);
                try {
                    scanner.scan(sink);
                } finally {
                    scanner.release();
                }
                if (sink.sawEvents()) {
                    return sink;
                }
            } catch (TraceFormatException notATrace) {
                sink.close();
                throw notATrace;
            } catch (IOException | RuntimeException needsTolerantPath) {
                // FastEventScanner.Bail, or a damaged/truncated stream: the Jackson passes define the result
            }
            sink.close();
        }
        S sink = fresh.get();
        try {
            if (readStrict(file, sink, allPids, pipe)) {
                return sink;
            }
            sink.close();
            sink = fresh.get();
            readRepairing(file, sink, allPids, pipe);
            return sink;
        } catch (IOException | RuntimeException e) {
            sink.close();
            throw e;
        }
    }

    /** Strict byte pass; false when the file needs the repairing pass. */
    private static boolean readStrict(Path file, Sink acc, boolean allPids, boolean pipe) throws IOException {
        try (InputStream in = open(file, pipe); JsonParser parser = createParser(file, in)) {
            parse(file, parser, acc, true, allPids);
            return true;
        } catch (NeedsRepair e) {
            return false;
        }
    }

    private static JsonParser createParser(Path file, InputStream in) throws IOException {
        try {
            return JSON.createParser(in); // reads the first bytes to detect the encoding
        } catch (ZipException | EOFException e) {
            throw new TraceFormatException(file, "it ends or is damaged before any JSON (" + e.getMessage() + ")", e);
        }
    }

    private static void readRepairing(Path file, Sink acc, boolean allPids, boolean pipe) throws IOException {
        try (InputStream in = open(file, pipe);
             // A decoding Reader replaces invalid UTF-8 instead of failing mid-file.
             NonFiniteLiteralReader reader = new NonFiniteLiteralReader(new InputStreamReader(in, StandardCharsets.UTF_8));
             JsonParser parser = JSON.createParser(reader)) {
            parse(file, parser, acc, false, allPids);
            if (reader.repairs() > 0) {
                acc.warnings().add("read " + reader.repairs() + " bare inf/nan literals (invalid JSON) as non-finite numbers");
            }
            if (reader.quoteRepairs() > 0) {
                acc.warnings().add("escaped " + reader.quoteRepairs() + " unescaped quotes inside strings (invalid JSON)");
            }
        }
    }

    private static InputStream open(Path file, boolean pipe) throws IOException {
        // file is used in messages only
        InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        raw.mark(2);
        int b1 = raw.read();
        int b2 = raw.read();
        raw.reset();
        if (b1 != GZIP_MAGIC_1 || b2 != GZIP_MAGIC_2) {
            return raw;
        }
        try {
            return pipe ? new PipedInflater(raw) : new GZIPInputStream(raw, 1 << 16);
        } catch (ZipException | EOFException e) {
            raw.close();
            throw new TraceFormatException(file, "it starts like gzip but its header is damaged (" + e.getMessage() + ")", e);
        }
    }

    /** Thrown inside the strict pass to switch to the repairing pass. */
    private static final class NeedsRepair extends IOException {
        NeedsRepair() {
            super("the strict pass needs the repairing pass");
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    private static void parse(Path file, JsonParser parser, Sink acc, boolean strict, boolean allPids)
            throws IOException {
        EventParser events = new EventParser(allPids);
        JsonToken first;
        try {
            first = parser.nextToken();
        } catch (JsonEOFException | ZipException | EOFException e) {
            throw new TraceFormatException(file, "it does not start with JSON (" + firstLine(e.getMessage()) + ")", e);
        } catch (JsonProcessingException e) {
            if (strict) {
                throw new NeedsRepair();
            }
            throw new TraceFormatException(file, "it does not start with JSON (" + firstLine(e.getMessage()) + ")", e);
        }
        if (first == null) {
            throw new TraceFormatException(file, "the file is empty", null);
        }
        if (first != JsonToken.START_ARRAY && first != JsonToken.START_OBJECT) {
            throw new TraceFormatException(file, "expected a JSON object or array, found " + first, null);
        }
        try {
            events.parse(parser, first, acc);
            if (!acc.sawEvents()) {
                throw new TraceFormatException(file, "a JSON object without a \"traceEvents\" array", null);
            }
        } catch (JsonProcessingException | ZipException | EOFException damage) {
            boolean truncation = damage instanceof JsonEOFException || !(damage instanceof JsonProcessingException);
            if (strict && !truncation) {
                throw new NeedsRepair();
            }
            if (!acc.sawEvents() && acc.gpuEvents() == 0 && !truncation) {
                throw new TraceFormatException(file, "malformed JSON before any event ("
                        + damage.getMessage() + ")", damage);
            }
            acc.warnings().add("truncated or damaged at " + location(parser) + " (" + firstLine(damage.getMessage())
                    + "); the summary covers the " + events.eventsSeen() + " events read before that");
        }
    }

    private static String location(JsonParser parser) {
        var loc = parser.currentLocation();
        return loc.getLineNr() > 0 ? "line " + loc.getLineNr() + ", column " + loc.getColumnNr()
                : "byte " + loc.getByteOffset();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "end of input";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    /** Finishes an accumulator into a summary (also used by {@link SqliteTraceReader}). */
    static TraceSummary summary(Path file, KinetoAccumulator acc) {
        TimelineSweep sweep = new TimelineSweep(acc);
        sweep.run();
        List<KernelStats> kernelStats = acc.kernelStats();
        long kernelTotal = kernelStats.stream().mapToLong(KernelStats::totalNs).sum();
        List<DeviceStats> devices = new ArrayList<>(sweep.devices());
        devices.sort(Comparator.comparing(DeviceStats::id, Ordering.DEVICE_ID));
        List<String> warnings = new ArrayList<>(acc.warnings);
        if (acc.badTimes > 0) {
            warnings.add("skipped " + acc.badTimes + " GPU events whose ts or dur is not a finite number");
        }
        if (acc.droppedAnnotations > 0) {
            warnings.add("kept the first " + KinetoAccumulator.MAX_ANNOTATIONS + " CPU annotations for idle-gap context; "
                    + acc.droppedAnnotations + " more were not kept");
        }
        LaunchStats launches = sweep.launches();
        if (launches.graphKernelsMissing()) {
            warnings.add("graph kernels missing: " + launches.graphLaunchesWithoutKernels() + " of "
                    + launches.graphLaunches() + " CUDA/HIP graph launches have no GPU events in the trace, so busy "
                    + "time is understated and idle time overstated");
        }
        TraceDetails details = new TraceDetails(acc.distributedRank, acc.baseTimeNs, acc.categoryStats(),
                sweep.exact(), sweep.htaCompatible(), sweep.idleGaps(), sweep.steps(), launches, sweep.operators(),
                sweep.gpuTimeline(), Optional.ofNullable(acc.deviceName), acc.roofline.results(), sweep.stageKernels(),
                sweep.streamIdle(), sweep.streamQueues());
        sweep.release();
        Path name = file.getFileName();
        Optional<RankIdentity> rank = name == null ? Optional.empty() : RankIdentity.fromFileName(name.toString());
        return new TraceSummary(file, rank, acc.kernelEvents, acc.memoryEvents, kernelStats.size(), kernelTotal,
                devices, kernelStats, warnings, details);
    }
}
