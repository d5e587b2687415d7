package dev.profiledrollout.junit.internal;

import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.load.LoadGenerator;
import dev.profiledrollout.load.LoadRun;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.report.RunReport;
import dev.profiledrollout.trace.TraceSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * One test's profile window: warm-up, {@code /start_profile}, load, {@code /stop_profile}, trace collection, analysis
 * and the files under the test's output directory. Implements the {@link RolloutSession} the test body receives.
 *
 * <p>Whatever happens in the body, {@link #close()} leaves the profiler stopped, the load stopped and its threads
 * joined, and the partial results written.
 */
public final class ProfileWindow implements RolloutSession, AutoCloseable {

    private static final Duration FILE_STABLE_FOR = Duration.ofMillis(300);

    private final EngineHandle engine;
    private final WindowSpec spec;
    private final Settings settings;
    private final Path outputDirectory;
    private final String testName;
    private final TraceLocation traces;

    private LoadGenerator generator;
    private LoadRun run;
    private boolean profiling;
    private StopOutcome stopOutcome;
    private RolloutResult result;
    private RuntimeException failure;

    public ProfileWindow(EngineHandle engine, WindowSpec spec, Settings settings, Path outputDirectory,
            String testName) {
        this.engine = engine;
        this.spec = spec;
        this.settings = settings;
        this.outputDirectory = outputDirectory;
        this.testName = testName;
        this.traces = TraceLocation.resolve(spec, settings, outputDirectory);
    }

    /** Warm-up outside the window, then {@code /start_profile} and the load. Called right before the test body. */
    public void open() {
        if (generator != null) {
            return;
        }
        prepareDirectories();
        generator = new LoadGenerator(engine.client().httpClient(), engine.baseUri(), engine.model(), spec.load());
        List<RequestRecord> warmup = generator.warmup();
        List<RequestRecord> failed = warmup.stream().filter(r -> !r.succeeded()).collect(Collectors.toList());
        if (!failed.isEmpty()) {
            RequestRecord first = failed.get(0);
            throw new ProfiledRolloutException(failed.size() + " of " + warmup.size() + " warm-up requests to "
                    + engine.baseUri() + " failed before the profile window opened (first: " + first.error() + ": "
                    + first.errorMessage() + "); the profiler was not started. Check that the engine serves "
                    + "/v1/completions for model '" + engine.model() + "'.");
        }
        engine.client().startProfile(profileRequest());
        profiling = true;
        run = generator.start();
    }

    ProfileRequest profileRequest() {
        ProfileRequest.Builder request = ProfileRequest.builder()
                .outputDir(traces.serverPath())
                .activities(spec.activityNames())
                .withStack(spec.withStack())
                .recordShapes(spec.recordShapes());
        if (spec.numSteps() != null) {
            request.numSteps(spec.numSteps());
        }
        if (spec.startStep() != null) {
            request.startStep(spec.startStep());
        }
        if (spec.profileByStage()) {
            request.profileByStage(true);
        }
        if (!spec.profilePrefix().isEmpty()) {
            request.profilePrefix(spec.profilePrefix());
        }
        return request.build();
    }

    @Override
    public RolloutResult awaitResult() {
        if (result != null) {
            return result;
        }
        if (failure != null) {
            throw failure;
        }
        if (run == null) {
            throw new IllegalStateException("The profile window of " + testName + " was never opened");
        }
        try {
            result = complete();
            return result;
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        }
    }

    private RolloutResult complete() {
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
            Thread.currentThread().interrupt();
            run.cancel();
            stopProfiler();
            throw new ProfiledRolloutException("Interrupted while waiting for the load; the profiler was stopped", e);
        }
        StopOutcome outcome = stopProfiler();
        LatencyReport latency = LatencyReport.of(records);
        RunReport report = new RunReport(outputDirectory, testName, engine.baseUri(), engine.embedded(),
                engine.serverInfo(), spec.load(), profileRequest());
        report.writeRequests(latency);

        List<Path> files;
        TraceSet traceSet;
        try {
            files = spec.writesTraceFiles() ? awaitTraceFiles() : List.of();
            files = traces.collect(files);
            traceSet = TraceSet.read(files);
        } catch (IOException e) {
            report.writeSummary(latency, null, "trace files could not be read: " + e.getMessage());
            throw new ProfiledRolloutException("Could not read the trace files in " + traces.localPath() + ": "
                    + e.getMessage(), e);
        } catch (RuntimeException e) {
            report.writeSummary(latency, null, e.getMessage());
            throw e;
        }
        report.writeSummary(latency, traceSet, null);
        report.printConsoleSummary(latency, traceSet, System.out);
        return new RolloutResult(latency, traceSet, files, outputDirectory, engine.serverInfo(), outcome);
    }

    private List<Path> awaitTraceFiles() {
        int expected = engine.serverInfo().expectedRankFiles() * (spec.profileByStage() ? 2 : 1);
        String hint = spec.numSteps() != null
                ? "The capture asked for num_steps=" + spec.numSteps() + (spec.startStep() != null
                        ? " from start_step=" + spec.startStep() : "") + "; SGLang writes nothing until that many "
                        + "batches ran (and, with start_step, until that absolute step is reached). If the load "
                        + "ended first, lower numSteps/startStep or raise @RolloutLoad(requests)."
                : "/stop_profile answered " + stopOutcome + "; check the engine log for the profiler's export "
                        + "and that " + traces.serverPath() + " is where this machine reads it ("
                        + Settings.TRACE_DIR + " / " + Settings.TRACE_DIR_SERVER + ").";
        try {
            return new TraceFileWatcher(traces.localPath(), expected, settings.traceTimeout(), FILE_STABLE_FOR)
                    .await(hint);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProfiledRolloutException("Interrupted while waiting for trace files in " + traces.localPath(),
                    e);
        }
    }

    /** Stops the capture once; SGLang's 500 after an auto-stop comes back as {@link StopOutcome#NOT_IN_PROGRESS}. */
    private StopOutcome stopProfiler() {
        if (profiling) {
            profiling = false;
            stopOutcome = engine.client().stopProfile();
        }
        return stopOutcome;
    }

    private List<RequestRecord> awaitCancelled() {
        try {
            return run.await(Duration.ofSeconds(30));
        } catch (TimeoutException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return List.of();
        }
    }

    private void writePartial(List<RequestRecord> records, String reason) {
        LatencyReport latency = LatencyReport.of(records);
        RunReport report = new RunReport(outputDirectory, testName, engine.baseUri(), engine.embedded(),
                engine.serverInfo(), spec.load(), profileRequest());
        report.writeRequests(latency);
        report.writeSummary(latency, null, reason);
    }

    private void prepareDirectories() {
        try {
            RunReport.deleteRecursively(outputDirectory);
            Files.createDirectories(outputDirectory);
            Files.createDirectories(traces.localPath());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not prepare the output directory " + outputDirectory, e);
        }
    }

    /**
     * Ends the window after a test body that threw: cancels the load, stops the profiler and writes what was
     * measured. Never throws; problems are added to {@code cause} as suppressed exceptions.
     */
    public void abort(Throwable cause) {
        if (result != null || failure != null || run == null) {
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

    @Override
    public void close() {
        try {
            if (run != null && result == null && failure == null) {
                run.cancel();
            }
            if (profiling) {
                stopProfiler();
            }
        } finally {
            if (generator != null) {
                generator.close();
            }
        }
    }

    @Override
    public URI engineUri() {
        return engine.baseUri();
    }

    @Override
    public Path outputDirectory() {
        return outputDirectory;
    }
}
