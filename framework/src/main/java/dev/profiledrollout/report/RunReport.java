package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Comparator;
import java.util.Locale;
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
 *       {@code kind}: {@code simulator} or {@code attached}, the server's TP/DP/PP/EP sizes and model), {@code load},
 *       {@code profileRequest} (the exact body sent), {@code phase}, {@code workers} and {@code frontendTraceFiles}
 *       (see {@link #withFanOut}), {@code latency} (per metric: definition, count, mean/p50/p90/p99/max in ms;
 *       throughput; errors by kind; with a goodput SLO {@code requestGoodput} in req/s, {@code goodRequests} and
 *       {@code goodput}, the SLO as {@code "key:ms"} strings; {@code scheduleLag}, {@code correctedTtft},
 *       {@code correctedE2e} and {@code clientFellBehind} from {@link ScheduleReport}), {@code trace}
 *       ({@code kernelTotalNs}, {@code busyImbalance}, {@code kernels}: every kernel over all ranks, by total time
 *       descending; and {@code ranks}: one object per trace file in the shape of
 *       {@code profiled-rollout analyze --format json}, see {@link TraceSummaryJson}), {@code steps} (the engine
 *       steps each rank trace holds, see {@link CapturedSteps}, when set), and {@code error} when the
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
    private List<String> frontendTraceFiles = List.of();
    private String phase;
    private String backend;
    private CapturedSteps steps;

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
        ObjectNode root = JSON.createObjectNode();
        root.put("test", testName);
        ObjectNode engine = root.putObject("engine");
        engine.put("backend", backend);
        engine.put("url", ReportParameters.safeUrl(engineUri.toString()));
        engine.put("kind", simulator || serverInfo.simulator() ? "simulator" : "attached");
        engine.put("model", serverInfo.servedModelName());
        engine.put("tpSize", serverInfo.tpSize());
        engine.put("dpSize", serverInfo.dpSize());
        engine.put("ppSize", serverInfo.ppSize());
        engine.put("epSize", serverInfo.epSize());
        root.set("load", JSON.valueToTree(load));
        try {
            root.set("profileRequest", JSON.readTree(profileRequest.toJson()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (phase != null) {
            root.put("phase", phase);
        }
        if (!workers.isEmpty()) {
            root.set("workers", JSON.valueToTree(workers));
        }
        if (!frontendTraceFiles.isEmpty()) {
            root.set("frontendTraceFiles", JSON.valueToTree(frontendTraceFiles));
        }
        root.set("latency", JSON.valueToTree(latency));
        if (trace != null) {
            root.set("trace", JSON.valueToTree(trace));
        }
        if (steps != null) {
            root.set("steps", JSON.valueToTree(steps));
        }
        root.put("error", error);
        try {
            Files.createDirectories(directory);
            JSON.writeValue(directory.resolve("summary.json").toFile(), root);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write " + directory.resolve("summary.json"), e);
        }
    }

    /** Prints the latency table, the top kernels over all ranks and each rank's GPU busy time. */
    public void printConsoleSummary(LatencyReport latency, TraceSet trace, PrintStream out) {
        StringBuilder text = new StringBuilder();
        text.append("\n=== Profiled rollout: ").append(testName).append(" — engine ")
                .append(simulator || serverInfo.simulator() ? "simulator" : engineUri.toString())
                .append(" (TP ").append(serverInfo.tpSize()).append(")\n");
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
            for (TraceSummary t : trace.traces()) {
                for (DeviceStats d : t.devices()) {
                    text.append(String.format(Locale.ROOT, "  %-10s GPU %-3s busy %9.3f ms of %9.3f ms (%.1f%%)%n",
                            t.rank().map(r -> r.label()).orElse(t.file().getFileName().toString()), d.id(),
                            d.busyNs() / 1e6, d.spanNs() / 1e6, 100 * d.busyFraction()));
                }
            }
            text.append(String.format(Locale.ROOT, "  busy imbalance (max/mean over ranks): %.3f%n",
                    trace.busyImbalance()));
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
