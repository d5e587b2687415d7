package dev.profiledrollout;

import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.trace.BaselineDiff;
import dev.profiledrollout.trace.TraceSet;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

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
 * @param baselineDiff       this run's kernels against the test's baseline ({@code profiledrollout.baseline.dir}),
 *                           or null when there is none; see {@link #baseline()}
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
        Map<Phase, RolloutResult> phases,
        BaselineDiff baselineDiff) {

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

    /** A result without a baseline comparison. */
    public RolloutResult(LatencyReport latency, TraceSet trace, List<Path> traceFiles, Path outputDirectory,
            ServerInfo serverInfo, StopOutcome stopOutcome, List<WorkerOutcome> workers, List<Path> frontendTraceFiles,
            Map<Phase, RolloutResult> phases) {
        this(latency, trace, traceFiles, outputDirectory, serverInfo, stopOutcome, workers, frontendTraceFiles, phases,
                null);
    }

    /**
     * @return the kernels of this run against the test's stored baseline (per kernel Δcount and Δtime, new and
     *         vanished kernels), when {@code profiledrollout.baseline.dir} holds one for this test; assert on it with
     *         {@code assertThat(result.baseline().orElseThrow()).kernelTimeWithin(0.10, …)}
     */
    public Optional<BaselineDiff> baseline() {
        return Optional.ofNullable(baselineDiff);
    }

    /** @return this result with {@code diff} as its baseline comparison */
    public RolloutResult withBaseline(BaselineDiff diff) {
        return new RolloutResult(latency, trace, traceFiles, outputDirectory, serverInfo, stopOutcome, workers,
                frontendTraceFiles, phases, diff);
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
