package dev.profiledrollout.examples;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.glob;

import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RegressionCheck;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.engine.StopOutcome;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Profiling the whole load instead of a fixed number of steps: without {@code numSteps} the capture runs until the
 * extension calls {@code /stop_profile} after the last request, so prefill and decode batches are both in the trace.
 *
 * <p>Runs against the embedded simulator by default; {@code -Dprofiledrollout.engine=attach
 * -Dprofiledrollout.engine.url=http://gpu-node:30000} runs it against a real SGLang server unchanged. Keep such a
 * capture short there: without {@code num_steps} the engine records every step until the stop.
 */
@RegressionCheck
@ProfiledRollout
@RolloutLoad(concurrency = 4, requests = 8, inputTokens = 1024, outputTokens = 16)
class StopProfileWindowTest {

    @Test
    void wholeLoadIsProfiled(RolloutSession session) {
        RolloutResult result = session.awaitResult();

        assertThat(result.stopOutcome()).isEqualTo(StopOutcome.STOPPED);
        assertThat(result.latency()).hasNoFailedRequests();
        assertThat(result.trace()).kernels(glob("*BatchPrefill*")).isNotEmpty();
        assertThat(result.trace()).kernels(glob("*BatchDecode*")).isNotEmpty();
        assertThat(result.trace()).kernels(glob("*Prefill*")).totalTime().isLessThan(Duration.ofSeconds(1));
    }
}
