package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestLog;
import dev.profiledrollout.metrics.ScheduleReport;
import dev.profiledrollout.metrics.TimeSeries;
import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.verdict.Verdict;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.apiguardian.api.API;

/**
 * Writes one profile window's results under its output directory and prints the console summary.
 *
 * <h2>Files</h2>
 * <ul>
 *   <li>{@code requests.jsonl}: one JSON object per request, in index order, in the shape of
 *       {@link RequestLog}: counts from the server's usage, intended/send/first-chunk/end timestamps in ns
 *       relative to the earliest intended send, schedule lag, TTFT and E2E, error.</li>
 *   <li>{@code timeseries.csv}: per second, requests started/completed/failed, output tokens and requests in
 *       flight ({@link TimeSeries}).</li>
 *   <li>{@code latency.hlog}: HdrHistogram log, one interval histogram per metric tagged TTFT, ITL, TPOT, E2E, in ns.</li>
 *   <li>{@code summary.json}: {@code test}, {@code engine} ({@code backend}, {@code url} without user info or query,
 *       {@code kind}: {@code simulator} for the embedded simulator, else {@code attached}; the first engine's
 *       TP/DP/PP/EP sizes and model), {@code profiled} (what the window profiled: the router and its workers, one
 *       engine, ... see {@link Profiled}), {@code load}, {@code profileRequest} (the exact body sent), {@code phase},
 *       {@code workers} (see {@link #withFanOut}; each with its {@code label}, see {@link #withWorkerLabels}, and the
 *       {@code traceFiles} of its ranks) and {@code frontendTraceFiles}, {@code latency} (per metric: definition,
 *       count, mean/p50/p90/p99/max in ms; throughput; errors by kind; with a goodput SLO {@code requestGoodput} in req/s, {@code goodRequests} and
 *       {@code goodput}, the SLO as {@code "key:ms"} strings; {@code scheduleLag}, {@code correctedTtft},
 *       {@code correctedE2e} and {@code clientFellBehind} from {@link ScheduleReport}), {@code trace}
 *       ({@code kernelTotalNs}, {@code busyImbalance}, {@code straggler}, {@code workerImbalance}, {@code rankSets}
 *       (one per worker), {@code kernels}: every kernel over all ranks, by total time descending; and {@code ranks}:
 *       one object per trace file in the shape of {@code profiled-rollout analyze --format json}, see
 *       {@link TraceSummaryJson}, plus its {@code label} and {@code worker}; all as {@link ResultsModule} says),
 *       {@code steps} (the engine steps each rank trace holds, see {@link CapturedSteps}, when set), and
 *       {@code error} when the
 *       window did not complete. The extension adds {@code baseline} when a kernel baseline was compared; after the
 *       test body, {@link TestReport} adds {@code verdicts} (one {@link Verdict} per budget assertion) and
 *       {@code traceFiles} (paths of the collected trace files). Every record in it has the shape
 *       {@link ResultsModule} gives it.</li>
 *   <li>{@code charts/*.png}, {@code kernels.csv} and {@code report.html}: the offline report, see
 *       {@link ReportRenderer}.</li>
 * </ul>
 * Nothing secret is written: the API key is never part of any of these objects.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class RunReport {

    private static final ObjectMapper JSON = ResultsModule.MAPPER;
    private static final int TOP_KERNELS_ON_CONSOLE = 8;

    private final Path directory;
    private final String testName;
    private final URI engineUri;
    private final boolean simulator;
    private final ServerInfo serverInfo;
    private final LoadSpec load;
    private final ProfileRequest profileRequest;
    private List<WorkerOutcome> workers = List.of();
    private List<String> workerLabels = List.of();
    private List<String> workerPhases = List.of();
    private Profiled profiled;
    private List<String> frontendTraceFiles = List.of();
    private String phase;
    private String backend;
    private CapturedSteps steps;
    private List<RunHeader.StagePlacement> stagePlacement = List.of();

    public RunReport(Path directory, String testName, URI engineUri, boolean simulator, ServerInfo serverInfo,
            LoadSpec load, ProfileRequest profileRequest) {
        this.directory = directory;
        this.testName = testName;
        this.engineUri = engineUri;
        this.simulator = simulator;
        this.serverInfo = serverInfo;
        this.load = load;
        this.profileRequest = profileRequest;
    }

    /**
     * Adds per-engine outcomes ({@code workers} in {@code summary.json}: url, workerType, state, httpStatus, reason,
     * stopOutcome), the names of vLLM frontend traces kept out of the analysis ({@code frontendTraceFiles}) and the
     * {@code @RolloutPhase} ({@code phase}) of the window.
     *
     * @param workers            per engine, may be empty, not null
     * @param frontendTraceFiles file names, may be empty, not null
     * @param phase              {@code PREFILL}/{@code DECODE}, or null for a window without phases
     * @return this report
     */
    public RunReport withFanOut(List<WorkerOutcome> workers, List<String> frontendTraceFiles, String phase) {
        this.workers = List.copyOf(workers);
        this.frontendTraceFiles = List.copyOf(frontendTraceFiles);
        this.phase = phase;
        return this;
    }

    /**
     * Names the engines of {@link #withFanOut} ({@code workers[].label} in {@code summary.json}).
     *
     * @param labels one per engine, in the same order, e.g. {@code worker-2} for the router's second worker; when not
     *               given (or of another size) the engines are numbered {@code worker-1}, {@code worker-2}, ... in
     *               their order
     * @return this report
     */
    public RunReport withWorkerLabels(List<String> labels) {
        this.workerLabels = List.copyOf(labels);
        return this;
    }

    /**
     * For the combined report of a phased test: the phase each engine outcome of {@link #withFanOut} belongs to
     * ({@code workers[].phase} in {@code summary.json}); each engine's {@code traceFiles} are then those under that
     * phase's directory ({@code <test output>/<phase>/}).
     *
     * @param phases one per engine, in the same order, e.g. {@code PREFILL}; ignored when of another size
     * @return this report
     */
    public RunReport withWorkerPhases(List<String> phases) {
        this.workerPhases = List.copyOf(phases);
        return this;
    }

    /**
     * Says what was profiled ({@code profiled} in {@code summary.json}).
     *
     * @param profiled what was profiled, or null to leave {@code profiled} out
     * @return this report
     */
    public RunReport withProfiled(Profiled profiled) {
        this.profiled = profiled;
        return this;
    }

    /**
     * What a window profiled, as opposed to what was configured by default: {@code profiled} in {@code summary.json}.
     *
     * @param kind        {@code embedded simulator}, {@code attached engine}, {@code router}, {@code prefill-decode}
     *                    or {@code container}; not null
     * @param url         where the load went (the router, or the engine), without credentials; not null
     * @param workers     how many engines the window profiled (listed, whether or not they started)
     * @param ranks       how many ranks when no trace was analysed (the first engine's TP size × the engines);
     *                    {@code summary.json} gives the number of analysed rank traces instead when there are any
     * @param description one line naming every engine, e.g. {@code router http://r:8000 → 2 workers: worker-1 prefill
     *                    http://a:30000, worker-2 decode http://b:30000; TP 1 each}; not null
     */
    @API(status = EXPERIMENTAL, since = "0.1")
    public record Profiled(String kind, String url, int workers, int ranks, String description) {

        public Profiled {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(url, "url");
            Objects.requireNonNull(description, "description");
        }
    }

    /**
     * Names the backend ({@code engine.backend} in {@code summary.json}, e.g. {@code SGLANG}).
     *
     * @param backend the backend's name, or null when unknown
     * @return this report
     */
    public RunReport withBackend(String backend) {
        this.backend = backend;
        return this;
    }

    /**
     * Adds the engine steps the capture holds ({@code steps} in {@code summary.json}).
     *
     * @param steps the counts, or null to leave {@code steps} out
     * @return this report
     */
    public RunReport withSteps(CapturedSteps steps) {
        this.steps = steps;
        return this;
    }

    /**
     * Adds where the captured steps fell in a staged load ({@code stagePlacement} in {@code summary.json}, left out
     * when empty).
     *
     * @param placement per rank trace, not null
     * @return this report
     */
    public RunReport withStagePlacement(List<RunHeader.StagePlacement> placement) {
        this.stagePlacement = List.copyOf(placement);
        return this;
    }

    /** Writes {@code requests.jsonl}, {@code timeseries.csv} and {@code latency.hlog}. */
    public void writeRequests(LatencyReport latency) {
        try {
            Files.createDirectories(directory);
            try (BufferedWriter out = Files.newBufferedWriter(directory.resolve("requests.jsonl"),
                    StandardCharsets.UTF_8)) {
                RequestLog.writeJsonl(latency.records(), out);
            }
            try (BufferedWriter out = Files.newBufferedWriter(directory.resolve("timeseries.csv"),
                    StandardCharsets.UTF_8)) {
                TimeSeries.of(latency.records(), RequestLog.origin(latency.records())).writeCsv(out);
            }
            try (OutputStream out = Files.newOutputStream(directory.resolve("latency.hlog"))) {
                latency.writeHistogramLog(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the request records to " + directory, e);
        }
    }

    /**
     * Writes {@code summary.json}.
     *
     * @param trace the analysed capture, or null when it could not be read
     * @param error why the window did not complete, or null
     */
    public void writeSummary(LatencyReport latency, TraceSet trace, String error) {
        writeSummary(summary(latency, trace, error));
    }

    /**
     * @param trace the analysed capture, or null when it could not be read
     * @param error why the window did not complete, or null
     * @return the {@code summary.json} {@link #writeSummary(LatencyReport, TraceSet, String)} writes, in memory (the
     *         run model's source: {@link RunHeader#of}, {@link ReportData.Trace#of})
     */
    public SummaryFile summary(LatencyReport latency, TraceSet trace, String error) {
        // "simulator" only for the simulator this run embedded: an attached router of simulator processes is attached,
        // and profiled says what it was. The simulator's own /server_info fields say which performance faults and GPU
        // noise this run was served with (dev.profiledrollout.simulator.internal.SimulatedPerformance); real engines
        // do not send them.
        RunHeader.Engine engine;
        try {
            engine = new RunHeader.Engine(backend, ReportParameters.safeUrl(engineUri.toString()),
                    simulator ? "simulator" : "attached", serverInfo.servedModelName(), serverInfo.tpSize(),
                    serverInfo.dpSize(), serverInfo.ppSize(), serverInfo.epSize(),
                    JSON.treeToValue(serverInfo.raw().get("simulated_faults"), RunHeader.SimulatedFaults.class),
                    JSON.treeToValue(serverInfo.raw().get("simulated_gpu_noise"), RunHeader.SimulatedGpuNoise.class),
                    null);
        } catch (IOException e) {
            throw new UncheckedIOException("The simulator's /server_info has simulated_faults or simulated_gpu_noise "
                    + "in a shape this version does not know (" + e.getMessage() + "): use a simulator of the same "
                    + "version as the framework", e);
        }
        JsonNode request;
        try {
            request = JSON.readTree(profileRequest.toJson());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return SummaryFile.builder()
                .test(testName)
                .engine(engine)
                .load(JSON.valueToTree(load))
                .profileRequest(request)
                .phase(phase)
                .profiled(profiled == null ? null : new RunHeader.Profiled(profiled.kind(),
                        ReportParameters.safeUrl(profiled.url()), profiled.workers(),
                        trace != null && !trace.traces().isEmpty() ? trace.traces().size() : profiled.ranks(),
                        profiled.description()))
                .workers(workers(trace))
                .frontendTraceFiles(frontendTraceFiles)
                .latency(JSON.valueToTree(latency))
                .trace(trace == null ? null : JSON.valueToTree(trace))
                .steps(steps)
                .stagePlacement(stagePlacement)
                .error(error)
                .build();
    }

    /**
     * Writes {@code summary} ({@link #summary}) as this window's {@code summary.json}.
     *
     * @throws UncheckedIOException naming the file when it cannot be written
     */
    public void writeSummary(SummaryFile summary) {
        summary.write(directory.resolve("summary.json"));
    }

    /**
     * {@code workers[]}: each {@link WorkerOutcome} (its URL without credentials) with its {@code label} and the
     * {@code traceFiles} of its ranks (paths under {@code traces/}): those the trace set attributes to the label, or
     * every trace file when there is one engine and the traces carry no worker.
     */
    private List<RunHeader.Worker> workers(TraceSet trace) {
        List<RunHeader.Worker> array = new java.util.ArrayList<>();
        Path traces = directory.resolve("traces").toAbsolutePath().normalize();
        boolean phased = workerPhases.size() == workers.size() && !workers.isEmpty();
        for (int i = 0; i < workers.size(); i++) {
            WorkerOutcome w = workers.get(i);
            String label = workerLabels.size() == workers.size() ? workerLabels.get(i) : "worker-" + (i + 1);
            String phaseOf = phased ? workerPhases.get(i) : null;
            List<String> files = new java.util.ArrayList<>();
            if (trace != null) {
                boolean single = phaseOf == null ? workers.size() == 1
                        : workerPhases.stream().filter(phaseOf::equals).count() == 1;
                Path phaseDirectory = phaseOf == null ? null
                        : directory.resolve(phaseOf.toLowerCase(java.util.Locale.ROOT)).toAbsolutePath().normalize();
                trace.traces().stream()
                        .filter(t -> phaseDirectory == null
                                || t.file().toAbsolutePath().normalize().startsWith(phaseDirectory))
                        .filter(t -> trace.worker(t).equals(label) || single && trace.worker(t).isEmpty())
                        .map(t -> t.file().toAbsolutePath().normalize())
                        .map(f -> f.startsWith(traces) ? traces.relativize(f).toString()
                                : phaseDirectory != null ? phaseDirectory.getParent().relativize(f).toString()
                                : f.getFileName().toString())
                        .distinct().forEach(files::add);
            }
            array.add(new RunHeader.Worker(ReportParameters.safeUrl(w.url().toString()),
                    w.workerType(), w.state() == null ? null : w.state().name(), w.httpStatus(), w.reason(),
                    w.stopOutcome() == null ? null : w.stopOutcome().name(), label, phaseOf, files));
        }
        return array;
    }

    /**
     * Prints the latency table, the top kernels over all ranks, each rank's GPU busy time, per rank set the busy
     * imbalance and step timeline, and the roofline of the op with the most kernel time.
     */
    public void printConsoleSummary(LatencyReport latency, TraceSet trace, PrintStream out) {
        StringBuilder text = new StringBuilder();
        text.append("\n=== Profiled rollout: ").append(testName).append(" — ");
        if (profiled != null) {
            text.append(profiled.description()).append('\n');
        } else {
            text.append("engine ").append(simulator ? "simulator" : ReportParameters.safeUrl(engineUri.toString()))
                    .append(" (TP ").append(serverInfo.tpSize()).append(")\n");
        }
        text.append(latency.toTable()).append('\n');
        ScheduleReport schedule = ScheduleReport.of(latency.records());
        if (schedule.lag().max().toNanos() > 0) {
            text.append(schedule.verdict()).append('\n');
        }
        if (trace != null && !trace.traces().isEmpty()) {
            long total = trace.kernelTotalNs();
            text.append(String.format(Locale.ROOT, "Kernels over %d rank file(s), %.3f ms of kernel time:%n",
                    trace.traces().size(), total / 1e6));
            text.append(String.format(Locale.ROOT, "  %8s %10s %7s  %s%n", "count", "total ms", "share", "kernel"));
            for (KernelStats k : trace.kernels().stream().limit(TOP_KERNELS_ON_CONSOLE).toList()) {
                text.append(String.format(Locale.ROOT, "  %8d %10.3f %6.1f%%  %s%n", k.count(), k.totalNs() / 1e6,
                        total == 0 ? 0.0 : 100.0 * k.totalNs() / total, abbreviate(k.name(), 90)));
            }
            int width = trace.traces().stream().mapToInt(t -> trace.rankLabel(t).length()).max().orElse(10);
            for (TraceSummary t : trace.traces()) {
                for (DeviceStats d : t.devices()) {
                    text.append(String.format(Locale.ROOT, "  %-" + Math.max(10, width)
                                    + "s GPU %-3s busy %9.3f ms of %9.3f ms (%.1f%%)%n",
                            trace.rankLabel(t), d.id(), d.busyNs() / 1e6, d.spanNs() / 1e6, 100 * d.busyFraction()));
                }
            }
            Map<String, TraceSet> rankSets = trace.rankSets();
            for (Map.Entry<String, TraceSet> set : rankSets.entrySet()) {
                TraceSet ranks = set.getValue();
                if (ranks.traces().size() < 2) {
                    continue;
                }
                text.append(String.format(Locale.ROOT, "  busy imbalance (max/mean over %s ranks): %.3f, straggler %s%n",
                        set.getKey().isEmpty() ? "the" : set.getKey() + "'s", ranks.busyImbalance(),
                        ranks.straggler().map(trace::rankLabel).orElse("none")));
                dev.profiledrollout.trace.analysis.StepTimeline timeline = ranks.stepTimeline();
                if (!timeline.steps().isEmpty()) {
                    text.append(String.format(Locale.ROOT, "  step timeline: %d steps matched by %s, largest gap to a"
                                    + " step's straggler %.3f ms%s%n", timeline.matchedSteps(), timeline.matching(),
                            timeline.maxGapNs() / 1e6, timeline.worstStep().map(st -> " (" + st.name() + ", "
                                    + ranks.rankLabel(ranks.traces().get(st.straggler())) + ")").orElse("")));
                }
            }
            trace.traces().stream().flatMap(t -> t.details().roofline().stream())
                    .filter(r -> r.count() > 0 && Double.isFinite(r.tflops().median()))
                    .max(Comparator.comparingDouble(r -> r.kernelNs().mean() * r.count()))
                    .ifPresent(r -> text.append(String.format(Locale.ROOT, "  roofline: %s %s, %d calls, median %.1f"
                                    + " TFLOPS/s at %.1f FLOP/byte (the op with the most kernel time)%n", r.name(),
                            abbreviate(r.inputDims(), 60), r.count(), r.tflops().median(), r.flops() / r.bytes())));
            trace.workerImbalance().ifPresent(imbalance -> text.append(String.format(Locale.ROOT,
                    "  worker imbalance (max/mean of per-worker busy time over %d workers): %.3f%n", rankSets.size(),
                    imbalance)));
        }
        text.append("  results: ").append(directory).append('\n');
        out.print(text);
        out.flush();
    }

    private static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }

    /** Deletes a directory tree if it exists (a previous run's results for the same test). */
    public static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
