package dev.profiledrollout.junit;

import static dev.profiledrollout.junit.ProfiledTestKit.attach;
import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static dev.profiledrollout.junit.ProfiledTestKit.run;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Backend;
import dev.profiledrollout.Phase;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.opentest4j.AssertionFailedError;

/**
 * The engine steps each capture holds against {@code numSteps}: {@code summary.json}'s {@code steps} and the
 * {@code CAPTURE} verdict {@code "steps captured"}, a warning unless strict, against the simulator's SGLang and vLLM
 * personalities.
 */
class StepsCapturedTest {

    @TempDir
    Path output;

    @TempDir
    Path vllmTraces;

    @RegisterExtension
    final Simulators simulators = new Simulators();

    @ProfiledRollout(numSteps = 500)
    @RolloutLoad(concurrency = 1, requests = 2, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class SglangTooFewTestCase {
        @Test
        void steps(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(numSteps = 500, strictSteps = true)
    @RolloutLoad(concurrency = 1, requests = 2, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class SglangStrictTestCase {
        @Test
        void steps(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(numSteps = 3)
    @RolloutLoad(concurrency = 2, requests = 8, inputTokens = 16, outputTokens = 16, warmupRequests = 0)
    static class SglangExactTestCase {
        @Test
        void steps(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout
    @RolloutLoad(concurrency = 1, requests = 2, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class UnboundedTestCase {
        @Test
        void steps(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout
    @RolloutLoad(concurrency = 1, requests = 2, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    @RolloutPhase(phase = Phase.PREFILL, numSteps = 1, inputTokens = 64, outputTokens = 1, requests = 4,
            concurrency = 1)
    @RolloutPhase(phase = Phase.DECODE, numSteps = 500, outputTokens = 4, requests = 1, concurrency = 1)
    static class PhasedTestCase {
        @Test
        void steps(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(backend = Backend.VLLM, numSteps = 4)
    @RolloutLoad(concurrency = 2, requests = 8, inputTokens = 16, outputTokens = 16, warmupRequests = 0)
    static class VllmExactTestCase {
        @Test
        void steps(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(backend = Backend.VLLM, numSteps = 500)
    @RolloutLoad(concurrency = 1, requests = 1, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class VllmTooFewTestCase {
        @Test
        void steps(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(backend = Backend.VLLM, numSteps = 10)
    @RolloutLoad(concurrency = 2, requests = 8, inputTokens = 16, outputTokens = 16, warmupRequests = 0)
    static class VllmTooManyTestCase {
        @Test
        void steps(RolloutSession session) {
            session.awaitResult();
        }
    }

    private static JsonNode stepsVerdict(JsonNode summary) {
        List<JsonNode> found = StreamSupport.stream(summary.path("verdicts").spliterator(), false)
                .filter(v -> v.path("measure").asText().equals("steps captured")).toList();
        assertThat(found).as("steps captured verdicts in %s", summary.path("verdicts")).hasSize(1);
        return found.get(0);
    }

    @Test
    void should_warn_when_the_sglang_load_ends_before_num_steps() {
        EngineExecutionResults results = run(SglangTooFewTestCase.class, output);

        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        JsonNode summary = summary(output.resolve("StepsCapturedTest$SglangTooFewTestCase/steps"));
        JsonNode steps = summary.path("steps");
        assertThat(steps.path("requested").asInt()).isEqualTo(500);
        assertThat(steps.path("captured").size()).isEqualTo(1);
        int captured = steps.path("captured").path("TP-0").asInt(-1);
        assertThat(captured).isBetween(1, 499);
        assertThat(steps.path("min").asInt()).isEqualTo(captured);
        assertThat(steps.path("max").asInt()).isEqualTo(captured);
        assertThat(steps.path("strict").asBoolean()).isFalse();
        JsonNode verdict = stepsVerdict(summary);
        assertThat(verdict.path("kind").asText()).isEqualTo("CAPTURE");
        assertThat(verdict.path("relation").asText()).isEqualTo("=");
        assertThat(verdict.path("actual").asDouble()).isEqualTo(captured);
        assertThat(verdict.path("budget").asDouble()).isEqualTo(500);
        assertThat(verdict.path("passed").asBoolean()).isFalse();
        assertThat(verdict.path("enforced").asBoolean()).isFalse();
        assertThat(verdict.path("detail").asText()).contains("TP-0 " + captured)
                .contains("the load ended before 500 steps").contains("lower numSteps");
    }

    @Test
    void should_fail_a_strict_test_with_the_fix_when_the_load_ends_before_num_steps() {
        Throwable byAnnotation = failure(run(SglangStrictTestCase.class, output));
        Throwable byKey = failure(run(SglangTooFewTestCase.class, output, "profiledrollout.steps.strict", "true"));

        for (Throwable failure : List.of(byAnnotation, byKey)) {
            assertThat(failure).isInstanceOf(AssertionFailedError.class)
                    .hasMessageContaining("steps captured").hasMessageContaining("budget = 500")
                    .hasMessageContaining("the load ended before 500 steps");
        }
        JsonNode summary = summary(output.resolve("StepsCapturedTest$SglangStrictTestCase/steps"));
        assertThat(summary.path("steps").path("strict").asBoolean()).isTrue();
        assertThat(stepsVerdict(summary).path("enforced").asBoolean()).isTrue();
    }

    @Test
    void should_refuse_a_strict_key_that_is_not_a_boolean() {
        Throwable failure = failure(run(SglangTooFewTestCase.class, output, "profiledrollout.steps.strict", "yes"));

        assertThat(failure).hasMessageContaining("profiledrollout.steps.strict='yes'");
    }

    @Test
    void should_pass_when_every_rank_holds_num_steps() {
        EngineExecutionResults results = run(SglangExactTestCase.class, output);

        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        JsonNode summary = summary(output.resolve("StepsCapturedTest$SglangExactTestCase/steps"));
        assertThat(summary.path("steps").path("min").asInt()).isEqualTo(3);
        assertThat(summary.path("steps").path("max").asInt()).isEqualTo(3);
        JsonNode verdict = stepsVerdict(summary);
        assertThat(verdict.path("passed").asBoolean()).isTrue();
        assertThat(verdict.path("actual").asDouble()).isEqualTo(3);
    }

    @Test
    void should_count_steps_but_record_no_verdict_for_a_window_without_a_step_bound() {
        run(UnboundedTestCase.class, output).testEvents().assertStatistics(stats -> stats.succeeded(1));

        JsonNode summary = summary(output.resolve("StepsCapturedTest$UnboundedTestCase/steps"));
        assertThat(summary.path("steps").path("requested").isNull()).isTrue();
        assertThat(summary.path("steps").path("min").asInt()).isPositive();
        assertThat(summary.path("verdicts")).noneMatch(v -> v.path("measure").asText().equals("steps captured"));
    }

    @Test
    void should_scope_each_phase_verdict_to_its_phase() {
        run(PhasedTestCase.class, output).testEvents().assertStatistics(stats -> stats.succeeded(1));

        Path dir = output.resolve("StepsCapturedTest$PhasedTestCase/steps");
        assertThat(summary(dir.resolve("prefill")).path("steps").path("requested").asInt()).isEqualTo(1);
        assertThat(summary(dir.resolve("decode")).path("steps").path("requested").asInt()).isEqualTo(500);
        List<JsonNode> verdicts = StreamSupport.stream(summary(dir).path("verdicts").spliterator(), false)
                .filter(v -> v.path("measure").asText().equals("steps captured")).toList();
        assertThat(verdicts).extracting(v -> v.path("scope").asText()).containsExactly("PREFILL", "DECODE");
        assertThat(verdicts).extracting(v -> v.path("passed").asBoolean()).containsExactly(true, false);
    }

    @Test
    void should_pass_when_vllm_stops_at_max_iterations() {
        EngineExecutionResults results = run(VllmExactTestCase.class, output, "profiledrollout.vllm.max.iterations",
                "4");

        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        JsonNode summary = summary(output.resolve("StepsCapturedTest$VllmExactTestCase/steps"));
        assertThat(summary.path("steps").path("captured").size()).isEqualTo(1);
        assertThat(summary.path("steps").path("min").asInt()).isEqualTo(4);
        assertThat(stepsVerdict(summary).path("passed").asBoolean()).isTrue();
    }

    @Test
    void should_warn_when_the_vllm_load_ends_before_max_iterations() {
        EngineExecutionResults results = run(VllmTooFewTestCase.class, output, "profiledrollout.vllm.max.iterations",
                "500");

        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        JsonNode summary = summary(output.resolve("StepsCapturedTest$VllmTooFewTestCase/steps"));
        assertThat(summary.path("steps").path("max").asInt()).isBetween(1, 499);
        JsonNode verdict = stepsVerdict(summary);
        assertThat(verdict.path("enforced").asBoolean()).isFalse();
        assertThat(verdict.path("detail").asText()).contains("the load ended before 500 steps");
    }

    @Test
    void should_name_the_profiler_config_when_a_vllm_server_without_max_iterations_records_too_many_steps()
            throws Exception {
        // GIVEN a vLLM server whose profiler config has no max_iterations, though configuration says 10
        EngineSimulator vllm = simulators.start(SimulatorConfig.builder().backend("vllm").profilerConfig(
                "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + vllmTraces + "\"}"));
        String[] keys = {"profiledrollout.trace.dir", vllmTraces.toString(), "profiledrollout.engine.ranks", "1",
                "profiledrollout.vllm.max.iterations", "10"};

        // WHEN
        EngineExecutionResults warned = attach(VllmTooManyTestCase.class, output, vllm.baseUri(), keys);

        // THEN a warning naming the flag and the environment variable
        warned.testEvents().assertStatistics(stats -> stats.succeeded(1));
        JsonNode summary = summary(output.resolve("StepsCapturedTest$VllmTooManyTestCase/steps"));
        assertThat(summary.path("steps").path("min").asInt()).isGreaterThan(10);
        JsonNode verdict = stepsVerdict(summary);
        assertThat(verdict.path("passed").asBoolean()).isFalse();
        assertThat(verdict.path("enforced").asBoolean()).isFalse();
        assertThat(verdict.path("detail").asText()).contains("--profiler-config")
                .contains("\"max_iterations\":10").contains("VLLM_PROFILER_MAX_ITERS=10");

        // AND strict, the test fails with that fix
        Throwable strict = failure(attach(VllmTooManyTestCase.class, output, vllm.baseUri(), concat(keys,
                "profiledrollout.steps.strict", "true")));
        assertThat(strict).isInstanceOf(AssertionFailedError.class).hasMessageContaining("budget = 10")
                .hasMessageContaining("\"max_iterations\":10");
    }

    private static String[] concat(String[] keys, String... more) {
        String[] all = java.util.Arrays.copyOf(keys, keys.length + more.length);
        System.arraycopy(more, 0, all, keys.length, more.length);
        return all;
    }
}
