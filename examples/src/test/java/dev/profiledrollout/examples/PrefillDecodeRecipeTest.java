package dev.profiledrollout.examples;

import static dev.profiledrollout.Activity.GPU;
import static dev.profiledrollout.Phase.DECODE;
import static dev.profiledrollout.Phase.PREFILL;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.matching;

import dev.profiledrollout.EngineProfile;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RegressionCheck;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutRecipe;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The profiling section of an srtctl job file as a test: its prefill and decode blocks become two profile windows,
 * each with the recipe's steps and load, and each phase gets its own budgets.
 *
 * <p>Against the embedded simulator both windows profile the one engine. With the engine profile {@code pd-router}
 * defined ({@code -Dprofiledrollout.profiles.pd-router.engine=attach
 * -Dprofiledrollout.profiles.pd-router.router.url=http://router:8000}), each window profiles the router's workers of
 * its {@code worker_type}, while the build's other classes keep their engines.
 */
@RegressionCheck
@ProfiledRollout(activities = GPU)
@EngineProfile(value = "pd-router", optional = true) // undefined: the embedded simulator
@RolloutRecipe(resource = "/recipes/disagg-profiling.yaml")
@RolloutLoad(requests = 16)
class PrefillDecodeRecipeTest {

    @Test
    void eachPhaseStaysWithinItsBudget(RolloutSession session) {
        RolloutResult result = session.awaitResult();

        assertThat(result.phase(PREFILL).latency()).hasNoFailedRequests();
        assertThat(result.phase(PREFILL).latency()).ttft().percentile(99).isLessThan(Duration.ofSeconds(2));
        assertThat(result.phase(DECODE).latency()).tpot().percentile(90).isLessThan(Duration.ofMillis(40));
        assertThat(result.phase(DECODE).trace()).kernels(matching(".*BatchDecode.*")).isNotEmpty();
        assertThat(result.phase(DECODE).trace()).kernels(matching(".*(gemm|nvjet).*")).share().isLessThan(0.95);
    }
}
