package dev.profiledrollout.faults;

import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static dev.profiledrollout.junit.ProfiledTestKit.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.Phase;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.Profiler;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.SimulatedEngine;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Configuration validated completely before anything starts: every mistake of one {@code @RolloutLoad} in one error,
 * and every attribute combination in which an attribute would be silently ignored reported as such.
 */
class CompleteValidationTest {

    private static final String SHAREGPT = "src/test/resources/datasets/tiny-sharegpt.json";

    @TempDir
    Path output;

    @FaultCase @ProfiledRollout
    @RolloutLoad(concurrency = 0, requestRate = -3, endpoint = "/v2/nowhere", dataset = "sharegtp")
    static class FourMistakesTestCase { @Test void t(RolloutSession s) { } }

    @Test
    void every_mistake_of_one_annotation_is_reported_at_once() {
        Throwable t = failure(run(FourMistakesTestCase.class, output));

        assertThat(t).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageStartingWith("4 configuration problems");
        assertThat(t.getMessage().lines().skip(1).toList()).satisfiesExactlyInAnyOrder(
                line -> assertThat(line).contains("@RolloutLoad(concurrency = 0)").contains("at least 1"),
                line -> assertThat(line).contains("@RolloutLoad(requestRate = -3.0)").contains("> 0"),
                line -> assertThat(line).contains("@RolloutLoad(endpoint = \"/v2/nowhere\")")
                        .contains("/v1/chat/completions"),
                line -> assertThat(line).contains("@RolloutLoad(dataset = \"sharegtp\")")
                        .contains("did you mean \"sharegpt\""));
    }

    @FaultCase @ProfiledRollout @RolloutLoad(requests = 1, warmupRequests = 0)
    static class ValidTestCase { @Test void t(RolloutSession s) { } }

    @Test
    void an_unknown_key_is_an_error_naming_the_nearest_known_one() {
        System.setProperty("profiledrollout.engine.ulr", "http://gpu-node:30000");
        Throwable t;
        try {
            t = failure(run(ValidTestCase.class, output));
        } finally {
            System.clearProperty("profiledrollout.engine.ulr");
        }

        assertThat(t).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("Unknown key profiledrollout.engine.ulr (system property)")
                .hasMessageContaining("did you mean profiledrollout.engine.url?");
    }

    @Test
    void a_jvm_only_key_in_an_engine_profile_is_an_error_with_the_reason() {
        System.setProperty("profiledrollout.profiles.gpu-a.load.threads", "4");
        Throwable t;
        try {
            t = failure(run(ValidTestCase.class, output));
        } finally {
            System.clearProperty("profiledrollout.profiles.gpu-a.load.threads");
        }

        assertThat(t).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("profiledrollout.profiles.gpu-a.load.threads (system property)")
                .hasMessageContaining("cannot be set per engine profile");
    }

    @FaultCase @ProfiledRollout @RolloutLoad(concurrency = 0)
    @SimulatedEngine(slowKernel = ".*(gemm", slowKernelFactor = 2)
    static class InvalidKernelRegexTestCase { @Test void t(RolloutSession s) { } }

    @Test
    void an_invalid_kernel_regex_names_the_attribute_and_the_position_of_the_error_with_the_other_problems() {
        Throwable t = failure(run(InvalidKernelRegexTestCase.class, output));

        assertThat(t).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageStartingWith("2 configuration problems")
                .hasMessageContaining("@RolloutLoad(concurrency = 0) is invalid")
                .hasMessageContaining("@SimulatedEngine(slowKernel) \".*(gemm\" is not a valid regular expression: "
                        + "Unclosed group at index 7")
                .hasMessageContaining(".*(gemm\n")
                .hasMessageContaining("       ^\n");
    }

    @FaultCase @ProfiledRollout @RolloutLoad(concurrency = 0)
    @SimulatedEngine(tpSize = 0, slowKernelFactor = 4)
    static class LoadAndEngineMistakesTestCase { @Test void t(RolloutSession s) { } }

    @Test
    void the_simulated_engine_s_mistakes_come_with_the_others() {
        Throwable t = failure(run(LoadAndEngineMistakesTestCase.class, output));

        assertThat(t).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageStartingWith("3 configuration problems");
        assertThat(t.getMessage().lines().skip(1).toList()).satisfiesExactlyInAnyOrder(
                line -> assertThat(line).contains("@RolloutLoad(concurrency = 0) is invalid"),
                line -> assertThat(line).contains("@SimulatedEngine(tpSize = 0) is invalid: at least 1"),
                line -> assertThat(line).contains("@SimulatedEngine(slowKernelFactor = 4.0) without slowKernel is"
                        + " invalid"));
    }

