package dev.profiledrollout.junit.internal;

import dev.profiledrollout.Phase;
import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.engine.SafeUrls;
import dev.profiledrollout.history.RunRecords;
import dev.profiledrollout.report.CapturedSteps;
import dev.profiledrollout.report.ReportData;
import dev.profiledrollout.report.RunHeader;
import dev.profiledrollout.report.RunReport;
import dev.profiledrollout.trace.TraceSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a capture, or the combined result of a phased window, writes under its output directory: the request files
 * ({@code requests.jsonl} and the rest, see {@link RunReport#writeRequests}) and {@code summary.json}, all from the
 * one {@link RunReport} built here.
 *
 * <h2>Who writes</h2>
 * The test's thread and the shutdown hook's may both want to write the final {@code summary.json}: the first one
 * written stays. Once the hook has {@linkplain #takeOver() taken the capture over}, the test's thread writes nothing.
 */
final class CaptureReport {

    private final EngineHandle engine;
    private final WindowSpec spec;
    private final Path directory;
    private final String testName;
    private final String phase;
    private final ProfileRequest request;
    private final Runnable whenFinal;

    private final Object lock = new Object();
    /** A final {@code summary.json} was written; guarded by {@code lock}. */
    private boolean reported;
    /** What {@link #summarise} wrote last; set on the thread that wrote it, read after the window completed. */
    private volatile Written written;
    private volatile boolean takenOver;
    /** For the combined report of a phased test: the phase of each engine outcome; empty otherwise. */
    private volatile List<String> workerPhases = List.of();
    /** The steps the capture holds, null until counted. */
    private volatile CapturedSteps steps;
    /** Where the captured steps fell in a staged load, empty for a single load or until placed. */
    private volatile List<dev.profiledrollout.report.RunHeader.StagePlacement> stagePlacement = List.of();

    /**
     * @param phase     the {@code @RolloutPhase} the capture is of, null for a whole window
     * @param request   the {@code /start_profile} body {@code summary.json} shows
     * @param whenFinal run once the test's thread wrote the final {@code summary.json}
     */
    CaptureReport(EngineHandle engine, WindowSpec spec, Path directory, String testName, String phase,
            ProfileRequest request, Runnable whenFinal) {
        this.engine = engine;
        this.spec = spec;
        this.directory = directory;
        this.testName = testName;
        this.phase = phase;
        this.request = request;
        this.whenFinal = whenFinal;
    }

    /** @return the output directory */
    Path directory() {
        return directory;
    }

    /** Empties the output directory and creates the one the engine writes traces into. */
    void prepare(TraceLocation traces) {
        try {
            RunReport.deleteRecursively(directory);
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new org.junit.jupiter.api.extension.ExtensionConfigurationException("The output directory "
                    + directory.toAbsolutePath() + " (" + dev.profiledrollout.ProfiledRolloutKeys.OUTPUT_DIR
                    + ") cannot be used: " + TraceLocation.osError(e) + ". Make it writable, or point "
                    + dev.profiledrollout.ProfiledRolloutKeys.OUTPUT_DIR + " at a directory that is", e);
        }
        traces.prepare(spec.backend(), directory);
    }

    private RunReport runReport(List<WorkerOutcome> workers, ProfilerCapture.Collected files) {
        return new RunReport(directory, testName, engine.baseUri(), engine.embedded(), engine.serverInfo(),
                spec.load(), request).withBackend(spec.backend().name())
                .withFanOut(workers, files.frontendNames(), phase)
                .withWorkerLabels(workers.stream().map(w -> engine.workerLabel(w.url())).toList())
                .withWorkerPhases(workerPhases).withProfiled(profiled(workers)).withSteps(steps)
                .withStagePlacement(stagePlacement);
    }

    /** Sets the phase of each engine outcome, for the combined {@code summary.json} of a phased test. */
    void workerPhases(List<String> phases) {
        this.workerPhases = List.copyOf(phases);
    }

    /** Sets where the captured steps fell in the staged load, for the {@code summary.json} written next. */
    void stagePlacement(List<dev.profiledrollout.report.RunHeader.StagePlacement> placed) {
        this.stagePlacement = List.copyOf(placed);
    }

    /** Sets the steps the capture holds, for the {@code summary.json} written next. */
    void steps(CapturedSteps counted) {
        this.steps = counted;
    }

    /**
     * What the window profiled: the engines of its outcomes (all the handle's engines before any outcome exists),
     * named as in the rank labels, with the first engine's layout.
     */
    private RunReport.Profiled profiled(List<WorkerOutcome> outcomes) {
        List<String> engines = new ArrayList<>();
        if (outcomes.isEmpty()) {
            engine.workers().forEach(w -> engines.add(describe(w.url(), w.workerType(), "")));
        } else {
            outcomes.forEach(o -> engines.add(describe(o.url(), o.workerType(),
                    o.state() == WorkerOutcome.State.PROFILED || o.state() == WorkerOutcome.State.STARTED
                            ? "" : " (" + o.state() + ")")));
        }
        // A phased test's combined report lists an engine once even when several phases profiled it.
        List<String> distinct = engines.stream().distinct().toList();
        engines.clear();
        engines.addAll(distinct);
        ServerInfo info = engine.serverInfo();
        String layout = "TP " + info.tpSize() + (info.dpSize() > 1 ? ", DP " + info.dpSize() : "")
                + (info.ppSize() > 1 ? ", PP " + info.ppSize() : "");
        String kind = engine.kind();
        String url = SafeUrls.of(engine.baseUri().toString());
        String simulated = !engine.embedded() && info.simulator() ? " (engine simulator)" : "";
        String description;
        if (engines.size() == 1 && !kind.equals("router")) {
            description = kind + " " + SafeUrls.of(outcomes.isEmpty()
                    ? engine.workers().get(0).url().toString() : outcomes.get(0).url().toString()) + "; " + layout
                    + simulated;
        } else {
            description = kind + " " + url + " → " + engines.size() + (engines.size() == 1 ? " worker: " : " workers: ")
                    + String.join(", ", engines) + "; " + layout + (engines.size() > 1 ? " each" : "") + simulated;
        }
        int ranks = Math.max(1, info.tpSize()) * engines.size();
        return new RunReport.Profiled(kind, url, engines.size(), ranks, description);
    }

    /** {@code worker-2 decode http://h:30000}; the type is left out for {@code regular} engines. */
    private String describe(URI url, String workerType, String state) {
        return engine.workerLabel(url) + ("regular".equals(workerType) ? "" : " " + workerType) + " "
                + SafeUrls.of(url.toString()) + state;
    }

    /** @return whether the request files were written (not after the hook took over) */
    boolean writeRequests(LatencyReport latency) {
        return publish(false, () -> runReport(List.of(), ProfilerCapture.Collected.NONE).writeRequests(latency));
    }

    /**
     * Writes the final {@code summary.json}.
     *
     * @param trace the analysed capture, null when there is none
     * @param error why the capture did not complete, null when it did
     * @return whether it was written (not when the hook took over or a final summary exists)
     */
    boolean writeSummary(List<WorkerOutcome> workers, ProfilerCapture.Collected files, LatencyReport latency,
            TraceSet trace, String error) {
        return publish(true, () -> summarise(runReport(workers, files), latency, trace, error));
    }

    /**
     * Writes {@code summary.json} and keeps it in memory with the latency it was written from, for the history
     * recorder ({@link #window}).
     */
    private void summarise(RunReport report, LatencyReport latency, TraceSet trace, String error) {
        dev.profiledrollout.report.SummaryFile summary = report.summary(latency, trace, error);
        report.writeSummary(summary);
        written = new Written(summary.toTree(), latency);
    }

    /** The last {@code summary.json} this report wrote and the latency it was written from. */
    private record Written(com.fasterxml.jackson.databind.JsonNode summary, LatencyReport latency) {
    }

    /**
     * @param phase the window's phase name, or null for a test without phases
     * @return the run model of the {@code summary.json} this report wrote last (as it was written; blocks added to
     *         the file later, the baseline, the verdicts, the outcome, are not in it), with its latency histograms
     * @throws IllegalStateException when it wrote none
     */
    RunRecords.Window window(String phase) {
        Written w = written;
        if (w == null) {
            throw new IllegalStateException("no summary.json was written in " + directory);
        }
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        w.latency().writeHistogramLog(log);
        return new RunRecords.Window(phase, directory, RunHeader.of(w.summary()), ReportData.Trace.of(w.summary()),
                RunRecords.histograms(log.toByteArray()));
    }

    /**
     * Writes the final {@code summary.json} of a capture that failed after its load ended.
     *
     * @param error   the summary's {@code error}
     * @param failure what the test fails with
     * @return {@code failure}, to be thrown
     */
    <E extends RuntimeException> E fail(List<WorkerOutcome> workers, ProfilerCapture.Collected files,
            LatencyReport latency, TraceSet trace, String error, E failure) {
        writeSummary(workers, files, latency, trace, error);
        return failure;
    }

    /** Writes the request files and the final {@code summary.json} of a capture that ended early. */
    void writePartial(List<RequestRecord> records, List<WorkerOutcome> workers, String reason) {
        LatencyReport latency = LatencyReport.of(records, spec.goodput());
        RunReport report = runReport(workers, ProfilerCapture.Collected.NONE);
        publish(true, () -> {
            report.writeRequests(latency);
            summarise(report, latency, null, reason);
        });
    }

    /** Prints the console summary of a completed capture. */
    void printConsoleSummary(List<WorkerOutcome> workers, ProfilerCapture.Collected files, LatencyReport latency,
            TraceSet trace) {
        runReport(workers, files).printConsoleSummary(latency, trace, System.out);
    }

    /**
     * The shutdown hook takes the capture over: the test's thread writes nothing from now on.
     *
     * @return whether no final {@code summary.json} was written yet, so the hook is to write it
     */
    boolean takeOver() {
        synchronized (lock) {
            takenOver = true;
            return !reported;
        }
    }

    /** @return whether the shutdown hook took the capture over */
    boolean takenOver() {
        return takenOver;
    }

    /** The hook's partial results, after {@link #takeOver()} returned true. */
    void writeForHook(List<RequestRecord> records, List<WorkerOutcome> workers, String error) {
        synchronized (lock) {
            LatencyReport latency = LatencyReport.of(records, spec.goodput());
            RunReport report = runReport(workers, ProfilerCapture.Collected.NONE);
            report.writeRequests(latency);
            summarise(report, latency, null, error);
            reported = true;
        }
    }

    /** @throws ProfiledRolloutException when the shutdown hook took the capture over */
    void requireOwned() {
        if (takenOver) {
            throw jvmShuttingDown();
        }
    }

    /**
     * The result of the capture, or of the combined phases, whose summary this report wrote.
     *
     * @param phases each phase's result, in declaration order; empty for a window without phases
     */
    RolloutResult result(LatencyReport latency, TraceSet trace, ProfilerCapture.Collected files, StopOutcome stopped,
            List<WorkerOutcome> workers, Map<Phase, RolloutResult> phases) {
        return RolloutResult.builder().latency(latency).trace(trace).traceFiles(files.rankFiles())
                .outputDirectory(directory).serverInfo(engine.serverInfo()).stopOutcome(stopped).workers(workers)
                .frontendTraceFiles(files.frontendFiles()).phases(phases).build();
    }

    /** @return the failure of a test whose capture the shutdown hook took over */
    ProfiledRolloutException jvmShuttingDown() {
        return new ProfiledRolloutException("The JVM is shutting down: the profile window of " + testName + " was "
                + "stopped by the shutdown hook, which writes the partial results to " + directory);
    }

    /**
     * Runs {@code write} unless the hook has taken over or a final summary is already written.
     *
     * @param last {@code write} writes the final {@code summary.json}
     * @return whether {@code write} ran
     */
    private boolean publish(boolean last, Runnable write) {
        synchronized (lock) {
            if (takenOver || reported) {
                return false;
            }
            write.run();
            reported = last;
        }
        if (last) {
            whenFinal.run();
        }
        return true;
    }
}
