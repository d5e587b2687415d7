package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.history.stats.Change;
import dev.profiledrollout.history.stats.Direction;
import dev.profiledrollout.metrics.TimeSeries;
import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.analysis.CategoryStats;
import dev.profiledrollout.trace.files.RankIdentity;
import dev.profiledrollout.verdict.Verdict;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.apiguardian.api.API;

/**
 * One run directory read back from its files: {@code summary.json} (required), {@code requests.jsonl},
 * {@code timeseries.csv} and {@code latency.hlog} (each optional). Everything the HTML report and the charts show comes
 * from here, so the report of a JUnit test and {@code profiled-rollout report DIR} agree with {@code summary.json}.
 * The records in {@code summary.json} and the lines of {@code requests.jsonl} are read with the mapping that wrote them
 * ({@link ResultsModule}).
 *
 * @param directory  the run directory, not null
 * @param summary    the parsed {@code summary.json}, not null
 * @param requests   per request, in file order; empty without {@code requests.jsonl}
 * @param timeSeries per second; empty without {@code timeseries.csv}
 * @param histograms by tag ({@code TTFT}, {@code ITL}, {@code TPOT}, {@code E2E}), values in ns; empty without
 *                   {@code latency.hlog}
 * @param testName   {@code test} from {@code summary.json}, or the directory's name without it; not null
 * @param verdicts   {@code verdicts} from {@code summary.json}, empty before the test body ended; not null
 * @param trace      {@code trace} from {@code summary.json}, {@link Trace#NONE} without one; not null
 */
