package dev.profiledrollout.faults;

import static dev.profiledrollout.junit.ProfiledTestKit.assertProfilerStopped;
import static dev.profiledrollout.junit.ProfiledTestKit.attach;
import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static dev.profiledrollout.junit.ProfiledTestKit.stopProfile;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;
import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.junit.Simulators;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.simulator.SimulatorFaults;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fault matrix, profiler side: {@code /start_profile} and {@code /stop_profile} failures and trace files that are
 * missing, late, slow or damaged. Each run ends with a clear result, the profiler stopped and no thread left.
 */
class ProfilerFaultsTest {

    @TempDir
    Path output;

    @RegisterExtension
    final Simulators simulators = new Simulators();

    private URI start(SimulatorFaults faults) throws Exception {
        return start(SimulatorConfig.builder().faults(faults));
    }

    private URI start(SimulatorConfig.Builder config) throws Exception {
        return simulators.start(config).baseUri();
    }

    @FaultCase
    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 8, warmupRequests = 1)
    static class ProfiledTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void profiled(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void start_profile_404_names_the_missing_profiler_setup() throws Exception {
        URI uri = start(SimulatorConfig.builder().failStartProfile(404));

        Throwable t = failure(attach(ProfiledTestCase.class, output, uri));

        assertThat(t).hasMessageContaining("404").hasMessageContaining("no such route");
        assertThat(summary(output.resolve("ProfilerFaultsTest$ProfiledTestCase/profiled"))
                .path("error").asText()).contains("no engine started profiling");
        assertProfilerStopped(uri, null);
    }

    @Test
    void vllm_without_a_profiler_config_answers_404_and_the_message_names_profiler_config() throws Exception {
        URI uri = start(SimulatorConfig.builder().backend("vllm"));
        java.nio.file.Files.createDirectories(output.resolve("vllm-traces"));

        Throwable t = failure(attach(FaultCases.Vllm.class, output, uri, "profiledrollout.trace.dir",
                output.resolve("vllm-traces").toString()));

        assertThat(t).hasMessageContaining("404").hasMessageContaining("--profiler-config");
    }

    @Test
    void start_profile_500_says_already_in_progress_and_leaves_the_other_capture_alone() throws Exception {
        URI uri = start(SimulatorFaults.NONE);
        HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri.resolve("/start_profile"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"activities\":[\"GPU\"],\"output_dir\":\""
                        + output.resolve("someone-else") + "\"}")).header("Content-Type", "application/json").build(),
                HttpResponse.BodyHandlers.discarding());

        Throwable t = failure(attach(ProfiledTestCase.class, output, uri));

        assertThat(t).hasMessageContaining("500").hasMessageContaining("already in progress")
                .hasMessageContaining("/stop_profile");
        // the foreign capture was not ours to stop; stopping it now succeeds, a second stop finds nothing
        assertThat(stopProfile(uri, null)).isEqualTo(200);
        assertProfilerStopped(uri, null);
    }

    @Test
    void a_401_names_the_api_key_setting() throws Exception {
        URI uri = start(SimulatorFaults.builder().apiKey("sk-expected-key").build());

        Throwable t = failure(attach(ProfiledTestCase.class, output, uri));

        assertThat(t).hasMessageContaining("401").hasMessageContaining("profiledrollout.api.key")
                .hasMessageNotContaining("sk-expected-key");
        assertProfilerStopped(uri, "sk-expected-key");
    }

    @Test
    void a_stop_slower_than_its_timeout_fails_clearly_and_the_profiler_still_ends() throws Exception {
        URI uri = start(SimulatorFaults.builder().stopProfileDelay(Duration.ofSeconds(3)).build());

        Throwable t = failure(attach(ProfiledTestCase.class, output, uri, "profiledrollout.stop.timeout", "1"));

        assertThat(t).hasMessageContaining("/stop_profile failed on every profiled engine")
                .hasMessageContaining("did not answer within").hasMessageContaining("profiledrollout.stop.timeout");
        assertThat(summary(output.resolve("ProfilerFaultsTest$ProfiledTestCase/profiled"))
                .path("error").asText()).contains("/stop_profile failed");
        // the server finishes the slow stop on its own; a stop after it finds nothing in progress
        assertProfilerStopped(uri, null);
    }

    @Test
    void traces_that_never_appear_say_the_steps_were_not_reached_and_suggest_the_fix() throws Exception {
        URI uri = start(SimulatorFaults.NONE);

        Throwable t = failure(attach(FaultCases.StepsNeverReached.class, output, uri,
                "profiledrollout.trace.timeout", "1"));

        assertThat(t).hasMessageContaining("Waited PT1S for 1 trace file(s)")
                .hasMessageContaining("num_steps=5 from start_step=1000000")
                .hasMessageContaining("lower numSteps/startStep or raise @RolloutLoad(requests)")
                .hasMessageContaining("profiledrollout.trace.timeout");
        assertProfilerStopped(uri, null);
    }

    @Test
    void late_and_slowly_growing_traces_are_still_collected_complete() throws Exception {
        URI uri = start(SimulatorFaults.builder().traceExportDelay(Duration.ofMillis(800))
                .traceGrowth(Duration.ofSeconds(2)).build());

        attach(ProfiledTestCase.class, output, uri).testEvents().assertStatistics(s -> s.succeeded(1));

        RolloutResult result = ProfiledTestCase.RESULT.get();
        assertThat(result.traceFiles()).hasSize(1);
        assertThat(result.trace().traces().get(0).warnings()).isEmpty();
        assertThat(result.trace().kernelTotalNs()).isPositive();
        assertProfilerStopped(uri, null);
    }

    @Test
    void a_truncated_trace_gives_a_partial_result_flagged_with_a_warning() throws Exception {
        URI uri = start(SimulatorFaults.builder().corruptTraces(true).build());

        attach(ProfiledTestCase.class, output, uri).testEvents().assertStatistics(s -> s.succeeded(1));

        RolloutResult result = ProfiledTestCase.RESULT.get();
        assertThat(result.trace().traces()).hasSize(1);
        assertThat(result.trace().traces().get(0).warnings()).singleElement().asString()
                .contains("truncated or damaged");
        assertThat(summary(output.resolve("ProfilerFaultsTest$ProfiledTestCase/profiled"))
                .path("trace").toString()).contains("truncated or damaged");
        assertProfilerStopped(uri, null);
    }
}
