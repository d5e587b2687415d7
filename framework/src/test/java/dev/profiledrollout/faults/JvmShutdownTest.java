package dev.profiledrollout.faults;

import static dev.profiledrollout.junit.ProfiledTestKit.assertProfilerStopped;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fault matrix, JVM side: the test JVM is stopped mid-window (an IDE's stop button, a cancelled CI job, a build tool
 * ending its fork). The profiled test runs in a JVM of its own ({@link ForkedRun}) attached to a simulator in this
 * one, and gets SIGTERM while the engine is profiling with no {@code num_steps} to end the capture by itself.
 */
class JvmShutdownTest {

    @TempDir
    Path output;

    @FaultCase
    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 5000, inputTokens = 16, outputTokens = 64, warmupRequests = 0)
    static class LongLoadTestCase {
        @Test
        void longLoad(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void sigterm_mid_window_stops_the_attached_engine_and_writes_the_partial_summary() throws Exception {
        try (EngineSimulator engine = EngineSimulator.start(SimulatorConfig.builder().build())) {
            Path log = output.resolve("fork.log");
            Process fork = new ProcessBuilder(java(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", testClassPath(),
                    ForkedRun.class.getName(), LongLoadTestCase.class.getName(), output.toString(),
                    "profiledrollout.engine", "attach", "profiledrollout.engine.url", engine.baseUri().toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                // GIVEN the forked test is inside its window: the engine profiles and has served some of the load
                long served = engine.finishedRequests();
                // a hang guard for a slow machine, not a timing check
                await().atMost(Duration.ofMinutes(2)).until(() -> !fork.isAlive()
                        || engine.profiling() && engine.finishedRequests() >= served + 20);
                assertThat(fork.isAlive()).as("the forked test is still running; its output:\n%s", read(log)).isTrue();
                assertThat(engine.profiling()).isTrue();

                // WHEN the JVM gets SIGTERM (Process.destroy on Linux)
                fork.destroy();

                // THEN it exits after its shutdown hook ran
                assertThat(fork.waitFor(2, TimeUnit.MINUTES)).as("the fork exited").isTrue();
            } finally {
                fork.destroyForcibly();
            }
            String forkOutput = read(log);
            assertThat(forkOutput).contains("The JVM is stopping with 1 profile window(s) open");

            // the engine is no longer profiling and wrote the capture
            assertThat(engine.profiling()).as("engine still profiling; fork output:\n%s", forkOutput).isFalse();
            assertProfilerStopped(engine.baseUri(), null);
            Path dir = output.resolve("JvmShutdownTest$LongLoadTestCase/longLoad");
            try (Stream<Path> files = Files.list(dir.resolve("traces"))) {
                assertThat(files.map(p -> p.getFileName().toString()).collect(Collectors.toList()))
                        .anyMatch(n -> n.endsWith("-TP-0.trace.json.gz"));
            }

            // and the partial results say what happened
            JsonNode summary = summary(dir);
            assertThat(summary.path("error").asText()).as("fork output:\n%s", forkOutput)
                    .startsWith("the JVM was stopped mid-window").contains("the load was cancelled")
                    .contains(engine.baseUri().toString()).contains("PROFILED (STOPPED)");
            assertThat(summary.path("workers")).singleElement().satisfies(w -> {
                assertThat(w.path("state").asText()).isEqualTo("PROFILED");
                assertThat(w.path("stopOutcome").asText()).isEqualTo("STOPPED");
            });
            assertThat(summary.at("/latency/completed").asLong()).isPositive();
            assertThat(Files.readAllLines(dir.resolve("requests.jsonl")))
                    .hasSize(summary.at("/latency/completed").asInt() + summary.at("/latency/failed").asInt());
        }
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Surefire runs tests from a manifest-only jar; that jar's Class-Path is the test class path. */
    private static String testClassPath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
