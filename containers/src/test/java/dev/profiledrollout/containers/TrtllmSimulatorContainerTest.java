package dev.profiledrollout.containers;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutEngine;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * {@code backend = TRTLLM} with a {@code @RolloutEngine} {@link TrtllmContainer}, run on the simulator image as a GPU
 * user runs {@code nvcr.io/nvidia/tensorrt-llm/release}: the container is launched with
 * {@code TLLM_PROFILE_START_STOP} and {@code TLLM_TORCH_PROFILE_TRACE} in its environment, no profile route is called,
 * and the per-rank torch traces come back through the bind mount.
 */
class TrtllmSimulatorContainerTest {

    @TempDir
    Path output;

    @BeforeAll
    static void docker() {
        SimulatorImage.requireDocker();
    }

    @ProfiledRollout(backend = Backend.TRTLLM, numSteps = 4)
    @RolloutLoad(concurrency = 2, requests = 6, inputTokens = 64, outputTokens = 8, warmupRequests = 0)
    static class SpanTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @RolloutEngine
        static TrtllmContainer engine = new TrtllmContainer(SimulatorImage.trtllm())
                .withTensorParallelSize(2)
                .withProfileRange(1, 5)
                .withProfilerDirectory(ProfiledContainerTest.tempDir("trtllm-profiles"))
                .withStartupTimeout(Duration.ofMinutes(2));

        @Test
        void span(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void a_profiled_test_runs_through_a_trtllm_container_launched_with_its_span() {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter").selectors(selectClass(SpanTestCase.class))
                .configurationParameter("profiledrollout.output.dir", output.toString())
                .configurationParameter("profiledrollout.trtllm.profile.start.stop", "1-5")
                .configurationParameter("profiledrollout.engine.ranks", "2")
                .execute();

        results.testEvents().failed().stream().forEach(e -> e.getPayload(org.junit.platform.engine.TestExecutionResult.class)
                .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable)
                .ifPresent(t -> { throw new AssertionError("the profiled test failed: " + t, t); }));
        results.testEvents().assertStatistics(stats -> stats.started(1).succeeded(1));
        RolloutResult result = SpanTestCase.RESULT.get();
        assertThat(result.traceFiles()).extracting(p -> p.getFileName().toString())
                .containsExactlyInAnyOrder("trtllm-rank-0.json", "trtllm-rank-1.json");
        assertThat(result.trace()).ranks().hasSize(2);
        assertThat(result.latency().completed()).isEqualTo(6);
        assertThat(SpanTestCase.engine.getEnvMap()).containsEntry("TLLM_PROFILE_START_STOP", "1-5");
    }
}
