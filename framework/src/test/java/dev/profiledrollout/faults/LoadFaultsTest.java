package dev.profiledrollout.faults;

import static dev.profiledrollout.junit.ProfiledTestKit.assertProfilerStopped;
import static dev.profiledrollout.junit.ProfiledTestKit.attach;
import static dev.profiledrollout.junit.ProfiledTestKit.attachRouter;
import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.junit.Simulators;
import dev.profiledrollout.metrics.ErrorKind;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.RouterSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.simulator.SimulatorFaults;
import dev.profiledrollout.simulator.SimulatorFaults.StreamFault;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Fault matrix, load side: the engine dies mid-load, streams stall, break, carry errors or lack {@code [DONE]}, and a
 * router worker turns unhealthy mid-run. Each request ends as a typed record; the run never hangs.
 */
class LoadFaultsTest {

    @TempDir
    Path output;

    @RegisterExtension
    final Simulators simulators = new Simulators();

    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource({
        "STALL,        TIMEOUT,          timed out after 1 chunks",
        "MALFORMED,    MALFORMED_STREAM, is not JSON",
        "CUT_OFF,      MALFORMED_STREAM, without a finish_reason, usage or [DONE]",
        "ERROR_EVENT,  IN_STREAM_ERROR,  the engine failed mid-stream",
    })
    void a_broken_stream_becomes_a_typed_failed_record_and_the_window_completes(StreamFault fault, ErrorKind kind,
            String message) throws Exception {
        EngineSimulator engine = simulators.start(SimulatorConfig.builder()
                .faults(SimulatorFaults.builder().stream(fault, 2, 1).build()));

        attach(FaultCases.Profiled.class, output, engine.baseUri(), "profiledrollout.read.timeout", "1")
                .testEvents().assertStatistics(s -> s.succeeded(1));

        RolloutResult result = FaultCases.Profiled.RESULT.get();
        assertThat(result.latency().completed()).isEqualTo(1);
        assertThat(result.latency().errors()).containsEntry(kind, 3L);
        assertThat(result.latency().records()).filteredOn(r -> r.error() == kind)
                .allSatisfy(r -> assertThat(r.errorMessage()).contains(message));
        assertThat(result.traceFiles()).hasSize(1);
        assertThat(Files.readAllLines(result.outputDirectory().resolve("requests.jsonl"))).hasSize(4);
        assertProfilerStopped(engine.baseUri(), null);
    }

    @Test
    void a_missing_DONE_after_a_finished_stream_is_tolerated() throws Exception {
        EngineSimulator engine = simulators.start(SimulatorConfig.builder()
                .faults(SimulatorFaults.builder().stream(StreamFault.NO_DONE, 1, 0).build()));

        attach(FaultCases.Profiled.class, output, engine.baseUri()).testEvents().assertStatistics(s -> s.succeeded(1));

        RolloutResult result = FaultCases.Profiled.RESULT.get();
        assertThat(result.latency().completed()).isEqualTo(4);
        assertThat(result.latency().outputTokens()).isEqualTo(4 * 8);
        assertProfilerStopped(engine.baseUri(), null);
    }

    @FaultCase
    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 64, inputTokens = 16, outputTokens = 64, warmupRequests = 0)
    static class CrashTestCase {
        static final AtomicReference<EngineSimulator> ENGINE = new AtomicReference<>();
        static final int SERVED_BEFORE_CRASH = 8;

        @Test
        void engineDies(RolloutSession session) {
            EngineSimulator engine = ENGINE.get();
            long before = engine.finishedRequests();
            // a hang guard, not a timing check: the crash waits for the load, not for the clock
            await().atMost(Duration.ofMinutes(2))
                    .until(() -> engine.finishedRequests() >= before + SERVED_BEFORE_CRASH);
            engine.crash();
            session.awaitResult();
        }
    }

    @Test
    void an_engine_that_dies_mid_load_fails_the_test_clearly_and_keeps_the_finished_requests() throws Exception {
        EngineSimulator engine = simulators.start(SimulatorConfig.builder());
        CrashTestCase.ENGINE.set(engine);

        Throwable t = failure(attach(CrashTestCase.class, output, engine.baseUri()));

        assertThat(t).hasMessageContaining("/stop_profile failed on every profiled engine")
                .hasMessageContaining("I/O error");
        Path dir = output.resolve("LoadFaultsTest$CrashTestCase/engineDies");
        List<String> lines = Files.readAllLines(dir.resolve("requests.jsonl"));
        assertThat(lines).hasSize(64);
        assertThat(String.join("\n", lines)).containsAnyOf("CONNECTION", "MALFORMED_STREAM", "IN_STREAM_ERROR");
        JsonNode summary = summary(dir);
        assertThat(summary.path("error").asText()).contains("/stop_profile failed");
        // what the engine finished before it died is kept as completed, less at most one request per stream (4) whose
        // last chunk was still on the wire at the crash; the rest failed
        assertThat(summary.at("/latency/completed").asInt()).isBetween(CrashTestCase.SERVED_BEFORE_CRASH - 4, 63);
    }

    @FaultCase
    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 12, inputTokens = 16, outputTokens = 16, warmupRequests = 0)
    static class UnhealthyWorkerTestCase {
        static final AtomicReference<RouterSimulator> ROUTER = new AtomicReference<>();
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void workerTurnsUnhealthy(RolloutSession session) {
            ROUTER.get().setHealthy(1, false);
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void a_router_worker_turning_unhealthy_mid_run_loses_no_request_and_is_still_stopped() throws Exception {
        try (RouterSimulator router = RouterSimulator.builder().workers(2)
                .workerConfig(SimulatorConfig.builder().profilerDir(output.resolve("server")).build()).start()) {
            UnhealthyWorkerTestCase.ROUTER.set(router);

            attachRouter(UnhealthyWorkerTestCase.class, output, router.baseUri())
                    .testEvents().assertStatistics(s -> s.succeeded(1));

            RolloutResult result = UnhealthyWorkerTestCase.RESULT.get();
            assertThat(result.latency().completed()).isEqualTo(12);
            assertThat(result.workers()).extracting(WorkerOutcome::state)
                    .containsOnly(WorkerOutcome.State.PROFILED);
            for (URI worker : router.workerUrls()) {
                assertProfilerStopped(worker, null);
            }
        }
    }
}
