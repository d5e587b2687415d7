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
import dev.profiledrollout.report.MemoryAllureWriter;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import io.qameta.allure.Allure;
import io.qameta.allure.AllureLifecycle;
import io.qameta.allure.model.Attachment;
import io.qameta.allure.model.TestResult;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test that fails before any budget (no engine, a configuration error, a window that does not open) still leaves
 * {@code summary.json} with what it attempted, the error and an {@code ERROR} outcome, and {@code report.html}.
 */
class EarlyFailureReportTest {

    @TempDir
    Path output;

    @TempDir
    Path traces;

    @RegisterExtension
    final Simulators simulators = new Simulators();

    @ProfiledRollout(numSteps = 5)
    @RolloutLoad(concurrency = 2, requests = 7, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class SglangTestCase {
        @Test
        void profiled(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(backend = Backend.VLLM)
    @RolloutLoad(concurrency = 1, requests = 2, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class VllmTestCase {
        @Test
        void profiled(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout
    @RolloutPhase(phase = Phase.PREFILL, numSteps = 2, outputTokens = 1)
    @RolloutPhase(phase = Phase.DECODE, numSteps = 3)
    static class PhasedTestCase {
        @Test
        void profiled(RolloutSession session) {
            session.awaitResult();
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String report(Path dir) throws Exception {
        return Files.readString(dir.resolve("report.html"), StandardCharsets.UTF_8);
    }

    @Test
    void should_report_what_was_attempted_when_no_engine_listens() throws Exception {
        // GIVEN an engine URL, with credentials, on a port nobody listens on
        int port = freePort();
        URI engine = URI.create("http://user:secret@127.0.0.1:" + port + "/?token=abc");

        // WHEN
        Throwable failure = failure(attach(SglangTestCase.class, output, engine,
                "profiledrollout.connect.timeout", "1", "profiledrollout.health.timeout", "1"));

        // THEN
        assertThat(failure).isNotNull();
        Path dir = output.resolve("EarlyFailureReportTest$SglangTestCase/profiled");
        JsonNode summary = summary(dir);
        assertThat(summary.path("test").asText()).isEqualTo("SglangTestCase.profiled");
        JsonNode attempted = summary.path("attempted");
        assertThat(attempted.path("backend").asText()).isEqualTo("SGLANG");
        assertThat(attempted.path("engineKind").asText()).isEqualTo("attach");
        assertThat(attempted.path("urls")).hasSize(1);
        assertThat(attempted.path("urls").get(0).asText()).isEqualTo("http://127.0.0.1:" + port + "/");
        assertThat(attempted.path("num_steps").asInt()).isEqualTo(5);
        assertThat(attempted.has("numSteps")).as("one spelling of the step bound, profileRequest's").isFalse();
        assertThat(attempted.path("activities")).extracting(JsonNode::asText).containsExactly("CPU", "GPU");
        assertThat(attempted.path("phases")).isEmpty();
        assertThat(attempted.path("load").path("requests").asInt()).isEqualTo(7);
        String error = summary.path("error").asText();
        assertThat(error).contains("127.0.0.1:" + port).doesNotContain("secret").doesNotContain("token=abc");
        assertThat(summary.path("outcome").path("status").asText()).isEqualTo("ERROR");
        assertThat(summary.path("outcome").path("message").asText()).isEqualTo(error.lines().findFirst().orElseThrow());
        assertThat(summary.has("latency")).isFalse();
        assertThat(summary.has("trace")).isFalse();
        assertThat(report(dir)).contains("127.0.0.1:" + port);
    }

    @Test
    void should_name_the_phases_and_no_window_load_of_a_phased_test_whose_engine_is_unreachable() throws Exception {
        URI engine = URI.create("http://127.0.0.1:" + freePort());

        failure(attach(PhasedTestCase.class, output, engine, "profiledrollout.connect.timeout", "1",
                "profiledrollout.health.timeout", "1"));

        Path dir = output.resolve("EarlyFailureReportTest$PhasedTestCase/profiled");
        JsonNode attempted = summary(dir).path("attempted");
        assertThat(attempted.path("phases")).extracting(JsonNode::asText).containsExactly("PREFILL", "DECODE");
        assertThat(attempted.path("load").isNull()).isTrue();
        assertThat(dir.resolve("report.html")).exists();
    }

    @Test
    void should_attach_the_summary_of_a_failed_start_to_the_allure_test() throws Exception {
        // GIVEN an Allure test case running on this thread (EngineTestKit runs the nested test on it)
        MemoryAllureWriter writer = new MemoryAllureWriter();
        AllureLifecycle previous = Allure.getLifecycle();
        AllureLifecycle lifecycle = new AllureLifecycle(writer);
        Allure.setLifecycle(lifecycle);
        String uuid = UUID.randomUUID().toString();
        try {
            lifecycle.scheduleTestCase(new TestResult().setUuid(uuid).setName("outer"));
            lifecycle.startTestCase(uuid);
            // WHEN
            failure(run(SglangTestCase.class, output, "profiledrollout.trace.timeout", "soon"));
            lifecycle.stopTestCase(uuid);
            lifecycle.writeTestCase(uuid);
        } finally {
            Allure.setLifecycle(previous);
        }

        // THEN
        assertThat(writer.results()).singleElement().satisfies(r -> assertThat(r.getAttachments())
                .extracting(Attachment::getName).contains("summary.json"));
        assertThat(writer.attachments().values()).anySatisfy(bytes -> assertThat(
                new String(bytes, StandardCharsets.UTF_8)).contains("\"attempted\"")
                .contains("profiledrollout.trace.timeout='soon'"));
    }

    @Test
    void should_report_a_configuration_error_before_anything_starts() throws Exception {
        Throwable failure = failure(run(SglangTestCase.class, output, "profiledrollout.trace.timeout", "soon"));

        Path dir = output.resolve("EarlyFailureReportTest$SglangTestCase/profiled");
        JsonNode summary = summary(dir);
        assertThat(summary.path("error").asText()).isEqualTo(failure.getMessage())
                .contains("profiledrollout.trace.timeout='soon'");
        assertThat(summary.path("attempted").path("engineKind").asText()).isEqualTo("embedded");
        assertThat(summary.path("attempted").path("urls")).isEmpty();
        assertThat(summary.path("outcome").path("status").asText()).isEqualTo("ERROR");
        assertThat(report(dir)).contains("profiledrollout.trace.timeout=");
    }

    @Test
    void should_add_the_attempt_to_the_summary_of_a_window_that_did_not_open() throws Exception {
        // GIVEN a vLLM server started without a profiler config: /start_profile answers 404
        EngineSimulator vllm = simulators.start(SimulatorConfig.builder().backend("vllm"));

        // WHEN
        Throwable failure = failure(attach(VllmTestCase.class, output, vllm.baseUri(),
                "profiledrollout.trace.dir", traces.toString()));

        // THEN the window's own summary (per-engine outcome) gains what was attempted and the outcome
        Path dir = output.resolve("EarlyFailureReportTest$VllmTestCase/profiled");
        JsonNode summary = summary(dir);
        assertThat(summary.path("workers").get(0).path("state").asText()).isEqualTo("START_FAILED");
        assertThat(summary.path("attempted").path("backend").asText()).isEqualTo("VLLM");
        assertThat(summary.path("attempted").path("urls")).extracting(JsonNode::asText)
                .contains(vllm.baseUri().toString().replaceAll("/$", ""));
        assertThat(summary.path("error").asText()).isEqualTo("no engine started profiling");
        assertThat(summary.path("outcome").path("status").asText()).isEqualTo("ERROR");
        assertThat(summary.path("outcome").path("message").asText())
                .isEqualTo(failure.getMessage().lines().findFirst().orElseThrow()).contains("404");
        assertThat(report(dir)).contains("no engine started profiling");
    }
}
