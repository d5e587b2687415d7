package dev.profiledrollout.examples;

import static dev.profiledrollout.Activity.CPU;
import static dev.profiledrollout.Activity.GPU;
import static dev.profiledrollout.Backend.SGLANG;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.matching;

import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A decode budget: 10 scheduler steps profiled while 16 concurrent requests decode, with latency budgets from the
 * client's view and kernel budgets from the engine's trace.
 *
 * <p>Runs against the embedded simulator by default; {@code -Dprofiledrollout.engine=attach
 * -Dprofiledrollout.engine.url=http://gpu-node:30000} runs it against a real SGLang server unchanged (the budgets
 * then need to fit your GPU and model).
 */
@ProfiledRollout(backend = SGLANG, numSteps = 10, activities = {GPU, CPU})
@RolloutLoad(concurrency = 16, requests = 64, inputTokens = 512, outputTokens = 64)
class DecodeBudgetTest {

    @Test
    void decodeStaysWithinBudget(RolloutSession session) {
        RolloutResult result = session.awaitResult(); // load finished, profiler stopped, traces read

        assertThat(result.latency()).hasNoFailedRequests();
        // The simulator keeps its cost model's time on the same cores as the load generator: budgets leave room
        // for a busy two-core CI runner, where the same run has measured up to twice its quiet-machine latency.
        assertThat(result.latency()).ttft().percentile(99).isLessThan(Duration.ofSeconds(1));
        assertThat(result.latency()).itl().percentile(50).isLessThan(Duration.ofMillis(25));
        assertThat(result.latency()).tpot().percentile(90).isLessThan(Duration.ofMillis(40));

        assertThat(result.trace()).kernels(matching(".*(gemm|nvjet).*")).isNotEmpty().share().isLessThan(0.92);
        assertThat(result.trace()).kernels(matching(".*BatchDecode.*")).isNotEmpty();
        assertThat(result.trace()).gpuBusyFraction().isGreaterThan(0.5);

        // Against the earlier runs of this test and configuration in the history store (a t-test over the last 20
        // runs by default; a warning until the store holds two of them).
        assertThat(result).history().metric("tpot.mean").hasNoRegression();
        assertThat(result).history().metric("e2e.mean").hasNoRegression();
    }
}
