package dev.profiledrollout.junit.internal;

import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.report.AllureSteps;
import dev.profiledrollout.trace.TraceSet;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A profiler whose directory is fixed when the server starts, so one directory is shared by every window: vLLM's
 * {@code torch_profiler_dir} (vllm-project/vllm {@code vllm/profiler/wrapper.py}), or the directory of a server
 * launched with a capture range ({@code BackendSupport.Control#LAUNCH_RANGE}). The capture's files are those that were
 * not there when it started, one worker-host directory deep. Such servers cannot report their layout: with
 * {@code profiledrollout.engine.ranks} (or the embedded simulator) the capture waits for {@code tp_size} files per
 * profiled engine, otherwise until no file has appeared or grown for a while.
 *
 * <p>vLLM names a rank's file after the rank only ({@code dp0_pp0_tp0_…_rank0.<ns>.pt.trace.json.gz}, the
 * {@code worker_name} given to torch's {@code tensorboard_trace_handler} in {@code vllm/profiler/wrapper.py}), so
 * with several engines their files are told apart only by the host directory they were found in; ranks are then
 * labelled by that directory ({@code worker-0/TP-0} for the simulator's {@code worker-0/}), which names no URL.
 */
final class FixedDirectoryCapture extends FanOutCapture {

    /** With an unknown rank count, the directory must be quiet this long before the files count as complete. */
    private static final Duration COUNT_SETTLED_FOR = Duration.ofSeconds(2);

    private volatile Set<String> before = Set.of();

    FixedDirectoryCapture(EngineHandle engine, List<Worker> workers, WindowSpec spec, Settings settings, TraceLocation traces) {
        super(engine, workers, spec, settings, traces);
    }

    @Override
    public void start() {
        before = traces.existingNames();
        super.start();
    }

    @Override
    public Collected collect() {
        if (!spec.writesTraceFiles()) {
            return Collected.NONE;
        }
        return AllureSteps.step("trace collection", () -> {
            long profiled = outcomes().stream().filter(o -> o.state() == WorkerOutcome.State.PROFILED).count();
            boolean known = settings.engineRanks().isPresent() || engine.embedded();
            int expected = known ? (int) (engine.serverInfo().tpSize() * profiled) : 1;
            TraceFileWatcher watcher = watcher(traces, expected, known ? FILE_STABLE_FOR : COUNT_SETTLED_FOR, before,
                    true);
            if (known) {
                watcher.failMissingAfter(settings.traceMissingGrace(), ExpectedRanks.count(expected), "");
            }
            List<Path> graphCapture = dev.profiledrollout.trace.files.TraceFiles.graphCaptureTraces(traces.localPath());
            if (!graphCapture.isEmpty()) {
                System.getLogger(FixedDirectoryCapture.class.getName()).log(System.Logger.Level.INFO, graphCapture.size()
                        + " trace(s) of vLLM's capture_torch_profiler in " + traces.localPath().resolve(
                        dev.profiledrollout.trace.files.TraceFiles.GRAPH_CAPTURE_DIRECTORY) + " record CUDA-graph capture at"
                        + " start-up, not this window: they are not read and not counted as ranks");
            }
            return traces.collect(await(traces, watcher), before);
        });
    }

    @Override
    public TraceSet labelWorkers(TraceSet traceSet) {
        if (traceSet == null || workers.size() == 1) {
            return super.labelWorkers(traceSet);
        }
        return traceSet.withWorkers(this::hostDirectory, Map.of());
    }

    /** The directory under {@code traces/} that holds {@code file}, {@code ""} for a file directly in it. */
    private String hostDirectory(Path file) {
        Path root = traces.collectedPath().toAbsolutePath().normalize();
        Path absolute = file.toAbsolutePath().normalize();
        if (!absolute.startsWith(root) || root.relativize(absolute).getNameCount() < 2) {
            return "";
        }
        return root.relativize(absolute).getName(0).toString();
    }
}
