package dev.profiledrollout.faults;

import static dev.profiledrollout.junit.ProfiledTestKit.assertProfilerStopped;
import static dev.profiledrollout.junit.ProfiledTestKit.attach;
import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;
import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.junit.Simulators;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.simulator.SimulatorFaults;
import dev.profiledrollout.simulator.SimulatorFaults.StreamFault;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fault matrix, test side: the body throws, an assertion fails inside the window, the load outlives its timeout, the
 * body is interrupted by a JUnit timeout. Each time the profiler is stopped, the load stopped and joined, and the
 * partial results written with the reason in {@code summary.json}.
 */
class WindowFaultsTest {

    @TempDir
    Path output;

    @RegisterExtension
    final Simulators simulators = new Simulators();

    @FaultCase
    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 8, inputTokens = 16, outputTokens = 32, warmupRequests = 0)
    static class FailingBodyTestCase {
        @Test
        void bodyThrows(RolloutSession session) {
            throw new IllegalStateException("boom in the body");
        }

        @Test
        void assertionFailsInsideTheWindow(RolloutSession session) {
            assertThat(session.engineUri().getPort()).as("a check before the result").isNegative();
        }
    }

    @Test
    void a_throwing_body_or_failed_assertion_is_reported_as_is_with_the_profiler_stopped_and_partials_written()
            throws Exception {
        URI engine = simulators.start(SimulatorConfig.builder()).baseUri();

        var events = attach(FailingBodyTestCase.class, output, engine).testEvents();

        events.assertStatistics(s -> s.started(2).failed(2));
        for (String test : new String[] {"bodyThrows", "assertionFailsInsideTheWindow"}) {
            Path dir = output.resolve("WindowFaultsTest$FailingBodyTestCase/" + test);
            assertThat(summary(dir).path("error").asText()).startsWith("test body failed");
            assertThat(dir.resolve("requests.jsonl")).exists();
        }
        assertThat(events.failed().list()).extracting(e -> e.getPayload(
                org.junit.platform.engine.TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow()
                .getClass().getSimpleName()).containsExactlyInAnyOrder("IllegalStateException", "AssertionError");
        assertProfilerStopped(engine, null);
    }

    @Test
    void a_load_that_outlives_its_timeout_is_cancelled_with_partial_results_and_the_key_to_raise() throws Exception {
        URI engine = simulators.start(SimulatorConfig.builder()
                .faults(SimulatorFaults.builder().stream(StreamFault.STALL, 2, 1).build())).baseUri();

        Throwable t = failure(attach(FaultCases.Profiled.class, output, engine,
                "profiledrollout.load.timeout", "1"));

        assertThat(t).hasMessageContaining("did not finish within PT1S").hasMessageContaining("profiler was stopped")
                .hasMessageContaining("profiledrollout.load.timeout");
        Path dir = output.resolve("FaultCases$Profiled/profiled");
        assertThat(Files.readString(dir.resolve("requests.jsonl"))).contains("CANCELLED");
        assertThat(summary(dir).path("error").asText()).contains("load did not finish");
        assertProfilerStopped(engine, null);
    }

    @FaultCase
    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 8, warmupRequests = 0)
    static class TimedOutTestCase {
        @Test
        @Timeout(value = 1, unit = TimeUnit.SECONDS)
        void timesOut(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void a_junit_timeout_interrupts_the_wait_and_still_stops_the_profiler_and_writes_partials() throws Exception {
        URI engine = simulators.start(SimulatorConfig.builder()
                .faults(SimulatorFaults.builder().stream(StreamFault.STALL, 2, 1).build())).baseUri();

        Throwable t = failure(attach(TimedOutTestCase.class, output, engine));

        assertThat(t).isInstanceOf(java.util.concurrent.TimeoutException.class).hasMessageContaining("timed out");
        Path dir = output.resolve("WindowFaultsTest$TimedOutTestCase/timesOut");
        assertThat(summary(dir).path("error").asText()).contains("interrupted while waiting for the load");
        assertThat(Files.readString(dir.resolve("requests.jsonl"))).contains("CANCELLED");
        assertProfilerStopped(engine, null);
    }
}
