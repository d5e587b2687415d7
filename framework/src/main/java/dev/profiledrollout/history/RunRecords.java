package dev.profiledrollout.history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.report.LabeledTrace;
import dev.profiledrollout.report.ReportData;
import dev.profiledrollout.report.ResultsModule;
import dev.profiledrollout.report.RunHeader;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TraceDetails;
import dev.profiledrollout.trace.analysis.CategoryStats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.apache.commons.math3.stat.descriptive.rank.Median;
import org.apiguardian.api.API;

/**
 * Builds {@link RunRecord}s from a profiled test's output directory, as the extension writes it: the one source both
 * the extension (after each run) and {@code profiled-rollout history import} (for directories of earlier runs) use.
 *
 * <h2>What is read</h2>
 * <ul>
 *   <li>{@code summary.json}: the configuration ({@code engine}, {@code load}, {@code profileRequest.num_steps},
 *       {@code profiled}), the latency figures ({@code latency}), the trace figures ({@code trace}) and the outcome
 *       ({@code outcome.status}, {@code PASSED} when absent). A phased test's {@code summary.json} lists its phases in
 *       {@code phases[]}; each phase is read from its own directory.</li>
 *   <li>{@code latency.hlog}: the raw TTFT, ITL, TPOT and E2E histograms in ns, stored as they are. Without it, the
 *       TTFT, TPOT and E2E histograms are rebuilt from {@code requests.jsonl} ({@code ttftNs}, {@code e2eNs},
 *       {@code completionTokens}); ITL needs the per-chunk times only the log keeps.</li>
 *   <li>{@code traces/**}{@code .json.gz} / {@code .json}: the GPU name, the {@code name} of the first entry of
 *       {@code deviceProperties}, which the PyTorch profiler (Kineto) writes from {@code cudaGetDeviceProperties} /
 *       {@code hipGetDeviceProperties} (pytorch/kineto {@code libkineto/src/DeviceProperties.cpp}).</li>
 * </ul>
 * The engine version is {@code engine.version} of {@code summary.json} when present (the extension sets it from
 * SGLang's {@code /server_info} {@code version} or vLLM's {@code GET /version}). A figure the directory does not hold
 * is simply absent from {@link RunRecord#metrics()}.
 *
 * <h2>Metrics</h2>
 * Named as {@link HistoryMetrics} lists them: {@code <ttft|itl|tpot|e2e>.<p50|p90|p99|mean|max>} (ms),
 * {@code throughput.requests}, {@code throughput.output_tokens}, {@code goodput.requests} (with a goodput SLO),
 * {@code errors.fraction} (failed / sent), {@code trace.kernel_ms} (kernel time summed over ranks),
 * {@code trace.gpu_busy_fraction} (busy time / trace span of every rank's devices), {@code trace.rank_imbalance},
 * {@code kernel.category.<CATEGORY>.ms}, {@code kernel.<extend|decode|mixed>.ms_per_step} (mean kernel time of one
 * rank's engine step of that stage), {@code kernel.decode.ms_per_step.bs<lo>-<hi>} (the same for decode steps whose
 * batch size lies in one power-of-two bucket, see {@link HistoryMetrics#batchBucket}, recorded with at least
 * {@value #MIN_BUCKET_STEPS} such steps), {@code kernel.extend.us_per_token} (Σ kernel time of the prefill steps /
 * Σ their prompt tokens, per rank, µs) and {@code kernel.K<hash>.ms} ({@link HistoryMetrics#kernelMetric}, names in
 * {@link RunRecord#kernelNames()}) for the {@value #TOP_KERNELS} kernels with
 * the most time. Steps are those of {@code trace.ranks[].steps} with their {@code stage}, {@code batchSize},
 * {@code tokens} and {@code kernelNs}, as the trace's step annotations give them (docs/TRACES.md §2).
 */
@API(status = API.Status.EXPERIMENTAL)
public final class RunRecords {

