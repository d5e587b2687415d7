package dev.profiledrollout.junit.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.load.StageResult;
import dev.profiledrollout.load.SweepResult;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * Which stages of a staged load (an srtctl benchmark sweep, {@code @RolloutSweep}) a window's captured steps fell in:
 * each step's wall-clock start ({@code baseTimeNanoseconds} + the step span's start, {@code docs/TRACES.md}) against
 * each stage's start (its first request's send). A step before the first stage is counted as "before the sweep".
 */
@API(status = INTERNAL, since = "0.2")
public final class StagePlacement {

    private StagePlacement() {
    }

    /**
     * @param stages          the stages as run
     * @param startEpochMs    when the staged load started, epoch ms
     * @param startNanos      the same instant on {@link System#nanoTime()}, the clock of the request records
     * @param trace           the window's traces
     * @return e.g. {@code "captured steps fell in: stage concurrency 1 (10 steps), stage concurrency 2 (3 steps)"} per
     *         trace, or empty when no trace has steps with {@code baseTimeNanoseconds}
     */
    public static Optional<String> describe(SweepResult stages, long startEpochMs, long startNanos, TraceSet trace) {
        List<String> labels = new ArrayList<>();
        List<Long> starts = new ArrayList<>();
        for (StageResult s : stages.stages()) {
            long first = s.latency().records().stream().mapToLong(RequestRecord::startNanos).min().orElse(startNanos);
            labels.add(s.label());
            starts.add(startEpochMs * 1_000_000L + (first - startNanos));
        }
        List<String> parts = new ArrayList<>();
        for (TraceSummary t : trace.traces()) {
            if (t.details().baseTimeNs().isEmpty() || t.details().steps().isEmpty()) {
                continue;
            }
            long base = t.details().baseTimeNs().getAsLong();
            Map<String, Integer> counts = new LinkedHashMap<>();
            for (StepStats step : t.details().steps()) {
                long at = base + step.startNs();
                String label = "before the sweep";
                for (int i = 0; i < starts.size(); i++) {
                    if (at >= starts.get(i)) {
                        label = "stage " + labels.get(i);
                    }
                }
                counts.merge(label, 1, Integer::sum);
            }
            parts.add(counts.entrySet().stream().map(e -> e.getKey() + " (" + e.getValue() + " steps)")
                    .reduce((a, b) -> a + ", " + b).orElse(""));
        }
        return parts.isEmpty() ? Optional.empty()
                : Optional.of("captured steps fell in: " + String.join("; ", parts));
    }
}
