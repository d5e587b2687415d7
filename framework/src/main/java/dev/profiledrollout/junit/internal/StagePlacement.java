package dev.profiledrollout.junit.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.load.StageResult;
import dev.profiledrollout.load.SweepResult;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.report.RunHeader;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import java.util.ArrayList;
import java.util.List;
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
     * @return per trace with steps and {@code baseTimeNanoseconds}, the steps before the sweep and per stage
     *         (stages without a step left out), in trace order; empty when no trace has such steps
     */
    public static List<RunHeader.StagePlacement> place(SweepResult stages, long startEpochMs, long startNanos,
            TraceSet trace) {
        List<String> labels = new ArrayList<>();
        List<Long> starts = new ArrayList<>();
        for (StageResult s : stages.stages()) {
            long first = s.latency().records().stream().mapToLong(RequestRecord::startNanos).min().orElse(startNanos);
            labels.add(s.label());
            starts.add(startEpochMs * 1_000_000L + (first - startNanos));
        }
        List<RunHeader.StagePlacement> placed = new ArrayList<>();
        for (TraceSummary t : trace.traces()) {
            if (t.details().baseTimeNs().isEmpty() || t.details().steps().isEmpty()) {
                continue;
            }
            long base = t.details().baseTimeNs().getAsLong();
            int before = 0;
            int[] counts = new int[labels.size()];
            for (StepStats step : t.details().steps()) {
                long at = base + step.startNs();
                int in = -1;
                for (int i = 0; i < starts.size(); i++) {
                    if (at >= starts.get(i)) {
                        in = i;
                    }
                }
                if (in < 0) {
                    before++;
                } else {
                    counts[in]++;
                }
            }
            List<RunHeader.StageSteps> per = new ArrayList<>();
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] > 0) {
                    per.add(new RunHeader.StageSteps(labels.get(i), counts[i]));
                }
            }
            placed.add(new RunHeader.StagePlacement(trace.rankLabel(t), before, per));
        }
        return placed;
    }

    /**
     * @param placed what {@link #place} found
     * @return e.g. {@code "captured steps fell in: stage concurrency 1 (10 steps), stage concurrency 2 (3 steps)"} per
     *         trace, or empty when nothing was placed
     */
    public static Optional<String> describe(List<RunHeader.StagePlacement> placed) {
        List<String> parts = new ArrayList<>();
        for (RunHeader.StagePlacement p : placed) {
            List<String> in = new ArrayList<>();
            if (p.beforeSweep() > 0) {
                in.add("before the sweep (" + p.beforeSweep() + " steps)");
            }
            p.stages().forEach(s -> in.add("stage " + s.stage() + " (" + s.steps() + " steps)"));
            parts.add(String.join(", ", in));
        }
        return parts.isEmpty() ? Optional.empty()
                : Optional.of("captured steps fell in: " + String.join("; ", parts));
    }
}
