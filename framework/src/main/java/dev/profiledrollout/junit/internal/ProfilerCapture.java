package dev.profiledrollout.junit.internal;

import dev.profiledrollout.Activity;
import dev.profiledrollout.backend.BackendSupport;
import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.Profiler;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.recipe.SweepCutoff;
import dev.profiledrollout.report.AllureSteps;
import dev.profiledrollout.trace.TraceSet;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * How one profile is captured over a window's engines: what starts and stops the profiler, and where the files it
 * produced are and how they are read. {@link Capture} sequences the phases around it; there is one implementation per
 * profiler and backend, chosen by {@link #of}:
 * <ul>
 *   <li>{@link SglangCapture}: SGLang's torch profiler or RPD, {@code /start_profile} per engine, one output
 *       directory per engine;</li>
 *   <li>{@link FixedDirectoryCapture}: a profiler whose directory is fixed at server start (vLLM's
 *       {@code torch_profiler_dir}, a launch-time capture range), the files that appear in it;</li>
 *   <li>{@link CudaProfilerCapture}: SGLang's {@code CUDA_PROFILER} activity delimiting an nsys capture;</li>
 *   <li>{@link NsysSessionCapture}: an interactive Nsight Systems session.</li>
 * </ul>
 *
 * A new kind of capture is one more implementation and one more case in {@link #of}.
 *
 * <h2>Threads</h2>
 * {@link #start()} and {@link #stop()} are called through a {@link GuardedProfiler}: start at most once, stop at most
 * once and only after a start that returned. Stop may come from the shutdown hook's thread; {@link #outcomes()} and
 * {@link #describeStop} may be called from it at any time. {@link #collect()} and {@link #analyse} run on the test's
 * thread after the stop.
 */
interface ProfilerCapture extends AutoCloseable {

    /**
     * The files a capture collected into {@code traces/}.
     *
     * @param rankFiles     the traces to analyse (or the nsys report), sorted
     * @param frontendFiles vLLM's frontend traces, collected but not analysed
     */
    record Collected(List<Path> rankFiles, List<Path> frontendFiles) {

        static final Collected NONE = new Collected(List.of(), List.of());

        public Collected {
            rankFiles = List.copyOf(rankFiles);
            frontendFiles = List.copyOf(frontendFiles);
        }

        /** @return the frontend traces' file names, as {@code summary.json} lists them */
        List<String> frontendNames() {
            return frontendFiles.stream().map(p -> p.getFileName().toString()).toList();
        }
    }

    /** No engine started profiling; {@link #outcomes()} says why for each. */
    final class NotStarted extends ProfiledRolloutException {

        private static final long serialVersionUID = 1L;

        NotStarted(List<WorkerOutcome> outcomes) {
            super(outcomes.size() == 1 && outcomes.get(0).state() == WorkerOutcome.State.START_FAILED
                    ? outcomes.get(0).reason() : "No engine started profiling; per engine: " + outcomes.stream()
                    .map(WorkerOutcome::describe).collect(Collectors.joining("; ")));
        }
    }

    /**
     * The capture a window asks for.
     *
     * @param workers the engines of the window (or phase) to profile
     * @param traces  where the engines write and this machine reads
     */
    static ProfilerCapture of(EngineHandle engine, List<Worker> workers, WindowSpec spec, Settings settings,
            TraceLocation traces) {
        if (spec.profiler() == Profiler.NSYS) {
            return spec.activities().contains(Activity.CUDA_PROFILER)
                    ? new CudaProfilerCapture(engine, workers, spec, settings, traces)
                    : new NsysSessionCapture(workers.size(), spec, settings, traces);
        }
        return switch (BackendSupport.of(spec.backend()).control()) {
            case PER_REQUEST -> new SglangCapture(engine, workers, spec, settings, traces);
            case SERVER_CONFIG, LAUNCH_RANGE -> new FixedDirectoryCapture(engine, workers, spec, settings, traces);
        };
    }

    /** @return the {@code /start_profile} body of the engine at {@code worker} ({@code summary.json} shows engine 0's) */
    ProfileRequest request(int worker);

    /**
     * Starts the profiler.
     *
     * @throws NotStarted when no engine started; other failures as thrown
     */
    void start();

    /** @return {@code STOPPED} when the stop ended a running capture, else {@code NOT_IN_PROGRESS} */
    StopOutcome stop();

    /** @return per engine in worker order; empty before the start and for a capture without engines of its own */
    List<WorkerOutcome> outcomes();

    /**
     * @return after the stop, why none of the capture's files can be trusted (every profiled engine's stop failed),
     *         empty when they can
     */
    default Optional<String> untrusted() {
        List<WorkerOutcome> stopFailed = outcomes().stream()
                .filter(o -> o.state() == WorkerOutcome.State.STOP_FAILED).toList();
        if (stopFailed.isEmpty() || outcomes().stream().anyMatch(o -> o.state() == WorkerOutcome.State.PROFILED)) {
            return Optional.empty();
        }
        return Optional.of("/stop_profile failed on every profiled engine, so no trace can be trusted: " + stopFailed
                .stream().map(WorkerOutcome::describe).collect(Collectors.joining("; ")));
    }

    /**
     * Adds the directories where this capture's engines write their traces, as this machine sees them, to
     * {@code cutoff}, so that a recipe's sweep can stop once they are in ({@link SweepCutoff}). By default the
     * capture cannot be watched (its files are not in a directory of its own here) and the whole sweep runs.
     */
    default void watchTraces(SweepCutoff cutoff) {
        cutoff.watch(null, java.util.Set.of());
    }

    /**
     * Waits for the files the capture produced and collects them into {@code traces/}.
     *
     * @throws MissingRankFilesException when some files stopped coming; carries those collected
     */
    Collected collect();

    /**
     * Reads the collected files.
     *
     * @throws IOException when a trace cannot be read
     */
    default TraceSet analyse(Collected files) throws IOException {
        return AllureSteps.step("analysis: " + files.rankFiles().size() + " trace file(s)", () -> {
            TraceSet.RpdCheck checked = labelWorkers(TraceSet.read(files.rankFiles())).withoutRpdCopies();
            checked.warnings().forEach(w -> System.getLogger(ProfilerCapture.class.getName())
                    .log(System.Logger.Level.WARNING, w));
            return checked.traces();
        });
    }

    /**
     * Attributes each trace to the engine that wrote it ({@link TraceSet#withWorkers}), so that the ranks of several
     * engines are told apart; a capture that cannot tell returns the set as it is.
     *
     * @param traceSet the capture's traces, or null
     * @return the labelled set, null for null
     */
    default TraceSet labelWorkers(TraceSet traceSet) {
        return traceSet;
    }

    /**
     * How the stop ended, for the shutdown hook's report.
     *
     * @param outcomes  {@link #outcomes()}, with engines still stopping marked {@code STOP_FAILED}
     * @param finished  whether the stop returned in time
     * @param failure   what the stop threw, or null
     * @param timeout   the hook's bound, named when the stop did not finish
     */
    default String describeStop(List<WorkerOutcome> outcomes, boolean finished, RuntimeException failure,
            String timeout) {
        if (outcomes.isEmpty()) {
            return failure != null ? "stopping the profiler failed: " + failure.getMessage()
                    : "no profiler had been started";
        }
        return "profiler stop per engine: " + outcomes.stream().map(WorkerOutcome::describe)
                .collect(Collectors.joining("; "));
    }

    @Override
    void close();
}
