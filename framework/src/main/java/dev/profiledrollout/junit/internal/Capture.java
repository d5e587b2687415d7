package dev.profiledrollout.junit.internal;

import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.report.AllureSteps;
import dev.profiledrollout.report.CapturedSteps;
import dev.profiledrollout.report.Verdict;
import dev.profiledrollout.report.Verdicts;
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
    private final CaptureReport report;
    private final EmergencyStop emergencyStop;
    private final String testName;
    private final String phase;
    private final boolean strictSteps;
    /** The enforced {@code "steps captured"} verdict that failed, null while there is none. */
    private Verdict stepsFailed;

    /**
     * @param phase       the {@code @RolloutPhase} the capture is of, null for a whole window
     * @param strictSteps whether a capture with another number of steps than {@code numSteps} fails the test
     */
    Capture(EngineHandle engine, List<Worker> workers, WindowSpec spec, Settings settings, Path outputDirectory,
            String testName, String phase, boolean strictSteps) {
        this.spec = spec;
        this.testName = testName;
        this.phase = phase;
        this.strictSteps = strictSteps;
        this.traces = TraceLocation.resolve(spec, settings, outputDirectory, engine.embeddedVllmDir());
        ProfilerCapture capture = ProfilerCapture.of(engine, workers, spec, settings, traces);
        this.report = new CaptureReport(engine, spec, outputDirectory, testName, phase, capture.request(0),
                this::reported);
        this.profiler = new GuardedProfiler(capture, report);
        this.load = new WindowLoad(engine, spec, settings);
        this.emergencyStop = new EmergencyStop(testName, engine.baseUri(), report, load, profiler,
                settings.shutdownTimeout());
    }

    /** @return the {@code /start_profile} body {@code summary.json} shows */
    ProfileRequest request() {
        return profiler.request(0);
    }

    /** Warm-up, then the profiler's start and the load. */
    void open() {
        report.prepare(traces);
        load.warmUp();
        ShutdownGuard.register(emergencyStop);
        AllureSteps.step("start profile", () -> {
            profiler.start();
            return null;
        });
        load.start();
        if (report.takenOver()) {
            load.cancel();
            throw report.jvmShuttingDown();
        }
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
            throw report.fail(outcomes, files, latency, null, e.getMessage(), e);
        }
        Optional<CapturedSteps> steps = CaptureSteps.count(spec, trace, strictSteps);
        report.steps(steps.orElse(null));
        if (!report.writeSummary(outcomes, files, latency, trace, null)) {
            throw report.jvmShuttingDown();
        }
        report.printConsoleSummary(outcomes, files, latency, trace);
        steps.flatMap(s -> CaptureSteps.verdict(s, spec.backend(), phase)).ifPresent(this::recordSteps);
        return report.result(latency, trace, files, stopped, outcomes, Map.of());
    }

    /**
     * Hands the {@code "steps captured"} verdict to the test's recording (this runs on the test's thread) and logs a
     * warning when the count missed.
     */
    private void recordSteps(Verdict verdict) {
        Verdicts.record(verdict);
        if (verdict.passed()) {
            return;
        }
        LOG.log(System.Logger.Level.WARNING, CaptureSteps.warning(verdict, testName));
        if (verdict.enforced()) {
            stepsFailed = verdict;
        }
    }

    /** @return the enforced {@code "steps captured"} verdict of a completed capture that failed, if any */
    Optional<Verdict> stepsFailed() {
        return Optional.ofNullable(stepsFailed);
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
            load.close();
            profiler.close();
        }
    }
}
