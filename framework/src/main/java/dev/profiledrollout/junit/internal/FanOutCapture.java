package dev.profiledrollout.junit.internal;

import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.engine.EngineClient;
import dev.profiledrollout.engine.FanOut;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.trace.TraceSet;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A capture started and stopped over HTTP on every engine of the window at once ({@link FanOut}): {@code /start_profile}
 * with each engine's body, {@code /stop_profile} on every engine that started. What the engines write, and where, is
 * the subclass's to say.
 */
abstract class FanOutCapture implements ProfilerCapture {

    /** A file counts as complete once its size has not changed for this long. */
    static final Duration FILE_STABLE_FOR = Duration.ofMillis(300);

    final EngineHandle engine;
    final List<Worker> workers;
    final WindowSpec spec;
    final Settings settings;
    final TraceLocation traces;

    private volatile FanOut fanOut;
    private volatile StopOutcome stopOutcome;

    FanOutCapture(EngineHandle engine, List<Worker> workers, WindowSpec spec, Settings settings,
            TraceLocation traces) {
        this.engine = engine;
        this.workers = List.copyOf(workers);
        this.spec = spec;
        this.settings = settings;
        this.traces = traces;
    }

    /** Where engine {@code worker} writes: {@code worker-<n>/} of the window's location, n as {@link #workerLabel}. */
    TraceLocation location(int worker) {
        return traces.ofWorker(workerNumber(worker), workers.size(), spec.backend());
    }

    /**
     * @return the 1-based position of engine {@code worker} of this window among all the handle's engines (the
     *         router's {@code GET /workers} order, or the configured order), so a phase that profiles a subset keeps
     *         the numbers of the whole deployment
     */
    int workerNumber(int worker) {
        int index = engine.workers().indexOf(workers.get(worker));
        return (index < 0 ? worker : index) + 1;
    }

    /**
     * @return {@code worker-<n>} for engine {@code worker} ({@link #workerNumber}), or {@code ""} when the handle has
     *         a single engine, whose ranks keep their plain labels ({@code TP-0})
     */
    String workerLabel(int worker) {
        return engine.workers().size() > 1 ? "worker-" + workerNumber(worker) : "";
    }

    /**
     * The engine that wrote a collected file: the one whose {@link #location} holds it. SGLang names its files
     * {@code <profile_id>-TP-<rank>…trace.json.gz} inside the request's {@code output_dir}, without any host or port
     * (sgl-project/sglang {@code python/sglang/srt/managers/scheduler_profiler_mixin.py}, {@code stop_profile}), so
     * the directory is what tells the engines apart.
     *
     * @return {@link #workerLabel}, or {@code ""} when no engine's directory holds {@code file}
     */
    String workerOf(Path file) {
        Path absolute = file.toAbsolutePath().normalize();
        for (int i = 0; i < workers.size(); i++) {
            if (absolute.startsWith(location(i).collectedPath().toAbsolutePath().normalize())
                    && (workers.size() == 1 || !location(i).collectedPath().equals(traces.collectedPath()))) {
                return workerLabel(i);
            }
        }
        return "";
    }

    @Override
    public TraceSet labelWorkers(TraceSet traceSet) {
        if (traceSet == null) {
            return null;
        }
        Map<String, String> urls = new LinkedHashMap<>();
        for (int i = 0; i < workers.size(); i++) {
            urls.put(workerLabel(i), workers.get(i).url().toString());
        }
        return traceSet.withWorkers(this::workerOf, urls);
    }

    @Override
    public ProfileRequest request(int worker) {
        return spec.profileRequest(location(worker).serverPath());
    }

    @Override
    public void start() {
        FanOut started = engine.newFanOut(workers);
        fanOut = started;
        started.start(this::request);
        if (!started.anyStarted()) {
            throw new NotStarted(started.outcomes());
        }
    }

    @Override
    public StopOutcome stop() {
        List<WorkerOutcome> outcomes = fanOut.stop();
        stopOutcome = outcomes.stream().anyMatch(o -> o.stopOutcome() == StopOutcome.STOPPED)
                ? StopOutcome.STOPPED : StopOutcome.NOT_IN_PROGRESS;
        return stopOutcome;
    }

    /** @return the started fan-out's client of engine {@code worker}, or null before the start or for a sick engine */
    EngineClient fanOutClient(int worker) {
        FanOut f = fanOut;
        return f == null ? null : f.clients().get(worker);
    }

    @Override
    public List<WorkerOutcome> outcomes() {
        FanOut f = fanOut;
        return f == null ? List.of() : f.outcomes();
    }

    /**
     * A watcher of {@code location}'s rank traces.
     *
     * @param before            files to leave out ({@link TraceLocation#existingNames()})
     * @param workerDirectories also look in one sub-directory per worker host
     */
    TraceFileWatcher watcher(TraceLocation location, int expected, Duration stableFor, Set<String> before,
            boolean workerDirectories) {
        return new TraceFileWatcher(location.localPath(), expected, settings.traceTimeout(), stableFor, before,
                workerDirectories);
    }

    /** Waits for the watcher's files; its timeout message says what may have kept them from coming. */
    List<Path> await(TraceLocation location, TraceFileWatcher watcher) {
        String hint = spec.numSteps() != null
                ? "The capture asked for num_steps=" + spec.numSteps() + (spec.startStep() != null
                        ? " from start_step=" + spec.startStep() : "") + "; the engine writes nothing until that many "
                        + "steps ran (and, with start_step, until that absolute step is reached). If the load "
                        + "ended first, lower numSteps/startStep or raise @RolloutLoad(requests)."
                : "/stop_profile answered " + stopOutcome + "; check the engine log for the profiler's export "
                        + "and that " + location.serverPath() + " is where this machine reads it ("
                        + ProfiledRolloutKeys.TRACE_DIR + " / " + ProfiledRolloutKeys.TRACE_DIR_SERVER + ").";
        try {
            return watcher.await(hint);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProfiledRolloutException("Interrupted while waiting for trace files in " + location.localPath(),
                    e);
        }
    }

    @Override
    public void close() {
        FanOut f = fanOut;
        if (f != null) {
            f.close();
        }
    }
}
