package dev.profiledrollout.examples;

import static dev.profiledrollout.Activity.CPU;
import static dev.profiledrollout.Activity.GPU;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.matching;

import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RegressionCheck;
import dev.profiledrollout.RolloutEngine;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.containers.SglangContainer;
import dev.profiledrollout.containers.SimulatorImage;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The GPU-runner form: the test boots its engine itself with Testcontainers (module
 * {@code profiled-rollout-containers}). The {@code @RolloutEngine} field is started once for the class, attached to
 * like any other engine, and stopped after the class; the engine writes its traces into a bind-mounted host
 * directory, from which they are read back. On a GPU runner the field reads
 * <pre>{@code
 * @RolloutEngine
 * static SglangContainer engine = new SglangContainer()      // lmsysorg/sglang:v0.5.20, host IPC
 *         .withModel("Qwen/Qwen3-8B")
 *         .withTensorParallelSize(2)
 *         .withGpus()
 *         .withModelCache(Path.of(System.getProperty("user.home"), ".cache/huggingface"))
 *         .withProfilerDirectory(Path.of("target/profiles"));
 * }</pre>
 * and the budgets below must be sized for that GPU and model.
 *
 * <p>Here the image is the engine simulator, built locally by
 * {@code containers/src/test/docker/build-simulator-image.sh} from {@code cli/target/profiled-rollout.jar}
 * ({@code SimulatorImage}, from the containers module's test jar): it takes the real image's launch command
 * ({@code python3 -m sglang.launch_server … --tp-size 2}) and serves the same routes, so the same
 * {@code SglangContainer} runs it unchanged, without a GPU or a registry. Without a reachable Docker engine the class
 * is skipped.
 */
@EnabledIf(value = "dev.profiledrollout.containers.SimulatorImage#dockerAvailable",
        disabledReason = "no Docker engine is reachable (install docker.io and start dockerd, or set DOCKER_HOST)")
@RegressionCheck
@ProfiledRollout(numSteps = 8, activities = {GPU, CPU})
@RolloutLoad(concurrency = 8, requests = 24, inputTokens = 256, outputTokens = 32)
class GpuRunnerContainerTest {

    @RolloutEngine // started once for the class, stopped after it
    static SglangContainer engine = new SglangContainer(SimulatorImage.sglangName())
            .withTensorParallelSize(2)
            .withProfilerDirectory(Path.of("target/container-profiles"))
            .withStartupTimeout(Duration.ofMinutes(2));

    @BeforeAll
    static void buildSimulatorImage() {
        // A GPU runner pulls the engine's image; this one is built here, once per version of the simulator jar.
        SimulatorImage.sglang();
    }

    @Test
    void containerEngineIsProfiledRankByRank(RolloutSession session) {
        RolloutResult result = session.awaitResult();

        assertThat(result.latency()).hasNoFailedRequests();
        // The engine reported its own layout (/server_info), and each TP rank's trace came back through the mount.
        assertThat(result.serverInfo().tpSize()).isEqualTo(2);
        assertThat(result.trace()).ranks().hasSize(2);
        for (int tp = 0; tp < 2; tp++) {
            assertThat(result.trace()).rank(tp).steps().count().isEqualTo(8);
            assertThat(result.trace()).rank(tp).kernels(matching(".*(cross_device_reduce|AllReduce|all_reduce).*"))
                    .isNotEmpty().share().isLessThan(0.30);
        }
        assertThat(result.trace()).ranks().busyImbalance().isLessThan(1.10);
    }
}
