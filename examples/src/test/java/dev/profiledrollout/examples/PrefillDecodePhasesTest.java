package dev.profiledrollout.examples;

import static dev.profiledrollout.Activity.CPU;
import static dev.profiledrollout.Activity.GPU;
import static dev.profiledrollout.Phase.DECODE;
import static dev.profiledrollout.Phase.PREFILL;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.glob;

import dev.profiledrollout.EngineProfile;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RegressionCheck;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.trace.StepStats.Stage;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Prefill and decode profiled as separate phases, the srtctl workflow: srtctl profiles a disaggregated deployment's
 * prefill workers and its decode workers each in a window of its own, with per-phase {@code start_step} /
 * {@code stop_step} ({@code NVIDIA/srt-slurm} {@code docs/profiling.md}). Each {@code @RolloutPhase} is such a window,
 * with its own steps and its own load (here prefill: long prompts, one output token; decode: short prompts, long
 * outputs), run one after the other in declaration order. The result has one entry per phase
 * ({@code result.phase(PREFILL)}, {@code <test>/prefill/summary.json}) beside the combined view.
 *
 * <p>Against the embedded simulator (one regular engine) every phase profiles that engine. Against a disaggregated
 * deployment each phase profiles only the workers of its {@code worker_type}: SGLang engines started with
 * {@code --disaggregation-mode prefill} / {@code decode} ({@code sgl-project/sglang}
 * {@code python/sglang/srt/server_args.py}) behind a router in PD mode
 * ({@code python3 -m sglang_router.launch_router --pd-disaggregation --prefill URL --decode URL},
 * {@code sgl-model-gateway/bindings/python/src/sglang_router/router_args.py}), which lists them with those types:
 * the engine profile {@code pd-router} names it for this class (and {@code PrefillDecodeRecipeTest}) alone:
 * <pre>
 * mvn -B -P examples verify -Dprofiledrollout.profiles.pd-router.engine=attach \
 *     -Dprofiledrollout.profiles.pd-router.router.url=http://pd-router:8000
 * </pre>
 * (or {@code profiledrollout.profiles.pd-router.prefill.url=…}, {@code .decode.url=…} and {@code .engine.url=<router>}
 * when the router does not list them).
 */
// CPU too: the engine-step annotations (step[EXTEND …], step[DECODE …]) are CPU-side events.
@RegressionCheck
@ProfiledRollout(activities = {GPU, CPU})
@EngineProfile(value = "pd-router", optional = true) // undefined: the embedded simulator
@RolloutPhase(phase = PREFILL, inputTokens = 2048, outputTokens = 1, concurrency = 4, requests = 8)
@RolloutPhase(phase = DECODE, numSteps = 16, inputTokens = 128, outputTokens = 64, concurrency = 16, requests = 16)
class PrefillDecodePhasesTest {

    @Test
    void eachPhaseIsProfiledUnderItsOwnLoad(RolloutSession session) {
        RolloutResult result = session.awaitResult(); // both windows, prefill first
        RolloutResult prefill = result.phase(PREFILL);
        RolloutResult decode = result.phase(DECODE);

        // Prefill: every request is one prompt pass, so the capture holds prefill attention and no decode.
        assertThat(prefill.latency()).hasNoFailedRequests();
        assertThat(prefill.trace()).kernels(glob("*BatchPrefill*")).isNotEmpty();
        assertThat(prefill.trace()).kernels(glob("*BatchDecode*")).isEmpty();
        assertThat(prefill.trace()).rank(0).steps(Stage.PREFILL).hasSteps();
        // Room for a busy two-core runner, where the simulator and the load generator share the cores.
        assertThat(prefill.latency()).ttft().percentile(90).isLessThan(Duration.ofSeconds(1));

        // Decode: 16 engine steps (num_steps), mostly decode batches of the 16 concurrent requests.
        assertThat(decode.latency()).hasNoFailedRequests();
        assertThat(decode.trace()).rank(0).steps().count().isEqualTo(16);
        assertThat(decode.trace()).rank(0).steps(Stage.DECODE).hasSteps()
                .maxKernelTime().isLessThan(Duration.ofMillis(20));
        assertThat(decode.latency()).tpot().percentile(90).isLessThan(Duration.ofMillis(40));
    }
}