    @FaultCase @ProfiledRollout @RolloutLoad(rampUpStrategy = "exponential")
    static class StrategyWithoutRatesTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout @RolloutLoad(rampUpStartRate = 5)
    static class HalfARampTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout @RolloutLoad(requestRate = 20, rampUpStartRate = 5, rampUpEndRate = 50)
    static class RateAndRampTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout @RolloutLoad(maxConcurrency = 4)
    static class CapOnClosedLoopTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout @RolloutLoad(burstiness = 0.5)
    static class BurstinessOnClosedLoopTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout @RolloutLoad(requestRate = 10, concurrency = 32)
    static class ConcurrencyOnOpenLoopTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout @RolloutLoad(durationSeconds = -1)
    static class NegativeDurationTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout @RolloutLoad(dataset = "sharegpt", datasetPath = SHAREGPT, inputTokens = 1024,
            prefixTokens = 64)
    static class RandomLengthsWithFileTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout(profiler = Profiler.NSYS, numSteps = 10, withStack = false)
    static class TorchAttributesUnderNsysTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout(backend = Backend.VLLM, activities = Activity.GPU, withStack = false)
    static class VllmWithoutStackTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout @RolloutLoad(dataset = "sharegpt", datasetPath = SHAREGPT)
    @RolloutPhase(phase = Phase.PREFILL, inputTokens = 2048)
    static class PhaseLengthWithFileTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout(profiler = Profiler.NSYS) @RolloutPhase(phase = Phase.DECODE, numSteps = 4)
    static class PhaseStepsUnderNsysTestCase { @Test void t(RolloutSession s) { } }

    static Stream<Arguments> ignoredAttributes() {
        return Stream.of(
                Arguments.of(PhaseStepsUnderNsysTestCase.class, "@RolloutPhase(phase = DECODE, numSteps/startStep)"
                        + " with profiler = NSYS is invalid: an nsys session capture sends no profile call"),
                Arguments.of(PhaseLengthWithFileTestCase.class, "@RolloutPhase(phase = PREFILL, inputTokens = 2048)"
                        + " with dataset = \"sharegpt\" is invalid: a sharegpt file sends its own text prompts"),
                Arguments.of(VllmWithoutStackTestCase.class, "@ProfiledRollout(withStack = false) with backend = VLLM"
                        + " is invalid: vLLM's /start_profile takes no body, so this would be ignored: set"
                        + " torch_profiler_with_stack"),
                Arguments.of(TorchAttributesUnderNsysTestCase.class, "@ProfiledRollout(profiler = NSYS, numSteps = 10,"
                        + " withStack = false) is invalid: an nsys session capture sends no profile call to the"
                        + " engine"),
                Arguments.of(StrategyWithoutRatesTestCase.class, "@RolloutLoad(rampUpStrategy = \"exponential\") is"
                        + " invalid: a ramp-up strategy needs its rates: set rampUpStartRate and rampUpEndRate"),
                Arguments.of(HalfARampTestCase.class, "a ramp needs both rates, in requests/s: set rampUpEndRate"),
                Arguments.of(RateAndRampTestCase.class, "@RolloutLoad(requestRate = 20.0) with rampUpStartRate/"
                        + "rampUpEndRate is invalid"),
                Arguments.of(CapOnClosedLoopTestCase.class, "@RolloutLoad(maxConcurrency = 4) without requestRate is"
                        + " invalid: maxConcurrency caps an open loop"),
                Arguments.of(BurstinessOnClosedLoopTestCase.class, "@RolloutLoad(burstiness = 0.5) without requestRate"
                        + " is invalid"),
                Arguments.of(ConcurrencyOnOpenLoopTestCase.class, "@RolloutLoad(concurrency = 32) with an open loop"
                        + " (requestRate) is invalid: concurrency is the size of a closed loop and would be ignored;"
                        + " cap the requests in flight with maxConcurrency"),
                Arguments.of(NegativeDurationTestCase.class, "@RolloutLoad(durationSeconds = -1.0) is invalid"),
                Arguments.of(RandomLengthsWithFileTestCase.class, "@RolloutLoad(dataset = \"sharegpt\", inputTokens ="
                        + " 1024, prefixTokens = 64) is invalid: a sharegpt file sends its own text prompts, so"
                        + " inputTokens, prefixTokens would be ignored"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ignoredAttributes")
    void an_attribute_that_would_be_ignored_is_a_configuration_error(Class<?> testCase, String expected) {
        Throwable t = failure(run(testCase, output));

        assertThat(t).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining(expected);
        assertThat(output.resolve("CompleteValidationTest$" + testCase.getSimpleName() + "/t/requests.jsonl"))
                .doesNotExist();
    }
}
