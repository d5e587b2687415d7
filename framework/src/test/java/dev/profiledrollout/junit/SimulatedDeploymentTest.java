package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.junit.ProfiledTestKit.assertFailed;
import static dev.profiledrollout.junit.ProfiledTestKit.assertProfilerStopped;
import static dev.profiledrollout.junit.ProfiledTestKit.attach;
import static dev.profiledrollout.junit.ProfiledTestKit.attachRouter;
import static dev.profiledrollout.junit.ProfiledTestKit.run;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * The extension over several engines and against the simulator's vLLM mode, end to end: the workers of a
 * {@link RouterSimulator} (one unhealthy, one failing its start), DP replicas with TP ranks and a prefill/decode pair
 * from {@link SimulatedCluster}, the embedded vLLM simulator, and vLLM workers behind a vllm-router.
 */
class SimulatedDeploymentTest {

    @TempDir
    Path output;

    @TempDir
    Path traces;

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
    void should_profile_and_stop_the_rest_of_a_4_worker_router_with_one_unhealthy_and_one_failing_start()
            throws Exception {
        // GIVEN a router with 4 workers: worker 1 reported unhealthy, worker 2 answering 500 to /start_profile
        try (RouterSimulator router = RouterSimulator.builder().workers(4)
                .workerConfig(SimulatorConfig.builder().profilerDir(traces).build())
                .unhealthy(1).failStartProfile(2, 500).start()) {
            // WHEN
            EngineExecutionResults results = attachRouter(RouterTestCase.class, output, router.baseUri());

            // THEN the healthy workers were profiled and stopped, and the result says which did what
            results.testEvents().assertStatistics(stats -> stats.succeeded(1));
            RolloutResult result = RouterTestCase.RESULT.get();
            assertThat(result.workers()).extracting(WorkerOutcome::state).containsExactly(
                    WorkerOutcome.State.PROFILED, WorkerOutcome.State.SKIPPED_UNHEALTHY,
                    WorkerOutcome.State.START_FAILED, WorkerOutcome.State.PROFILED);
            assertThat(result.failedWorkers()).singleElement()
                    .satisfies(w -> assertThat(w.httpStatus()).isEqualTo(500));
            assertThat(result.latency().completed()).isEqualTo(6);
            Path dir = output.resolve("SimulatedDeploymentTest$RouterTestCase/routed");
            assertThat(result.traceFiles()).hasSize(2)
                    .anySatisfy(f -> assertThat(f).startsWith(dir.resolve("traces/worker-1")))
                    .anySatisfy(f -> assertThat(f).startsWith(dir.resolve("traces/worker-4")));
            JsonNode summary = summary(dir);
            assertThat(summary.path("engine").path("url").asText()).startsWith(router.baseUri().toString());
            assertThat(summary.path("workers")).hasSize(4);
            assertThat(summary.path("workers").get(1).path("state").asText()).isEqualTo("SKIPPED_UNHEALTHY");
            assertThat(summary.path("workers").get(2).path("state").asText()).isEqualTo("START_FAILED");
            assertThat(summary.path("workers").get(2).path("httpStatus").asInt()).isEqualTo(500);
            assertThat(summary.path("trace").path("ranks")).hasSize(2);
            // the unhealthy worker was never called; the one whose start failed was never stopped
            List<EngineSimulator> workers = router.engines();
            assertThat(workers.get(1).requestCount("/start_profile")).isZero();
            assertThat(workers.get(1).requestCount("/stop_profile")).isZero();
            assertThat(workers.get(2).requestCount("/start_profile")).isEqualTo(1);
            assertThat(workers.get(2).requestCount("/stop_profile")).isZero();
            // nobody is left profiling
            assertProfilerStopped(workers.get(0).baseUri(), null);
            assertProfilerStopped(workers.get(3).baseUri(), null);
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
    void should_analyse_dp_replicas_and_their_tp_ranks_as_one_rank_set() throws Exception {
        // GIVEN two DP replicas with TP 2 each, behind a router that spreads the load
        try (SimulatedCluster cluster = SimulatedCluster.dataParallel(2,
                SimulatorConfig.builder().tpSize(2).profilerDir(traces).build(), RouterShape.SGL_MODEL_GATEWAY)) {
            // WHEN
            EngineExecutionResults results = attachRouter(DataParallelTestCase.class, output,
                    cluster.router().baseUri());

            // THEN 2 replicas × 2 TP ranks = 4 traces, one rank set
            results.testEvents().assertStatistics(stats -> stats.succeeded(1));
            RolloutResult result = DataParallelTestCase.RESULT.get();
            assertThat(result.traceFiles()).hasSize(4);
            assertThat(result.trace().traces()).extracting(t -> t.rank().orElseThrow().label())
                    .containsExactlyInAnyOrder("TP-0-DP-0", "TP-1-DP-0", "TP-0-DP-1", "TP-1-DP-1");
            assertThat(result.trace().busyImbalance()).isGreaterThanOrEqualTo(1.0);
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    @RolloutPhase(phase = Phase.PREFILL, inputTokens = 256, outputTokens = 1, concurrency = 4, requests = 4)
    @RolloutPhase(phase = Phase.DECODE, inputTokens = 16, outputTokens = 16, concurrency = 2, requests = 6)
    static class PrefillDecodeTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void disaggregated(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_profile_prefill_and_decode_engines_in_their_own_phase_windows() throws Exception {
        // GIVEN a prefill engine and a decode engine behind a PD router
        try (SimulatedCluster cluster = SimulatedCluster.prefillDecode(
                SimulatorConfig.builder().profilerDir(traces).build(), RouterShape.SGL_MODEL_GATEWAY)) {
            // WHEN
            EngineExecutionResults results = attachRouter(PrefillDecodeTestCase.class, output,
                    cluster.router().baseUri());

            // THEN one result per phase, each from its own engine and load
            results.testEvents().assertStatistics(stats -> stats.succeeded(1));
            RolloutResult result = PrefillDecodeTestCase.RESULT.get();
            assertThat(result.phases().keySet()).containsExactly(Phase.PREFILL, Phase.DECODE);
            RolloutResult prefill = result.phase(Phase.PREFILL);
            RolloutResult decode = result.phase(Phase.DECODE);
            assertThat(prefill.latency().completed()).isEqualTo(4);
            assertThat(prefill.latency().outputTokens()).isEqualTo(4);
            assertThat(decode.latency().completed()).isEqualTo(6);
            assertThat(decode.latency().outputTokens()).isEqualTo(6 * 16);
            assertThat(prefill.workers()).singleElement().satisfies(w -> {
                assertThat(w.url()).isEqualTo(cluster.engines().get(0).baseUri());
                assertThat(w.workerType()).isEqualTo("prefill");
            });
            assertThat(decode.workers()).singleElement().extracting(WorkerOutcome::workerType).isEqualTo("decode");
            assertThat(decode.trace().kernels()).isNotEmpty();
            assertThat(result.latency().completed()).isEqualTo(10);
            assertThat(result.trace().traces()).hasSize(2);
            assertThat(result.trace().traces()).as("each phase's engine keeps its router number")
                    .extracting(result.trace()::rankLabel).containsExactly("worker-1/TP-0", "worker-2/TP-0");
            Path dir = output.resolve("SimulatedDeploymentTest$PrefillDecodeTestCase/disaggregated");
            assertThat(summary(dir.resolve("prefill")).path("phase").asText()).isEqualTo("PREFILL");
            assertThat(summary(dir.resolve("decode")).path("latency").path("completed").asInt()).isEqualTo(6);
            assertThat(summary(dir).path("workers")).hasSize(2);
            // the combined view has every phase's requests, and so the latency charts of a single window
            assertThat(Files.readAllLines(dir.resolve("requests.jsonl"))).hasSize(10);
            assertThat(dir.resolve("charts/ttft-percentiles.png")).isNotEmptyFile();
            assertThat(dir.resolve("charts/latency-over-time.png")).isNotEmptyFile();
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
        EngineExecutionResults results = run(EmbeddedVllmTestCase.class, output,
                "profiledrollout.vllm.max.iterations", "4");

        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        RolloutResult result = EmbeddedVllmTestCase.RESULT.get();
        assertThat(result.trace().traces()).hasSize(2);
        assertThat(result.trace().traces()).extracting(t -> t.rank().orElseThrow().tp()).containsExactly(0, 1);
        assertThat(result.traceFiles()).allMatch(p -> p.getFileName().toString().endsWith(".pt.trace.json.gz"));
        assertThat(result.frontendTraceFiles()).hasSize(1);
        assertThat(result.trace().kernels()).isNotEmpty();
        Path dir = output.resolve("SimulatedDeploymentTest$EmbeddedVllmTestCase/vllm");
        assertThat(dir.resolve("traces").toFile().list()).anyMatch(n -> n.startsWith("profiler_out_"));
        assertThat(summary(dir).path("profileRequest").isObject()).isTrue();
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
            EngineExecutionResults results = attach(VllmWithoutProfilerTestCase.class, output, vllm.baseUri(),
                    "profiledrollout.trace.dir", traces.toString());

            assertFailed(results, "vllm", ProfiledRolloutException.class,
                    m -> m.contains("answered 404 to POST /start_profile")
                            && m.contains("--profiler-config '{\"profiler\":\"torch\",\"torch_profiler_dir\":"));
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
            EngineExecutionResults results = attachRouter(VllmRouterTestCase.class, output, router.baseUri(),
                    "profiledrollout.trace.dir", traces.toString(), "profiledrollout.engine.ranks", "2");

            results.testEvents().assertStatistics(stats -> stats.succeeded(1));
            RolloutResult result = VllmRouterTestCase.RESULT.get();
            assertThat(result.workers()).extracting(WorkerOutcome::state)
                    .containsOnly(WorkerOutcome.State.PROFILED);
            assertThat(result.trace().traces()).hasSize(4);
            Path collected = output.resolve("SimulatedDeploymentTest$VllmRouterTestCase/routed/traces");
            assertThat(result.traceFiles()).anyMatch(p -> p.startsWith(collected.resolve("worker-0")))
                    .anyMatch(p -> p.startsWith(collected.resolve("worker-1")));
            assertThat(result.frontendTraceFiles()).hasSize(2);
            assertThat(result.trace().traces()).as("vLLM's rank-only file names, told apart by host directory")
                    .extracting(result.trace()::rankLabel).doesNotHaveDuplicates()
                    .allMatch(label -> label.startsWith("worker-0/") || label.startsWith("worker-1/"));
        }
    }
}
