package dev.profiledrollout.junit.internal;

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
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * One capture over a set of engines: warm-up, start on every engine ({@link FanOut}) or the nsys session, load,
 * stop, trace collection per engine, analysis as one rank set, and the files under its output directory. A test
 * without {@code @RolloutPhase} has one capture; a phased test one per phase.
 *
 * <p>Whatever happens, {@link #close()} leaves every started engine stopped and the load's threads joined.
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

    private FanOut fanOut;
    private NsysController nsys;
    private String nsysSession;
    private Set<String> before = Set.of();
    private LoadGenerator generator;
    private LoadRun run;
    private boolean profiling;
    private StopOutcome stopOutcome;
    private long loadStartMillis = -1;

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
        generator = new LoadGenerator(engine.loadClient().httpClient(), engine.baseUri(), engine.model(), spec.load(),
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
        AllureSteps.step("start profile", () -> {
            startProfiler();
            return null;
        });
        loadStartMillis = System.currentTimeMillis();
        run = generator.start();
    }

    private boolean interactiveNsys() {
        return spec.profiler() == Profiler.NSYS && !spec.activities().contains(Activity.CUDA_PROFILER);
    }

    private void startProfiler() {
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
                    + ". Lower @RolloutLoad(requests) or raise " + Settings.LOAD_TIMEOUT + ".");
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
        List<RequestRecord> loaded = records;
        AllureSteps.step("load: " + records.size() + " requests", loadStartMillis, () -> loaded);
        StopOutcome outcome = AllureSteps.step("stop profile", this::stopProfiler);
        LatencyReport latency = LatencyReport.of(records, spec.goodput());
        RunReport report = report();
        report.writeRequests(latency);
        List<WorkerOutcome> stopFailed = outcomes().stream()
                .filter(o -> o.state() == WorkerOutcome.State.STOP_FAILED).toList();
        if (!stopFailed.isEmpty() && outcomes().stream().noneMatch(o -> o.state() == WorkerOutcome.State.PROFILED)) {
            String reason = "/stop_profile failed on every profiled engine, so no trace can be trusted: " + stopFailed
                    .stream().map(WorkerOutcome::describe).collect(Collectors.joining("; "));
            report.withFanOut(outcomes(), List.of(), phase).writeSummary(latency, null, reason);
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
            TraceSet partial = null;
            try {
                partial = rankFiles.isEmpty() ? null : TraceSet.read(rankFiles);
            } catch (IOException | RuntimeException unreadable) {
                e.addSuppressed(unreadable);
            }
            report.withFanOut(outcomes(), frontend.stream().map(p -> p.getFileName().toString()).toList(), phase)
                    .writeSummary(latency, partial, e.getMessage());
            throw e;
        } catch (IOException e) {
            report.writeSummary(latency, null, "trace files could not be read: " + e.getMessage());
            throw new ProfiledRolloutException("Could not read the trace files in " + traces.localPath() + ": "
                    + e.getMessage(), e);
        } catch (RuntimeException e) {
            report.writeSummary(latency, null, e.getMessage());
            throw e;
        }
        report.withFanOut(outcomes(), frontend.stream().map(p -> p.getFileName().toString()).toList(), phase);
        report.writeSummary(latency, traceSet, null);
        report.printConsoleSummary(latency, traceSet, System.out);
        return new RolloutResult(latency, traceSet, rankFiles, outputDirectory, engine.serverInfo(), outcome,
                outcomes(), frontend, java.util.Map.of());
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
                        + Settings.TRACE_DIR + " / " + Settings.TRACE_DIR_SERVER + ").";
        try {
            return watcher.await(hint);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProfiledRolloutException("Interrupted while waiting for trace files in " + location.localPath(),
                    e);
        }
    }

    /** Stops every started engine (or the nsys session) once. */
    private StopOutcome stopProfiler() {
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
        report.writeRequests(latency);
        report.writeSummary(latency, null, reason);
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
            if (profiling) {
                stopProfiler();
            }
        } finally {
            if (generator != null) {
                generator.close();
            }
            if (fanOut != null) {
                fanOut.close();
            }
        }
    }
}
