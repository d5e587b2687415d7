package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.junit.ProfiledTestKit.assertFailed;
import static dev.profiledrollout.junit.ProfiledTestKit.attach;
import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.simulator.TrtllmEnvironment;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code backend = TRTLLM} through the extension ({@code docs/PROTOCOLS.md} §6): no profile request is sent; the
 * server captures the span of {@code TLLM_PROFILE_START_STOP} it was launched with, which the test states with
 * {@code profiledrollout.trtllm.profile.start.stop}, and writes one torch trace per rank when the span ends.
 */
class TrtllmExtensionTest {

    @TempDir
    Path output;

    @TempDir
    Path serverTraces;

    @ProfiledRollout(backend = Backend.TRTLLM, numSteps = 5)
    @RolloutLoad(concurrency = 2, requests = 6, inputTokens = 32, outputTokens = 12, warmupRequests = 0)
    static class SpanTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void span(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void the_embedded_trtllm_simulator_captures_the_configured_span_and_its_rank_traces_are_read() {
        // WHEN the embedded server is launched with TLLM_PROFILE_START_STOP=2-7
        ProfiledTestKit.run(SpanTestCase.class, output, "profiledrollout.trtllm.profile.start.stop", "2-7")
                .testEvents().assertStatistics(stats -> stats.succeeded(1));

        // THEN the one rank's torch trace, named as TensorRT-LLM names it, holds the span's kernels
        RolloutResult result = SpanTestCase.RESULT.get();
        assertThat(result.latency().completed()).isEqualTo(6);
        assertThat(result.traceFiles()).extracting(p -> p.getFileName().toString()).containsExactly("trtllm-rank-0.json");
        assertThat(result.trace().traces()).singleElement().satisfies(t -> {
            assertThat(t.kernelEvents()).isPositive();
            assertThat(t.rank().orElseThrow().tp()).isZero();
        });
        JsonNode summary = summary(output.resolve("TrtllmExtensionTest$SpanTestCase/span"));
        assertThat(summary.path("workers").get(0).path("state").asText()).isEqualTo("PROFILED");
    }

    @Test
    void an_attached_trtllm_server_is_profiled_through_its_launch_environment() throws Exception {
        // GIVEN trtllm-serve launched with TLLM_PROFILE_START_STOP=0-5 and a torch trace under serverTraces
        SimulatorConfig config = SimulatorConfig.builder().backend("trtllm").tpSize(2)
                .trtllmEnvironment(new TrtllmEnvironment("0-5", serverTraces.resolve("run.json"))).build();
        try (EngineSimulator server = EngineSimulator.start(config)) {
            // WHEN a test attaches, stating the span, the trace directory and the two ranks
            attachSpan(SpanTestCase.class, server.baseUri());

            // THEN both ranks' traces are collected and nothing was sent to a profile route
            RolloutResult result = SpanTestCase.RESULT.get();
            assertThat(result.traceFiles()).extracting(p -> p.getFileName().toString())
                    .containsExactlyInAnyOrder("run-rank-0.json", "run-rank-1.json");
            assertThat(server.requestCount("/start_profile")).isZero();
            assertThat(server.requestCount("/stop_profile")).isZero();
        }
    }

    private void attachSpan(Class<?> testCase, java.net.URI engine) {
        attach(testCase, output, engine, "profiledrollout.trtllm.profile.start.stop", "0-5",
                "profiledrollout.trace.dir", serverTraces.toString(), "profiledrollout.engine.ranks", "2")
                .testEvents().assertStatistics(stats -> stats.succeeded(1));
    }

    @Test
    void num_steps_must_match_the_span_the_server_was_launched_with() {
        assertFailed(ProfiledTestKit.run(SpanTestCase.class, output, "profiledrollout.trtllm.profile.start.stop",
                "2-9"), "span", ExtensionConfigurationException.class,
                m -> m.contains("captures 7 iterations") && m.contains("TLLM_PROFILE_START_STOP=2-7"));
        assertFailed(ProfiledTestKit.run(SpanTestCase.class, output), "span", ExtensionConfigurationException.class,
                m -> m.contains("profiledrollout.trtllm.profile.start.stop") && m.contains("0-5"));
        assertFailed(ProfiledTestKit.run(SpanTestCase.class, output, "profiledrollout.trtllm.profile.start.stop",
                "7-2"), "span", ExtensionConfigurationException.class, m -> m.contains("stop > start"));
    }

    @ProfiledRollout(backend = Backend.TRTLLM, numSteps = 5)
    @RolloutLoad(concurrency = 1, requests = 1, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class PastTheLoadTestCase {
        @Test
        void past(RolloutSession session) {
        }
    }

    @Test
    void a_span_past_the_load_fails_and_its_engine_has_no_data() {
        Throwable failure = failure(ProfiledTestKit.run(PastTheLoadTestCase.class, output,
                "profiledrollout.trtllm.profile.start.stop", "500-505", "profiledrollout.trace.timeout", "1"));

        assertThat(failure).hasMessageContaining("num_steps=5").hasMessageContaining("found 0");
        JsonNode summary = summary(output.resolve("TrtllmExtensionTest$PastTheLoadTestCase/past"));
        assertThat(summary.path("workers")).isNotEmpty()
                .allSatisfy(w -> assertThat(w.path("state").asText()).isEqualTo("NO_DATA"));
        assertThat(summary.path("outcome").path("status").asText()).isNotEqualTo("PASSED");
    }
}