@API(status = INTERNAL, since = "0.1")
public record ReportData(Path directory, JsonNode summary, List<Request> requests, List<TimeSeries.Bucket> timeSeries,
                         Map<String, Histogram> histograms, String testName, List<Verdict> verdicts, Trace trace) {

    private static final ObjectMapper JSON = ResultsModule.MAPPER;

    public ReportData {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(summary, "summary");
        requests = List.copyOf(requests);
        timeSeries = List.copyOf(timeSeries);
        histograms = Collections.unmodifiableMap(new LinkedHashMap<>(histograms));
        Objects.requireNonNull(testName, "testName");
        verdicts = List.copyOf(verdicts);
        Objects.requireNonNull(trace, "trace");
    }

    /**
     * {@code summary.json}'s {@code trace}, as {@link RunReport} writes it.
     *
     * @param kernelTotalNs Σ kernel time over all ranks, ns
     * @param kernels       every kernel over all ranks, by total time descending; may be empty in a file that has
     *                      only {@code ranks}
     * @param ranks         one per trace file, labelled with its file name
     * @param busyImbalance the busiest rank's GPU busy time over the least busy one's ({@code TraceSet}), or null
     *                      with fewer than two ranks or in a file without it
     * @param rankLabels    per element of {@code ranks}, its {@code label} ({@code TraceSet#rankLabel}, e.g.
     *                      {@code worker-1/TP-0}), null where the file has none; as many as {@code ranks}
     * @param straggler     {@code trace.straggler}: the busiest rank's label; {@code ""} when the file says there is
     *                      none (a JSON null), null when the file lacks the field (written before it existed)
     * @param stepTimeline  {@code trace.stepTimeline}: one per rank set with steps; empty without any
     */
    public record Trace(long kernelTotalNs, List<KernelStats> kernels, List<LabeledTrace> ranks, Double busyImbalance,
                        List<String> rankLabels, String straggler, List<StepTimelineSet> stepTimeline) {

        /** No trace was analysed. */
        public static final Trace NONE = new Trace(0, List.of(), List.of(), null, List.of(), null, List.of());

        public Trace {
            kernels = kernels == null ? List.of() : List.copyOf(kernels);
            ranks = ranks == null ? List.of() : List.copyOf(ranks);
            List<String> labels = new ArrayList<>();
            for (int i = 0; i < ranks.size(); i++) {
                labels.add(rankLabels != null && i < rankLabels.size() ? rankLabels.get(i) : null);
            }
            rankLabels = Collections.unmodifiableList(labels);
            stepTimeline = stepTimeline == null ? List.of() : List.copyOf(stepTimeline);
        }

        /**
         * How {@link ResultsModule} reads {@code trace}: each element of {@code ranks} is read twice, as the
         * {@link LabeledTrace} and for the {@code label} the writer adds beside it.
         */
        @com.fasterxml.jackson.annotation.JsonCreator
        static Trace fromJson(@com.fasterxml.jackson.annotation.JsonProperty("kernelTotalNs") long kernelTotalNs,
                @com.fasterxml.jackson.annotation.JsonProperty("kernels") List<KernelStats> kernels,
                @com.fasterxml.jackson.annotation.JsonProperty("ranks") List<Rank> ranks,
                @com.fasterxml.jackson.annotation.JsonProperty("busyImbalance") Double busyImbalance,
                @com.fasterxml.jackson.annotation.JsonProperty("straggler")
                @com.fasterxml.jackson.annotation.JsonSetter(nulls = com.fasterxml.jackson.annotation.Nulls.AS_EMPTY)
                String straggler,
                @com.fasterxml.jackson.annotation.JsonProperty("stepTimeline") List<StepTimelineSet> stepTimeline) {
            List<Rank> all = ranks == null ? List.of() : ranks;
            return new Trace(kernelTotalNs, kernels, all.stream().map(Rank::trace).toList(), busyImbalance,
                    all.stream().map(Rank::label).toList(), straggler, stepTimeline);
        }

        /**
         * The {@code trace} of a parsed {@code summary.json}, read with {@link ResultsModule}.
         *
         * @param summary a parsed {@code summary.json} (a test's, or a phase's)
         * @return its trace, {@link #NONE} when it has none
         * @throws IllegalArgumentException when {@code trace} does not have the shape {@link RunReport} writes; the
         *                                  message names the field: re-run the test to rewrite the file
         */
        public static Trace of(JsonNode summary) {
            try {
                JsonNode node = JSON.treeToValue(summary, TraceBlock.class).trace();
                return node == null || !node.isObject() ? NONE : JSON.treeToValue(node, Trace.class);
            } catch (IOException e) {
                throw new IllegalArgumentException("summary.json's trace cannot be read (" + e.getMessage()
                        + "): re-run the test to rewrite it", e);
            }
        }

        /**
         * @return Σ busy / Σ span over every rank's devices ({@link DeviceStats#busyFraction(List)}, the definition of
         *         the {@code gpuBusyFraction()} budget); empty when no device has a span
         */
        public java.util.OptionalDouble gpuBusyFraction() {
            List<DeviceStats> devices = ranks.stream().flatMap(r -> r.summary().devices().stream()).toList();
            return devices.stream().mapToLong(DeviceStats::spanNs).sum() == 0 ? java.util.OptionalDouble.empty()
                    : java.util.OptionalDouble.of(DeviceStats.busyFraction(devices));
        }
    }

    /**
     * One element of {@code trace.ranks}: the trace and the label {@link RunReport} writes beside it.
     *
     * @param trace the rank's trace
     * @param label its {@code label}, or null
     */
    @com.fasterxml.jackson.databind.annotation.JsonDeserialize(using = RankDeserializer.class)
    record Rank(LabeledTrace trace, String label) {
    }

    /** The {@code label} of a {@code trace.ranks} element. */
    private record RankLabel(String label) {
    }

    /** Reads a {@code trace.ranks} element as its {@link LabeledTrace} and as its {@link RankLabel}. */
    static final class RankDeserializer extends com.fasterxml.jackson.databind.deser.std.StdDeserializer<Rank> {
        private static final long serialVersionUID = 1L;

        RankDeserializer() {
            super(Rank.class);
        }

        @Override
        public Rank deserialize(com.fasterxml.jackson.core.JsonParser parser,
                com.fasterxml.jackson.databind.DeserializationContext context) throws IOException {
            JsonNode node = parser.readValueAsTree();
            return new Rank(context.readTreeAsValue(node, LabeledTrace.class),
                    context.readTreeAsValue(node, RankLabel.class).label());
        }
    }

    /**
     * One rank set of {@code trace.stepTimeline} ({@code StepTimeline}, as {@link ResultsModule} writes it).
     *
     * @param worker         the rank set's worker, "" or null with one engine
     * @param ranks          the rank labels, in column order
     * @param clockAlignment how the ranks' clocks were aligned, or null
     * @param maxGapNs       the largest gap of a rank to its step's straggler, ns
     * @param stragglerSteps per rank label, the steps it was the straggler in; null in a file without it
     * @param steps          the matched steps, in order
     */
    public record StepTimelineSet(String worker, List<String> ranks, ClockAlignment clockAlignment, long maxGapNs,
                                  Map<String, Integer> stragglerSteps, List<TimelineStep> steps) {

        public StepTimelineSet {
            worker = worker == null ? "" : worker;
            ranks = ranks == null ? List.of() : List.copyOf(ranks);
            steps = steps == null ? List.of() : List.copyOf(steps);
        }
    }

    /**
     * @param note how steps were matched and the clocks aligned, one line, or null
     */
    public record ClockAlignment(String note) {
    }

    /**
     * One step of a {@link StepTimelineSet}; lists per rank in the set's column order.
     *
     * @param index     the step's position
     * @param name      the step's name (e.g. {@code ProfilerStep#551})
     * @param busyNs    GPU busy time per rank in the step, ns
     * @param gapNs     per rank, the gap to the step's straggler, ns
     * @param straggler the straggler's label, or null with one rank
     */
    public record TimelineStep(long index, String name, List<Long> busyNs, List<Long> gapNs, String straggler) {

        public TimelineStep {
            busyNs = busyNs == null ? List.of() : List.copyOf(busyNs);
            gapNs = gapNs == null ? List.of() : List.copyOf(gapNs);
        }

        /** @return rank {@code r}'s busy time, ns; 0 when the file has none for it */
        public long busyNs(int r) {
            return r < busyNs.size() && busyNs.get(r) != null ? busyNs.get(r) : 0;
        }

        /** @return the largest gap to the straggler over ranks, ns; 0 without gaps */
        public long maxGapNs() {
            return gapNs.stream().mapToLong(g -> g == null ? 0 : g).max().orElse(0);
        }
    }

    /**
     * The parts of {@code summary.json} this record holds ({@code verdicts} as the array written, read by
     * {@link #verdicts(JsonNode)}); the head is {@link #head()}.
     */
    private record Contents(String test, Trace trace, JsonNode verdicts) {
    }

    /** {@code summary.json}'s {@code trace} block alone, as written. */
    private record TraceBlock(JsonNode trace) {
    }

    /** {@code summary.json}'s {@code history} block alone, as written. */
    private record HistoryBlock(JsonNode history) {
    }

    /**
     * One line of {@code requests.jsonl}; times in ns from the earliest intended send, -1 when absent.
     *
     * @param sendNs           when the request was sent
     * @param ttftNs           time to first token, -1 without a first chunk
     * @param e2eNs            end-to-end latency, -1 for a failed request
     * @param error            the error kind, or null
     * @param endNs            when the request ended (last chunk, or the failure); 0 in files that lack it
     * @param completionTokens output tokens the server reported; 0 when absent
     * @param chunks           content chunks received
     */
    public record Request(long sendNs, long ttftNs, long e2eNs, String error, long endNs, int completionTokens,
                          int chunks) {

        /** @return when the request ended: {@code endNs}, else send + E2E, else the send */
        public long end() {
            return endNs > 0 ? endNs : e2eNs >= 0 ? sendNs + e2eNs : sendNs;
        }

        /** @return output tokens: the server's count, else one per chunk */
        public int outputTokens() {
            return completionTokens > 0 ? completionTokens : chunks;
        }
    }

    /**
     * One kernel over all ranks (summed), as {@code summary.json}'s {@code trace.kernels} holds it.
     *
     * @param name    the kernel name
     * @param count   launches
     * @param totalNs Σ durations in ns
     * @param minNs   shortest launch in ns
     * @param maxNs   longest launch in ns
     */
    public record Kernel(String name, long count, long totalNs, long minNs, long maxNs) {
    }

    /**
     * One trace file's GPU busy time (Σ over its devices).
     *
     * @param label  the rank label (e.g. {@code TP-1}) or the file name
     * @param busyNs Σ busy time over the file's devices, ns
     * @param spanNs the longest device span, ns
     */
    public record RankBusy(String label, long busyNs, long spanNs) {
    }

    /**
     * {@code summary.json}'s {@code history} block (a phase's in {@code phases[].history}): where the run was recorded,
     * the regression verdicts against the runs of the same configuration fingerprint, and the trends of the key
     * metrics ({@code dev.profiledrollout.history.HistoryMetrics#KEY_METRICS}). Absent in files written without a
     * history store.
     *
     * @param store       the store's location, e.g. {@code jdbc:sqlite:.profiled-rollout/history.db}; "" when absent
     * @param runId       the id this run was recorded under, or null when it was not recorded
     * @param testId      {@code <class>#<method>}, a phase's with {@code /<PHASE>}; "" when absent
     * @param fingerprint the configuration fingerprint runs are compared within; "" when absent
     * @param recorded    whether the run was written to the store
     * @param error       why recording or checking failed (the test went on), or null
     * @param threshold   the threshold model the verdicts used, or null
     * @param verdicts    per metric, the current run against its history; may be empty
     * @param trends      per key metric, its values over the last runs, oldest first; may be empty
     */
    public record History(String store, Long runId, String testId, String fingerprint, boolean recorded,
                          String error, Threshold threshold, List<MetricVerdict> verdicts, List<Trend> trends) {

        public History {
            store = store == null ? "" : store;
            testId = testId == null ? "" : testId;
            fingerprint = fingerprint == null ? "" : fingerprint;
            verdicts = verdicts == null ? List.of() : List.copyOf(verdicts);
            trends = trends == null ? List.of() : List.copyOf(trends);
        }
    }

    /**
     * The threshold model of a {@link History} ({@code dev.profiledrollout.history.stats}, docs/METRICS.md §8).
     *
     * @param model  {@code relative}, {@code z-score}, {@code t-test}, {@code mann-whitney} or {@code welch}
     * @param window runs of history compared with, or null
     * @param lower  the lower boundary (a fraction for {@code relative}, else a cumulative probability), or null
     * @param upper  the upper boundary, as {@code lower}, or null
     * @param traceBoundary the boundary of the metrics taken from the trace, when they have their own, or null
     */
    public record Threshold(String model, Integer window, Double lower, Double upper, Double traceBoundary) {

        /** A threshold with one boundary for every metric. */
        public Threshold(String model, Integer window, Double lower, Double upper) {
            this(model, window, lower, upper, null);
        }
    }

    /**
     * One metric's regression verdict in a {@link History}; numbers in {@code unit}.
     *
     * @param metric       the metric name ({@code dev.profiledrollout.history.HistoryMetrics}), e.g. {@code ttft.p99}
     * @param label        its display name, e.g. {@code p99 TTFT}
     * @param unit         {@code ms}, {@code tok/s}, … or "" for plain numbers
     * @param direction    {@code LOWER_IS_BETTER} or {@code HIGHER_IS_BETTER}
     * @param model        the threshold model's name
     * @param change       {@code REGRESSION}, {@code IMPROVEMENT}, {@code NO_CHANGE} or {@code INSUFFICIENT_HISTORY}
     * @param current      this run's value, or null
     * @param baseline     the history's mean or median, or null without history
     * @param baselineKind {@code mean} or {@code median}
     * @param n            runs (or samples) of history used, or null
     * @param statistic    the model's statistic, or null
     * @param threshold    the critical statistic, or null
     * @param pValue       one-sided p-value, or null
     * @param enforced     whether a REGRESSION fails the test
     * @param description  the verdict as one line ({@code ThresholdResult.describe()})
     */
    public record MetricVerdict(String metric, String label, String unit, Direction direction, String model,
                                Change change, Double current, Double baseline, String baselineKind, Integer n,
                                Double statistic, Double threshold, Double pValue, boolean enforced,
                                String description) {

        public MetricVerdict {
            metric = metric == null ? "" : metric;
            label = label == null || label.isEmpty() ? metric : label;
            unit = unit == null ? "" : unit;
            baselineKind = baselineKind == null ? "" : baselineKind;
            description = description == null ? "" : description;
        }

        /** @return {@code change}'s name, "" when the file has none */
        public String changeText() {
            return change == null ? "" : change.name();
        }

        /** @return whether this is an enforced or reported {@link Change#REGRESSION} */
        public boolean regression() {
            return change == Change.REGRESSION;
        }
    }

    /**
     * One key metric over the last runs of a {@link History}.
     *
     * @param metric    the metric name, e.g. {@code ttft.p99}
     * @param label     its display name
     * @param unit      its unit, or ""
     * @param direction {@code LOWER_IS_BETTER} or {@code HIGHER_IS_BETTER}
     * @param points    oldest first, ending with the current run
     */
    public record Trend(String metric, String label, String unit, Direction direction, List<Point> points) {

        public Trend {
            metric = metric == null ? "" : metric;
            label = label == null || label.isEmpty() ? metric : label;
            unit = unit == null ? "" : unit;
            points = points == null ? List.of() : points.stream().filter(p -> p != null && p.value() != null
                    && Double.isFinite(p.value())).toList();
        }
    }

    /**
     * One run of a {@link Trend}.
     *
     * @param runId     the run's id in the store, or null
     * @param startedAt when it started (ISO-8601), or null
     * @param commit    its git commit (short or full), or null
     * @param value     the metric's value, in the trend's unit
     * @param change    the threshold model's verdict for that run against the runs before it ({@code REGRESSION} and
     *                  {@code IMPROVEMENT} mark a change point), or null
     * @param current   whether this is the run being reported
     */
    public record Point(Long runId, String startedAt, String commit, Double value, Change change, boolean current) {
    }

    /**
     * Reads {@code directory}.
     *
     * @throws UncheckedIOException when {@code summary.json} is missing or a file cannot be parsed; the message names
     *                              the file
     */
    public static ReportData read(Path directory) {
        return read(directory, null);
    }

    /**
     * Reads {@code directory}, taking the verdicts from {@code verdicts} instead of its {@code summary.json} (a
     * phase's directory, whose verdicts are in the test's {@code phases[].verdicts}).
     *
     * @param verdicts a {@code verdicts} array, or null for the file's own
     * @throws UncheckedIOException as {@link #read(Path)}
     */
    public static ReportData read(Path directory, JsonNode verdicts) {
        Path summaryFile = directory.resolve("summary.json");
        if (!Files.isRegularFile(summaryFile)) {
            throw new UncheckedIOException(new IOException("No summary.json in " + directory + ": point at a test's "
                    + "output directory, e.g. target/profiled-rollout/<Class>/<method>"));
        }
        try {
            JsonNode summary;
            Contents contents;
            try {
                summary = JSON.readTree(summaryFile.toFile());
                contents = JSON.treeToValue(summary, Contents.class);
            } catch (IOException e) {
                throw new IOException(summaryFile.getFileName() + ": " + e.getMessage(), e);
            }
            return new ReportData(directory, summary, requests(directory.resolve("requests.jsonl")),
                    timeSeries(directory.resolve("timeseries.csv")), histograms(directory.resolve("latency.hlog")),
                    contents.test() == null ? directory.getFileName().toString() : contents.test(),
                    verdicts(verdicts == null ? contents.verdicts() : verdicts),
                    contents.trace() == null ? Trace.NONE : contents.trace());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the run in " + directory + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param array a {@code verdicts} array of {@code summary.json}, or null or a missing node
     * @return its verdicts in order, each read by {@link ResultsModule} (which fills what an older file's element
     *         lacks: {@code kind} LATENCY for unit {@code ms} else TRACE, {@code scope} and {@code detail} {@code ""},
     *         the gap computed from {@code actual} and {@code budget}, enforced)
     * @throws UncheckedIOException naming an element that cannot be read
     */
    static List<Verdict> verdicts(JsonNode array) {
        List<Verdict> out = new ArrayList<>();
        if (array == null || !array.isArray()) {
            return out;
        }
        for (JsonNode v : array) {
            try {
                out.add(JSON.treeToValue(v, Verdict.class));
            } catch (IOException | IllegalArgumentException e) {
                throw new UncheckedIOException(new IOException("summary.json: unreadable verdict " + v + ": "
                        + e.getMessage(), e));
            }
        }
        return out;
    }

    private static List<Request> requests(Path file) throws IOException {
        List<Request> out = new ArrayList<>();
        if (!Files.isRegularFile(file)) {
            return out;
        }
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.isBlank()) {
                    continue;
                }
                out.add(JSON.readValue(line, Request.class));
            }
        }
        return out;
    }

    private static List<TimeSeries.Bucket> timeSeries(Path file) throws IOException {
        List<TimeSeries.Bucket> out = new ArrayList<>();
        if (!Files.isRegularFile(file)) {
            return out;
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] f = line.split(",");
            if (f.length >= 6) {
                out.add(new TimeSeries.Bucket(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]),
                        Integer.parseInt(f[3]), Long.parseLong(f[4]), Integer.parseInt(f[5]),
                        f.length >= 7 ? Double.parseDouble(f[6]) : Double.NaN));
            }
        }
        return out;
    }

    private static Map<String, Histogram> histograms(Path file) throws IOException {
        Map<String, Histogram> out = new LinkedHashMap<>();
        if (!Files.isRegularFile(file)) {
            return out;
        }
        try (InputStream in = Files.newInputStream(file)) {
            HistogramLogReader reader = new HistogramLogReader(in);
            for (EncodableHistogram h = reader.nextIntervalHistogram(); h != null; h = reader.nextIntervalHistogram()) {
                if (h instanceof Histogram histogram && histogram.getTag() != null) {
                    out.put(histogram.getTag(), histogram);
                }
            }
        }
        return out;
    }

    /**
     * @return {@code summary.json} as the run model ({@link RunHeader#of}): everything but {@code trace} and
     *         {@code verdicts}, which are {@link #trace()} and {@link #verdicts()}
     * @throws IllegalArgumentException when a block does not have the shape {@link RunReport} writes
     */
    public RunHeader head() {
        return RunHeader.of(summary);
    }

    /**
     * @return {@code summary.json}'s {@code history} block; empty in a file without one (no history store, or written
     *         before runs were recorded) or where it is not an object
     * @throws UncheckedIOException when the block is there but not in the documented shape
     */
    public java.util.Optional<History> history() {
        try {
            JsonNode block = JSON.treeToValue(summary, HistoryBlock.class).history();
            return block == null || !block.isObject() ? java.util.Optional.empty()
                    : java.util.Optional.of(JSON.treeToValue(block, History.class));
        } catch (IOException | IllegalArgumentException e) {
            throw new UncheckedIOException(new IOException("summary.json: unreadable history block: "
                    + e.getMessage(), e));
        }
    }

    /**
     * @param history a {@code history} block (a phase's {@code phases[].history}), or null
     * @return this run with {@code history} as its {@code summary.json}'s {@code history} block (written through
     *         {@link ResultsModule}); this run when {@code history} is null
     */
    ReportData withHistory(History history) {
        if (history == null || !(summary instanceof ObjectNode object)) {
            return this;
        }
        // the block goes in through the mapping of HistoryBlock, the same record history() reads it with; the file
        // has none to merge into (history() is empty when this is called), so it is set whole
        ObjectNode copy;
        try {
            copy = JSON.updateValue(object.deepCopy(), new HistoryBlock(JSON.valueToTree(history)));
        } catch (com.fasterxml.jackson.databind.JsonMappingException e) {
            throw new IllegalStateException("the history block could not be mapped", e);
        }
        return new ReportData(directory, copy, requests, timeSeries, histograms, testName, verdicts, trace);
    }

    /**
     * @return kernels over all ranks sorted by total time, descending: {@code trace.kernels} when present, else merged
     *         by name from {@code trace.ranks[].kernels}
     */
    public List<Kernel> kernels() {
        List<KernelStats> kernels = !trace.kernels().isEmpty() ? trace.kernels()
                : TraceSet.of(trace.ranks().stream().map(LabeledTrace::summary).toList()).kernels();
        return kernels.stream().map(k -> new Kernel(k.name(), k.count(), k.totalNs(), k.minNs(), k.maxNs()))
                .sorted(Comparator.comparingLong(Kernel::totalNs).reversed().thenComparing(Kernel::name)).toList();
    }

    /** @return Σ kernel time over all ranks, ns ({@code trace.kernelTotalNs}); 0 without a trace */
    public long kernelTotalNs() {
        return trace.kernelTotalNs();
    }

    /**
     * @return per trace file in {@code trace.ranks} order, its GPU busy time; labelled with
     *         {@code trace.ranks[].label} (e.g. {@code worker-1/TP-0}), else the rank's label from the file name, else
     *         the file label
     */
    public List<RankBusy> rankBusy() {
        List<RankBusy> out = new ArrayList<>();
        for (int i = 0; i < trace.ranks().size(); i++) {
            LabeledTrace r = trace.ranks().get(i);
            String label = trace.rankLabels().get(i);
            out.add(new RankBusy(label != null && !label.isEmpty() ? label
                    : r.summary().rank().map(RankIdentity::label).orElse(r.file()), r.summary().busyNs(),
                    r.summary().spanNs()));
        }
        return out;
    }

    /**
     * @return the straggler's label: {@code trace.straggler} when the file has that field (null there: none), else
     *         the busiest rank of {@link #rankBusy()}; empty with fewer than two ranks or when all are equally busy
     */
    public java.util.Optional<String> straggler() {
        List<RankBusy> ranks = rankBusy();
        if (ranks.size() < 2) {
            return java.util.Optional.empty();
        }
        if (trace.straggler() != null) {
            return trace.straggler().isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(trace.straggler());
        }
        long least = ranks.stream().mapToLong(RankBusy::busyNs).min().orElse(0);
        return ranks.stream().filter(r -> r.busyNs() > least).max(Comparator.comparingLong(RankBusy::busyNs))
                .map(RankBusy::label);
    }

    /** @return time by kernel category over all ranks ({@code trace.ranks[].categories}), ns; empty without any */
    public Map<String, Long> categories() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (LabeledTrace r : trace.ranks()) {
            for (CategoryStats c : r.summary().details().categories()) {
                out.merge(c.category().name(), c.totalNs(), Long::sum);
            }
        }
        return out;
    }
}
