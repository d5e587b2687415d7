package dev.profiledrollout.junit.internal;

import dev.profiledrollout.backend.BackendSupport;
import dev.profiledrollout.engine.EngineClient;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.report.AllureSteps;
import dev.profiledrollout.trace.files.TraceFileName;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * SGLang's torch profiler (or RPD on ROCm) on every engine: each engine writes into its own output directory
 * ({@code output_dir} of {@code /start_profile}, {@code worker-<n>/} when there are several), and each profiled
 * engine's rank files are awaited as {@link ExpectedRanks} counts them. A rank whose file never comes is named, since
 * SGLang answers the profile calls with DP rank 0's result only ({@code _execute_profile} in sgl-project/sglang
 * {@code python/sglang/srt/managers/tokenizer_control_mixin.py}). SGLang's {@code merged-*} file is collected but not
 * analysed: it repeats the rank files.
 */
final class SglangCapture extends FanOutCapture {

    SglangCapture(EngineHandle engine, List<Worker> workers, WindowSpec spec, Settings settings,
            TraceLocation traces) {
        super(engine, workers, spec, settings, traces);
    }

    /** @return the engine's {@code /server_info} now, or empty when it cannot be read (never throws) */
    private Optional<ServerInfo> liveInfo(EngineClient client) {
        if (client == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(BackendSupport.of(spec.backend()).serverInfo(client, OptionalInt.empty(), 0));
        } catch (RuntimeException e) {
            return Optional.empty(); // an engine that cannot say keeps the full trace timeout
        }
    }

    /**
     * Ends the wait for engine {@code worker}'s files once {@link UnreachableWindow} is sure none will come. Only a
     * window with {@code start_step} and {@code num_steps} can wait in vain: {@code /stop_profile} after the load
     * writes a capture that has begun (so {@code num_steps} beyond the load gives a short trace and a WARN of the steps
     * captured), but one armed for a step the load never reached has nothing to write. A no-op for other windows and
     * for an engine that does not report its step counter and queue.
     */
    private TraceFileWatcher unreachableAfterLoad(TraceFileWatcher watcher, int worker) {
        EngineClient client = fanOutClient(worker);
        if (spec.numSteps() == null || spec.startStep() == null || client == null) {
            return watcher;
        }
        UnreachableWindow judge = new UnreachableWindow((long) spec.startStep() + spec.numSteps(),
                "start_step=" + spec.startStep() + ", num_steps=" + spec.numSteps(), UnreachableWindow.SETTLE);
        return watcher.endWhenUnreachable(() -> judge.observe(liveInfo(client).orElse(null), System.nanoTime()));
    }

    /** Each engine's own output directory, emptied before the window opened: every rank trace there is this window's. */
    @Override
    public void watchTraces(dev.profiledrollout.recipe.SweepCutoff cutoff) {
        if (!spec.writesTraceFiles()) {
            cutoff.watch(null, Set.of()); // nothing written to watch
            return;
        }
        for (int i = 0; i < workers.size(); i++) {
            cutoff.watch(location(i).localPath(), Set.of());
        }
    }

    /**
     * Collects every profiled engine's files, those that arrived even when others never come.
     *
     * @throws MissingRankFilesException the first engine's shortfall, after all engines were collected
     */
    @Override
    public Collected collect() {
        if (!spec.writesTraceFiles()) {
            return Collected.NONE;
        }
        return AllureSteps.step("trace collection", this::collectEngines);
    }

    private Collected collectEngines() {
        List<WorkerOutcome> outcomes = outcomes();
        ExpectedRanks expected = ExpectedRanks.sglang(engine.serverInfo(), spec);
        String hint = spec.numSteps() == null ? "" : "With num_steps a rank writes its file at the start of its next"
                + " batch, so a DP rank that gets no request after its last recorded step writes nothing; keep the load"
                + " running past the capture (@RolloutLoad(requests)).";
        List<Path> rankFiles = new ArrayList<>();
        List<Path> frontend = new ArrayList<>();
        MissingRankFilesException missing = null;
        for (int i = 0; i < workers.size(); i++) {
            if (outcomes.get(i).state() != WorkerOutcome.State.PROFILED) {
                continue;
            }
            TraceLocation location = location(i);
            TraceFileWatcher watcher = watcher(location, expected.count(), FILE_STABLE_FOR, Set.of(), false)
                    .failMissingAfter(settings.traceMissingGrace(), expected, hint);
            watcher = unreachableAfterLoad(watcher, i);
            List<Path> files;
            try {
                files = await(location, watcher);
            } catch (MissingRankFilesException e) {
                missing = missing == null ? e : missing;
                files = e.arrived();
            }
            Collected collected = location.collect(files, Set.of());
            collected.rankFiles().stream().filter(p -> !TraceFileName.isMerged(p.getFileName().toString()))
                    .forEach(rankFiles::add);
            frontend.addAll(collected.frontendFiles());
        }
        Collected all = new Collected(rankFiles, frontend);
        if (missing != null) {
            throw missing.collected(all);
        }
        return all;
    }
}
