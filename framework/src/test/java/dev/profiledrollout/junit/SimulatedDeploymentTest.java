package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.Phase;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.SimulatedEngine;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.RouterShape;
import dev.profiledrollout.simulator.RouterSimulator;
import dev.profiledrollout.simulator.SimulatedCluster;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * The extension end to end against the simulator's vLLM mode, {@link RouterSimulator} and {@link SimulatedCluster}:
 * the deployments of issue 3 without a GPU.
 */
class SimulatedDeploymentTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path output;

    @TempDir
    Path traces;

    private EngineExecutionResults attach(Class<?> testCase, String key, String url, String... more) {
        var request = EngineTestKit.engine("junit-jupiter").selectors(selectClass(testCase))
                .configurationParameter("profiledrollout.output.dir", output.toString())
                .configurationParameter("profiledrollout.engine", "attach")
                .configurationParameter(key, url);
        for (int i = 0; i < more.length; i += 2) {
            request.configurationParameter(more[i], more[i + 1]);
        }
        return request.execute();
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 6, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class RouterTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void routed(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_profile_the_rest_of_a_4_worker_router_with_one_unhealthy_and_one_failing_start() throws Exception {
        try (RouterSimulator router = RouterSimulator.builder().workers(4)
                .workerConfig(SimulatorConfig.builder().profilerDir(traces).build())
                .unhealthy(1).failStartProfile(2, 500).start()) {
            EngineExecutionResults results = attach(RouterTestCase.class, "profiledrollout.router.url",
                    router.baseUri().toString());

            results.testEvents().assertStatistics(stats -> stats.succeeded(1));
            RolloutResult result = RouterTestCase.RESULT.get();
            assertThat(result.workers()).extracting(WorkerOutcome::state).containsExactly(
                    WorkerOutcome.State.PROFILED, WorkerOutcome.State.SKIPPED_UNHEALTHY,
                    WorkerOutcome.State.START_FAILED, WorkerOutcome.State.PROFILED);
            assertThat(result.traceFiles()).hasSize(2);
            JsonNode summary = JSON.readTree(output.resolve("SimulatedDeploymentTest$RouterTestCase/routed/summary.json")
                    .toFile());
            assertThat(summary.path("workers").get(2).path("httpStatus").asInt()).isEqualTo(500);
            assertThat(summary.path("workers").get(1).path("state").asText()).isEqualTo("SKIPPED_UNHEALTHY");
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(numSteps = 3, activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 8, inputTokens = 16, outputTokens = 8, warmupRequests = 0)
    static class DataParallelTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void replicas(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_analyse_dp_replicas_with_tp_ranks_as_one_rank_set() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.dataParallel(2,
                SimulatorConfig.builder().tpSize(2).profilerDir(traces).build(), RouterShape.SGL_MODEL_GATEWAY)) {
            EngineExecutionResults results = attach(DataParallelTestCase.class, "profiledrollout.router.url",
                    cluster.router().baseUri().toString());

            results.testEvents().assertStatistics(stats -> stats.succeeded(1));
            RolloutResult result = DataParallelTestCase.RESULT.get();
            assertThat(result.trace().traces()).hasSize(4);
            assertThat(result.trace().traces()).extracting(t -> t.rank().orElseThrow().label())
                    .containsExactlyInAnyOrder("TP-0-DP-0", "TP-1-DP-0", "TP-0-DP-1", "TP-1-DP-1");
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    @RolloutPhase(phase = Phase.PREFILL, inputTokens = 512, outputTokens = 1, concurrency = 4, requests = 4)
    @RolloutPhase(phase = Phase.DECODE, inputTokens = 16, outputTokens = 32, concurrency = 2, requests = 4)
    static class PrefillDecodeTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void disaggregated(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_report_per_phase_results_for_a_prefill_decode_pair() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.prefillDecode(
                SimulatorConfig.builder().profilerDir(traces).build(), RouterShape.SGL_MODEL_GATEWAY)) {
            EngineExecutionResults results = attach(PrefillDecodeTestCase.class, "profiledrollout.router.url",
                    cluster.router().baseUri().toString());

            results.testEvents().assertStatistics(stats -> stats.succeeded(1));
            RolloutResult result = PrefillDecodeTestCase.RESULT.get();
            assertThat(result.phases().keySet()).containsExactly(Phase.PREFILL, Phase.DECODE);
            assertThat(result.phase(Phase.PREFILL).workers()).singleElement()
                    .extracting(WorkerOutcome::workerType).isEqualTo("prefill");
            assertThat(result.phase(Phase.DECODE).workers()).singleElement()
                    .extracting(WorkerOutcome::workerType).isEqualTo("decode");
            assertThat(result.phase(Phase.DECODE).latency().outputTokens()).isEqualTo(4 * 32);
            assertThat(result.phase(Phase.PREFILL).latency().outputTokens()).isEqualTo(4);
            assertThat(result.phase(Phase.DECODE).trace().kernels()).isNotEmpty();
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(backend = Backend.VLLM, numSteps = 4, activities = Activity.GPU)
    @SimulatedEngine(tpSize = 2)
    @RolloutLoad(concurrency = 4, requests = 8, inputTokens = 16, outputTokens = 16, warmupRequests = 1)
    static class EmbeddedVllmTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void vllm(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_profile_the_embedded_vllm_simulator_end_to_end() throws Exception {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(EmbeddedVllmTestCase.class))
                .configurationParameter("profiledrollout.output.dir", output.toString())
                .configurationParameter("profiledrollout.vllm.max.iterations", "4")
                .execute();

        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        RolloutResult result = EmbeddedVllmTestCase.RESULT.get();
        assertThat(result.trace().traces()).hasSize(2);
        assertThat(result.trace().traces()).extracting(t -> t.rank().orElseThrow().tp()).containsExactly(0, 1);
        assertThat(result.traceFiles()).allMatch(p -> p.getFileName().toString().endsWith(".pt.trace.json.gz"));
        assertThat(result.frontendTraceFiles()).hasSize(1);
        assertThat(result.trace().kernels()).isNotEmpty();
        Path dir = output.resolve("SimulatedDeploymentTest$EmbeddedVllmTestCase/vllm");
        assertThat(dir.resolve("traces").toFile().list()).anyMatch(n -> n.startsWith("profiler_out_"));
        assertThat(JSON.readTree(dir.resolve("summary.json").toFile()).path("profileRequest").isObject()).isTrue();
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(backend = Backend.VLLM, activities = Activity.GPU)
    @RolloutLoad(concurrency = 1, requests = 2, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class VllmWithoutProfilerTestCase {
        @Test
        void vllm(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void should_say_which_flag_to_add_when_the_vllm_simulator_has_no_profiler_config() throws Exception {
        try (EngineSimulator vllm = EngineSimulator.start(SimulatorConfig.builder().backend("vllm").build())) {
            EngineExecutionResults results = attach(VllmWithoutProfilerTestCase.class, "profiledrollout.engine.url",
                    vllm.baseUri().toString(), "profiledrollout.trace.dir", traces.toString());

            results.testEvents().assertThatEvents().haveExactly(1, event(test("vllm"), finishedWithFailure(
                    instanceOf(ProfiledRolloutException.class),
                    message(m -> m.contains("answered 404 to POST /start_profile")
                            && m.contains("--profiler-config '{\"profiler\":\"torch\",\"torch_profiler_dir\":")))));
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(backend = Backend.VLLM, activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 6, inputTokens = 16, outputTokens = 8, warmupRequests = 0)
    static class VllmRouterTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void routed(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_profile_vllm_workers_behind_a_vllm_router_with_their_own_trace_directories() throws Exception {
        try (RouterSimulator router = RouterSimulator.builder().shape(RouterShape.VLLM_ROUTER).workers(2)
                .workerConfig(SimulatorConfig.builder().backend("vllm").tpSize(2)
                        .profilerConfig("{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + traces + "\"}").build())
                .start()) {
            EngineExecutionResults results = attach(VllmRouterTestCase.class, "profiledrollout.router.url",
                    router.baseUri().toString(), "profiledrollout.trace.dir", traces.toString(),
                    "profiledrollout.engine.ranks", "2");

            results.testEvents().assertStatistics(stats -> stats.succeeded(1));
            RolloutResult result = VllmRouterTestCase.RESULT.get();
            assertThat(result.workers()).extracting(WorkerOutcome::state)
                    .containsOnly(WorkerOutcome.State.PROFILED);
            assertThat(result.trace().traces()).hasSize(4);
            Path collected = output.resolve("SimulatedDeploymentTest$VllmRouterTestCase/routed/traces");
            assertThat(result.traceFiles()).anyMatch(p -> p.startsWith(collected.resolve("worker-0")))
                    .anyMatch(p -> p.startsWith(collected.resolve("worker-1")));
            assertThat(result.frontendTraceFiles()).hasSize(2);
        }
    }
}
