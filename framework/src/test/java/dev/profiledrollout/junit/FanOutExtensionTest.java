package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.Activity;
import dev.profiledrollout.Phase;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * The extension over several engines: a router's workers, several engine URLs (DP replicas with TP ranks) and a
 * prefill/decode pair, with simulators as the engines and {@link FakeEngines#router} in front.
 */
class FanOutExtensionTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path output;

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
    void should_profile_and_stop_the_rest_when_one_worker_is_unhealthy_and_one_fails_start() throws Exception {
        // GIVEN a router with 4 workers: two simulators, one reported unhealthy, one that answers 500 to start
        try (EngineSimulator a = EngineSimulator.start(SimulatorConfig.builder().build());
             EngineSimulator b = EngineSimulator.start(SimulatorConfig.builder().build());
             EngineSimulator sick = EngineSimulator.start(SimulatorConfig.builder().build());
             MockWebServer failing = FakeEngines.failingStart()) {
            URI failingUri = failing.url("/").uri();
            String workers = "{\"workers\":[" + FakeEngines.worker(a.baseUri(), "regular", true) + ","
                    + FakeEngines.worker(sick.baseUri(), "regular", false) + ","
                    + FakeEngines.worker(failingUri, "regular", true) + ","
                    + FakeEngines.worker(b.baseUri(), "regular", true) + "],\"total\":4}";
            try (MockWebServer router = FakeEngines.router(workers, List.of(a.baseUri(), b.baseUri()))) {
                // WHEN
                EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                        .selectors(selectClass(RouterTestCase.class))
                        .configurationParameter("profiledrollout.output.dir", output.toString())
                        .configurationParameter("profiledrollout.engine", "attach")
                        .configurationParameter("profiledrollout.router.url", router.url("/").toString())
                        .execute();

                // THEN the healthy workers were profiled and stopped, and the report says which did what
                results.testEvents().assertStatistics(stats -> stats.succeeded(1));
                RolloutResult result = RouterTestCase.RESULT.get();
                assertThat(result.workers()).extracting(WorkerOutcome::state).containsExactly(
                        WorkerOutcome.State.PROFILED, WorkerOutcome.State.SKIPPED_UNHEALTHY,
                        WorkerOutcome.State.START_FAILED, WorkerOutcome.State.PROFILED);
                assertThat(result.failedWorkers()).hasSize(1);
                assertThat(result.failedWorkers().get(0).httpStatus()).isEqualTo(500);
                assertThat(result.latency().completed()).isEqualTo(6);
                Path dir = output.resolve("FanOutExtensionTest$RouterTestCase/routed");
                assertThat(result.traceFiles()).hasSize(2).anySatisfy(f -> assertThat(f).startsWith(
                        dir.resolve("traces/worker-0"))).anySatisfy(f -> assertThat(f).startsWith(
                        dir.resolve("traces/worker-3")));
                JsonNode summary = JSON.readTree(dir.resolve("summary.json").toFile());
                assertThat(summary.path("engine").path("url").asText()).startsWith(router.url("/").toString()
                        .replaceAll("/$", ""));
                assertThat(summary.path("workers")).hasSize(4);
                assertThat(summary.path("workers").get(1).path("state").asText()).isEqualTo("SKIPPED_UNHEALTHY");
                assertThat(summary.path("workers").get(2).path("state").asText()).isEqualTo("START_FAILED");
                assertThat(summary.path("workers").get(2).path("httpStatus").asInt()).isEqualTo(500);
                assertThat(summary.path("trace").path("ranks")).hasSize(2);
                // nobody is left profiling: a stop now finds nothing in progress on the profiled workers
                assertThat(stopStatus(a.baseUri())).isEqualTo(500);
                assertThat(stopStatus(b.baseUri())).isEqualTo(500);
                assertThat(failing.getRequestCount()).isEqualTo(2); // /health and the failed start; never stopped
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(numSteps = 3, activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 6, inputTokens = 16, outputTokens = 8, warmupRequests = 0)
    static class ReplicasTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void replicas(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_analyse_dp_replicas_and_their_tp_ranks_as_one_rank_set() throws Exception {
        // GIVEN two DP replicas with TP 2 each, behind a router that spreads the load
        try (EngineSimulator dp0 = EngineSimulator.start(SimulatorConfig.builder().tpSize(2).build());
             EngineSimulator dp1 = EngineSimulator.start(SimulatorConfig.builder().tpSize(2).build())) {
            String workers = "{\"workers\":[" + FakeEngines.worker(dp0.baseUri(), "regular", true) + ","
                    + FakeEngines.worker(dp1.baseUri(), "regular", true) + "]}";
            try (MockWebServer router = FakeEngines.router(workers, List.of(dp0.baseUri(), dp1.baseUri()))) {
                // WHEN
                EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                        .selectors(selectClass(ReplicasTestCase.class))
                        .configurationParameter("profiledrollout.output.dir", output.toString())
                        .configurationParameter("profiledrollout.engine", "attach")
                        .configurationParameter("profiledrollout.router.url", router.url("/").toString())
                        .execute();

                // THEN 2 replicas × 2 TP ranks = 4 traces, one rank set
                results.testEvents().assertStatistics(stats -> stats.succeeded(1));
                RolloutResult result = ReplicasTestCase.RESULT.get();
                assertThat(result.traceFiles()).hasSize(4);
                assertThat(result.trace().traces()).hasSize(4);
                assertThat(result.trace().traces()).extracting(t -> t.rank().orElseThrow().tp())
                        .containsExactlyInAnyOrder(0, 0, 1, 1);
                assertThat(result.trace().busyImbalance()).isGreaterThanOrEqualTo(1.0);
            }
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
        try (EngineSimulator prefill = EngineSimulator.start(SimulatorConfig.builder().build());
             EngineSimulator decode = EngineSimulator.start(SimulatorConfig.builder().build())) {
            String workers = "{\"workers\":[" + FakeEngines.worker(prefill.baseUri(), "prefill", true) + ","
                    + FakeEngines.worker(decode.baseUri(), "decode", true) + "]}";
            try (MockWebServer router = FakeEngines.router(workers, List.of(prefill.baseUri(), decode.baseUri()))) {
                // WHEN
                EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                        .selectors(selectClass(PrefillDecodeTestCase.class))
                        .configurationParameter("profiledrollout.output.dir", output.toString())
                        .configurationParameter("profiledrollout.engine", "attach")
                        .configurationParameter("profiledrollout.router.url", router.url("/").toString())
                        .execute();

                // THEN one result per phase, each from its own engine and load
                results.testEvents().assertStatistics(stats -> stats.succeeded(1));
                RolloutResult result = PrefillDecodeTestCase.RESULT.get();
                Map<Phase, RolloutResult> phases = result.phases();
                assertThat(phases.keySet()).containsExactly(Phase.PREFILL, Phase.DECODE);
                RolloutResult p = result.phase(Phase.PREFILL);
                RolloutResult d = result.phase(Phase.DECODE);
                assertThat(p.latency().completed()).isEqualTo(4);
                assertThat(p.latency().outputTokens()).isEqualTo(4);
                assertThat(d.latency().completed()).isEqualTo(6);
                assertThat(d.latency().outputTokens()).isEqualTo(6 * 16);
                assertThat(p.workers()).singleElement().satisfies(w -> {
                    assertThat(w.url()).isEqualTo(URI.create(prefill.baseUri().toString().replaceAll("/$", "")));
                    assertThat(w.workerType()).isEqualTo("prefill");
                });
                assertThat(d.workers()).singleElement().extracting(WorkerOutcome::workerType).isEqualTo("decode");
                assertThat(result.latency().completed()).isEqualTo(10);
                assertThat(result.trace().traces()).hasSize(2);
                Path dir = output.resolve("FanOutExtensionTest$PrefillDecodeTestCase/disaggregated");
                assertThat(JSON.readTree(dir.resolve("prefill/summary.json").toFile()).path("phase").asText())
                        .isEqualTo("PREFILL");
                assertThat(JSON.readTree(dir.resolve("decode/summary.json").toFile()).path("latency")
                        .path("completed").asInt()).isEqualTo(6);
                assertThat(JSON.readTree(dir.resolve("summary.json").toFile()).path("workers")).hasSize(2);
                // the combined view has every phase's requests, and so the latency charts of a single window
                assertThat(Files.readAllLines(dir.resolve("requests.jsonl"))).hasSize(10);
                assertThat(dir.resolve("charts/ttft-percentiles.png")).isNotEmptyFile();
                assertThat(dir.resolve("charts/latency-over-time.png")).isNotEmptyFile();
            }
        }
    }

    private static int stopStatus(URI engine) throws Exception {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                        engine.resolve("/stop_profile")).POST(java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode();
    }
}
