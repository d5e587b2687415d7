package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.matching;
import static dev.profiledrollout.junit.ProfiledTestKit.assertFailed;
import static dev.profiledrollout.junit.ProfiledTestKit.assertNoThreadsLeft;
import static dev.profiledrollout.junit.ProfiledTestKit.assertProfilerStopped;
import static dev.profiledrollout.junit.ProfiledTestKit.attach;
import static dev.profiledrollout.junit.ProfiledTestKit.run;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.SimulatedEngine;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * The extension end to end against the embedded simulator, run through {@link EngineTestKit}: each nested
 * {@code …TestCase} is a user's test class, and these tests assert on its outcome and on what it left on disk.
 */
class ProfiledRolloutExtensionTest {

    @TempDir
    Path output;

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(numSteps = 4, activities = {Activity.GPU, Activity.CPU})
    @RolloutLoad(concurrency = 4, requests = 8, inputTokens = 64, outputTokens = 8, warmupRequests = 1)
    static class PassingTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void profiled(RolloutSession session) {
            RolloutResult result = session.awaitResult();
            RESULT.set(result);
            assertThat(session.awaitResult()).isSameAs(result);
        }
    }

    @Test
    void should_run_the_window_and_leave_traces_histograms_and_a_summary() throws IOException {
        // WHEN
        EngineExecutionResults results = run(PassingTestCase.class, output);

        // THEN
        results.testEvents().assertStatistics(stats -> stats.started(1).succeeded(1).failed(0));
        RolloutResult result = PassingTestCase.RESULT.get();
        Path dir = output.resolve("ProfiledRolloutExtensionTest$PassingTestCase").resolve("profiled");
        assertThat(result.outputDirectory()).isEqualTo(dir);
        assertThat(result.latency().completed()).isEqualTo(8);
        assertThat(result.latency().outputTokens()).isEqualTo(8 * 8);
        assertThat(result.latency().ttft().count()).isEqualTo(8);
        assertThat(result.traceFiles()).hasSize(1);
        assertThat(result.traceFiles().get(0)).hasParent(dir.resolve("traces"));
        assertThat(result.traceFiles().get(0).getFileName().toString()).matches(".+-TP-0\\.trace\\.json\\.gz");
        assertThat(result.trace()).kernels(matching(".*")).count().isGreaterThan(0);
        assertThat(dir.resolve("requests.jsonl")).exists();
        assertThat(Files.readAllLines(dir.resolve("requests.jsonl"))).hasSize(8);
        assertThat(dir.resolve("latency.hlog")).isNotEmptyFile();
        JsonNode summary = summary(dir);
        assertThat(summary.path("engine").path("kind").asText()).isEqualTo("simulator");
        assertThat(summary.path("profileRequest").path("num_steps").asInt()).isEqualTo(4);
        // SGLang's defaults (activities CPU+GPU, with_stack, record_shapes) are left to the server
        assertThat(summary.path("profileRequest").fieldNames()).toIterable()
                .containsExactlyInAnyOrder("output_dir", "num_steps");
        assertThat(summary.path("latency").path("completed").asInt()).isEqualTo(8);
        assertThat(summary.path("trace").path("ranks")).hasSize(1);
        assertThat(summary.path("error").isNull()).isTrue();
        assertThat(summary.path("outcome").path("status").asText()).isEqualTo("PASSED");
        assertThat(summary.path("outcome").path("message").asText()).isEmpty();
        assertNoThreadsLeft();
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(numSteps = 6, activities = Activity.GPU)
    @SimulatedEngine(tpSize = 2, slowKernel = "BatchDecode", slowKernelFactor = 30)
    @RolloutLoad(concurrency = 4, requests = 8, inputTokens = 64, outputTokens = 16, warmupRequests = 0)
    static class MissedBudgetTestCase {
        @Test
        void attentionBudget(RolloutSession session) {
            assertThat(session.awaitResult().trace()).kernels(matching(".*BatchDecode.*")).share().isLessThan(0.05);
        }
    }

    @Test
    void should_fail_a_missed_kernel_budget_with_kernel_actual_and_budget_in_the_message() {
        // WHEN
        EngineExecutionResults results = run(MissedBudgetTestCase.class, output);

        // THEN
        results.testEvents().assertStatistics(stats -> stats.started(1).failed(1));
        assertFailed(results, "attentionBudget", AssertionError.class,
                m -> m.startsWith("1 of 1 budgets failed: GPU kernel-time share of kernels matching /.*BatchDecode.*/\n"
                        + "  1) GPU kernel-time share of kernels matching "
                        + "/.*BatchDecode.*/ was ")
                        && m.contains("budget < 5.0% (+")
                        && m.contains("kernel time in"));
        Path traces = output.resolve("ProfiledRolloutExtensionTest$MissedBudgetTestCase/attentionBudget/traces");
        assertThat(traces.toFile().list()).hasSize(2);
        assertNoThreadsLeft();
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout
    @RolloutLoad(concurrency = 2, requests = 6, inputTokens = 32, outputTokens = 32, warmupRequests = 0)
    static class ThrowingBodyTestCase {
        @Test
        void bodyThrows(RolloutSession session) {
            throw new IllegalStateException("boom in the body");
        }
    }

    @Test
    void should_stop_the_profiler_and_keep_partial_results_when_the_body_throws() throws IOException {
        // WHEN
        EngineExecutionResults results = run(ThrowingBodyTestCase.class, output);

        // THEN the body's own exception is what the test reports
        assertFailed(results, "bodyThrows", IllegalStateException.class, m -> m.equals("boom in the body"));
        Path dir = output.resolve("ProfiledRolloutExtensionTest$ThrowingBodyTestCase/bodyThrows");
        assertThat(summary(dir).path("error").asText()).contains("test body failed").contains("boom in the body");
        assertThat(dir.resolve("requests.jsonl")).exists();
        // the stop made the simulator export the capture it was running
        assertThat(dir.resolve("traces").toFile().list()).hasSize(1);
        assertNoThreadsLeft();
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(numSteps = -1)
    static class InvalidAnnotationTestCase {
        @Test
        void never(RolloutSession session) {
        }
    }

    @Test
    void should_reject_invalid_attributes_before_starting_anything() {
        EngineExecutionResults results = run(InvalidAnnotationTestCase.class, output);

        assertFailed(results, "never", ExtensionConfigurationException.class,
                m -> m.contains("@ProfiledRollout(numSteps = -1) is invalid"));
        // nothing ran: the test's directory holds only the report of the error
        Path dir = output.resolve("ProfiledRolloutExtensionTest$InvalidAnnotationTestCase/never");
        assertThat(summary(dir).path("outcome").path("status").asText()).isEqualTo("ERROR");
        assertThat(summary(dir).path("error").asText()).contains("@ProfiledRollout(numSteps = -1) is invalid");
        assertThat(dir.resolve("requests.jsonl")).doesNotExist();
        assertThat(dir.resolve("traces")).doesNotExist();
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 3, requests = 5, inputTokens = 16, outputTokens = 4, warmupRequests = 1)
    static class NoSessionParameterTestCase {
        @Test
        void bodyIgnoresTheSession() {
        }
    }

    @Test
    void should_complete_the_window_after_a_body_that_never_asks_for_the_result() throws IOException {
        run(NoSessionParameterTestCase.class, output).testEvents().assertStatistics(stats -> stats.succeeded(1));

        JsonNode summary = summary(output
                .resolve("ProfiledRolloutExtensionTest$NoSessionParameterTestCase/bodyIgnoresTheSession"));
        assertThat(summary.path("latency").path("completed").asInt()).isEqualTo(5);
        assertThat(summary.path("trace").path("ranks").get(0).path("kernelEvents").asLong()).isPositive();
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(numSteps = 3, activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 8, warmupRequests = 0)
    static class AttachTestCase {
        static final AtomicReference<URI> ENGINE = new AtomicReference<>();

        @Test
        void attached(RolloutSession session) {
            ENGINE.set(session.engineUri());
            assertThat(session.awaitResult().latency().completed()).isEqualTo(4);
        }
    }

    @Test
    void should_attach_to_a_running_engine_given_its_url() throws Exception {
        try (EngineSimulator engine = EngineSimulator.start(SimulatorConfig.builder().build())) {
            long before = engine.forwardCount();

            EngineExecutionResults results = attach(AttachTestCase.class, output, engine.baseUri());

            results.testEvents().assertStatistics(stats -> stats.succeeded(1));
            assertThat(AttachTestCase.ENGINE.get()).isEqualTo(engine.baseUri());
            assertThat(engine.forwardCount()).isGreaterThan(before);
            assertProfilerStopped(engine.baseUri(), null);
        }
    }

    @Test
    void should_name_the_key_to_set_when_attach_has_no_url() {
        EngineExecutionResults results = run(AttachTestCase.class, output, "profiledrollout.engine", "attach");

        assertFailed(results, "attached", ExtensionConfigurationException.class,
                m -> m.contains("profiledrollout.engine.url"));
    }
}
