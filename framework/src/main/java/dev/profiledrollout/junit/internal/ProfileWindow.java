package dev.profiledrollout.junit.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.Phase;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.load.StageResult;
import dev.profiledrollout.load.SweepResult;
import dev.profiledrollout.report.RunHeader;
import dev.profiledrollout.report.TestReport;
import dev.profiledrollout.report.TestOutcome;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.trace.TraceSet;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.apiguardian.api.API;
import org.opentest4j.AssertionFailedError;

/**
 * One test's profile window, implementing the {@link RolloutSession} the test body receives: one {@link Capture} over
 * every engine, or, with {@code @RolloutPhase}, one capture per phase in declaration order (the first opened before the
 * body, the others run in {@link #awaitResult()}), each in {@code <test output>/<phase>/}, combined into one result.
 * Each phase's result is scoped to its phase ({@code "PREFILL"}), the combined one to {@code "all phases"}; the
 * combined {@code summary.json} lists the phases in {@code phases[]} instead of a merged latency (see
 * {@code PhaseSummaries}). An srtctl recipe's benchmark sweep over prefill and decode arms both phases at once over one
 * load instead (see {@code phasesTogether}); a {@code @RolloutSweep(windowPerStage = true)} runs one capture per stage,
 * each in {@code <test output>/stage-<n>-<label>/}.
 *
 * <p>Whatever happens in the body, {@link #close()} leaves the profiler stopped, the load stopped and its threads
 * joined, and the partial results written. When the JVM is stopped mid-window, {@link ShutdownGuard} does the same
 * from its shutdown hook, within {@code profiledrollout.shutdown.timeout}.
 */