    /**
     * The fewest decode steps (summed over ranks) a batch-size bucket needs for its
     * {@code kernel.decode.ms_per_step.bs<lo>-<hi>} to be recorded: a bucket the capture barely touched is left out
     * rather than compared on one or two steps.
     */
    public static final int MIN_BUCKET_STEPS = 3;

    /** How many of the kernels with the most time are recorded as {@code kernel.K<hash>.ms}. */
    public static final int TOP_KERNELS = 5;

    private static final ObjectMapper JSON = ResultsModule.newMapper();
    private static final double NS_PER_MS = 1e6;

    private RunRecords() {
    }

    /**
     * The records of one test run: one for a test without phases, one per phase (in the order they ran, test id
     * {@code <base test id>/<PHASE>}, configuration {@code phase} set) for a phased test.
     *
     * @param testDirectory the test's output directory, holding {@code summary.json}
     * @param base          the run's identity; its test id is the test's ({@code <class>#<method>})
     * @return the records, each with id 0 (not yet recorded)
     * @throws IllegalArgumentException naming the directory when it holds no readable {@code summary.json}, or a
     *                                  phase's directory is missing
     * @throws UncheckedIOException     when a file cannot be read
     */
    public static List<RunRecord> fromDirectory(Path testDirectory, RunIdentity base) {
        JsonNode summary = summary(testDirectory);
        RunHeader head = RunHeader.of(summary);
        List<RunHeader.PhaseEntry> phases = head.phases();
        if (phases.isEmpty()) {
            return fromModel(List.of(new Window(null, testDirectory, head, ReportData.Trace.of(summary),
                    histograms(testDirectory))), base);
        }
        List<Window> windows = new ArrayList<>();
        for (RunHeader.PhaseEntry phase : phases) {
            Path dir = testDirectory.resolve(phase.directoryName());
            JsonNode phaseSummary = summary(dir);
            windows.add(new Window(phase.phase(), dir, RunHeader.of(phaseSummary).withDefaultsFrom(head),
                    ReportData.Trace.of(phaseSummary), histograms(dir)));
        }
        return fromModel(windows, base);
    }

    /**
     * One profile window of a run as the run model holds it: what {@link #fromModel} records.
     *
     * @param phase      the phase's name ({@code PREFILL}), or null for a test without phases
     * @param directory  its output directory: where its trace files ({@code traces/}, for the GPU's name) and a
     *                   staged load's {@code stages.json} ({@link StageMetrics}) are
     * @param head       its {@code summary.json} as the run model
     * @param trace      its {@code trace}
     * @param histograms its raw latency histograms in ns, compressed ({@link #encode}), by distribution name
     */
    public record Window(String phase, Path directory, RunHeader head, ReportData.Trace trace,
                         Map<String, byte[]> histograms) {
    }

    /**
     * The records of one test run from its windows in the run model (the history recorder passes the windows it holds
     * in memory; {@link #fromDirectory} reads them from the files first): one for a test without phases, one per
     * phase in the given order (test id {@code <base test id>/<PHASE>}).
     *
     * @param windows one window without a phase, or one per phase
     * @param base    the run's identity; its test id is the test's ({@code <class>#<method>})
     * @return the records, each with id 0 (not yet recorded)
     */
    public static List<RunRecord> fromModel(List<Window> windows, RunIdentity base) {
        List<RunRecord> records = new ArrayList<>();
        for (Window w : windows) {
            RunIdentity identity = w.phase() == null ? base : new RunIdentity(base.testId() + "/" + w.phase(),
                    base.startedAt(), base.commit(), base.branch(), base.buildId(), base.buildUrl(), base.host());
            records.add(record(w.directory(), w.head(), w.trace(), w.histograms(), identity, w.phase()));
        }
        return records;
    }

