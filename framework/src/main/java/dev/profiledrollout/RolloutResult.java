package dev.profiledrollout;

import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.trace.TraceSet;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What one profile window produced: the client's latency view, the engine's traces, and where they are on disk.
 *
 * @param latency         TTFT / ITL / TPOT / E2E histograms and throughput of the requests sent in the window
 * @param trace           the analysed trace files of every rank of the capture
 * @param traceFiles      the trace files read, one per rank (and stage), sorted by rank
 * @param outputDirectory {@code <profiledrollout.output.dir>/<Class>/<method>}, holding {@code summary.json},
 *                        {@code requests.jsonl}, {@code latency.hlog} and {@code traces/}
 * @param serverInfo      what the engine reported about itself ({@code /server_info})
 * @param stopOutcome     whether {@code /stop_profile} stopped the capture or the engine had already stopped by itself
 *                        after {@code num_steps}
 */
public record RolloutResult(
        LatencyReport latency,
        TraceSet trace,
        List<Path> traceFiles,
        Path outputDirectory,
        ServerInfo serverInfo,
        StopOutcome stopOutcome) {

    public RolloutResult {
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(trace, "trace");
        traceFiles = List.copyOf(traceFiles);
        Objects.requireNonNull(outputDirectory, "outputDirectory");
        Objects.requireNonNull(serverInfo, "serverInfo");
        Objects.requireNonNull(stopOutcome, "stopOutcome");
    }
}
