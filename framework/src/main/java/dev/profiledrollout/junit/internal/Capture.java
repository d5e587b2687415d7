package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.LOAD_TIMEOUT;
import static dev.profiledrollout.ProfiledRolloutKeys.SHUTDOWN_TIMEOUT;
import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_DIR;
import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_DIR_SERVER;

import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.Profiler;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.engine.FanOut;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.engine.nsys.NsysController;
import dev.profiledrollout.load.LoadGenerator;
import dev.profiledrollout.load.LoadRun;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.report.AllureSteps;
import dev.profiledrollout.report.RunReport;
import dev.profiledrollout.trace.TraceSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * One capture over a set of engines: warm-up, start on every engine ({@link FanOut}) or the nsys session, load,
 * stop, trace collection per engine, analysis as one rank set, and the files under its output directory. A test
 * without {@code @RolloutPhase} has one capture; a phased test one per phase.
 *
 * <p>Whatever happens, {@link #close()} leaves every started engine stopped and the load's threads joined. While the
 * profiler may be running the capture is known to {@link ShutdownGuard}, so that a JVM stopped mid-window still stops
 * it ({@link #stopForShutdown(long)}).
 *
 * <h2>Threads</h2>
 * The test's thread drives the capture; only the shutdown hook's thread may act on it concurrently. The profiler's
 * start and stop are mutually exclusive ({@code synchronized}), so the hook never stops an engine twice nor misses one
 * whose start is in flight. The written results are guarded by {@code reportLock}: the first final
 * {@code summary.json} (the test's, or the hook's partial one) is the one that stays.
 */
final class Capture implements AutoCloseable {

    private static final Duration FILE_STABLE_FOR = Duration.ofMillis(300);
    /** With an unknown rank count, the directory must be quiet this long before the files count as complete. */
    private static final Duration COUNT_SETTLED_FOR = Duration.ofSeconds(2);

    private final EngineHandle engine;
    private final List<Worker> workers;
    private final WindowSpec spec;
    private final Settings settings;
    private final Path outputDirectory;
    private final String testName;
    private final String phase;
    private final TraceLocation traces;

    private volatile FanOut fanOut;
    private NsysController nsys;
    private volatile String nsysSession;
    private Set<String> before = Set.of();
    private volatile LoadGenerator generator;
    private volatile LoadRun run;
    private boolean profiling;
    private StopOutcome stopOutcome;
    private long loadStartMillis = -1;

    private final Object reportLock = new Object();
    /** A final {@code summary.json} was written; guarded by {@code reportLock}. */
    private boolean reported;
    /** The shutdown hook took this capture over: the test's thread writes nothing more. */
    private volatile boolean stoppedByShutdown;
    /** What the hook did, for its console line; null until it ran. */
    private volatile String shutdownOutcome;

    Capture(EngineHandle engine, List<Worker> workers, WindowSpec spec, Settings settings, Path outputDirectory,
            String testName, String phase) {
        this.engine = engine;
        this.workers = List.copyOf(workers);
        this.spec = spec;
        this.settings = settings;
        this.outputDirectory = outputDirectory;
        this.testName = testName;
        this.phase = phase;
        this.traces = TraceLocation.resolve(spec, settings, outputDirectory, engine.embeddedVllmDir());
    }

    Path outputDirectory() {
        return outputDirectory;
    }

    void open() {
        prepareDirectories();
        generator = new LoadGenerator(engine.loadClient().loadTarget(), engine.model(), spec.load(),
                spec.dataset().workload(spec.load(), LoadGenerator.DEFAULT_VOCAB_SIZE), spec.load().endpoint(),
                settings.readTimeout());
        List<RequestRecord> warmup = AllureSteps.step("warm-up", generator::warmup);
        List<RequestRecord> failed = warmup.stream().filter(r -> !r.succeeded()).collect(Collectors.toList());
        if (!failed.isEmpty()) {
            RequestRecord first = failed.get(0);
            throw new ProfiledRolloutException(failed.size() + " of " + warmup.size() + " warm-up requests to "
                    + engine.baseUri() + " failed before the profile window opened (first: " + first.error() + ": "
                    + first.errorMessage() + "); the profiler was not started. Check that the engine serves "
                    + "/v1/completions for model '" + engine.model() + "'.");
        }
        ShutdownGuard.register(this);
        AllureSteps.step("start profile", () -> {
            startProfiler();
            return null;
        });
        loadStartMillis = System.currentTimeMillis();
        run = generator.start();
        if (stoppedByShutdown) {
            run.cancel();
            throw jvmShuttingDown();
        }
    }

    private boolean interactiveNsys() {
        return spec.profiler() == Profiler.NSYS && !spec.activities().contains(Activity.CUDA_PROFILER);
    }

    private synchronized void startProfiler() {
        if (stoppedByShutdown) {
            throw jvmShuttingDown();
        }
        if (spec.profiler() == Profiler.NSYS) {
            nsys = new NsysController(settings.nsysPath(), settings.stopTimeout());
        }
        if (interactiveNsys()) {
            nsysSession = nsys.resolveSession(settings.nsysSession(), Optional.empty());
            nsys.start(nsysSession);
            profiling = true;
            return;
        }
        if (spec.backend() == Backend.VLLM) {
            before = traces.existingNames();
        }
        fanOut = engine.newFanOut(workers);
        fanOut.start(i -> profileRequest(i));
        if (!fanOut.anyStarted()) {
            List<WorkerOutcome> outcomes = fanOut.outcomes();
            writePartial(List.of(), "no engine started profiling");
            if (outcomes.size() == 1 && outcomes.get(0).state() == WorkerOutcome.State.START_FAILED) {
                throw new ProfiledRolloutException(outcomes.get(0).reason());
            }
            throw new ProfiledRolloutException("No engine started profiling; per engine: " + outcomes.stream()
                    .map(WorkerOutcome::describe).collect(Collectors.joining("; ")));
        }
        profiling = true;
    }

    private boolean multi() {
        return workers.size() > 1 && spec.backend() == Backend.SGLANG;
    }

    private TraceLocation location(int worker) {
        return multi() ? traces.forWorker(worker) : traces;
    }

    /** The {@code /start_profile} body for one engine: its output directory and the test's non-default fields. */
    ProfileRequest profileRequest(int worker) {
        return spec.profileRequest(location(worker).serverPath());
    }

    RolloutResult complete() {
        List<RequestRecord> records;
        try {
            records = run.await(settings.loadTimeout());
        } catch (TimeoutException e) {
            run.cancel();
            stopProfiler();
            records = awaitCancelled();
            writePartial(records, "load did not finish within " + settings.loadTimeout());
            throw new ProfiledRolloutException("The load of " + spec.load().requests() + " requests did not finish "
                    + "within " + settings.loadTimeout() + " (" + run.completedCount() + " done); the profiler was "
                    + "stopped and the finished requests were written to " + outputDirectory
                    + ". Lower @RolloutLoad(requests) or raise " + LOAD_TIMEOUT + ".");
        } catch (InterruptedException e) {
            run.cancel();
            stopProfiler();
            records = awaitCancelled();
            writePartial(records, "interrupted while waiting for the load");
            Thread.currentThread().interrupt();
            throw new ProfiledRolloutException("Interrupted while waiting for the load (" + records.size()
                    + " requests ended); the profiler was stopped and the finished requests were written to "
                    + outputDirectory, e);
        }
        if (stoppedByShutdown) {
            throw jvmShuttingDown();
        }
        List<RequestRecord> loaded = records;
        AllureSteps.step("load: " + records.size() + " requests", loadStartMillis, () -> loaded);
        StopOutcome outcome = AllureSteps.step("stop profile", this::stopProfiler);
        LatencyReport latency = LatencyReport.of(records, spec.goodput());
        RunReport report = report();
        publish(false, () -> report.writeRequests(latency));
        List<WorkerOutcome> stopFailed = outcomes().stream()
                .filter(o -> o.state() == WorkerOutcome.State.STOP_FAILED).toList();
        if (!stopFailed.isEmpty() && outcomes().stream().noneMatch(o -> o.state() == WorkerOutcome.State.PROFILED)) {
            String reason = "/stop_profile failed on every profiled engine, so no trace can be trusted: " + stopFailed
                    .stream().map(WorkerOutcome::describe).collect(Collectors.joining("; "));
            publish(true, () -> report.withFanOut(outcomes(), List.of(), phase).writeSummary(latency, null, reason));
            throw new ProfiledRolloutException(reason + ". The " + records.size() + " finished requests were written to "
                    + outputDirectory + ".");
        }
        List<Path> rankFiles = new ArrayList<>();
        List<Path> frontend = new ArrayList<>();
        TraceSet traceSet;
        try {
            if (nsys != null) {
                traceSet = AllureSteps.step("analysis: nsys stats", () -> NsysSummaries.read(nsys, settings.nsysReport()));
                settings.nsysReport().filter(Files::isRegularFile).ifPresent(rankFiles::add);
            } else {
                if (spec.writesTraceFiles()) {
                    AllureSteps.step("trace collection", () -> {
                        collectTraces(rankFiles, frontend);
                        return null;
                    });
                }
                traceSet = AllureSteps.step("analysis: " + rankFiles.size() + " trace file(s)",
                        () -> TraceSet.read(rankFiles));
            }
        } catch (MissingRankFilesException e) {
            TraceSet read = null;
            try {
                read = rankFiles.isEmpty() ? null : TraceSet.read(rankFiles);
            } catch (IOException | RuntimeException unreadable) {
                e.addSuppressed(unreadable);
            }
            TraceSet partial = read;
            publish(true, () -> report.withFanOut(outcomes(), frontend.stream().map(p -> p.getFileName().toString())
                    .toList(), phase).writeSummary(latency, partial, e.getMessage()));
            throw e;
        } catch (IOException e) {
            publish(true, () -> report.writeSummary(latency, null, "trace files could not be read: " + e.getMessage()));
            throw new ProfiledRolloutException("Could not read the trace files in " + traces.localPath() + ": "
                    + e.getMessage(), e);
        } catch (RuntimeException e) {
            publish(true, () -> report.writeSummary(latency, null, e.getMessage()));
            throw e;
        }
        report.withFanOut(outcomes(), frontend.stream().map(p -> p.getFileName().toString()).toList(), phase);
        if (!publish(true, () -> report.writeSummary(latency, traceSet, null))) {
            throw jvmShuttingDown();
        }
        report.printConsoleSummary(latency, traceSet, System.out);
        return RolloutResult.builder().latency(latency).trace(traceSet).traceFiles(rankFiles)
                .outputDirectory(outputDirectory).serverInfo(engine.serverInfo()).stopOutcome(outcome)
                .workers(outcomes()).frontendTraceFiles(frontend).build();
    }

    /**
     * Waits for every profiled engine's files and collects them into {@code traces/}. Files that arrived are collected
     * even when others never come; the first such shortfall is thrown after all engines were collected.
     *
     * @throws MissingRankFilesException when some engine's files stopped coming before all were there
     */
    private void collectTraces(List<Path> rankFiles, List<Path> frontend) {
        List<WorkerOutcome> outcomes = fanOut.outcomes();
        if (spec.backend() == Backend.VLLM) {
            long profiled = outcomes.stream().filter(o -> o.state() == WorkerOutcome.State.PROFILED).count();
            boolean known = settings.engineRanks().isPresent() || engine.embedded();
            int expected = known ? (int) (engine.serverInfo().tpSize() * profiled) : 1;
            TraceFileWatcher watcher = watcher(traces, expected, known ? FILE_STABLE_FOR : COUNT_SETTLED_FOR);
            if (known) {
                watcher.failMissingAfter(settings.traceMissingGrace(), ExpectedRanks.count(expected), "");
            }
            addCollected(traces.collect(await(traces, watcher), before), rankFiles, frontend);
            return;
        }
        ExpectedRanks expected = ExpectedRanks.sglang(engine.serverInfo(), spec);
        MissingRankFilesException missing = null;
        for (int i = 0; i < workers.size(); i++) {
            if (outcomes.get(i).state() != WorkerOutcome.State.PROFILED) {
                continue;
            }
            TraceLocation location = location(i);
            TraceFileWatcher watcher = watcher(location, expected.count(), FILE_STABLE_FOR)
                    .failMissingAfter(settings.traceMissingGrace(), expected, spec.numSteps() == null ? ""
                            : "With num_steps a rank writes its file at the start of its next batch, so a DP rank that"
                                    + " gets no request after its last recorded step writes nothing; keep the load"
                                    + " running past the capture (@RolloutLoad(requests)).");
            List<Path> files;
            try {
                files = await(location, watcher);
            } catch (MissingRankFilesException e) {
                missing = missing == null ? e : missing;
                files = e.arrived();
            }
            addCollected(location.collect(files, Set.of()), rankFiles, frontend);
        }
        if (missing != null) {
            throw missing;
        }
    }

    /** SGLang's {@code merged-*} file stays in {@code traces/} but is not analysed: it repeats the rank files. */
    private static void addCollected(TraceLocation.Collected c, List<Path> rankFiles, List<Path> frontend) {
        c.rankFiles().stream().filter(p -> !p.getFileName().toString().startsWith("merged-")).forEach(rankFiles::add);
        frontend.addAll(c.frontendFiles());
    }

    private TraceFileWatcher watcher(TraceLocation location, int expected, Duration stableFor) {
        return new TraceFileWatcher(location.localPath(), expected, settings.traceTimeout(), stableFor, before,
                spec.backend() == Backend.VLLM);
    }

    private List<Path> await(TraceLocation location, TraceFileWatcher watcher) {
        String hint = spec.numSteps() != null
                ? "The capture asked for num_steps=" + spec.numSteps() + (spec.startStep() != null
                        ? " from start_step=" + spec.startStep() : "") + "; the engine writes nothing until that many "
                        + "steps ran (and, with start_step, until that absolute step is reached). If the load "
                        + "ended first, lower numSteps/startStep or raise @RolloutLoad(requests)."
                : "/stop_profile answered " + stopOutcome + "; check the engine log for the profiler's export "
                        + "and that " + location.serverPath() + " is where this machine reads it ("
                        + TRACE_DIR + " / " + TRACE_DIR_SERVER + ").";
        try {
            return watcher.await(hint);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProfiledRolloutException("Interrupted while waiting for trace files in " + location.localPath(),
                    e);
        }
    }

    /** Stops every started engine (or the nsys session) once; a second caller waits for the first one's stop. */
    private synchronized StopOutcome stopProfiler() {
        if (profiling) {
            profiling = false;
            if (nsysSession != null) {
                nsys.stop(nsysSession);
                stopOutcome = StopOutcome.STOPPED;
            } else {
                List<WorkerOutcome> outcomes = fanOut.stop();
                stopOutcome = outcomes.stream().anyMatch(o -> o.stopOutcome() == StopOutcome.STOPPED)
                        ? StopOutcome.STOPPED : StopOutcome.NOT_IN_PROGRESS;
            }
        }
        return stopOutcome;
    }

    List<WorkerOutcome> outcomes() {
        return fanOut == null ? List.of() : fanOut.outcomes();
    }

    private RunReport report() {
        return new RunReport(outputDirectory, testName, engine.baseUri(), engine.embedded(), engine.serverInfo(),
                spec.load(), profileRequest(0)).withBackend(spec.backend().name());
    }

    /** The records of a cancelled run, waiting at most 30 s even when this thread was interrupted (kept set). */
    private List<RequestRecord> awaitCancelled() {
        boolean interrupted = Thread.interrupted();
        try {
            return run.await(Duration.ofSeconds(30));
        } catch (TimeoutException e) {
            return List.of();
        } catch (InterruptedException e) {
            interrupted = true;
            return List.of();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void writePartial(List<RequestRecord> records, String reason) {
        LatencyReport latency = LatencyReport.of(records, spec.goodput());
        RunReport report = report().withFanOut(outcomes(), List.of(), phase);
        publish(true, () -> {
            report.writeRequests(latency);
            report.writeSummary(latency, null, reason);
        });
    }

    /**
     * Runs {@code write} unless the shutdown hook has taken this capture over or a final summary is already written.
     *
     * @param last {@code write} writes the final {@code summary.json}: the capture then no longer needs the hook
     * @return whether {@code write} ran
     */
    private boolean publish(boolean last, Runnable write) {
        synchronized (reportLock) {
            if (stoppedByShutdown || reported) {
                return false;
            }
            write.run();
            reported = last;
        }
        if (last) {
            ShutdownGuard.deregister(this);
        }
        return true;
    }

    private ProfiledRolloutException jvmShuttingDown() {
        return new ProfiledRolloutException("The JVM is shutting down: the profile window of " + testName + " was "
                + "stopped by the shutdown hook, which writes the partial results to " + outputDirectory);
    }

    Duration shutdownTimeout() {
        return settings.shutdownTimeout();
    }

    /**
     * Called by {@link ShutdownGuard}'s hook on its own thread while the JVM exits: cancels the load, stops every
     * started engine (or the nsys session) and writes the partial {@code requests.jsonl} and {@code summary.json},
     * whose {@code error} says the JVM was stopped mid-window and how each engine's stop ended, all before
     * {@code deadlineNanos} ({@link System#nanoTime()}). An engine whose {@code /stop_profile} has not answered by then
     * is reported as {@code STOP_FAILED}. A capture whose final summary was already written is only made sure to be
     * stopped. Never throws.
     */
    void stopForShutdown(long deadlineNanos) {
        try {
            boolean claimed;
            synchronized (reportLock) {
                stoppedByShutdown = true;
                claimed = !reported;
            }
            long budget = Math.max(0, deadlineNanos - System.nanoTime());
            // the records and the two files need little time, but they must be written before the JVM halts
            long reserve = Math.min(TimeUnit.SECONDS.toNanos(2), budget / 4);
            LoadRun load = run;
            if (load != null) {
                load.cancel();
            }
            RuntimeException[] stopFailure = new RuntimeException[1];
            Thread stopper = new Thread(() -> {
                try {
                    stopProfiler();
                } catch (RuntimeException e) {
                    stopFailure[0] = e;
                }
            }, "profiledrollout-shutdown-stop");
            stopper.setDaemon(true);
            stopper.start();
            joinUntil(stopper, deadlineNanos - reserve);
            boolean stopFinished = !stopper.isAlive();
            List<RequestRecord> records = load == null ? List.of() : recordsUntil(load, deadlineNanos - reserve / 2);
            List<WorkerOutcome> outcomes = shutdownOutcomes(stopFinished);
            String error = "the JVM was stopped mid-window (SIGTERM, SIGINT or System.exit): the load was cancelled"
                    + " with " + records.size() + " requests ended; " + describeStop(outcomes, stopFinished,
                    stopFailure[0]);
            if (!claimed) {
                shutdownOutcome = testName + ": had already finished; " + describeStop(outcomes, stopFinished,
                        stopFailure[0]);
                return;
            }
            synchronized (reportLock) {
                LatencyReport latency = LatencyReport.of(records, spec.goodput());
                RunReport report = report().withFanOut(outcomes, List.of(), phase);
                report.writeRequests(latency);
                report.writeSummary(latency, null, error);
                reported = true;
            }
            shutdownOutcome = testName + ": " + error + "; partial results in " + outputDirectory;
            closeLoad(deadlineNanos);
        } catch (RuntimeException | Error e) {
            shutdownOutcome = testName + ": stopping the window failed: " + e;
        }
    }

    /** @return one line on what {@link #stopForShutdown(long)} did, for the console */
    String shutdownReport() {
        String outcome = shutdownOutcome;
        return outcome != null ? outcome : testName + ": not stopped within " + SHUTDOWN_TIMEOUT + "="
                + settings.shutdownTimeout() + "; the engine may still be profiling (" + engine.baseUri() + ")";
    }

    /** The fan-out's outcomes, with an engine whose stop did not answer in time as {@code STOP_FAILED}. */
    private List<WorkerOutcome> shutdownOutcomes(boolean stopFinished) {
        FanOut f = fanOut;
        if (f == null) {
            return List.of();
        }
        List<WorkerOutcome> outcomes = new ArrayList<>();
        for (WorkerOutcome o : f.outcomes()) {
            outcomes.add(o.state() != WorkerOutcome.State.STARTED ? o : new WorkerOutcome(o.url(), o.workerType(),
                    WorkerOutcome.State.STOP_FAILED, -1, (stopFinished ? "never stopped" : "/stop_profile did not"
                    + " answer within " + SHUTDOWN_TIMEOUT + "=" + settings.shutdownTimeout())
                    + " before the JVM exited; the engine may still be profiling", null));
        }
        return outcomes;
    }

    private String describeStop(List<WorkerOutcome> outcomes, boolean stopFinished, RuntimeException failure) {
        String session = nsysSession;
        if (session != null) {
            return "nsys session " + session + (!stopFinished ? ": stop did not finish within "
                    + SHUTDOWN_TIMEOUT + "=" + settings.shutdownTimeout()
                    : failure != null ? ": stop failed: " + failure.getMessage() : ": stopped");
        }
        if (outcomes.isEmpty()) {
            return failure != null ? "stopping the profiler failed: " + failure.getMessage()
                    : "no profiler had been started";
        }
        return "profiler stop per engine: " + outcomes.stream().map(WorkerOutcome::describe)
                .collect(Collectors.joining("; "));
    }

    private static void joinUntil(Thread thread, long deadlineNanos) {
        long remaining = deadlineNanos - System.nanoTime();
        if (remaining <= 0) {
            return;
        }
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The cancelled run's records once it drained, or those ended so far when it does not drain in time. */
    private static List<RequestRecord> recordsUntil(LoadRun load, long deadlineNanos) {
        try {
            return load.await(Duration.ofNanos(Math.max(1, deadlineNanos - System.nanoTime())));
        } catch (TimeoutException e) {
            return load.recordsSoFar();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return load.recordsSoFar();
        }
    }

    /** Closes the load's connections (the engine then sees its requests end), if there is time left. */
    private void closeLoad(long deadlineNanos) {
        LoadGenerator g = generator;
        if (g == null) {
            return;
        }
        Thread closer = new Thread(g::close, "profiledrollout-shutdown-load");
        closer.setDaemon(true);
        closer.start();
        joinUntil(closer, deadlineNanos);
    }

    private void prepareDirectories() {
        try {
            RunReport.deleteRecursively(outputDirectory);
            Files.createDirectories(outputDirectory);
            if (spec.backend() != Backend.VLLM || traces.localPath().startsWith(outputDirectory)) {
                Files.createDirectories(traces.localPath());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not prepare the output directory " + outputDirectory, e);
        }
    }

    /** Ends the capture after a failure: cancels the load, stops the profiler, writes what was measured. Never throws. */
    void abort(Throwable cause) {
        if (run == null) {
            return;
        }
        try {
            run.cancel();
            stopProfiler();
            writePartial(awaitCancelled(), "test body failed: " + cause);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    /** Cancels a running load and stops the profiler if still running; closes the load's threads. */
    void cancel() {
        if (run != null) {
            run.cancel();
        }
    }

    @Override
    public void close() {
        try {
            stopProfiler();
        } finally {
            ShutdownGuard.deregister(this);
            if (generator != null) {
                generator.close();
            }
            if (fanOut != null) {
                fanOut.close();
            }
        }
    }
}
