package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.ScheduleReport;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What one stage of a staged load measured. Immutable.
 *
 * @param index     the stage's position in the sweep, from 0
 * @param stage     the stage as asked
 * @param warmup    the stage's warm-up records, excluded from every metric
 * @param latency   TTFT / ITL / TPOT / E2E of the stage's requests (vLLM's definitions, with percentile intervals),
 *                  throughput and, with an SLO, goodput
 * @param schedule  schedule lag and the latency from the intended send (open loop)
 * @param fidelity  whether the stage's load was delivered, and who limited it
 * @param gapBefore from the previous stage's last response to this stage's first send; zero for the first stage
 */
@API(status = EXPERIMENTAL, since = "0.2")
public record StageResult(int index, LoadStage stage, List<RequestRecord> warmup, LatencyReport latency,
                          ScheduleReport schedule, LoadFidelity fidelity, Duration gapBefore) {

    public StageResult {
        Objects.requireNonNull(stage, "stage");
        warmup = List.copyOf(warmup);
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(fidelity, "fidelity");
        Objects.requireNonNull(gapBefore, "gapBefore");
    }

    /** @return completed requests per second over the stage (first send to last response) */
    public double throughput() {
        return latency.requestThroughput();
    }

    /** @return output tokens per second over the stage */
    public double outputThroughput() {
        return latency.outputTokenThroughput();
    }

    /** @return requests per second that met the goodput SLO; 0 without an SLO (see {@link LatencyReport#slo()}) */
    public double goodput() {
        return latency.requestGoodput();
    }

    /** @return the rate of actual sends in requests/s (see {@link LoadFidelity}) */
    public double achievedRate() {
        return fidelity.achievedRate();
    }

    /** @return the schedule-lag p99 */
    public Duration lagP99() {
        return fidelity.lagP99();
    }

    /** @return requests that ended in failure */
    public int failures() {
        return latency.failed();
    }

    /** @return the stage's name, e.g. {@code "concurrency 16"} */
    public String label() {
        return stage.label();
    }
}
