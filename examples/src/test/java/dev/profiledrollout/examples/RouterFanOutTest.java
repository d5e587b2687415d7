package dev.profiledrollout.examples;

import static dev.profiledrollout.Activity.GPU;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;

import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.simulator.RouterSimulator;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Profiling every worker behind a router. Neither sgl-model-gateway nor vllm-router forwards {@code /start_profile}
 * to its workers ({@code docs/PROTOCOLS.md} §3), so with {@code profiledrollout.router.url} the extension lists them
 * ({@code GET /workers}), starts and stops every healthy one concurrently, and sends the load through the router.
 * A worker whose start or stop fails does not end the window: it is reported, per worker, in
 * {@code result.workers()} and {@code summary.json}, and the test decides whether that is acceptable.
 *
 * <p>Here the class starts a simulated sgl-model-gateway with two simulated SGLang workers and attaches to it. Against
 * a real router, the same class runs unchanged:
 * <pre>
 * mvn -B -P examples verify -Dtest=RouterFanOutTest -Dprofiledrollout.engine=attach \
 *     -Dprofiledrollout.router.url=http://router:30000
 * </pre>
 * Each SGLang worker writes its traces to its own {@code output_dir} on its own host; read them through a shared
 * filesystem with {@code profiledrollout.trace.dir} and {@code .trace.dir.server}.
 */
@ProfiledRollout(activities = GPU)
@RolloutLoad(concurrency = 8, requests = 32, inputTokens = 256, outputTokens = 32)
class RouterFanOutTest {

    private static RouterSimulator router;
    private static ClassConfiguration configuration;

    @BeforeAll
    static void startRouter() throws IOException {
        if (ClassConfiguration.namesAnEngine()) {
            return; // the run names a real deployment: profile that one
        }
        router = RouterSimulator.builder().workers(2).start();
        configuration = ClassConfiguration.set(Map.of(
                "profiledrollout.engine", "attach",
                "profiledrollout.router.url", router.baseUri().toString()));
    }

    @AfterAll
    static void stopRouter() {
        if (configuration != null) {
            configuration.close();
        }
        if (router != null) {
            router.close(); // and the workers it started
        }
    }

    @Test
    void everyWorkerIsProfiled(RolloutSession session) {
        RolloutResult result = session.awaitResult();

        // The outcome of every worker the router listed, in its order: each was started and stopped.
        assertThat(result.workers()).hasSize(2).allSatisfy(worker -> {
            assertThat(worker.state()).as(worker.describe()).isEqualTo(WorkerOutcome.State.PROFILED);
            assertThat(worker.stopOutcome()).as(worker.describe()).isEqualTo(StopOutcome.STOPPED);
        });
        assertThat(result.failedWorkers()).isEmpty();
        assertThat(result.latency()).hasNoFailedRequests();

        // The workers' traces are analysed as one rank set; the router spread the load evenly over them.
        assertThat(result.trace()).ranks().hasSize(2);
        assertThat(result.trace()).ranks().busyImbalance().isLessThan(1.25);
    }
}
