package dev.profiledrollout.junit.internal;

import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.trace.TraceSet;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * A {@link ProfilerCapture} whose start and stop are safe to call from the test's thread and the shutdown hook's at
 * once: they are mutually exclusive, the stop stops what the start started exactly once (a second caller waits for
 * the first one's stop and gets its outcome), and no start begins once the hook took the capture over. When no engine
 * starts, the partial {@code summary.json} says so before the failure is thrown.
 */
final class GuardedProfiler implements ProfilerCapture {

    private final ProfilerCapture capture;
    private final CaptureReport report;
    private boolean profiling;
    private StopOutcome stopOutcome;

    GuardedProfiler(ProfilerCapture capture, CaptureReport report) {
        this.capture = capture;
        this.report = report;
    }

    /** @throws dev.profiledrollout.ProfiledRolloutException when the shutdown hook took the capture over */
    @Override
    public synchronized void start() {
        report.requireOwned();
        try {
            capture.start();
        } catch (NotStarted e) {
            report.writePartial(List.of(), capture.outcomes(), "no engine started profiling");
            throw e;
        }
        profiling = true;
    }

    /** @return the outcome of the one stop; null when the profiler never started */
    @Override
    public synchronized StopOutcome stop() {
        if (profiling) {
            profiling = false;
            stopOutcome = capture.stop();
        }
        return stopOutcome;
    }

    @Override
    public ProfileRequest request(int worker) {
        return capture.request(worker);
    }

    @Override
    public List<WorkerOutcome> outcomes() {
        return capture.outcomes();
    }

    @Override
    public Optional<String> untrusted() {
        return capture.untrusted();
    }

    @Override
    public void watchTraces(dev.profiledrollout.recipe.SweepCutoff cutoff) {
        capture.watchTraces(cutoff);
    }

    @Override
    public Collected collect() {
        return capture.collect();
    }

    @Override
    public TraceSet analyse(Collected files) throws IOException {
        return capture.analyse(files);
    }

    @Override
    public TraceSet labelWorkers(TraceSet traceSet) {
        return capture.labelWorkers(traceSet);
    }

    @Override
    public String describeStop(List<WorkerOutcome> outcomes, boolean finished, RuntimeException failure,
            String timeout) {
        return capture.describeStop(outcomes, finished, failure, timeout);
    }

    @Override
    public void close() {
        capture.close();
    }
}
