package dev.profiledrollout.containers;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.matching;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.RolloutEngine;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * Profiled tests whose engine is a {@code @RolloutEngine} container, as a GPU user writes them, run here on the
 * simulator image: the extension starts the container, profiles it, and reads the traces back through the bind mount.
 */
class ProfiledContainerTest {

    @TempDir
    Path output;

    @BeforeAll
    static void docker() {
        SimulatorImage.requireDocker();
    }

    static Path tempDir(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @ProfiledRollout(numSteps = 6, activities = {Activity.GPU, Activity.CPU})
    @RolloutLoad(concurrency = 4, requests = 12, inputTokens = 128, outputTokens = 16, warmupRequests = 1)
    static class SglangTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @RolloutEngine
        static SglangContainer engine = new SglangContainer(SimulatorImage.sglang())
                .withTensorParallelSize(2)
                .withProfilerDirectory(tempDir("sglang-profiles"))
                .withStartupTimeout(Duration.ofMinutes(2));

        @Test
        void decode(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void a_profiled_test_runs_through_sglang_container() {
        EngineExecutionResults results = run(SglangTestCase.class);

        results.testEvents().assertStatistics(stats -> stats.started(1).succeeded(1));
        RolloutResult result = SglangTestCase.RESULT.get();
        assertThat(result.serverInfo().tpSize()).isEqualTo(2);
        assertThat(result.traceFiles()).hasSize(2);
        assertThat(result.trace()).ranks().hasSize(2);
        assertThat(result.trace()).kernels(matching(".*cross_device_reduce.*")).isNotEmpty();
        assertThat(result.latency().completed()).isEqualTo(12);
        // the container was started by the extension and stopped after the class
        assertThat(SglangTestCase.engine.isRunning()).isFalse();
    }

    @ProfiledRollout(backend = Backend.VLLM)
    @RolloutLoad(concurrency = 2, requests = 6, inputTokens = 64, outputTokens = 8, warmupRequests = 1)
    static class VllmTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @RolloutEngine
        static VllmContainer engine = new VllmContainer(SimulatorImage.vllm())
                .withModel("Qwen/Qwen3-0.6B")
                .withProfilerDirectory(tempDir("vllm-profiles"))
                .withStartupTimeout(Duration.ofMinutes(2));

        @Test
        void profiled(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void a_profiled_test_runs_through_vllm_container() {
        EngineExecutionResults results = run(VllmTestCase.class);

        results.testEvents().assertStatistics(stats -> stats.started(1).succeeded(1));
        RolloutResult result = VllmTestCase.RESULT.get();
        assertThat(result.traceFiles()).hasSize(1);
        assertThat(result.traceFiles().get(0).getFileName().toString()).matches("dp0_pp0_tp0_dcp0_ep0_rank0\\.\\d{19}\\.pt\\.trace\\.json\\.gz");
        assertThat(result.frontendTraceFiles()).hasSize(1);
        assertThat(result.trace()).kernels(matching(".*")).count().isGreaterThan(0);
        assertThat(result.latency().completed()).isEqualTo(6);
    }

    @ProfiledRollout(numSteps = 4, activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 6, inputTokens = 64, outputTokens = 8, warmupRequests = 0)
    static class DefaultContainerTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void profiled(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void engine_container_selects_a_default_container_from_configuration() {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(DefaultContainerTestCase.class))
                .configurationParameter("profiledrollout.output.dir", output.toString())
                .configurationParameter("profiledrollout.engine", "container")
                .configurationParameter(ProfiledRolloutKeys.CONTAINER_IMAGE,
                        SimulatorImage.sglang().asCanonicalNameString())
                .configurationParameter(ProfiledRolloutKeys.CONTAINER_GPUS, "none")
                .configurationParameter(ProfiledRolloutKeys.CONTAINER_TP, "2")
                .configurationParameter(ProfiledRolloutKeys.CONTAINER_MODEL, "Qwen/Qwen3-8B")
                .execute();

        results.testEvents().assertStatistics(stats -> stats.started(1).succeeded(1));
        RolloutResult result = DefaultContainerTestCase.RESULT.get();
        assertThat(result.serverInfo().tpSize()).isEqualTo(2);
        assertThat(result.serverInfo().servedModelName()).isEqualTo("Qwen/Qwen3-8B");
        assertThat(result.traceFiles()).hasSize(2);
        assertThat(output.resolve("container-profiles/sglang")).isDirectory();
    }

    private EngineExecutionResults run(Class<?> testCase) {
        return EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(testCase))
                .configurationParameter("profiledrollout.output.dir", output.toString())
                .execute();
    }
}
