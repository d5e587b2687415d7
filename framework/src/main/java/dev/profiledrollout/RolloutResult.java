package dev.profiledrollout;

import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.trace.TraceSet;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one profile window produced: the client's latency view, the engine's traces, and where they are on disk.
 *
 * @param latency            TTFT / ITL / TPOT / E2E histograms and throughput of the requests sent in the window (all
 *                           phases together for a phased test)
 * @param trace              the analysed trace files of every rank of every profiled engine, as one rank set (for
 *                           {@link Profiler#NSYS}: the {@code nsys stats} kernel summary)
 * @param traceFiles         the rank trace files read, sorted by rank; with several engines they are under
 *                           {@code traces/worker-<i>/}
 * @param outputDirectory    {@code <profiledrollout.output.dir>/<Class>/<method>}, holding {@code summary.json},
 *                           {@code requests.jsonl}, {@code latency.hlog} and {@code traces/}
 * @param serverInfo         what the (first) engine reported about itself ({@code /server_info}; for vLLM the
 *                           configured layout)
 * @param stopOutcome        {@code STOPPED} when at least one engine's {@code /stop_profile} stopped a capture, else
 *                           {@code NOT_IN_PROGRESS} (SGLang had already stopped by itself after {@code num_steps})
 * @param workers            per profiled engine what happened (started, failed with status and reason, skipped
 *                           unhealthy), in router or configuration order; for phased tests, every phase's
 * @param frontendTraceFiles vLLM's CPU-only API-server traces ({@code …async_llm…}), kept out of {@link #trace()}
 * @param phases             per {@link RolloutPhase}, that phase's own result (in declaration order); empty for a
 *                           test without phases
 */
public record RolloutResult(
        LatencyReport latency,
        TraceSet trace,
        List<Path> traceFiles,
        Path outputDirectory,
        ServerInfo serverInfo,
        StopOutcome stopOutcome,
        List<WorkerOutcome> workers,
        List<Path> frontendTraceFiles,
        Map<Phase, RolloutResult> phases) {

    public RolloutResult {
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(trace, "trace");
        traceFiles = List.copyOf(traceFiles);
        Objects.requireNonNull(outputDirectory, "outputDirectory");
        Objects.requireNonNull(serverInfo, "serverInfo");
        Objects.requireNonNull(stopOutcome, "stopOutcome");
        workers = List.copyOf(workers);
        frontendTraceFiles = List.copyOf(frontendTraceFiles);
        phases = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(phases));
    }

    /** A single-engine, single-phase result (the shape before fan-out and phases existed). */
    public RolloutResult(LatencyReport latency, TraceSet trace, List<Path> traceFiles, Path outputDirectory,
            ServerInfo serverInfo, StopOutcome stopOutcome) {
        this(latency, trace, traceFiles, outputDirectory, serverInfo, stopOutcome, List.of(), List.of(), Map.of());
    }

    /**
     * @param phase a phase declared with {@link RolloutPhase}, not null
     * @return that phase's result
     * @throws IllegalArgumentException when the test declared no such phase
     */
    public RolloutResult phase(Phase phase) {
        RolloutResult r = phases.get(phase);
        if (r == null) {
            throw new IllegalArgumentException("No " + phase + " phase in this result; declared: " + phases.keySet());
        }
        return r;
    }

    /** @return the engines whose start or stop failed (see {@link WorkerOutcome#failed()}) */
    public List<WorkerOutcome> failedWorkers() {
        return workers.stream().filter(WorkerOutcome::failed).toList();
    }
}
