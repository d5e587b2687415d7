package ${package};

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
 * A decode budget: 10 scheduler steps profiled while 8 concurrent requests decode, with a latency budget from the
 * client's view (TTFT) and a kernel budget from the engine's trace (GEMM share of GPU kernel time). The 16 warm-up
 * requests run before the profile window and count in no metric, so the window sees a warm JVM and engine.
 *
 * <p>Runs against the embedded engine simulator by default, no GPU needed; the budgets fit it on a small shared CI
 * machine. Against a real SGLang server, unchanged: {@code mvn verify -Dprofiledrollout.engine=attach
 * -Dprofiledrollout.engine.url=http://gpu-node:30000}, with budgets set from a baseline run on your GPU and model (a
 * tail SLO is usually {@code percentile(99)}).
 */
@ProfiledRollout(backend = SGLANG, numSteps = 10, activities = {GPU, CPU})
@RolloutLoad(concurrency = 8, requests = 32, warmupRequests = 16, inputTokens = 256, outputTokens = 32)
class DecodeBudgetTest {

    @Test
    void decodeStaysWithinBudget(RolloutSession session) {
        RolloutResult result = session.awaitResult(); // load finished, profiler stopped, traces read

        assertThat(result.latency()).hasNoFailedRequests();
        assertThat(result.latency()).ttft().percentile(90).isLessThan(Duration.ofMillis(500));

        assertThat(result.trace()).kernels(matching(".*(gemm|nvjet).*")).isNotEmpty().share().isLessThan(0.95);
    }
}
