package dev.profiledrollout.examples;

import static dev.profiledrollout.Activity.GPU;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.matching;

import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RegressionCheck;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.SimulatedEngine;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A tensor-parallel run checked rank by rank: instead of pinning rows in Perfetto to compare TP ranks, assert that
 * every rank wrote its trace, that the ranks were equally busy, and that all-reduce stays a small part of each rank's
 * kernel time.
 *
 * <p>{@code @SimulatedEngine(tpSize = 2)} shapes the embedded simulator only. Against a real SGLang server started with
 * {@code --tp-size 2}: {@code -Dprofiledrollout.engine=attach -Dprofiledrollout.engine.url=http://gpu-node:30000}, plus
 * {@code -Dprofiledrollout.trace.dir=…} and {@code .trace.dir.server=…} when its ranks write to a filesystem this
 * machine mounts elsewhere.
 */
@RegressionCheck
@ProfiledRollout(numSteps = 8, activities = GPU)
@SimulatedEngine(tpSize = 2)
@RolloutLoad(concurrency = 8, requests = 32, inputTokens = 256, outputTokens = 32)
class TensorParallelTest {

    private static final String ALL_REDUCE = ".*(cross_device_reduce|AllReduce|all_reduce).*";

    @Test
    void ranksAreBalancedAndAllReduceIsCheap(RolloutSession session) {
        RolloutResult result = session.awaitResult();

        assertThat(result.traceFiles()).hasSize(result.serverInfo().tpSize());
        assertThat(result.trace()).ranks().hasSize(2);
        assertThat(result.trace()).ranks().busyImbalance().isLessThan(1.10);
        for (int tp = 0; tp < 2; tp++) {
            assertThat(result.trace()).rank(tp).hasKernels();
            assertThat(result.trace()).rank(tp).kernels(matching(ALL_REDUCE)).isNotEmpty().share().isLessThan(0.30);
        }
        // The simulated engine exports its traces in its scheduler when numSteps ends, as SGLang does, so requests in
        // flight then stall for the export: E2E carries that pause, whose length depends on the runner's CPU.
        assertThat(result.latency()).e2e().percentile(99).isLessThan(Duration.ofSeconds(8));
    }
}
