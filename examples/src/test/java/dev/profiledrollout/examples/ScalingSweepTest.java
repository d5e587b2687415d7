package dev.profiledrollout.examples;

import static dev.profiledrollout.Activity.GPU;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;

import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.RolloutSweep;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A load sweep: closed loops at 1, 4 and 16 concurrent requests, run back to back inside one profile window, each
 * stage measured on its own ({@code result.stages()}: latency with intervals, throughput, goodput, achieved rate,
 * schedule lag, failures). The report gets a throughput–latency chart with one point per stage and a stage table
 * ({@code stages.json} beside {@code summary.json}); Allure gets one step per stage. The open-loop form is
 * {@code @RolloutSweep(rates = {…})}; the highest load that meets SLOs is {@code @RolloutCapacity}.
 *
 * <p>Runs against the embedded simulator; {@code -Dprofiledrollout.engine=attach -Dprofiledrollout.engine.url=…}
 * runs it against a real server unchanged (size the concurrencies and the budget for your GPU and model).
 */
@ProfiledRollout(activities = GPU)
@RolloutLoad(requests = 16, inputTokens = 256, outputTokens = 16)
@RolloutSweep(concurrency = {1, 4, 16})
class ScalingSweepTest {

    @Test
    void throughputScalesAndTtftHoldsUpToSixteen(RolloutSession session) {
        RolloutResult result = session.awaitResult();

        // more concurrency buys throughput on a batching engine (a 10 % dip is tolerated as noise)
        assertThat(result.stages()).hasMonotoneThroughput(0.10);
        // "p99 TTFT stays under 2 s up to concurrency 16": one verdict per stage
        assertThat(result.stages()).meetsUpToConcurrency("ttft.p99<2s", 16);
        // a budget on one stage
        assertThat(result.stages().stage(16).latency()).hasNoFailedRequests();
        assertThat(result.stages().stage(1).latency()).tpot().percentile(50).isLessThan(Duration.ofMillis(100));
    }
}
