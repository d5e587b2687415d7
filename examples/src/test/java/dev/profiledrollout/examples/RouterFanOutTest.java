package dev.profiledrollout.examples;

import static dev.profiledrollout.Activity.GPU;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;

import dev.profiledrollout.EngineProfile;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RegressionCheck;
import dev.profiledrollout.RolloutEngine;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.engine.EngineTarget;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.simulator.RouterSimulator;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * Profiling every worker behind a router. Neither sgl-model-gateway nor vllm-router forwards {@code /start_profile}
 * to its workers ({@code docs/PROTOCOLS.md} §3), so with {@code profiledrollout.router.url} the extension lists them
 * ({@code GET /workers}), starts and stops every healthy one concurrently, and sends the load through the router.
 * A worker whose start or stop fails does not end the window: it is reported, per worker, in
 * {@code result.workers()} and {@code summary.json}, and the test decides whether that is acceptable.
 *
 * <p>Here the class starts a simulated sgl-model-gateway with two simulated SGLang workers, its {@code @RolloutEngine}
 * stand-in. Against a real router, the same class runs unchanged, named by its engine profile {@code router} (which
 * leaves the build's other classes on their own engines):
 * <pre>
 * mvn -B -P examples verify -Dprofiledrollout.profiles.router.engine=attach \
 *     -Dprofiledrollout.profiles.router.router.url=http://router:30000
 * </pre>
 * or, running this class alone, with {@code -Dtest=RouterFanOutTest -Dprofiledrollout.engine=attach
 * -Dprofiledrollout.router.url=http://router:30000}.
 * Each SGLang worker writes its traces to its own {@code output_dir} on its own host; read them through a shared
 * filesystem with {@code profiledrollout.trace.dir} and {@code .trace.dir.server}.
 */
@RegressionCheck
@ProfiledRollout(activities = GPU)
@EngineProfile(value = "router", optional = true) // undefined: the stand-in below
@RolloutLoad(concurrency = 8, requests = 32, inputTokens = 256, outputTokens = 32)
class RouterFanOutTest {

    /** A simulated router and its two workers, started only when the run names no engine; closed after the class. */
    @RolloutEngine
    static EngineTarget router() throws IOException {
        RouterSimulator router = RouterSimulator.builder().workers(2).start();
        return EngineTarget.router(router.baseUri()).closeAfterClass(router);
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
