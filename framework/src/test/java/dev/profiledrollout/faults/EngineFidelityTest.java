package dev.profiledrollout.faults;

import static dev.profiledrollout.junit.ProfiledTestKit.assertProfilerStopped;
import static dev.profiledrollout.junit.ProfiledTestKit.attach;
import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static dev.profiledrollout.junit.ProfiledTestKit.run;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.SimulatedEngine;
import dev.profiledrollout.junit.Simulators;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.simulator.SimulatorFaults;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The window against the simulator in the engines' less common shapes: an RPD capture, a DP group behind one SGLang
 * server (with a DP rank whose profiler fails unreported), a merged capture, and an engine that demands an API key.
 */
class EngineFidelityTest {

    @TempDir
    Path output;

    @RegisterExtension
    final Simulators simulators = new Simulators();

    private URI start(SimulatorConfig.Builder config) throws Exception {
        return simulators.start(config.profilerDir(output.resolve("server-default"))).baseUri();
    }

    private static List<String> names(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    @FaultCase
    @ProfiledRollout(activities = Activity.RPD)
    @SimulatedEngine(tpSize = 2)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 8, warmupRequests = 0)
    static class RpdTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void profiled(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void an_rpd_capture_completes_with_the_one_file_tp_rank_0_converts() throws Exception {
        run(RpdTestCase.class, output).testEvents().assertStatistics(s -> s.succeeded(1));

        RolloutResult result = RpdTestCase.RESULT.get();
        assertThat(result.traceFiles()).singleElement().extracting(p -> p.getFileName().toString()).asString()
                .matches("rpd-\\d+\\.\\d{7}-TP-0\\.trace\\.json\\.gz");
        assertThat(result.trace().kernelTotalNs()).isPositive();
        JsonNode summary = summary(output.resolve("EngineFidelityTest$RpdTestCase/profiled"));
        assertThat(summary.path("profileRequest").path("activities").toString()).isEqualTo("[\"RPD\"]");
    }

    // ---------------------------------------------------------------------------------------------------------------

    @FaultCase
    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 8, warmupRequests = 1)
    static class DpGroupTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void profiled(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void a_dp_group_behind_one_server_is_collected_rank_by_rank() throws Exception {
        URI uri = start(SimulatorConfig.builder().tpSize(2).dpSize(2).dpController(true));

        attach(DpGroupTestCase.class, output, uri).testEvents().assertStatistics(s -> s.succeeded(1));

        assertThat(DpGroupTestCase.RESULT.get().traceFiles()).extracting(p -> p.getFileName().toString()
                .replaceAll("^[^-]+-", "")).containsExactly("TP-0-DP-0.trace.json.gz", "TP-0-DP-1.trace.json.gz",
                "TP-1-DP-0.trace.json.gz", "TP-1-DP-1.trace.json.gz");
    }

    @Test
    void a_profiler_failing_unreported_on_dp_rank_1_fails_within_the_grace_and_keeps_rank_0s_files()
            throws Exception {
        URI uri = start(SimulatorConfig.builder().tpSize(2).dpSize(2).dpController(true)
                .faults(SimulatorFaults.builder().profilerFailsOnDpRank(1).build()));

        Throwable t = failure(attach(DpGroupTestCase.class, output, uri,
                "profiledrollout.trace.missing.grace", "0.5"));

        // the grace ended the wait, not the five-minute trace timeout
        assertThat(t).hasMessageContaining("The trace files of 2 rank(s) never appeared: DP 1 · TP 0 · PP 0 · EP 0,"
                        + " DP 1 · TP 1 · PP 0 · EP 0")
                .hasMessageContaining("profiler failed on a DP rank other than 0")
                .hasMessageContaining("DP rank 0's result only").hasMessageContaining("server log")
                .hasMessageContaining("profiledrollout.trace.missing.grace").hasMessageNotContaining("Waited");
        Path dir = output.resolve("EngineFidelityTest$DpGroupTestCase/profiled");
        assertThat(names(dir.resolve("traces"))).hasSize(2).allMatch(n -> n.endsWith("-DP-0.trace.json.gz"));
        JsonNode summary = summary(dir);
        assertThat(summary.path("error").asText()).contains("DP 1 · TP 0");
        assertThat(summary.path("trace").path("ranks")).as("the ranks that arrived are analysed").hasSize(2);
        assertThat(summary.path("latency").path("completed").asInt()).isEqualTo(4);
        assertProfilerStopped(uri, null);
    }

    // ---------------------------------------------------------------------------------------------------------------

    @FaultCase
    @ProfiledRollout(activities = Activity.GPU, mergeProfiles = true, profileId = "run_1")
    @SimulatedEngine(tpSize = 2)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 8, warmupRequests = 0)
    static class MergedTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void profiled(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void a_merged_capture_keeps_the_merged_file_and_analyses_the_rank_files() throws Exception {
        run(MergedTestCase.class, output).testEvents().assertStatistics(s -> s.succeeded(1));

        Path dir = output.resolve("EngineFidelityTest$MergedTestCase/profiled");
        assertThat(names(dir.resolve("traces"))).containsExactly("merged-run_1.trace.json.gz",
                "run_1-TP-0.trace.json.gz", "run_1-TP-1.trace.json.gz");
        assertThat(MergedTestCase.RESULT.get().trace().traces()).hasSize(2);
        JsonNode request = summary(dir).path("profileRequest");
        assertThat(request.path("merge_profiles").asBoolean()).isTrue();
        assertThat(request.path("profile_id").asText()).isEqualTo("run_1");
    }

    // ---------------------------------------------------------------------------------------------------------------

    @FaultCase
    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 8, warmupRequests = 1)
    static class SglangTestCase {
        @Test
        void profiled(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void the_api_key_setting_opens_an_sglang_simulator_started_with_one() throws Exception {
        URI uri = start(SimulatorConfig.builder().apiKey("sk-fidelity"));

        attach(SglangTestCase.class, output, uri, "profiledrollout.api.key", "sk-fidelity").testEvents()
                .assertStatistics(s -> s.succeeded(1));

        assertProfilerStopped(uri, "sk-fidelity");
    }

    @Test
    void the_api_key_setting_opens_a_vllm_simulator_started_with_one() throws Exception {
        Path traces = Files.createDirectories(output.resolve("vllm-traces"));
        URI uri = start(SimulatorConfig.builder().backend("vllm").apiKey("sk-fidelity")
                .profilerConfig("{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + traces + "\"}"));

        attach(FaultCases.Vllm.class, output, uri, "profiledrollout.api.key", "sk-fidelity",
                "profiledrollout.trace.dir", traces.toString()).testEvents().assertStatistics(s -> s.succeeded(1));
    }
}
