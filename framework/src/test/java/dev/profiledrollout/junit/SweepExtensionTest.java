package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.junit.ProfiledTestKit.run;

import dev.profiledrollout.Activity;
import dev.profiledrollout.Phase;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.RolloutSweep;
import dev.profiledrollout.load.StageResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/** {@code @RolloutSweep}: the stages run inside one profile window, each measured on its own. */
class SweepExtensionTest {

    @TempDir
    Path output;

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(requests = 8, inputTokens = 32, outputTokens = 6, warmupRequests = 1)
    @RolloutSweep(concurrency = {1, 4})
    static class ConcurrencySweepTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void sweep(RolloutSession session) {
            RolloutResult result = session.awaitResult();
            RESULT.set(result);
            assertThat(result.stages()).meetsUpToConcurrency("ttft.p90<60s", 4);
            assertThat(result.stages().stage(4).latency()).ttft().percentile(90).isLessThan(Duration.ofMinutes(1));
        }
    }

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(requests = 4, inputTokens = 32, outputTokens = 6, requestRate = 5)
    @RolloutSweep(rates = {10, 20})
    static class OpenLoopLoadTestCase {
        @Test
        void sweep(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(requests = 4)
    @RolloutSweep(concurrency = {1, 2})
    @RolloutPhase(phase = Phase.DECODE)
    static class PhasedTestCase {
        @Test
        void sweep(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void stages_run_in_the_window_and_are_reported_one_by_one() {
        EngineExecutionResults results = run(ConcurrencySweepTestCase.class, output);
        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        RolloutResult result = ConcurrencySweepTestCase.RESULT.get();
        Assertions.assertThat(result.stages().stages()).extracting(StageResult::label)
                .containsExactly("concurrency 1", "concurrency 4");
        Assertions.assertThat(result.stages().stages()).allSatisfy(s -> {
            Assertions.assertThat(s.latency().completed()).isEqualTo(8);
            Assertions.assertThat(s.warmup()).isEmpty();
        });
        // the window's latency is over both stages' requests
        Assertions.assertThat(result.latency().completed()).isEqualTo(16);
    }

    @Test
    void an_open_loop_load_or_phases_with_a_sweep_are_refused_with_the_fix() {
        EngineExecutionResults open = run(OpenLoopLoadTestCase.class, output);
        open.testEvents().assertStatistics(stats -> stats.failed(1));
        Assertions.assertThat(ProfiledTestKit.failure(open).getMessage())
                .contains("@RolloutSweep with an open-loop @RolloutLoad", "remove requestRate");
        Assertions.assertThat(ProfiledTestKit.failure(run(PhasedTestCase.class, output)).getMessage())
                .contains("@RolloutSweep with @RolloutPhase");
    }
}
