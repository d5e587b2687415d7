package dev.profiledrollout.junit.internal;

import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.recipe.SweepCutoff;
import dev.profiledrollout.report.AllureSteps;
import dev.profiledrollout.report.RunHeader;
import dev.profiledrollout.report.StageReport;
import dev.profiledrollout.report.CapturedSteps;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import dev.profiledrollout.trace.TraceSet;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One capture over a set of engines, in phases: warm-up, profiler start, load (while the test body runs), stop,
 * collection, analysis, report. How the profiler is driven and its files found is the {@link ProfilerCapture}'s; the
 * load is the {@link WindowLoad}'s; the written files are the {@link CaptureReport}'s. A test without
 * {@code @RolloutPhase} has one capture; a phased test one per phase.
 *
 * <p>Whatever happens, {@link #close()} leaves the profiler stopped and the load's threads joined. While the profiler
 * may be running, the capture's {@link EmergencyStop} is known to {@link ShutdownGuard}, so that a JVM stopped
 * mid-window still stops it; the test's thread and the hook's share the {@link GuardedProfiler}.
 */
final class Capture implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Capture.class.getName());

    private final WindowSpec spec;
    private final TraceLocation traces;
    private final GuardedProfiler profiler;
    private final WindowLoad load;
    /** Whether {@link #load} is this capture's own (else another capture's, which warms it up, starts and closes it). */
    private final boolean ownsLoad;
    private final CaptureReport report;
    private final EmergencyStop emergencyStop;
    private final String testName;
    private final String phase;
    /** The scope of the capture's own verdicts: its phase, its stage's label, or null for a whole window. */
    private final String scope;
    private final boolean strictSteps;
    private final Settings settings;
    /**
     * The enforced {@code CAPTURE} verdict that failed ({@code "steps captured"} or missing evidence, see
     * {@link CaptureEvidence}), null while there is none.
     */
    private Verdict captureFailed;
    /** The engine steps the completed capture holds, null before or when the traces carry none. */
    private CapturedSteps capturedSteps;
    /** The completed capture's missing evidence ({@link CaptureEvidence}), null when it captured data. */
    private Verdict noData;

    /**
     * @param phase       the {@code @RolloutPhase} the capture is of, null for a whole window
     * @param strictSteps whether a capture with another number of steps than {@code numSteps} fails the test
     */
    Capture(EngineHandle engine, List<Worker> workers, WindowSpec spec, Settings settings, Path outputDirectory,
            String testName, String phase, boolean strictSteps) {
        this(engine, workers, spec, settings, outputDirectory, testName, phase, phase, strictSteps);
    }

    /**
     * @param scope the scope of the capture's own verdicts (steps captured, missing evidence, load fidelity): the
     *              phase, or the stage's label for a stage's own window ({@code "concurrency 16"}); null for a whole
     *              window
     */
    Capture(EngineHandle engine, List<Worker> workers, WindowSpec spec, Settings settings, Path outputDirectory,
            String testName, String phase, String scope, boolean strictSteps) {
        this(engine, workers, spec, settings, outputDirectory, testName, phase, scope, strictSteps, null);
    }

    /**
     * @param sharedLoad another capture's load that this one rides (a recipe's prefill and decode windows armed at
     *                   once, as srtctl arms its workers); null for the capture's own load. A capture that shares a
     *                   load neither warms up nor starts it, and leaves closing it to its owner
     */
    Capture(EngineHandle engine, List<Worker> workers, WindowSpec spec, Settings settings, Path outputDirectory,
            String testName, String phase, String scope, boolean strictSteps, Capture sharedLoad) {
        this.spec = spec;
        this.testName = testName;
        this.phase = phase;
        this.scope = scope;
        this.strictSteps = strictSteps;
        this.settings = settings;
        this.traces = TraceLocation.resolve(spec, settings, outputDirectory, engine.embeddedTraceDir());
        ProfilerCapture capture = ProfilerCapture.of(engine, workers, spec, settings, traces);
        this.report = new CaptureReport(engine, spec, outputDirectory, testName, phase, capture.request(0),
                this::reported);
        this.profiler = new GuardedProfiler(capture, report);
        this.ownsLoad = sharedLoad == null;
        this.load = sharedLoad == null ? new WindowLoad(engine, spec, settings) : sharedLoad.load;
        this.emergencyStop = new EmergencyStop(testName, engine.baseUri(), report, load, profiler,
                settings.shutdownTimeout());
    }

    /**
     * @return the run model of the {@code summary.json} this capture wrote ({@link CaptureReport#window}), under its
     *         phase
     * @throws IllegalStateException when it wrote none
     */
    dev.profiledrollout.history.RunRecords.Window runWindow() {
        return report.window(phase);
    }

    /** @return the {@code /start_profile} body {@code summary.json} shows */
    ProfileRequest request() {
        return profiler.request(0);
    }

    /** Warm-up, then the profiler's start and the load. */
    void open() {
        prepare();
        startProfiler();
        if (ownsLoad) {
            load.stopOnceIn(watchTraces(new SweepCutoff()));
        }
        startLoad();
    }

    /** @return {@code cutoff} watching this capture's trace directories as well ({@link ProfilerCapture#watchTraces}) */
    SweepCutoff watchTraces(SweepCutoff cutoff) {
        profiler.watchTraces(cutoff);
        return cutoff;
    }

    /**
     * Stops this capture's load, when it is an srtctl recipe's sweep ({@code LoadSweep.untilTracesIn()}), once
     * {@code cutoff} says every window's traces are in; set before {@link #startLoad()} by the capture that owns
     * the load.
     */
    void stopLoadOnceIn(SweepCutoff cutoff) {
        load.stopOnceIn(cutoff);
    }

    /** Empties the output directory; with its own load, sends the warm-up (outside every window). */
    void prepare() {
        report.prepare(traces);
        if (ownsLoad) {
            load.warmUp();
        }
    }

    /** Starts the profiler, known to the shutdown guard from here on. */
    void startProfiler() {
        ShutdownGuard.register(emergencyStop);
        AllureSteps.step("start profile", () -> {
            profiler.start();
            return null;
        });
    }

    /** Starts the load (when it is this capture's own). */
    void startLoad() {
        if (ownsLoad) {
            load.start();
        }
        if (report.takenOver()) {
            load.cancel();
            throw report.jvmShuttingDown();
        }
    }

    /**
     * Waits for the load to end, then stops this capture's profiler (nothing more: {@link #complete()} collects).
     * For windows sharing one load, so that every profiler stops when the load ends, before any trace is collected.
     */
    void awaitLoadAndStop() {
        load.await(this::endEarly, report.directory());
        profiler.stop();
    }

    /** Waits for the load, then stop, collection, analysis and report. */
    RolloutResult complete() {
        List<RequestRecord> records = load.await(this::endEarly, report.directory());
        report.requireOwned();
        AllureSteps.step("load: " + records.size() + " requests", load.startMillis(), () -> records);
        StopOutcome stopped = AllureSteps.step("stop profile", profiler::stop);
        LatencyReport latency = LatencyReport.of(records, spec.goodput());
        report.writeRequests(latency);
        List<WorkerOutcome> outcomes = profiler.outcomes();
        Optional<String> untrusted = profiler.untrusted();
        if (untrusted.isPresent()) {
            throw report.fail(outcomes, ProfilerCapture.Collected.NONE, latency, null, untrusted.get(),
                    new ProfiledRolloutException(untrusted.get() + ". The " + records.size() + " finished requests"
                            + " were written to " + report.directory() + "."));
        }
        ProfilerCapture.Collected files = ProfilerCapture.Collected.NONE;
        TraceSet trace;
        try {
            files = profiler.collect();
            trace = profiler.analyse(files);
        } catch (MissingRankFilesException e) {
            throw report.fail(outcomes, e.collected(), latency, profiler.labelWorkers(e.readCollected()), e.getMessage(),
                    e);
        } catch (IOException e) {
            throw report.fail(outcomes, files, latency, null, "trace files could not be read: " + e.getMessage(),
                    new ProfiledRolloutException("Could not read the trace files in " + traces.localPath() + ": "
                            + e.getMessage(), e));
        } catch (RuntimeException e) {
            // No file was collected (e.g. the wait for a start_step the load never reached): nothing was captured.
            throw report.fail(files.rankFiles().isEmpty() ? noData(outcomes, e.getMessage()) : outcomes, files,
                    latency, null, e.getMessage(), e);
        }
        Optional<CapturedSteps> steps = CaptureSteps.count(spec, trace, strictSteps);
        report.steps(steps.orElse(null));
        capturedSteps = steps.orElse(null);
        Optional<Verdict> missing = CaptureEvidence.missing(spec, settings, files, trace, steps, scope);
        noData = missing.orElse(null);
        if (missing.isPresent()) {
            outcomes = noData(outcomes, missing.get().measure() + ": " + missing.get().detail());
        }
        List<RunHeader.StagePlacement> placement = load.stages()
                .map(st -> StagePlacement.place(st, load.startMillis(), load.sweepStartNanos(), trace))
                .orElse(List.of());
        report.stagePlacement(placement);
        load.stages().ifPresent(st -> StageReport.write(report.directory(), st, load.capacity().orElse(null),
                List.of(), placement));
        if (!report.writeSummary(outcomes, files, latency, trace, missing.map(Verdict::describe).orElse(null))) {
            throw report.jvmShuttingDown();
        }
        report.printConsoleSummary(outcomes, files, latency, trace);
        StagePlacement.describe(placement).ifPresent(placed -> System.out.println("=== " + placed));
        if (missing.isPresent()) {
            recordCapture(missing.get());
        } else {
            steps.flatMap(s -> CaptureSteps.verdict(s, spec.backend(), scope)).ifPresent(this::recordCapture);
        }
        RolloutResult result = report.result(latency, trace, files, stopped, outcomes, Map.of());
        load.fidelityVerdict().map(v -> scope == null ? v : v.withScope(scope)).ifPresent(this::recordCapture);
        return load.stages().map(st -> result.toBuilder().stages(st).capacity(load.capacity().orElse(null)).build())
                .orElse(result);
    }

    /** The outcomes with every {@code PROFILED} engine marked {@code NO_DATA} for {@code reason}. */
    private static List<WorkerOutcome> noData(List<WorkerOutcome> outcomes, String reason) {
        return outcomes.stream().map(o -> o.state() != WorkerOutcome.State.PROFILED ? o
                : new WorkerOutcome(o.url(), o.workerType(), WorkerOutcome.State.NO_DATA, 0, reason,
                        o.stopOutcome())).toList();
    }

    /**
     * Hands a {@code CAPTURE} verdict to the test's recording (this runs on the test's thread) and logs a warning when
     * it did not pass.
     */
    private void recordCapture(Verdict verdict) {
        Verdicts.record(verdict);
        if (verdict.passed()) {
            return;
        }
        LOG.log(System.Logger.Level.WARNING, CaptureSteps.warning(verdict, testName));
        if (verdict.enforced()) {
            captureFailed = verdict;
        }
    }

    /**
     * @return the enforced {@code CAPTURE} verdict of a completed capture that failed (steps, or nothing captured),
     *         if any
     */
    Optional<Verdict> captureFailed() {
        return Optional.ofNullable(captureFailed);
    }

    /** @return the engine steps the completed capture holds; empty before, or when its traces carry none */
    Optional<CapturedSteps> capturedSteps() {
        return Optional.ofNullable(capturedSteps);
    }

    /** @return why the completed capture holds nothing to judge (its failed {@code CAPTURE} verdict); empty otherwise */
    Optional<Verdict> noData() {
        return Optional.ofNullable(noData);
    }

    /** The final {@code summary.json} is written: the shutdown hook has nothing left to write. */
    private void reported() {
        ShutdownGuard.deregister(emergencyStop);
    }

    /** Cancels the load, stops the profiler and writes what was measured; returns the requests that ended. */
    private List<RequestRecord> endEarly(String reason) {
        load.cancel();
        profiler.stop();
        List<RequestRecord> records = load.drain();
        report.writePartial(records, profiler.outcomes(), reason);
        return records;
    }

    /** Ends the capture after the test body failed, as {@link #endEarly}. Never throws. */
    void abort(Throwable cause) {
        if (!load.started()) {
            return;
        }
        try {
            endEarly("test body failed: " + cause);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    /** Cancels a running load; {@link #close()} stops the profiler. */
    void cancel() {
        load.cancel();
    }

    @Override
    public void close() {
        try {
            profiler.stop();
        } finally {
            ShutdownGuard.deregister(emergencyStop);
            if (ownsLoad) {
                load.close();
            }
            profiler.close();
        }
    }
}