    private static JsonNode summary(Path directory) {
        Path file = directory.resolve("summary.json");
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(directory + " holds no summary.json: pass a profiled test's output "
                    + "directory (<profiledrollout.output.dir>/<TestClass>/<method>)");
        }
        try {
            JsonNode node = JSON.readTree(file.toFile());
            if (node == null || !node.isObject()) {
                throw new IllegalArgumentException(file + " is not a JSON object: it is not a Profiled Rollout summary");
            }
            return node;
        } catch (IOException e) {
            throw new IllegalArgumentException(file + " cannot be read as JSON (" + e.getMessage()
                    + "): re-run the test to rewrite it", e);
        }
    }

    private static RunRecord record(Path directory, RunHeader head, ReportData.Trace trace,
            Map<String, byte[]> histograms, RunIdentity identity, String phase) {
        RunConfiguration configuration = configuration(directory, head, phase);
        RunHeader.Outcome ended = head.outcome();
        String outcome = ended == null || ended.status() == null ? "PASSED" : ended.status();
        return new RunRecord(0, identity, configuration, outcome, StageMetrics.with(metrics(head, trace), directory),
                histograms, kernelNames(trace));
    }

    /**
     * The configuration of the run whose {@code summary.json} is in {@code directory}, as the history store
     * fingerprints it (no phase).
     *
     * @throws IllegalArgumentException when {@code directory} has no readable {@code summary.json}
     */
    public static RunConfiguration configurationOf(Path directory) {
        return configuration(directory, summary(directory), null);
    }

    static RunConfiguration configuration(Path directory, JsonNode summary, String phase) {
        return configuration(directory, RunHeader.of(summary), phase);
    }

    static RunConfiguration configuration(Path directory, RunHeader head, String phase) {
        RunHeader.Engine engine = head.engine() != null ? head.engine()
                : new RunHeader.Engine(null, null, null, null, null, null, null, null, null, null, null);
        RunHeader.Load load = head.load() != null ? head.load()
                : new RunHeader.Load(null, null, null, null, null, null, null, null);
        RunHeader.Profiled profiled = head.profiled() != null ? head.profiled() : new RunHeader.Profiled(null, null, null, null, null);
        String kind = profiled.kind() != null ? profiled.kind() : engine.kind() != null ? engine.kind() : "unknown";
        // the extras' texts are part of the fingerprint: spelled as the JSON values were before the typed reading
        SortedMap<String, String> extra = new TreeMap<>();
        putText(extra, "endpoint", load.endpoint());
        putText(extra, "requests", load.requests());
        if (load.rangeRatio() != null && load.rangeRatio() != 0) {
            putText(extra, "rangeRatio", load.rangeRatio());
        }
        if (load.prefixTokens() != null && load.prefixTokens() != 0) {
            putText(extra, "prefixTokens", load.prefixTokens());
        }
        if (profiled.workers() != null && profiled.workers() != 1) {
            putText(extra, "workers", profiled.workers());
        }
        Double rate = load.arrival() == null ? null : load.arrival().requestRate();
        double requestRate = rate == null ? Double.POSITIVE_INFINITY : rate;
        return new RunConfiguration(engine.backend() != null ? engine.backend() : "UNKNOWN", kind,
                text(engine.version()), text(engine.model()), gpuName(directory), orDefault(engine.tpSize(), 1),
                orDefault(engine.dpSize(), 1), orDefault(engine.ppSize(), 1), orDefault(engine.epSize(), 1),
                orDefault(load.inputTokens(), 0), orDefault(load.outputTokens(), 0), orDefault(load.concurrency(), 0),
                requestRate, orDefault(head.numSteps(), 0), phase, extra);
    }

    private static int orDefault(Integer value, int otherwise) {
        return value == null ? otherwise : value;
    }

    private static void putText(Map<String, String> extra, String key, Object value) {
        if (value != null) {
            extra.put(key, String.valueOf(value));
        }
    }

    private static String text(String value) {
        return value != null && !value.isBlank() ? value : null;
    }

    /** The top kernels' metric ids ({@link HistoryMetrics#kernelMetric}) → full names, of one summary's trace. */
    static SortedMap<String, String> kernelNames(ReportData.Trace trace) {
        SortedMap<String, String> names = new TreeMap<>();
        topKernels(trace).forEach(k -> names.put(HistoryMetrics.kernelMetric(k.name()), k.name()));
        return names;
    }

    /** The {@link #TOP_KERNELS} kernels of {@code trace.kernels} with the most time (ties in file order). */
    private static List<KernelStats> topKernels(ReportData.Trace trace) {
        return trace.kernels().stream().sorted(Comparator.comparingLong(KernelStats::totalNs).reversed())
                .limit(TOP_KERNELS).toList();
    }

    /** The metrics of one parsed {@code summary.json} (one window or one phase), as {@link #metrics(RunHeader, ReportData.Trace)}. */
    static SortedMap<String, Double> metrics(JsonNode summary) {
        return metrics(RunHeader.of(summary), ReportData.Trace.of(summary));
    }

    /** The metrics of one summary (one window or one phase), by {@link HistoryMetrics} name. */
    static SortedMap<String, Double> metrics(RunHeader head, ReportData.Trace trace) {
        SortedMap<String, Double> metrics = new TreeMap<>();
        RunHeader.Latency latency = head.latency();
        if (latency != null) {
            for (String distribution : HistoryMetrics.DISTRIBUTIONS) {
                RunHeader.Distribution d = latency.distribution(distribution);
                if (d == null || d.count() == null || d.count() == 0) {
                    continue;
                }
                for (String stat : List.of("p50", "p90", "p99", "mean", "max")) {
                    put(metrics, distribution + "." + stat, d.stat(stat));
                }
            }
            put(metrics, "throughput.requests", latency.requestThroughput());
            put(metrics, "throughput.output_tokens", latency.outputTokenThroughput());
            put(metrics, "goodput.requests", latency.requestGoodput());
            long completed = latency.completed() == null ? 0 : latency.completed();
            long failed = latency.failed() == null ? 0 : latency.failed();
            if (completed + failed > 0) {
                metrics.put("errors.fraction", (double) failed / (completed + failed));
            }
        }
        traceMetrics(trace, metrics);
        return metrics;
    }

    /**
     * The {@code trace.*} and {@code kernel.*} metrics, from {@code summary.json}'s {@code trace} read into the run
     * model ({@link ReportData.Trace}, through {@link ResultsModule}) rather than by key; the GPU busy fraction is the
     * model's ({@link ReportData.Trace#gpuBusyFraction()}), the definition the {@code gpuBusyFraction()} budget uses.
     */
    private static void traceMetrics(ReportData.Trace trace, Map<String, Double> metrics) {
        if (!trace.ranks().isEmpty() || trace.kernelTotalNs() > 0) {
            metrics.put("trace.kernel_ms", trace.kernelTotalNs() / NS_PER_MS);
        }
        put(metrics, "trace.rank_imbalance", trace.busyImbalance());
        Map<String, Double> categories = new LinkedHashMap<>();
        Map<String, double[]> perStep = new LinkedHashMap<>();
        SortedMap<Integer, double[]> decodeBuckets = new TreeMap<>();
        double[] prefillTokens = new double[2];
        SortedMap<Integer, List<Long>> decodeIntervals = new TreeMap<>();
        List<double[]> prefillSteps = new ArrayList<>();
        for (LabeledTrace rank : trace.ranks()) {
            TraceDetails details = rank.summary().details();
            stepIntervals(details.steps(), decodeIntervals);
            for (CategoryStats c : details.categories()) {
                categories.merge(c.category().name(), (double) c.totalNs(), Double::sum);
            }
            for (StepStats step : details.steps()) {
                String kind = step.stage() == null ? null : switch (step.stage()) {
                    case PREFILL -> "extend";
                    case DECODE -> "decode";
                    case MIXED -> "mixed";
                    default -> null;
                };
                if (kind == null) {
                    continue;
                }
                double[] sum = perStep.computeIfAbsent(kind, k -> new double[2]);
                sum[0] += step.kernelNs();
                sum[1]++;
                // summary.json's steps carry the annotation name, not its batch size and tokens
                StepStats named = StepStats.ofName(step.name() == null ? "" : step.name());
                int batch = present(step.batchSize()) ? step.batchSize().getAsInt() : named.batchSize().orElse(0);
                if (kind.equals("decode") && batch > 0) {
                    double[] b = decodeBuckets.computeIfAbsent(HistoryMetrics.batchBucket(batch), k -> new double[2]);
                    b[0] += step.kernelNs();
                    b[1]++;
                }
                long tokens = present(step.tokens()) ? step.tokens().getAsInt() : named.tokens().orElse(0);
                if (kind.equals("extend") && tokens > 0) {
                    prefillTokens[0] += step.kernelNs();
                    prefillTokens[1] += tokens;
                    prefillSteps.add(new double[] {tokens, step.kernelNs()});
                }
            }
        }
        trace.gpuBusyFraction().ifPresent(f -> metrics.put("trace.gpu_busy_fraction", f));
        categories.forEach((category, ns) -> {
            if (category.matches("[A-Za-z0-9_]+")) {
                metrics.put("kernel.category." + category + ".ms", ns / NS_PER_MS);
            }
        });
        perStep.forEach((kind, sum) -> metrics.put("kernel." + kind + ".ms_per_step", sum[0] / sum[1] / NS_PER_MS));
        decodeBuckets.forEach((bucket, sum) -> {
            if (sum[1] >= MIN_BUCKET_STEPS) {
                metrics.put(HistoryMetrics.decodeBucketMetric(bucket), sum[0] / sum[1] / NS_PER_MS);
            }
        });
        if (prefillTokens[1] > 0) {
            metrics.put(HistoryMetrics.PREFILL_US_PER_TOKEN, prefillTokens[0] / prefillTokens[1] / 1e3);
        }
        prefillAtReference(prefillSteps).ifPresent(us -> metrics.put(HistoryMetrics.PREFILL_US_PER_TOKEN_FIT, us));
        decodeIntervals.forEach((bucket, intervals) -> {
            if (intervals.size() >= MIN_BUCKET_STEPS) {
                metrics.put(HistoryMetrics.decodeIntervalMetric(bucket), median(intervals) / NS_PER_MS);
            }
        });
        topKernels(trace).forEach(k -> metrics.put(HistoryMetrics.kernelMetric(k.name()), k.totalNs() / NS_PER_MS));
    }

    /**
     * Adds, per decode batch-size bucket, the start-to-start interval of each DECODE step of one rank to the step
     * after it: the step's own time (host and GPU) plus the host time before the next one. The last step of the rank
     * has no interval.
     */
    private static void stepIntervals(List<StepStats> steps, SortedMap<Integer, List<Long>> intervals) {
        List<StepStats> sorted = steps.stream().sorted(Comparator.comparingLong(StepStats::startNs)).toList();
        for (int i = 0; i + 1 < sorted.size(); i++) {
            StepStats step = sorted.get(i);
            if (step.stage() != StepStats.Stage.DECODE) {
                continue;
            }
            StepStats named = StepStats.ofName(step.name() == null ? "" : step.name());
            int batch = present(step.batchSize()) ? step.batchSize().getAsInt() : named.batchSize().orElse(0);
            long interval = sorted.get(i + 1).startNs() - step.startNs();
            if (batch > 0 && interval > 0) {
                intervals.computeIfAbsent(HistoryMetrics.batchBucket(batch), k -> new ArrayList<>()).add(interval);
            }
        }
    }

    /**
     * GPU µs per token of a prefill step of {@link HistoryMetrics#PREFILL_REFERENCE_TOKENS} tokens: the least-squares
     * line {@code kernelNs = a + b·tokens} through the run's prefill steps, evaluated at the reference and divided by
     * it. Empty with fewer than {@value #MIN_BUCKET_STEPS} steps or when the largest step is not at least 1.5× the
     * smallest (the line's offset and slope cannot be told apart).
     *
     * @param steps {tokens, kernel ns} per prefill step
     */
    static java.util.OptionalDouble prefillAtReference(List<double[]> steps) {
        if (steps.size() < MIN_BUCKET_STEPS) {
            return java.util.OptionalDouble.empty();
        }
        double min = Double.POSITIVE_INFINITY;
        double max = 0;
        double sx = 0;
        double sy = 0;
        for (double[] p : steps) {
            min = Math.min(min, p[0]);
            max = Math.max(max, p[0]);
            sx += p[0];
            sy += p[1];
        }
        if (max < 1.5 * min) {
            return java.util.OptionalDouble.empty();
        }
        double mx = sx / steps.size();
        double my = sy / steps.size();
        double sxx = 0;
        double sxy = 0;
        for (double[] p : steps) {
            sxx += (p[0] - mx) * (p[0] - mx);
            sxy += (p[0] - mx) * (p[1] - my);
        }
        double slope = sxy / sxx;
        double reference = HistoryMetrics.PREFILL_REFERENCE_TOKENS;
        double ns = my + slope * (reference - mx);
        return ns > 0 ? java.util.OptionalDouble.of(ns / reference / 1e3) : java.util.OptionalDouble.empty();
    }

    /**
     * The median of a non-empty list: the middle value, the mean of the middle two for an even count. Commons Math's
     * {@link Median} (estimation type {@code LEGACY}: position (n + 1) / 2, interpolated) gives exactly that; for
     * ns intervals below 2^52 the interpolation {@code a + 0.5 (b - a)} is exact, so it equals {@code (a + b) / 2}.
     */
    private static double median(List<Long> values) {
        return new Median().evaluate(values.stream().mapToDouble(Long::doubleValue).toArray());
    }

    private static boolean present(OptionalInt value) {
        return value != null && value.isPresent();
    }

    private static void put(Map<String, Double> metrics, String name, Double value) {
        if (value != null && Double.isFinite(value)) {
            metrics.put(name, value);
        }
    }

    /**
     * The raw latency histograms in ns, compressed, by distribution name: from {@code latency.hlog}, else (files
     * written before it) from {@code requests.jsonl}.
     */
    static Map<String, byte[]> histograms(Path directory) {
        Map<String, Histogram> histograms = new LinkedHashMap<>();
        Path log = directory.resolve("latency.hlog");
        if (Files.isRegularFile(log)) {
            try (InputStream in = Files.newInputStream(log)) {
                histograms.putAll(fromLog(in));
            } catch (IOException e) {
                throw new UncheckedIOException("Could not read " + log, e);
            }
        }
        if (histograms.isEmpty()) {
            histograms.putAll(fromRequests(directory.resolve("requests.jsonl")));
        }
        return encoded(histograms);
    }

    /**
     * @param latencyLog a latency log in the format of {@code latency.hlog} ({@code LatencyReport#writeHistogramLog},
     *                   written to memory by the history recorder)
     * @return its raw latency histograms in ns, compressed, by distribution name, as {@link #histograms(Path)} reads
     *         them from the file
     */
    public static Map<String, byte[]> histograms(byte[] latencyLog) {
        return encoded(fromLog(new java.io.ByteArrayInputStream(latencyLog)));
    }

    private static Map<String, Histogram> fromLog(InputStream in) {
        Map<String, Histogram> histograms = new LinkedHashMap<>();
        HistogramLogReader reader = new HistogramLogReader(in);
        for (EncodableHistogram h = reader.nextIntervalHistogram(); h != null; h = reader.nextIntervalHistogram()) {
            if (h instanceof Histogram histogram && h.getTag() != null) {
                String name = h.getTag().toLowerCase(Locale.ROOT);
                if (HistoryMetrics.DISTRIBUTIONS.contains(name)) {
                    histograms.merge(name, histogram, (a, b) -> {
                        a.add(b);
                        return a;
                    });
                }
            }
        }
        return histograms;
    }

    private static Map<String, byte[]> encoded(Map<String, Histogram> histograms) {
        Map<String, byte[]> encoded = new LinkedHashMap<>();
        histograms.forEach((name, h) -> {
            if (h.getTotalCount() > 0) {
                encoded.put(name, encode(h));
            }
        });
        return encoded;
    }

    /**
     * The parts of a {@code requests.jsonl} line ({@code RequestLog}) the fallback histograms use; absent numbers are
     * null.
     */
    private record RequestLine(String error, Long ttftNs, Long e2eNs, Integer completionTokens) {
    }

    private static Map<String, Histogram> fromRequests(Path requests) {
        Map<String, Histogram> histograms = new HashMap<>();
        if (!Files.isRegularFile(requests)) {
            return histograms;
        }
        try (BufferedReader reader = Files.newBufferedReader(requests, StandardCharsets.UTF_8)) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.isBlank()) {
                    continue;
                }
                RequestLine r = JSON.readValue(line, RequestLine.class);
                if (r.error() != null) {
                    continue;
                }
                long ttft = r.ttftNs() == null ? -1 : r.ttftNs();
                long e2e = r.e2eNs() == null ? -1 : r.e2eNs();
                int tokens = r.completionTokens() == null ? -1 : r.completionTokens();
                if (ttft >= 0) {
                    histograms.computeIfAbsent("ttft", k -> new Histogram(3)).recordValue(ttft);
                }
                if (e2e >= 0) {
                    histograms.computeIfAbsent("e2e", k -> new Histogram(3)).recordValue(e2e);
                    if (ttft >= 0 && tokens > 1) {
                        histograms.computeIfAbsent("tpot", k -> new Histogram(3)).recordValue((e2e - ttft) / (tokens - 1));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + requests, e);
        }
        return histograms;
    }

    /** A histogram in HdrHistogram's compressed form, as {@link RunRecord#histograms()} holds it. */
    public static byte[] encode(Histogram histogram) {
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        return Arrays.copyOf(buffer.array(), length);
    }

    /**
     * A histogram from its compressed form.
     *
     * @throws IllegalArgumentException when the bytes are not a compressed HdrHistogram
     */
    public static Histogram decode(byte[] compressed) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(compressed), 0);
        } catch (java.util.zip.DataFormatException | RuntimeException e) {
            throw new IllegalArgumentException("not an HdrHistogram in compressed form: " + e.getMessage(), e);
        }
    }

    /**
     * Every recorded value of a histogram, each repeated by its count, in ms: the samples the two-sample threshold
     * models compare. Values are HdrHistogram's recorded-value equivalents (3 significant digits).
     */
    public static double[] samplesMs(Histogram histogram) {
        double[] samples = new double[(int) Math.min(Integer.MAX_VALUE - 8, histogram.getTotalCount())];
        int i = 0;
        for (org.HdrHistogram.HistogramIterationValue v : histogram.recordedValues()) {
            double ms = histogram.highestEquivalentValue(v.getValueIteratedTo()) / NS_PER_MS;
            for (long c = 0; c < v.getCountAtValueIteratedTo() && i < samples.length; c++) {
                samples[i++] = ms;
            }
        }
        return i == samples.length ? samples : Arrays.copyOf(samples, i);
    }

    /**
     * The GPU name of the first trace file under {@code <directory>/traces} that has a {@code deviceProperties} entry,
     * or null.
     */
    static String gpuName(Path directory) {
        Path traces = directory.resolve("traces");
        if (!Files.isDirectory(traces)) {
            return null;
        }
        try (Stream<Path> files = Files.walk(traces)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".json.gz")
                    || f.getFileName().toString().endsWith(".json")).sorted().toList()) {
                String name = deviceName(file);
                if (name != null) {
                    return name;
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    /** Streams the trace only up to {@code deviceProperties}: the files can be hundreds of MB. */
    private static String deviceName(Path file) {
        try (InputStream raw = Files.newInputStream(file);
                InputStream in = file.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw;
                com.fasterxml.jackson.core.JsonParser parser = JSON.getFactory().createParser(in)) {
            if (parser.nextToken() != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                return null;
            }
            while (parser.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                String field = parser.getCurrentName();
                parser.nextToken();
                if (field.equals("deviceProperties")) {
                    JsonNode devices = parser.readValueAsTree();
                    for (JsonNode device : devices) {
                        if (device.path("name").isTextual() && !device.path("name").asText().isBlank()) {
                            return device.path("name").asText();
                        }
                    }
                    return null;
                }
                parser.skipChildren();
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null; // an unreadable trace has no GPU name; its analysis reports the problem
        }
    }
}
