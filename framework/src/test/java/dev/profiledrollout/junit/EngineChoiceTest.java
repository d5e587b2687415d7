package dev.profiledrollout.junit;

import static dev.profiledrollout.junit.ProfiledTestKit.assertNoThreadsLeft;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.EngineProfile;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutEngine;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.engine.EngineTarget;
import dev.profiledrollout.engine.ManagedEngine;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.RouterSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * A test class chooses its engine: named engine profiles ({@code @EngineProfile}) and engines the class starts itself
 * ({@code @RolloutEngine EngineTarget}), several in one launcher run, and every configuration problem in one error.
 */
class EngineChoiceTest {

    @TempDir
    Path output;

    @TempDir
    Path vllmTraces;

    @ProfiledRollout(activities = Activity.GPU, numSteps = 2)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    @EngineProfile("sglang-a")
    static class SglangProfileTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void sglang(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @ProfiledRollout(backend = Backend.VLLM, activities = Activity.GPU, numSteps = 2)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    @EngineProfile("vllm-b")
    static class VllmProfileTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void vllm(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_profile_two_classes_of_one_run_each_against_the_engine_of_its_own_profile() throws Exception {
        // GIVEN an SGLang engine and a vLLM engine (max_iterations 2), each named by a profile
        try (EngineSimulator sglang = EngineSimulator.start(SimulatorConfig.builder().build());
                EngineSimulator vllm = EngineSimulator.start(SimulatorConfig.builder().backend("vllm")
                        .profilerConfig("{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + vllmTraces
                                + "\",\"max_iterations\":2}").build())) {
            Map<String, String> keys = new LinkedHashMap<>();
            keys.put("profiledrollout.profiles.sglang-a.engine", "attach");
            keys.put("profiledrollout.profiles.sglang-a.engine.url", sglang.baseUri().toString());
            keys.put("profiledrollout.profiles.vllm-b.engine", "attach");
            keys.put("profiledrollout.profiles.vllm-b.engine.url", vllm.baseUri().toString());
            keys.put("profiledrollout.profiles.vllm-b.trace.dir", vllmTraces.toString());
            keys.put("profiledrollout.profiles.vllm-b.vllm.max.iterations", "2");
            // a global engine that neither class uses: each profile names its whole deployment
            keys.put("profiledrollout.engine", "attach");
            keys.put("profiledrollout.router.url", "http://127.0.0.1:9");

            // WHEN both classes run in one launcher run
            EngineExecutionResults results = launch(keys, SglangProfileTestCase.class, VllmProfileTestCase.class);

            // THEN each was profiled against its own engine, with its own backend
            results.testEvents().assertStatistics(stats -> stats.succeeded(2).failed(0));
            assertThat(SglangProfileTestCase.RESULT.get().workers()).extracting(WorkerOutcome::url)
                    .containsExactly(sglang.baseUri());
            assertThat(SglangProfileTestCase.RESULT.get().trace().kernels()).isNotEmpty();
            assertThat(VllmProfileTestCase.RESULT.get().workers()).extracting(WorkerOutcome::url)
                    .containsExactly(vllm.baseUri());
            assertThat(VllmProfileTestCase.RESULT.get().trace().kernels()).isNotEmpty();
        }
        assertNoThreadsLeft();
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU, numSteps = 2)
    @RolloutLoad(concurrency = 1, requests = 2, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    @EngineProfile("engine-a")
    static class MethodProfilesTestCase {
        static final Map<String, List<URI>> PROFILED = new java.util.concurrent.ConcurrentHashMap<>();

        @Test
        void onA(RolloutSession session) {
            PROFILED.put("onA", session.awaitResult().workers().stream().map(WorkerOutcome::url).toList());
        }

        @Test
        @EngineProfile("engine-b")
        void onB(RolloutSession session) {
            PROFILED.put("onB", session.awaitResult().workers().stream().map(WorkerOutcome::url).toList());
        }

        @Test
        void onAAgain(RolloutSession session) {
            PROFILED.put("onAAgain", session.awaitResult().workers().stream().map(WorkerOutcome::url).toList());
        }
    }

    @Test
    void should_open_one_engine_per_chosen_profile_within_a_class() throws Exception {
        try (EngineSimulator a = EngineSimulator.start(SimulatorConfig.builder().build());
                EngineSimulator b = EngineSimulator.start(SimulatorConfig.builder().build())) {
            MethodProfilesTestCase.PROFILED.clear();

            launch(Map.of("profiledrollout.profiles.engine-a.engine", "attach",
                    "profiledrollout.profiles.engine-a.engine.url", a.baseUri().toString(),
                    "profiledrollout.profiles.engine-b.engine", "attach",
                    "profiledrollout.profiles.engine-b.engine.url", b.baseUri().toString()),
                    MethodProfilesTestCase.class).testEvents().assertStatistics(stats -> stats.succeeded(3));

            // the method's profile wins over the class's, and each profile keeps its own engine handle
            assertThat(MethodProfilesTestCase.PROFILED).containsEntry("onA", List.of(a.baseUri()))
                    .containsEntry("onB", List.of(b.baseUri())).containsEntry("onAAgain", List.of(a.baseUri()));
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU, numSteps = 2)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class RouterStandInTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();
        static final AtomicInteger CALLS = new AtomicInteger();
        static final AtomicReference<URI> ROUTER = new AtomicReference<>();

        @RolloutEngine
        static EngineTarget router() throws IOException {
            CALLS.incrementAndGet();
            RouterSimulator router = RouterSimulator.builder().workers(2).start();
            ROUTER.set(router.baseUri());
            return EngineTarget.router(router.baseUri()).closeAfterClass(router);
        }

        @Test
        void first(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }

        @Test
        void second(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(activities = Activity.GPU, numSteps = 2)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class EmbeddedTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void embedded(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_profile_a_router_the_class_started_itself_beside_an_embedded_class_in_one_run() {
        RouterStandInTestCase.CALLS.set(0);

        EngineExecutionResults results = launch(Map.of(), RouterStandInTestCase.class, EmbeddedTestCase.class);

        results.testEvents().assertStatistics(stats -> stats.succeeded(3).failed(0));
        // the stand-in was started once for the class, and both workers behind it were profiled
        assertThat(RouterStandInTestCase.CALLS).hasValue(1);
        assertThat(RouterStandInTestCase.RESULT.get().workers()).hasSize(2)
                .allSatisfy(w -> assertThat(w.state()).isEqualTo(WorkerOutcome.State.PROFILED));
        assertThat(summary(output.resolve("EngineChoiceTest$RouterStandInTestCase/first")).toString())
                .contains(RouterStandInTestCase.ROUTER.get().toString());
        // the other class ran on its own embedded simulator
        assertThat(EmbeddedTestCase.RESULT.get().workers()).singleElement()
                .satisfies(w -> assertThat(w.url()).isNotEqualTo(RouterStandInTestCase.ROUTER.get()));
        // the router (and its workers) were closed after the class
        assertNoThreadsLeft();
    }

    @Test
    void should_let_an_engine_named_by_the_run_replace_the_class_s_stand_in() throws Exception {
        RouterStandInTestCase.CALLS.set(0);
        try (EngineSimulator real = EngineSimulator.start(SimulatorConfig.builder().build())) {
            EngineExecutionResults results = launch(Map.of("profiledrollout.engine", "attach",
                    "profiledrollout.engine.url", real.baseUri().toString()), RouterStandInTestCase.class);

            results.testEvents().assertStatistics(stats -> stats.succeeded(2).failed(0));
            assertThat(RouterStandInTestCase.CALLS).as("stand-in method calls").hasValue(0);
            assertThat(RouterStandInTestCase.RESULT.get().workers()).extracting(WorkerOutcome::url)
                    .containsExactly(real.baseUri());
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    /** A {@link ManagedEngine} the extension starts and stops: the embedded simulator, as a container would be. */
    static final class SimulatorEngine implements ManagedEngine {
        private EngineSimulator simulator;
        final AtomicInteger starts = new AtomicInteger();

        @Override
        public Backend backend() {
            return Backend.SGLANG;
        }

        @Override
        public synchronized void start() {
            if (simulator == null) {
                try {
                    simulator = EngineSimulator.start(SimulatorConfig.builder().build());
                    starts.incrementAndGet();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        }

        @Override
        public synchronized boolean isRunning() {
            return simulator != null;
        }

        @Override
        public synchronized void stop() {
            if (simulator != null) {
                simulator.close();
                simulator = null;
            }
        }

        @Override
        public synchronized URI engineUri() {
            return simulator.baseUri();
        }

        @Override
        public Optional<TraceDirectory> traceDirectory() {
            return Optional.empty();
        }
    }

    @ProfiledRollout(activities = Activity.GPU, numSteps = 2)
    @RolloutLoad(concurrency = 1, requests = 2, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class ManagedEngineTestCase {
        @RolloutEngine
        static final SimulatorEngine ENGINE = new SimulatorEngine();
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void managed(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_start_a_managed_engine_field_unless_the_run_names_an_engine() throws Exception {
        ManagedEngineTestCase.ENGINE.starts.set(0);
        launch(Map.of(), ManagedEngineTestCase.class).testEvents().assertStatistics(stats -> stats.succeeded(1));
        assertThat(ManagedEngineTestCase.ENGINE.starts).hasValue(1);
        assertThat(ManagedEngineTestCase.ENGINE.isRunning()).as("stopped after the class").isFalse();

        try (EngineSimulator named = EngineSimulator.start(SimulatorConfig.builder().build())) {
            launch(Map.of("profiledrollout.engine", "attach", "profiledrollout.engine.url", named.baseUri().toString()),
                    ManagedEngineTestCase.class).testEvents().assertStatistics(stats -> stats.succeeded(1));
            assertThat(ManagedEngineTestCase.ENGINE.starts).as("not started again").hasValue(1);
            assertThat(ManagedEngineTestCase.RESULT.get().workers()).extracting(WorkerOutcome::url)
                    .containsExactly(named.baseUri());
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU)
    @EngineProfile("h100-typo")
    static class UnknownProfileTestCase {
        @Test
        void unknown(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void should_fail_an_unknown_profile_with_the_profiles_defined_and_the_fix() {
        String defined = "profiledrollout.profiles.h100-sglang.engine";
        System.setProperty(defined, "attach");
        try {
            EngineExecutionResults results = launch(Map.of("profiledrollout.profiles.other.engine", "embedded"),
                    UnknownProfileTestCase.class);

            assertThat(failure(results)).isInstanceOf(ExtensionConfigurationException.class)
                    .hasMessageContaining("@EngineProfile(\"h100-typo\") names no defined profile")
                    .hasMessageContaining("h100-sglang")
                    .hasMessageContaining("profiledrollout.profiles.h100-typo.engine=attach")
                    .hasMessageContaining("PROFILEDROLLOUT_PROFILES_H100_TYPO_ENGINE=attach")
                    .hasMessageContaining("optional = true");
        } finally {
            System.clearProperty(defined);
        }
        assertOnlyAnErrorReport(output.resolve("EngineChoiceTest$UnknownProfileTestCase"));
    }

    @ProfiledRollout(activities = Activity.GPU)
    @EngineProfile(value = "not-defined-here", optional = true)
    @RolloutLoad(concurrency = 1, requests = 2, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class OptionalProfileTestCase {
        static final AtomicInteger CALLS = new AtomicInteger();

        @RolloutEngine
        static EngineTarget engine() throws IOException {
            CALLS.incrementAndGet();
            EngineSimulator simulator = EngineSimulator.start(SimulatorConfig.builder().build());
            return EngineTarget.attach(simulator.baseUri()).closeAfterClass(simulator);
        }

        @Test
        void optional(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void should_run_an_optional_undefined_profile_on_the_class_s_own_engine() {
        OptionalProfileTestCase.CALLS.set(0);

        launch(Map.of(), OptionalProfileTestCase.class).testEvents()
                .assertStatistics(stats -> stats.succeeded(1).failed(0));

        assertThat(OptionalProfileTestCase.CALLS).hasValue(1);
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU, numSteps = -2)
    @RolloutLoad(concurrency = 0)
    static class ManyProblemsTestCase {
        @Test
        void many(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void should_report_every_invalid_key_and_attribute_in_one_error() {
        EngineExecutionResults results = launch(Map.of(
                "profiledrollout.engine", "attach",
                "profiledrollout.engine.url", "ftp://gpu-node:30000",
                "profiledrollout.read.timeout", "soon",
                "profiledrollout.engine.ranks", "0"), ManyProblemsTestCase.class);

        Throwable failure = failure(results);
        assertThat(failure).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageStartingWith("5 configuration problems");
        assertThat(failure.getMessage().lines().skip(1).toList()).satisfiesExactlyInAnyOrder(
                line -> assertThat(line).contains("@ProfiledRollout(numSteps = -2)").contains("positive number"),
                line -> assertThat(line).contains("@RolloutLoad(concurrency = 0)").contains("at least 1"),
                line -> assertThat(line).contains("profiledrollout.engine.url='ftp://gpu-node:30000'")
                        .contains("http(s) base URL"),
                line -> assertThat(line).contains("profiledrollout.read.timeout='soon'").contains("PT5M"),
                line -> assertThat(line).contains("profiledrollout.engine.ranks='0'").contains("integer ≥ 1"));
        assertOnlyAnErrorReport(output.resolve("EngineChoiceTest$ManyProblemsTestCase"));
    }

    @ProfiledRollout(activities = Activity.GPU)
    @EngineProfile("bad-urls")
    static class ProfileProblemsTestCase {
        @Test
        void profiled(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void should_name_the_profile_key_that_holds_an_invalid_value() throws IOException {
        Path missing = output.resolve("no-such-dir");
        EngineExecutionResults results = launch(Map.of(
                "profiledrollout.profiles.bad-urls.engine", "attach",
                "profiledrollout.profiles.bad-urls.router.url", "http://a:1,http://b:2",
                "profiledrollout.profiles.bad-urls.trace.dir", missing.toString(),
                "profiledrollout.trace.timeout", "0"), ProfileProblemsTestCase.class);

        assertThat(failure(results)).hasMessageStartingWith("3 configuration problems")
                .hasMessageContaining("profiledrollout.profiles.bad-urls.router.url='http://a:1,http://b:2'")
                .hasMessageContaining("profiledrollout.profiles.bad-urls.trace.dir='" + missing + "'")
                .hasMessageContaining("profiledrollout.trace.timeout='0': must be positive");
        assertThat(Files.exists(missing)).isFalse();
    }

    // ---------------------------------------------------------------------------------------------------------------

    private EngineExecutionResults launch(Map<String, String> keys, Class<?>... testCases) {
        Map<String, String> parameters = new LinkedHashMap<>(keys);
        parameters.put("profiledrollout.output.dir", output.toString());
        return EngineTestKit.engine("junit-jupiter")
                .selectors(List.of(testCases).stream().map(c -> selectClass(c)).toArray(
                        org.junit.platform.engine.DiscoverySelector[]::new))
                .configurationParameters(parameters).execute();
    }

    private static Throwable failure(EngineExecutionResults results) {
        List<Event> finished = results.testEvents().finished().list();
        assertThat(finished).as("finished tests").hasSize(1);
        return finished.get(0).getPayload(TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow();
    }

    /** Nothing was profiled: the class's output holds only the error report of each test (summary.json, report.html). */
    private static void assertOnlyAnErrorReport(Path classOutput) {
        try (java.util.stream.Stream<Path> files = Files.walk(classOutput)) {
            List<Path> summaries = files.filter(f -> f.getFileName().toString().equals("summary.json")).toList();
            assertThat(summaries).isNotEmpty().allSatisfy(summary -> {
                com.fasterxml.jackson.databind.JsonNode root = new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(summary.toFile());
                assertThat(root.path("outcome").path("status").asText()).isEqualTo("ERROR");
                assertThat(root.has("latency")).as("latency of a test that never started").isFalse();
                assertThat(summary.resolveSibling("traces")).doesNotExist();
            });
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
