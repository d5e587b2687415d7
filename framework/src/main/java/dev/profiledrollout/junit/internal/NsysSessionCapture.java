package dev.profiledrollout.junit.internal;

import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.engine.nsys.NsysController;
import dev.profiledrollout.trace.TraceSet;
import java.util.List;
import java.util.Optional;

/**
 * An interactive Nsight Systems session around the engine: {@code nsys start} and {@code nsys stop} on the session
 * {@code profiledrollout.nsys.session} names (or the only one running), the engine itself is not called. The analysis
 * is {@code nsys stats} of the configured report.
 */
final class NsysSessionCapture implements ProfilerCapture {

    private final int workers;
    private final WindowSpec spec;
    private final Settings settings;
    private final TraceLocation traces;
    private final NsysController nsys;
    private volatile String session;

    NsysSessionCapture(int workers, WindowSpec spec, Settings settings, TraceLocation traces) {
        this.workers = workers;
        this.spec = spec;
        this.settings = settings;
        this.traces = traces;
        this.nsys = new NsysController(settings.nsysPath(), settings.stopTimeout());
    }

    /** The body the test's annotations give, as {@code summary.json} shows it; no engine receives it. */
    @Override
    public ProfileRequest request(int worker) {
        return spec.profileRequest(traces.ofWorker(worker + 1, workers, spec.backend()).serverPath());
    }

    @Override
    public void start() {
        String resolved = nsys.resolveSession(settings.nsysSession(), Optional.empty());
        nsys.start(resolved);
        session = resolved;
    }

    @Override
    public StopOutcome stop() {
        nsys.stop(session);
        return StopOutcome.STOPPED;
    }

    @Override
    public List<WorkerOutcome> outcomes() {
        return List.of();
    }

    @Override
    public Collected collect() {
        return NsysSummaries.collect(settings.nsysReport());
    }

    @Override
    public TraceSet analyse(Collected files) {
        return NsysSummaries.analyse(nsys, settings.nsysReport());
    }

    @Override
    public String describeStop(List<WorkerOutcome> outcomes, boolean finished, RuntimeException failure,
            String timeout) {
        String started = session;
        if (started == null) {
            return ProfilerCapture.super.describeStop(outcomes, finished, failure, timeout);
        }
        return "nsys session " + started + (!finished ? ": stop did not finish within " + timeout
                : failure != null ? ": stop failed: " + failure.getMessage() : ": stopped");
    }

    @Override
    public void close() {
        // nothing held: every nsys call is its own process
    }
}
