package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.junit.ProfiledTestKit.assertFailed;
import static dev.profiledrollout.junit.ProfiledTestKit.attach;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.trace.TraceSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/** {@code backend = VLLM} through the extension, against {@link FakeEngines#vllm} ({@code docs/PROTOCOLS.md} §2). */
class VllmExtensionTest {

    @TempDir
    Path output;

    @TempDir
    Path profilerDir;

    @ProfiledRollout(backend = Backend.VLLM)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 4, warmupRequests = 1)
    static class VllmTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void vllm(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    private EngineExecutionResults run(Class<?> testCase, MockWebServer vllm, String... keyValues) {
        return attach(testCase, output, vllm.url("/").uri(), Stream.concat(
                Stream.of("profiledrollout.trace.dir", profilerDir.toString()), Stream.of(keyValues))
                .toArray(String[]::new));
    }

    @Test
    void should_profile_vllm_with_empty_bodies_and_read_every_naming_era() throws Exception {
        // GIVEN a stale file from an earlier window, and a server writing TP 4 ranks in three naming eras
        FakeEngines.write(profilerDir.resolve("dp0_pp0_tp0_dcp0_ep0_rank0.1000000000000000000.pt.trace.json.gz"),
                "dp0_pp0_tp0_dcp0_ep0_rank0.1000000000000000000.pt.trace.json.gz");
        try (MockWebServer vllm = FakeEngines.vllm(profilerDir, capture -> List.of(
                "dp0_pp0_tp0_dcp0_ep0_rank0.1773709742341309550.pt.trace.json.gz",
                "dp0_pp0_tp1_dcp0_ep0_rank1.1773709742343012345.pt.trace.json.gz",
                "abcde-rank-2.1773709742343012346.pt.trace.json.gz",
                "host3_4121.1773709742343012347.pt.trace.json.gz",
                "node7_4121.async_llm.1773709742351000000.pt.trace.json.gz",
                "profiler_out_0.txt"))) {
            // WHEN
            EngineExecutionResults results = run(VllmTestCase.class, vllm, "profiledrollout.engine.ranks", "4");

            // THEN
            results.testEvents().assertStatistics(stats -> stats.succeeded(1));
            RolloutResult result = VllmTestCase.RESULT.get();
            assertThat(result.latency().completed()).isEqualTo(4);
            assertThat(result.trace().traces()).hasSize(4);
            assertThat(result.trace().traces()).extracting(t -> t.rank().orElseThrow().tp())
                    .containsExactly(0, 1, 2, 3);
            assertThat(result.traceFiles()).extracting(p -> p.getFileName().toString())
                    .contains("host3_4121_rank3.1773709742343012347.pt.trace.json.gz")
                    .noneMatch(n -> n.contains("async_llm") || n.startsWith("dp0_pp0_tp0_dcp0_ep0_rank0.1000"));
            assertThat(result.frontendTraceFiles()).singleElement()
                    .satisfies(p -> assertThat(p.getFileName().toString()).contains(".async_llm."));
            Path dir = output.resolve("VllmExtensionTest$VllmTestCase/vllm");
            assertThat(dir.resolve("traces/profiler_out_0.txt")).exists();
            JsonNode summary = summary(dir);
            assertThat(summary.path("frontendTraceFiles")).hasSize(1);
            assertThat(summary.path("trace").path("ranks")).hasSize(4);
            assertThat(result.trace().traces()).allMatch(TraceSummary -> TraceSummary.kernelEvents() == 2);
            // start and stop carried no body
            assertThat(vllm.getRequestCount()).isGreaterThanOrEqualTo(6);
        }
    }

    @Test
    void should_fail_with_the_profiler_config_flag_when_vllm_answers_404() throws Exception {
        try (MockWebServer vllm = FakeEngines.vllm(null, capture -> List.of())) {
            EngineExecutionResults results = run(VllmTestCase.class, vllm);

            assertFailed(results, "vllm", ProfiledRolloutException.class,
                    m -> m.contains("answered 404 to POST /start_profile")
                            && m.contains("started without --profiler-config")
                            && m.contains("--profiler-config '{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/abs/dir\"}'"));
            JsonNode summary = summary(output.resolve("VllmExtensionTest$VllmTestCase/vllm"));
            assertThat(summary.path("workers").get(0).path("state").asText()).isEqualTo("START_FAILED");
            assertThat(summary.path("workers").get(0).path("httpStatus").asInt()).isEqualTo(404);
        }
    }

    @ProfiledRollout(backend = Backend.VLLM, numSteps = 5)
    @RolloutLoad(concurrency = 1, requests = 1, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class NumStepsTestCase {
        @Test
        void steps(RolloutSession session) {
        }
    }

    @Test
    void should_refuse_num_steps_that_the_vllm_server_was_not_started_with() throws Exception {
        try (MockWebServer vllm = FakeEngines.vllm(profilerDir, capture -> List.of())) {
            assertFailed(run(NumStepsTestCase.class, vllm), "steps", ExtensionConfigurationException.class,
                    m -> m.contains("max_iterations") && m.contains("profiledrollout.vllm.max.iterations=5"));
            assertFailed(run(NumStepsTestCase.class, vllm, "profiledrollout.vllm.max.iterations", "10"), "steps",
                    ExtensionConfigurationException.class, m -> m.contains("the server's max_iterations is 10"));
        }
    }

    @Test
    void should_name_the_trace_dir_key_when_vllm_has_none() throws Exception {
        try (MockWebServer vllm = FakeEngines.vllm(profilerDir, capture -> List.of())) {
            assertFailed(attach(VllmTestCase.class, output, vllm.url("/").uri()), "vllm",
                    ExtensionConfigurationException.class, m -> m.contains("profiledrollout.trace.dir"));
            try (Stream<Path> files = Files.list(profilerDir)) {
                assertThat(files).isEmpty();
            }
        }
    }
}
