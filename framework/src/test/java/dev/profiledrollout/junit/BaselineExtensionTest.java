package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.junit.ProfiledTestKit.assertFailed;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.SimulatedEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/** Per-test kernel baselines: recorded with {@code profiledrollout.baseline.update}, then compared on later runs. */
class BaselineExtensionTest {

    @TempDir
    Path output;

    @TempDir
    Path baselines;

    @ProfiledRollout(numSteps = 6, activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 16, inputTokens = 64, outputTokens = 16, warmupRequests = 1)
    static class HealthyTestCase {
        @Test
        void decode(RolloutSession session) {
            assertThat(session.awaitResult().baseline()).isEmpty();
        }
    }

    @ProfiledRollout(numSteps = 6, activities = Activity.GPU)
    @SimulatedEngine(slowKernel = "BatchDecode", slowKernelFactor = 20)
    @RolloutLoad(concurrency = 4, requests = 16, inputTokens = 64, outputTokens = 16, warmupRequests = 1)
    static class RegressedTestCase {
        @Test
        void decode(RolloutSession session) {
            assertThat(session.awaitResult().baseline().orElseThrow()).totalKernelTimeWithin(0.05);
        }
    }

    @ProfiledRollout(numSteps = 6, activities = Activity.GPU)
    @SimulatedEngine(tpSize = 2)
    @RolloutLoad(concurrency = 2, requests = 16, inputTokens = 64, outputTokens = 16, warmupRequests = 1)
    static class OtherConfigurationTestCase {
        @Test
        void decode(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void should_refuse_a_baseline_recorded_with_another_configuration_naming_the_fields() throws Exception {
        // GIVEN a baseline recorded at TP 1
        run(HealthyTestCase.class, true).testEvents().assertStatistics(stats -> stats.succeeded(1));
        Path recorded = baselines.resolve("HealthyTestCase.decode.json");
        assertThat(ProfiledTestKit.JSON.readTree(recorded.toFile()).path("configuration").path("tp").asInt())
                .isEqualTo(1);
        // the block's fields, in the order baselines recorded before it was written from a record
        List<String> fields = new java.util.ArrayList<>();
        ProfiledTestKit.JSON.readTree(recorded.toFile()).path("configuration").fieldNames()
                .forEachRemaining(fields::add);
        assertThat(fields).containsExactly("backend", "model", "gpu", "tp", "dp", "pp", "ep", "inputTokens",
                "outputTokens", "concurrency", "requestRate", "numSteps");
        Files.copy(recorded, baselines.resolve("OtherConfigurationTestCase.decode.json"));

        // WHEN a run at TP 2 finds it (its other load is not a reason to refuse: steps are compared by kind)
        EngineExecutionResults results = run(OtherConfigurationTestCase.class, false);

        // THEN it is refused, not compared, naming the differing deployment field
        assertFailed(results, "decode", RuntimeException.class, m -> m.contains("recorded with another configuration")
                && m.contains("tp 1 in the baseline, 2 in this run")
                && !m.contains("concurrency") && !m.contains("model "));
        Path dir = output.resolve("BaselineExtensionTest$OtherConfigurationTestCase/decode");
        assertThat(summary(dir).has("baseline")).isFalse();
    }

    @Test
    void should_record_a_baseline_then_fail_a_regressed_run_against_it() throws Exception {
        // GIVEN a baseline recorded on the healthy engine
        run(HealthyTestCase.class, true).testEvents().assertStatistics(stats -> stats.succeeded(1));
        Path recorded = baselines.resolve("HealthyTestCase.decode.json");
        assertThat(recorded).isNotEmptyFile();
        Files.copy(recorded, baselines.resolve("RegressedTestCase.decode.json"));

        // WHEN the same test runs on an engine whose decode attention is 20x slower
        EngineExecutionResults results = run(RegressedTestCase.class, false);

        // THEN the comparison fails the budget, and the summary and report carry it
        assertFailed(results, "decode", AssertionError.class, m -> m.contains("kernel time") && m.contains("baseline"));
        Path dir = output.resolve("BaselineExtensionTest$RegressedTestCase/decode");
        JsonNode verdict = summary(dir).path("verdicts").get(0);
        assertThat(verdict.path("kind").asText()).isEqualTo("BASELINE");
        assertThat(verdict.path("measure").asText()).isEqualTo("total kernel time vs baseline");
        assertThat(verdict.path("relation").asText()).isEqualTo("±");
        assertThat(verdict.path("budget").asDouble()).isEqualTo(0.05);
        assertThat(verdict.path("outcome").asText()).isEqualTo("FAIL");
        assertThat(verdict.path("detail").asText()).contains("vs baseline").contains("largest changes: ");
        assertThat(summary(dir).path("outcome").path("status").asText()).isEqualTo("FAILED");
        assertThat(summary(dir).path("error").isNull()).isTrue();
        JsonNode baseline = summary(dir).path("baseline");
        assertThat(baseline.path("kernelTimeChange").asDouble()).isGreaterThan(0.05);
        // Which steps a window captures (prefills vs decodes) varies between runs, so kernel totals move with the
        // step mix; the time per launch of the slowed kernel does not.
        JsonNode decode = null;
        for (JsonNode k : baseline.path("kernels")) {
            if (k.path("name").asText().contains("BatchDecode")) {
                decode = k;
            }
        }
        assertThat(decode).as("BatchDecode among the largest changes: " + baseline.path("kernels")).isNotNull();
        double perLaunch = decode.path("totalNs").asDouble() / decode.path("count").asDouble();
        double basePerLaunch = decode.path("baseTotalNs").asDouble() / decode.path("baseCount").asDouble();
        assertThat(perLaunch / basePerLaunch).as("BatchDecode time per launch, run / baseline").isGreaterThan(5);
        assertThat(dir.resolve("charts/baseline-diff.png")).isNotEmptyFile();
    }

    private EngineExecutionResults run(Class<?> testCase, boolean update) {
        return ProfiledTestKit.run(testCase, output, "profiledrollout.baseline.dir", baselines.toString(),
                "profiledrollout.baseline.update", String.valueOf(update));
    }
}
