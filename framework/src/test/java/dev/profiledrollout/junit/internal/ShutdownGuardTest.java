package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.junit.ProfiledTestKit.attach;
import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static dev.profiledrollout.junit.ProfiledTestKit.run;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.simulator.SimulatorFaults;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shutdown hook's bookkeeping in this JVM, without stopping it: the hook is registered only while a window is
 * open, and a capture ended by the hook's work ({@link EmergencyStop#stopForShutdown(long)}) while the test's own thread
 * completes the same window leaves the engine stopped and the hook's partial summary in place. Stopping a real JVM
 * is {@code faults.JvmShutdownTest}.
 */
class ShutdownGuardTest {

    private static final AtomicReference<EngineSimulator> ENGINE = new AtomicReference<>();

    @TempDir
    Path output;

    private EngineSimulator engine;

    @AfterEach
    void closeEngine() {
        if (engine != null) {
            engine.close();
        }
        ENGINE.set(null);
    }

    /** Enables the nested test cases only inside EngineTestKit, which passes the output directory. */
    static final class OnlyInTestKit implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getConfigurationParameter(ProfiledRolloutKeys.OUTPUT_DIR).isPresent()
                    ? ConditionEvaluationResult.enabled("run by ShutdownGuardTest")
                    : ConditionEvaluationResult.disabled("a ShutdownGuardTest case; runs only inside EngineTestKit");
        }
    }

    @ExtendWith(OnlyInTestKit.class)
    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 8, warmupRequests = 0)
    static class ShortTestCase {
        static final AtomicBoolean HOOK_DURING = new AtomicBoolean();
        static final AtomicInteger OPEN_DURING = new AtomicInteger();

        @Test
        void completes(RolloutSession session) {
            HOOK_DURING.set(ShutdownGuard.hookRegistered());
            OPEN_DURING.set(ShutdownGuard.open().size());
            session.awaitResult();
        }
    }

    @Test
    void the_hook_is_registered_only_while_a_window_is_open() throws Exception {
        engine = EngineSimulator.start(SimulatorConfig.builder().build());
        assertThat(ShutdownGuard.hookRegistered()).isFalse();

        run(ShortTestCase.class, output).testEvents().assertStatistics(s -> s.succeeded(1));

        assertThat(ShortTestCase.HOOK_DURING).isTrue();
        assertThat(ShortTestCase.OPEN_DURING).hasValue(1);
        assertThat(ShutdownGuard.open()).isEmpty();
        assertThat(ShutdownGuard.hookRegistered()).isFalse();
    }

    @ExtendWith(OnlyInTestKit.class)
    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 5000, inputTokens = 16, outputTokens = 64, warmupRequests = 0)
    static class RaceTestCase {
        @Test
        void hookStopsWhileTheTestAwaits(RolloutSession session) throws InterruptedException {
            raceTheHook(session);
        }
    }

    @ExtendWith(OnlyInTestKit.class)
    @ProfiledRollout(backend = Backend.VLLM)
    @RolloutLoad(concurrency = 4, requests = 5000, inputTokens = 16, outputTokens = 64, warmupRequests = 0)
    static class VllmRaceTestCase {
        @Test
        void hookStopsWhileTheTestAwaits(RolloutSession session) throws InterruptedException {
            raceTheHook(session);
        }
    }

    /** Once the engine profiles and served some load, runs the hook's work on its own thread while awaiting. */
    private static void raceTheHook(RolloutSession session) throws InterruptedException {
        EngineSimulator sim = ENGINE.get();
        long served = sim.finishedRequests();
        // a hang guard, not a timing check
        await().atMost(Duration.ofMinutes(2)).until(() -> sim.profiling() && sim.finishedRequests() >= served + 10);
        List<EmergencyStop> open = ShutdownGuard.open();
        assertThat(open).hasSize(1);
        Thread hook = new Thread(() -> open.get(0).stopForShutdown(
                System.nanoTime() + open.get(0).shutdownTimeout().toNanos()), "test-shutdown-hook");
        hook.start();
        try {
            session.awaitResult(); // returns once the hook cancelled the load, racing it to the stop
        } finally {
            hook.join();
        }
    }

    @Test
    void a_window_ended_by_the_hook_while_the_test_awaits_it_is_stopped_and_keeps_the_hooks_partial_summary()
            throws Exception {
        engine = EngineSimulator.start(SimulatorConfig.builder().build());
        ENGINE.set(engine);

        Throwable t = failure(attach(RaceTestCase.class, output, engine.baseUri()));

        assertThat(t).hasMessageContaining("The JVM is shutting down").hasMessageContaining("shutdown hook");
        assertThat(engine.profiling()).isFalse();
        JsonNode summary = summary(output.resolve("ShutdownGuardTest$RaceTestCase/hookStopsWhileTheTestAwaits"));
        assertThat(summary.path("error").asText()).startsWith("the JVM was stopped mid-window")
                .contains("PROFILED (STOPPED)");
        assertThat(summary.path("workers")).singleElement()
                .satisfies(w -> assertThat(w.path("stopOutcome").asText()).isEqualTo("STOPPED"));
        assertThat(ShutdownGuard.open()).isEmpty();
        assertThat(ShutdownGuard.hookRegistered()).isFalse();
        assertThat(Thread.getAllStackTraces().keySet()).filteredOn(Thread::isAlive)
                .extracting(Thread::getName).noneMatch(n -> n.startsWith("profiledrollout-"));
    }

    @Test
    void an_attached_vllm_engine_is_stopped_by_the_hook_too_and_writes_its_traces() throws Exception {
        Path profilerDir = Files.createDirectories(output.resolve("vllm-profiles"));
        engine = EngineSimulator.start(SimulatorConfig.builder().backend("vllm").profilerConfig(
                "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + profilerDir + "\"}").build());
        ENGINE.set(engine);

        Throwable t = failure(attach(VllmRaceTestCase.class, output, engine.baseUri(), ProfiledRolloutKeys.TRACE_DIR,
                profilerDir.toString()));

        assertThat(t).hasMessageContaining("The JVM is shutting down");
        assertThat(engine.profiling()).isFalse();
        try (Stream<Path> files = Files.list(profilerDir)) {
            assertThat(files.map(p -> p.getFileName().toString())).anyMatch(n -> n.contains(".pt.trace.json"));
        }
        JsonNode summary = summary(output.resolve("ShutdownGuardTest$VllmRaceTestCase/hookStopsWhileTheTestAwaits"));
        assertThat(summary.path("error").asText()).startsWith("the JVM was stopped mid-window")
                .contains("PROFILED (STOPPED)");
        assertThat(ShutdownGuard.hookRegistered()).isFalse();
    }

    /**
     * An engine whose {@code /stop_profile} answers only after the hook's bound (it is still exporting, 12 s here
     * against a bound of 3 s) was sent the stop: {@code STOP_REQUESTED}, not {@code STOP_FAILED}.
     */
    @Test
    void a_stop_sent_but_not_answered_before_the_jvm_exits_is_reported_as_requested_not_failed() throws Exception {
        engine = EngineSimulator.start(SimulatorConfig.builder().faults(
                SimulatorFaults.builder().stopProfileDelay(Duration.ofSeconds(12)).build()).build());
        ENGINE.set(engine);

        failure(attach(RaceTestCase.class, output, engine.baseUri(), ProfiledRolloutKeys.SHUTDOWN_TIMEOUT, "3"));

        JsonNode summary = summary(output.resolve("ShutdownGuardTest$RaceTestCase/hookStopsWhileTheTestAwaits"));
        assertThat(summary.path("error").asText()).startsWith("the JVM was stopped mid-window")
                .contains("STOP_REQUESTED").contains("stop requested; the engine was still exporting when the JVM "
                        + "exited").doesNotContain("STOP_FAILED").doesNotContain("may still be profiling");
        assertThat(summary.path("workers")).singleElement()
                .satisfies(w -> assertThat(w.path("state").asText()).isEqualTo("STOP_REQUESTED"));
    }
}
