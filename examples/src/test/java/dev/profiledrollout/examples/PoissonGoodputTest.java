package dev.profiledrollout.examples;

import static dev.profiledrollout.Activity.GPU;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.glob;

import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RegressionCheck;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * An open-loop load with an SLO: requests arrive as a Poisson process at a mean 8 requests/s, whether or not earlier
 * ones have finished (what {@code vllm bench serve --request-rate 8 --burstiness 1} sends), and goodput counts the
 * requests that met every bound of the SLO (its {@code --goodput ttft:… tpot:…}; both in {@code vllm-project/vllm}
 * {@code vllm/benchmarks/serve.py}, definitions in {@code docs/METRICS.md}). Latencies are also measured from each
 * request's intended send time, so a client that fell behind its schedule cannot hide queueing
 * ({@code summary.json}: {@code latency.correctedTtft}, {@code .scheduleLag}, {@code .clientFellBehind}).
 *
 * <p>The arrival times come from a seeded generator: every run sends the same schedule. Runs against the embedded
 * simulator; {@code -Dprofiledrollout.engine=attach -Dprofiledrollout.engine.url=http://gpu-node:30000} runs it
 * against a real SGLang server unchanged (size the rate and the SLO for your GPU and model).
 */
@RegressionCheck
@ProfiledRollout(activities = GPU)
@RolloutLoad(requestRate = 8, burstiness = 1.0, requests = 32, inputTokens = 512, outputTokens = 32,
        goodput = {"ttft:1500", "tpot:80"})
class PoissonGoodputTest {

    @Test
    void goodputHoldsUnderPoissonArrivals(RolloutSession session) {
        RolloutResult result = session.awaitResult();

        assertThat(result.latency()).hasNoFailedRequests();
        // The SLO leaves room for a busy two-core CI runner, where latency under load has measured 2-3 times its
        // quiet-machine value: nearly every request must meet it.
        assertThat(result.latency()).goodRequests().isGreaterThanOrEqualTo(30);
        // Goodput in requests/s is bounded by the offered 8 req/s (less the last requests' latency): at least half.
        assertThat(result.latency()).goodput().isGreaterThan(4.0);
        assertThat(result.latency()).ttft().percentile(50).isLessThan(Duration.ofMillis(250));

        // Requests arrive one by one, so the engine keeps admitting new prompts between decode steps.
        assertThat(result.trace()).kernels(glob("*BatchPrefill*")).isNotEmpty();
        assertThat(result.trace()).kernels(glob("*BatchDecode*")).isNotEmpty();
    }
}