@API(status = INTERNAL, since = "0.1")
public final class ProfileWindow implements RolloutSession, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ProfileWindow.class.getName());

    private final EngineHandle engine;
    private final WindowSpec spec;
    private final Settings settings;
    private final Path outputDirectory;
    private final String testName;
    private final boolean strictSteps;

    private final List<Capture> captures = new ArrayList<>();
    /** Whether the combined {@code summary.json} of a phased test was written. */
    private volatile boolean combinedWritten;
    private Capture current;
    private RolloutResult result;
    private RuntimeException failure;
    private AssertionFailedError stepsFailure;
    private java.util.function.UnaryOperator<RolloutResult> completion = java.util.function.UnaryOperator.identity();

    public ProfileWindow(EngineHandle engine, WindowSpec spec, Settings settings, Path outputDirectory,
            String testName) {
        this(engine, spec, settings, outputDirectory, testName, false);
    }

    /**
     * @param strictSteps {@code @ProfiledRollout(strictSteps)}: with it or {@code profiledrollout.steps.strict}, a
     *                    capture holding another number of engine steps than {@code numSteps} fails the test;
     *                    otherwise it is a warning verdict
     * @throws org.junit.jupiter.api.extension.ExtensionConfigurationException for an invalid
     *                    {@code profiledrollout.steps.strict}
     */
    public ProfileWindow(EngineHandle engine, WindowSpec spec, Settings settings, Path outputDirectory,
            String testName, boolean strictSteps) {
        this.strictSteps = CaptureSteps.strict(strictSteps, settings);
        this.engine = engine;
        this.spec = spec;
        this.settings = settings;
        this.outputDirectory = outputDirectory;
        this.testName = testName;
        spec.checkBackend(settings::get).forEach(w -> LOG.log(System.Logger.Level.WARNING, w));
        boolean stepsAsked = spec.numSteps() != null || spec.phases().stream().anyMatch(p -> p.numSteps() != null);
        java.util.Optional<String> unbounded = stepsAsked
                ? dev.profiledrollout.backend.BackendSupport.of(spec.backend()).stepLimitUnsupported(engine.serverInfo())
                : java.util.Optional.empty();
        if (unbounded.isPresent()) {
            if (this.strictSteps) {
                throw new org.junit.jupiter.api.extension.ExtensionConfigurationException("numSteps cannot be"
                        + " enforced: " + unbounded.get() + " (or set " + dev.profiledrollout.ProfiledRolloutKeys
                        .STEPS_STRICT + "=false to run with a warning)");
            }
            LOG.log(System.Logger.Level.WARNING, "WARN numSteps cannot be enforced: " + unbounded.get());
        }
    }

    /** Warm-up outside the window, then the profiler start and the load of the first capture. */
    public void open() {
        if (current != null) {
            return;
        }
        current = spec.windowPerStage() ? stageCapture(0) : spec.phases().isEmpty()
                ? new Capture(engine, engine.workers(), spec, settings, outputDirectory, testName, null, strictSteps)
                : phaseCapture(spec.phases().get(0));
        captures.add(current);
        try {
            if (phasesTogether()) {
                openPhasesTogether();
            } else {
                current.open();
            }
        } catch (RuntimeException e) {
            if (!ShutdownGuard.shutdownStarted()) {
                CaptureAttempt.of(spec, settings, engine).write(outputDirectory, testName, e,
                        TestReport.Options.from(settings::get), System.out);
            }
            throw e;
        }
    }

    private Capture phaseCapture(WindowSpec.PhaseSpec phase) {
        return phaseCapture(phase, null);
    }

    /** @param sharedLoad the capture whose load this phase rides (phases armed together), or null for its own */
    private Capture phaseCapture(WindowSpec.PhaseSpec phase, Capture sharedLoad) {
        List<Worker> ofPhase = engine.workers().stream()
                .filter(w -> w.workerType().equals(phase.phase().workerType())).toList();
        String name = phase.phase().name();
        return new Capture(engine, ofPhase.isEmpty() ? engine.workers() : ofPhase, spec.forPhase(phase), settings,
                phaseDirectory(phase), testName + "[" + phase.phase() + "]", name, name, strictSteps, sharedLoad);
    }

    /**
     * Whether the phases are armed at once over one load: an srtctl recipe's benchmark sweep over a disaggregated
     * deployment, which srtctl profiles by arming every prefill and decode worker before the one benchmark runs
     * through the router (NVIDIA/srt-slurm {@code src/srtctl/benchmarks/scripts/lib/profiling.sh}). Phases with their
     * own loads ({@code @RolloutPhase}, a recipe without a sweep) run one after the other.
     */
    private boolean phasesTogether() {
        return spec.sweep() != null && spec.phases().size() > 1 && !spec.windowPerStage();
    }

    /**
     * The first phase's warm-up, then every phase's profiler started, then the first phase's load (the sweep, shaped
     * by the first phase's window) through the router, which every other phase's capture rides.
     */
    private void openPhasesTogether() {
        Capture first = current;
        first.prepare();
        for (int i = 1; i < spec.phases().size(); i++) {
            Capture other = phaseCapture(spec.phases().get(i), first);
            captures.add(other);
            other.prepare();
        }
        dev.profiledrollout.recipe.SweepCutoff cutoff = new dev.profiledrollout.recipe.SweepCutoff();
        for (Capture c : captures) {
            c.startProfiler();
            c.watchTraces(cutoff);
        }
        first.stopLoadOnceIn(cutoff);
        first.startLoad();
    }

    /** The window of stage {@code index} of a {@code windowPerStage} sweep, in its own directory and scope. */
    private Capture stageCapture(int index) {
        String label = spec.sweep().stages().get(index).label();
        return new Capture(engine, engine.workers(), spec.forStage(index), settings, stageDirectory(index),
                testName + "[stage " + label + "]", null, stageScope(index), strictSteps);
    }

    /** @return the verdict scope of stage {@code index}'s own window, e.g. {@code "stage concurrency 16"} */
    private String stageScope(int index) {
        return "stage " + spec.sweep().stages().get(index).label();
    }

    /** @return {@code <test output>/stage-<n>-<label>}, n from 1, e.g. {@code stage-2-concurrency-16} */
    private Path stageDirectory(int index) {
        String slug = spec.sweep().stages().get(index).label().toLowerCase(Locale.ROOT)
                .replaceAll("[^a-z0-9.]+", "-").replaceAll("-+$", "");
        return outputDirectory.resolve("stage-" + (index + 1) + "-" + slug);
    }

    private Path phaseDirectory(WindowSpec.PhaseSpec phase) {
        return outputDirectory.resolve(phase.phase().name().toLowerCase(Locale.ROOT));
    }

    /** @return the configuration this window reads, through the class's engine profile */
    public Settings settings() {
        return settings;
    }

    /** @return phase name → directory of the phases whose capture was created, in the order they ran */
    private Map<String, Path> phaseDirectories() {
        Map<String, Path> dirs = new LinkedHashMap<>();
        if (spec.windowPerStage()) {
            for (int i = 0; i < captures.size(); i++) {
                dirs.put(stageScope(i), stageDirectory(i));
            }
            return dirs;
        }
        List<WindowSpec.PhaseSpec> specs = spec.phases();
        for (int i = 0; i < Math.min(specs.size(), captures.size()); i++) {
            dirs.put(specs.get(i).phase().name(), phaseDirectory(specs.get(i)));
        }
        return dirs;
    }

    /** A phase's result as {@link RolloutResult#phase} gives it: its latency and trace scoped to the phase. */
    private static RolloutResult scoped(RolloutResult phaseResult, Phase phase) {
        return phaseResult.toBuilder().latency(phaseResult.latency().withScope(phase.name()))
                .trace(phaseResult.trace().withScope(phase.name())).build();
    }

    /**
     * The run model of what this window wrote, held in memory since it was written, for the history recorder: the
     * window's {@code summary.json}, or for a phased test each phase's, in the order they ran, once the combined
     * {@code summary.json} was written (as {@code RunRecords.fromDirectory} would read them from the files).
     *
     * @throws IllegalStateException when there is no such summary (the window failed before writing it)
     */
    public List<dev.profiledrollout.history.RunRecords.Window> runModel() {
        if (current == null) {
            throw new IllegalStateException("the profile window of " + testName + " was never opened");
        }
        if (spec.phases().isEmpty()) {
            return List.of(current.runWindow());
        }
        if (!combinedWritten) {
            throw new IllegalStateException("the combined summary.json of " + testName + " was not written");
        }
        return captures.stream().map(Capture::runWindow).toList();
    }

    /** Applied to the completed result before the body sees it (the extension adds the run's history access). */
    public void onCompletion(java.util.function.UnaryOperator<RolloutResult> then) {
        this.completion = java.util.Objects.requireNonNull(then, "then");
    }

    /** @return the completed result, or null when the window did not complete */
    public RolloutResult completedResult() {
        return result;
    }

    @Override
    public RolloutResult awaitResult() {
        if (stepsFailure != null) {
            throw stepsFailure;
        }
        if (result != null) {
            return result;
        }
        if (failure != null) {
            throw failure;
        }
        if (current == null) {
            throw new IllegalStateException("The profile window of " + testName + " was never opened");
        }
        try {
            RolloutResult completed = spec.windowPerStage() ? completeStages()
                    : spec.phases().isEmpty() ? current.complete() : completePhases();
            result = completion.apply(Baselines.apply(completed, settings, testName));
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        }
        List<Verdict> stepsFailed = captures.stream().flatMap(c -> c.captureFailed().stream()).toList();
        if (!stepsFailed.isEmpty()) {
            // summary.json and the report are written from the result; the test's outcome is the failure.
            stepsFailure = new AssertionFailedError(stepsFailed.stream().map(Verdict::describe)
                    .collect(Collectors.joining("\n")));
            throw stepsFailure;
        }
        return result;
    }

    private RolloutResult completePhases() {
        Map<Phase, RolloutResult> phases = new LinkedHashMap<>();
        List<WindowSpec.PhaseSpec> specs = spec.phases();
        boolean together = phasesTogether();
        if (together) {
            // one load: every profiler stops when it ends, then each phase collects and reads its traces
            for (Capture c : captures) {
                c.awaitLoadAndStop();
            }
            for (int i = 0; i < specs.size(); i++) {
                current = captures.get(i);
                phases.put(specs.get(i).phase(), scoped(current.complete(), specs.get(i).phase()));
            }
        } else {
            phases.put(specs.get(0).phase(), scoped(current.complete(), specs.get(0).phase()));
            for (int i = 1; i < specs.size(); i++) {
                current.close();
                current = phaseCapture(specs.get(i));
                captures.add(current);
                current.open();
                phases.put(specs.get(i).phase(), scoped(current.complete(), specs.get(i).phase()));
            }
        }
        List<RequestRecord> records = new ArrayList<>();
        List<TraceSet> traceSets = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        List<Path> frontend = new ArrayList<>();
        List<WorkerOutcome> workers = new ArrayList<>();
        List<String> workerPhases = new ArrayList<>();
        boolean stopped = false;
        for (Map.Entry<Phase, RolloutResult> entry : phases.entrySet()) {
            RolloutResult r = entry.getValue();
            r.workers().forEach(w -> workerPhases.add(entry.getKey().name()));
            if (!together || records.isEmpty()) {
                records.addAll(r.latency().records()); // phases armed together share one load's requests
            }
            traceSets.add(r.trace());
            files.addAll(r.traceFiles());
            frontend.addAll(r.frontendTraceFiles());
            workers.addAll(r.workers());
            stopped |= r.stopOutcome() == StopOutcome.STOPPED;
        }
        // Merged for the API only (see RolloutResult#latency()); summary.json keeps each phase's latency instead.
        LatencyReport latency = LatencyReport.of(records, spec.goodput()).withScope(PhaseSummaries.ALL_PHASES);
        TraceSet trace = TraceSet.merge(traceSets).withScope(PhaseSummaries.ALL_PHASES);
        CaptureReport combined = combinedReport();
        ProfilerCapture.Collected all = new ProfilerCapture.Collected(files, frontend);
        // The test's own report charts latency from these files, as for a single window.
        combined.writeRequests(latency);
        combined.workerPhases(workerPhases);
        if (combined.writeSummary(workers, all, latency, trace, null)) {
            PhaseSummaries.writeCombined(outputDirectory, phaseDirectories());
            combinedWritten = true;
        }
        return combined.result(latency, trace, all, stopped ? StopOutcome.STOPPED : StopOutcome.NOT_IN_PROGRESS,
                workers, phases);
    }

    /**
     * A sweep with a window per stage: each stage's capture in turn (warm-up before the first only), then the combined
     * result: every stage's requests and traces, the stages as run, and each stage's own result for
     * {@link RolloutResult#stage(int)}. The combined {@code summary.json} lists the stage windows in
     * {@code stageWindows[]} and {@code stages.json} gives each stage's row its window.
     */
    private RolloutResult completeStages() {
        int count = spec.sweep().size();
        List<RolloutResult> windows = new ArrayList<>();
        List<RunHeader.StageWindow> entries = new ArrayList<>();
        List<StageResult> stageResults = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                current.close();
                current = stageCapture(i);
                captures.add(current);
                current.open();
            }
            String scope = stageScope(i);
            RolloutResult r;
            try {
                r = current.complete();
            } catch (RuntimeException e) {
                throw new dev.profiledrollout.ProfiledRolloutException("The window of " + scope + " (" + (i + 1)
                        + " of " + count + ") failed" + (i + 1 < count ? " and the later stages did not run" : "")
                        + ": " + e.getMessage(), e);
            }
            StageResult own = r.stages().stages().get(0);
            stageResults.add(new StageResult(i, own.stage(), own.warmup(), own.latency(), own.schedule(),
                    own.fidelity(), own.gapBefore()));
            windows.add(r.toBuilder().latency(r.latency().withScope(scope)).trace(r.trace().withScope(scope))
                    .build());
            entries.add(stageWindow(i, r, current));
        }
        List<RequestRecord> records = new ArrayList<>();
        List<TraceSet> traceSets = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        List<Path> frontend = new ArrayList<>();
        List<WorkerOutcome> workers = new ArrayList<>();
        // each engine outcome's window, by directory name, so that summary.json's workers[] find their trace files
        List<String> workerWindows = new ArrayList<>();
        boolean stopped = false;
        for (int i = 0; i < windows.size(); i++) {
            RolloutResult r = windows.get(i);
            String dir = stageDirectory(i).getFileName().toString();
            r.workers().forEach(w -> workerWindows.add(dir));
            records.addAll(r.latency().records());
            traceSets.add(r.trace());
            files.addAll(r.traceFiles());
            frontend.addAll(r.frontendTraceFiles());
            workers.addAll(r.workers());
            stopped |= r.stopOutcome() == StopOutcome.STOPPED;
        }
        SweepResult sweep = new SweepResult(stageResults);
        LatencyReport latency = LatencyReport.of(records, spec.goodput());
        TraceSet trace = TraceSet.merge(traceSets).withScope(ALL_STAGES);
        CaptureReport combined = combinedReport();
        ProfilerCapture.Collected all = new ProfilerCapture.Collected(files, frontend);
        combined.writeRequests(latency);
        combined.workerPhases(workerWindows);
        dev.profiledrollout.report.StageReport.write(outputDirectory, sweep, null, entries);
        if (combined.writeSummary(workers, all, latency, trace, null)) {
            PhaseSummaries.writeStageWindows(outputDirectory, entries);
        }
        return combined.result(latency, trace, all, stopped ? StopOutcome.STOPPED : StopOutcome.NOT_IN_PROGRESS,
                workers, Map.of()).toBuilder().stages(sweep).stageWindows(windows).build();
    }

    /** The scope of the combined result of a sweep with a window per stage. */
    static final String ALL_STAGES = "all stages";

    /** {@code summary.json}'s {@code stageWindows[]} element of stage {@code index}'s window. */
    private RunHeader.StageWindow stageWindow(int index, RolloutResult r, Capture capture) {
        TraceSet t = r.trace();
        return new RunHeader.StageWindow(spec.sweep().stages().get(index).label(),
                outputDirectory.relativize(stageDirectory(index)).toString().replace('\\', '/'), t.traces().size(),
                capture.capturedSteps().orElse(null), t.kernelTotalNs() / 1e6,
                t.kernels().isEmpty() ? null : t.kernels().get(0).name(),
                capture.noData().map(Verdict::describe).orElse(null));
    }

    /**
     * Ends the window after a test body that threw: cancels the load, stops the profiler and writes what was
     * measured. Never throws; problems are added to {@code cause} as suppressed exceptions.
     */
    public void abort(Throwable cause) {
        if (result != null || failure != null || current == null) {
            return;
        }
        current.abort(cause);
    }

    /**
     * After the body: adds {@code verdicts} and {@code outcome} to {@code summary.json}, renders the charts and
     * {@code report.html}, and attaches them to the running Allure test (see {@link TestReport}). For a phased test,
     * first each phase that ran gets the verdicts of its scope and its own report in its directory
     * ({@link PhaseSummaries#finish}). With a {@code bodyFailure} (what the test will report), problems are added to
     * it as suppressed exceptions; without, they are thrown.
     */
    public void finishReport(List<Verdict> verdicts, TestReport.Options options, Throwable bodyFailure,
            TestOutcome outcome) {
        if (current == null || ShutdownGuard.shutdownStarted()) {
            return; // while the JVM exits, the shutdown hook owns summary.json
        }
        try {
            if (!spec.phases().isEmpty() || spec.windowPerStage()) {
                PhaseSummaries.finish(outputDirectory, phaseDirectories(), verdicts);
            }
            TestReport.finish(outputDirectory, verdicts, result == null ? List.of() : result.traceFiles(), options,
                    System.out, outcome);
        } catch (RuntimeException e) {
            if (bodyFailure == null) {
                throw e;
            }
            bodyFailure.addSuppressed(e);
        }
    }

    @Override
    public void close() {
        if (current != null && result == null && failure == null) {
            current.cancel();
        }
        for (Capture c : captures) {
            c.close();
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

    /**
     * The report of the combined result of several windows (phases or stages), written into the test's own output
     * directory.
     *
     * @throws dev.profiledrollout.ProfiledRolloutException when the JVM is shutting down: nothing combined is written
     */
    private CaptureReport combinedReport() {
        if (ShutdownGuard.shutdownStarted()) {
            throw new dev.profiledrollout.ProfiledRolloutException("The JVM is shutting down; the combined result of "
                    + testName + " is not written");
        }
        return new CaptureReport(engine, spec, outputDirectory, testName, null, current.request(), () -> { });
    }
}
