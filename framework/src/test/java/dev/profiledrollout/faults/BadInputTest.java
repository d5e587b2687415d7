package dev.profiledrollout.faults;

import static dev.profiledrollout.junit.ProfiledTestKit.assertNoThreadsLeft;
import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static dev.profiledrollout.junit.ProfiledTestKit.run;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSession;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input: every invalid annotation attribute or configuration key fails the test with a JUnit configuration error
 * naming the attribute or key and what is allowed, before any engine, load or output directory exists.
 */
class BadInputTest {

    @TempDir
    Path output;

    @FaultCase @ProfiledRollout(numSteps = -1)
    static class NegativeStepsTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout(activities = {})
    static class NoActivitiesTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout(startStep = -7)
    static class NegativeStartStepTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout @RolloutLoad(concurrency = 0)
    static class NoConcurrencyTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout @RolloutLoad(requestRate = -3)
    static class NegativeRateTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout @RolloutLoad(rangeRatio = 1.5)
    static class RangeRatioTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout @RolloutLoad(endpoint = "/v2/nowhere")
    static class UnknownEndpointTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout(profilePrefix = "../../escape")
    static class TraversalPrefixTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout(profileByStage = true)
    static class StageWithoutStepsTestCase { @Test void t(RolloutSession s) { } }

    @FaultCase @ProfiledRollout(backend = Backend.VLLM, startStep = 3, activities = Activity.GPU)
    static class VllmStartStepTestCase { @Test void t(RolloutSession s) { } }

    static Stream<Arguments> annotations() {
        return Stream.of(
                Arguments.of(NegativeStepsTestCase.class, "@ProfiledRollout(numSteps = -1) is invalid"),
                Arguments.of(NoActivitiesTestCase.class, "@ProfiledRollout(activities = {}) is invalid: at least one of"),
                Arguments.of(NegativeStartStepTestCase.class, "@ProfiledRollout(startStep = -7) is invalid"),
                Arguments.of(NoConcurrencyTestCase.class, "@RolloutLoad(concurrency = 0) is invalid: at least 1"),
                Arguments.of(NegativeRateTestCase.class, "@RolloutLoad(requestRate = -3.0) is invalid"),
                Arguments.of(RangeRatioTestCase.class, "@RolloutLoad(rangeRatio = 1.5) is invalid: in [0, 1)"),
                Arguments.of(UnknownEndpointTestCase.class, "@RolloutLoad(endpoint = \"/v2/nowhere\") is invalid"),
                Arguments.of(TraversalPrefixTestCase.class, "@ProfiledRollout(profilePrefix = \"../../escape\") is invalid"),
                Arguments.of(StageWithoutStepsTestCase.class, "@ProfiledRollout(profileByStage = true) is invalid"),
                Arguments.of(VllmStartStepTestCase.class, "startStep"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("annotations")
    void an_invalid_attribute_is_a_configuration_error_naming_it(Class<?> testCase, String expected) {
        Throwable t = failure(run(testCase, output));

        assertThat(t).isInstanceOf(ExtensionConfigurationException.class).hasMessageContaining(expected);
        assertOnlyTheErrorReport(output.resolve("BadInputTest$" + testCase.getSimpleName() + "/t"), expected);
        assertNoThreadsLeft();
    }

    @FaultCase @ProfiledRollout @RolloutLoad(requests = 1, warmupRequests = 0)
    static class ValidTestCase { @Test void t(RolloutSession s) { } }

    static Stream<Arguments> keys() {
        return Stream.of(
                Arguments.of("profiledrollout.engine", "kubernetes", "allowed values: embedded, attach"),
                Arguments.of("profiledrollout.engine.url", "not a url", "profiledrollout.engine.url"),
                Arguments.of("profiledrollout.engine.url", "ftp://host:1", "is not an http(s) base URL"),
                Arguments.of("profiledrollout.trace.dir", "/does/not/exist/anywhere", "must be an existing directory"),
                Arguments.of("profiledrollout.trace.timeout", "-5", "profiledrollout.trace.timeout='-5': must be positive"),
                Arguments.of("profiledrollout.read.timeout", "soon", "profiledrollout.read.timeout='soon': expected seconds"),
                Arguments.of("profiledrollout.load.timeout", "0", "profiledrollout.load.timeout='0': must be positive"),
                Arguments.of("profiledrollout.engine.ranks", "0", "profiledrollout.engine.ranks='0': must be an integer ≥ 1"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("keys")
    void an_invalid_key_is_a_configuration_error_naming_it(String key, String value, String expected) {
        Throwable t = failure(run(ValidTestCase.class, output, key, value));

        assertThat(t).isInstanceOf(ExtensionConfigurationException.class).hasMessageContaining(expected);
        assertOnlyTheErrorReport(output.resolve("BadInputTest$ValidTestCase/t"), expected);
        assertNoThreadsLeft();
    }

    /** Nothing ran: the test's directory holds the report of the error, and no requests or traces. */
    private static void assertOnlyTheErrorReport(Path dir, String expected) {
        JsonNode summary = summary(dir);
        assertThat(summary.path("error").asText()).contains(expected);
        assertThat(summary.path("outcome").path("status").asText()).isEqualTo("ERROR");
        assertThat(dir.resolve("report.html")).exists();
        assertThat(dir.resolve("requests.jsonl")).doesNotExist();
        assertThat(dir.resolve("traces")).doesNotExist();
    }
}
