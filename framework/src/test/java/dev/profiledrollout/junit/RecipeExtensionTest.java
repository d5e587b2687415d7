package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.junit.ProfiledTestKit.assertFailed;
import static dev.profiledrollout.junit.ProfiledTestKit.attachRouter;
import static dev.profiledrollout.junit.ProfiledTestKit.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.Phase;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.RolloutRecipe;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.engine.nsys.NsysStandIn;
import dev.profiledrollout.simulator.RouterShape;
import dev.profiledrollout.simulator.SimulatedCluster;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/** {@code @RolloutRecipe}: srtctl recipes from {@code src/test/resources/recipes} run against the simulator. */
class RecipeExtensionTest {

    @TempDir
    Path output;

    @TempDir
    Path traces;

    private JsonNode summary(String testDirectory, String phase) {
        return ProfiledTestKit.summary(output.resolve(testDirectory).resolve(phase));
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutRecipe(resource = "/recipes/disagg-torch.yaml")
    @RolloutLoad(requests = 4, warmupRequests = 0)
    static class DisaggregatedRecipeTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void recipe(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_run_the_prefill_and_decode_windows_of_a_recipe_against_the_embedded_simulator() throws Exception {
        // WHEN
        EngineExecutionResults results = run(DisaggregatedRecipeTestCase.class, output);

        // THEN one phase per recipe block, in order, with the block's steps and load
        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        RolloutResult result = DisaggregatedRecipeTestCase.RESULT.get();
        assertThat(result.phases().keySet()).containsExactly(Phase.PREFILL, Phase.DECODE);
        assertThat(result.phase(Phase.PREFILL).latency().completed()).isEqualTo(4);
        assertThat(result.phase(Phase.PREFILL).latency().outputTokens()).isEqualTo(4 * 1);
        assertThat(result.phase(Phase.PREFILL).latency().inputTokens()).isEqualTo(4 * 512);
        assertThat(result.phase(Phase.DECODE).latency().outputTokens()).isEqualTo(4 * 24);
        assertThat(result.phase(Phase.DECODE).trace().kernels()).isNotEmpty();
        String dir = "RecipeExtensionTest$DisaggregatedRecipeTestCase/recipe";
        JsonNode prefill = summary(dir, "prefill");
        JsonNode decode = summary(dir, "decode");
        assertThat(prefill.path("profileRequest").path("num_steps").asInt()).isEqualTo(3);
        assertThat(prefill.path("profileRequest").has("start_step")).isFalse();
        assertThat(prefill.path("profileRequest").path("activities").toString()).isEqualTo("[\"GPU\"]");
        assertThat(prefill.path("load").path("concurrency").asInt()).isEqualTo(4);
        assertThat(decode.path("profileRequest").path("num_steps").asInt()).isEqualTo(8);
        assertThat(decode.path("load").path("concurrency").asInt()).isEqualTo(2);
        assertThat(decode.path("load").path("inputTokens").asInt()).isEqualTo(32);
        // both windows' requests at the test's top level, which its report charts
        assertThat(Files.readAllLines(output.resolve(dir).resolve("requests.jsonl"))).hasSize(4 + 4);
        // the test's summary shows each recipe block's load, not the @RolloutLoad it filled gaps from
        JsonNode top = ProfiledTestKit.summary(output.resolve(dir));
        assertThat(top.get("load").isNull()).isTrue();
        assertThat(top.path("phases")).extracting(p -> p.path("phase").asText()).containsExactly("PREFILL", "DECODE");
        assertThat(top.path("phases")).extracting(p -> p.path("load").path("concurrency").asInt())
                .containsExactly(4, 2);
        assertThat(top.path("phases")).extracting(p -> p.path("profileRequest").path("num_steps").asInt())
                .containsExactly(3, 8);
        assertThat(output.resolve(dir).resolve("decode/report.html")).isNotEmptyFile();
    }

    @Test
    void should_profile_each_phase_on_its_own_workers_behind_a_prefill_decode_router() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.prefillDecode(
                SimulatorConfig.builder().profilerDir(traces).build(), RouterShape.SGL_MODEL_GATEWAY)) {
            EngineExecutionResults results = attachRouter(DisaggregatedRecipeTestCase.class, output,
                    cluster.router().baseUri());

            results.testEvents().assertStatistics(stats -> stats.succeeded(1));
            RolloutResult result = DisaggregatedRecipeTestCase.RESULT.get();
            assertThat(result.phase(Phase.PREFILL).workers()).singleElement()
                    .extracting(WorkerOutcome::workerType).isEqualTo("prefill");
            assertThat(result.phase(Phase.DECODE).workers()).singleElement()
                    .extracting(WorkerOutcome::workerType).isEqualTo("decode");
            assertThat(result.phase(Phase.DECODE).latency().outputTokens()).isEqualTo(4 * 24);
            assertThat(result.phase(Phase.DECODE).trace().kernels()).isNotEmpty();
            // the router ran each prompt's prefill on the prefill worker, inside its window
            assertThat(result.phase(Phase.PREFILL).trace())
                    .kernels(dev.profiledrollout.trace.KernelMatchers.glob("*BatchPrefill*")).isNotEmpty();
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/agg-nsys.yaml")
    @RolloutLoad(requests = 4, warmupRequests = 0)
    static class NsysRecipeTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void capture(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_drive_an_aggregated_nsys_recipe_as_a_cuda_profiler_api_capture_with_its_steps() throws Exception {
        // GIVEN an nsys stand-in and its report
        Path nsys = NsysStandIn.install(traces);
        Path report = Files.writeString(traces.resolve("agg.nsys-rep"), "report");

        // WHEN
        EngineExecutionResults results = run(NsysRecipeTestCase.class, output, "profiledrollout.nsys.path",
                nsys.toString(), "profiledrollout.nsys.report", report.toString());

        // THEN one window, driven through the engine as srtctl drives it, with the benchmark's load
        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        RolloutResult result = NsysRecipeTestCase.RESULT.get();
        assertThat(result.phases()).isEmpty();
        assertThat(result.latency().outputTokens()).isEqualTo(4 * 4);
        assertThat(result.trace().kernels()).isNotEmpty();
        assertThat(NsysStandIn.invocations(traces)).containsExactly(
                "stats --report cuda_gpu_kern_sum --format csv " + report);
        JsonNode summary = summary("RecipeExtensionTest$NsysRecipeTestCase", "capture");
        assertThat(summary.path("profileRequest").path("activities").toString()).isEqualTo("[\"CUDA_PROFILER\"]");
        assertThat(summary.path("profileRequest").path("start_step").asInt()).isEqualTo(2);
        assertThat(summary.path("profileRequest").path("num_steps").asInt()).isEqualTo(4);
        assertThat(summary.path("load").path("concurrency").asInt()).isEqualTo(2);
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/disagg-torch.yaml")
    @RolloutPhase(phase = Phase.DECODE, numSteps = 4)
    static class RecipeAndPhaseTestCase {
        @Test
        void both(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(numSteps = 5)
    @RolloutRecipe(resource = "/recipes/disagg-torch.yaml")
    static class RecipeAndNumStepsTestCase {
        @Test
        void both(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout
    @RolloutRecipe(resource = "recipes/absent.yaml")
    static class MissingRecipeTestCase {
        @Test
        void missing(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/nsys-time.yaml")
    static class NsysTimeRecipeTestCase {
        @Test
        void timed(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/vllm-agg.yaml")
    static class VllmRecipeTestCase {
        @Test
        void vllm(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/disagg-torch.yaml", file = "src/test/resources/recipes/disagg-torch.yaml")
    static class TwoSourcesTestCase {
        @Test
        void ambiguous(RolloutSession session) {
            session.awaitResult();
        }
    }

    private void assertConfigurationError(Class<?> testCase, String method, Predicate<String> expected,
            String... parameters) {
        assertFailed(run(testCase, output, parameters), method, ExtensionConfigurationException.class, expected);
    }

    @Test
    void should_refuse_a_recipe_together_with_rollout_phases() {
        assertConfigurationError(RecipeAndPhaseTestCase.class, "both", m -> m.startsWith(
                "@RolloutPhase together with @RolloutRecipe is invalid")
                && m.contains("remove the @RolloutPhase annotations or the recipe"));
    }

    @Test
    void should_refuse_steps_on_the_annotation_when_the_recipe_gives_them() {
        assertConfigurationError(RecipeAndNumStepsTestCase.class, "both", m -> m.contains(
                "@ProfiledRollout(numSteps = 5, startStep = -1) with @RolloutRecipe is invalid")
                && m.contains("remove numSteps and startStep"));
    }

    @Test
    void should_say_where_to_put_a_recipe_that_is_not_on_the_classpath() {
        assertConfigurationError(MissingRecipeTestCase.class, "missing", m -> m.contains(
                "recipes/absent.yaml is not on the classpath")
                && m.contains("src/test/resources/dev/profiledrollout/junit/recipes/absent.yaml"));
    }

    @Test
    void should_name_the_field_of_a_recipe_that_cannot_be_honoured() {
        assertConfigurationError(NsysTimeRecipeTestCase.class, "timed", m -> m.startsWith(
                "@RolloutRecipe(resource = \"/recipes/nsys-time.yaml\"): srtctl recipe /recipes/nsys-time.yaml:"
                        + " profiling.type nsys-time cannot be honoured"));
    }

    @Test
    void should_ask_for_max_iterations_matching_the_steps_of_a_vllm_recipe() {
        assertConfigurationError(VllmRecipeTestCase.class, "vllm", m -> m.contains(
                "(profiling.aggregated: start_step 0, stop_step 4) with backend.type vllm is invalid")
                && m.contains("profiledrollout.vllm.max.iterations=4"));
        assertConfigurationError(VllmRecipeTestCase.class, "vllm", m -> m.contains(
                "the server's max_iterations is 6 (profiledrollout.vllm.max.iterations), but the recipe asks for 4"),
                "profiledrollout.vllm.max.iterations", "6");
    }

    @Test
    void should_run_a_vllm_recipe_whose_steps_match_the_servers_max_iterations() {
        run(VllmRecipeTestCase.class, output, "profiledrollout.vllm.max.iterations", "4")
                .testEvents().assertStatistics(stats -> stats.succeeded(1));
    }

    @Test
    void should_refuse_both_a_resource_and_a_file() {
        assertConfigurationError(TwoSourcesTestCase.class, "ambiguous", m -> m.contains(
                "give exactly one of resource"));
    }
}
