package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static dev.profiledrollout.junit.ProfiledTestKit.run;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.RolloutSweep;
import dev.profiledrollout.SimulatedEngine;
import dev.profiledrollout.report.ResultsModule;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * {@code @RolloutSweep(windowPerStage = true)}: each stage in its own profile window, with its own traces, kernel
 * summary and report, against the embedded simulator (SGLang and vLLM).
 */
class WindowPerStageTest {

    @TempDir
    Path output;

    @ProfiledRollout(activities = {Activity.GPU, Activity.CPU})
    @RolloutLoad(requests = 6, inputTokens = 32, outputTokens = 8, warmupRequests = 1)
    @RolloutSweep(concurrency = {1, 4}, windowPerStage = true)
    static class SglangTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void sweep(RolloutSession session) {
            RolloutResult result = session.awaitResult();
            RESULT.set(result);
            // a kernel budget per stage, on that stage's own trace
            assertThat(result.stage(4).trace()).kernels(Pattern.compile(".*").asMatchPredicate()).share()
                    .isGreaterThan(0.5);
        }
    }

    @ProfiledRollout(backend = Backend.VLLM, numSteps = 4, activities = Activity.GPU)
    @SimulatedEngine(tpSize = 2)
    @RolloutLoad(requests = 6, inputTokens = 16, outputTokens = 16, warmupRequests = 1)
    @RolloutSweep(concurrency = {2, 4}, windowPerStage = true)
    static class VllmTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void sweep(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @ProfiledRollout(numSteps = 4, startStep = 1100, activities = {Activity.GPU, Activity.CPU})
    @RolloutLoad(requests = 2, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    @RolloutSweep(concurrency = {1, 2}, windowPerStage = true)
    static class EmptyStageTestCase {
        @Test
        void sweep(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(requests = 4, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    @RolloutSweep(concurrency = {1, 2})
    static class SharedWindowTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void sweep(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @ProfiledRollout(backend = Backend.TRTLLM, activities = Activity.GPU)
    @RolloutLoad(requests = 4)
    @RolloutSweep(concurrency = {1, 2}, windowPerStage = true)
    static class TrtllmTestCase {
        @Test
        void sweep(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void each_stage_gets_its_own_window_traces_kernels_and_report() throws Exception {
        EngineExecutionResults results = run(SglangTestCase.class, output);
        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        RolloutResult result = SglangTestCase.RESULT.get();
        Path test = output.resolve("WindowPerStageTest$SglangTestCase/sweep");

        RolloutResult one = result.stage(1);
        RolloutResult four = result.stage(4);
        Assertions.assertThat(one.outputDirectory()).isEqualTo(test.resolve("stage-1-concurrency-1"));
        Assertions.assertThat(four.outputDirectory()).isEqualTo(test.resolve("stage-2-concurrency-4"));
        Assertions.assertThat(one.trace().traces()).isNotEmpty();
        Assertions.assertThat(four.trace().traces()).isNotEmpty();
        Assertions.assertThat(four.trace().kernelTotalNs()).isPositive();
        // the stages' trace files are their own: none is shared
        Assertions.assertThat(Collections.disjoint(one.traceFiles(), four.traceFiles())).isTrue();
        Assertions.assertThat(one.traceFiles()).allMatch(f -> f.startsWith(one.outputDirectory()));
        Assertions.assertThat(four.latency().scope()).isEqualTo("stage concurrency 4");
        Assertions.assertThat(four.stages().stages()).hasSize(1);
        Assertions.assertThat(four.latency().completed()).isEqualTo(6);
        // the combined result: every stage's requests and traces
        Assertions.assertThat(result.latency().completed()).isEqualTo(12);
        Assertions.assertThat(result.trace().traces()).hasSize(one.trace().traces().size()
                + four.trace().traces().size());
        Assertions.assertThat(result.stages().stages()).extracting(s -> s.index()).containsExactly(0, 1);

        JsonNode summary = summary(test);
        JsonNode windows = summary.path("stageWindows");
        Assertions.assertThat(windows).hasSize(2);
        Assertions.assertThat(windows.get(1).path("stage").asText()).isEqualTo("concurrency 4");
        Assertions.assertThat(windows.get(1).path("directory").asText()).isEqualTo("stage-2-concurrency-4");
        Assertions.assertThat(windows.get(1).path("traceFiles").asInt()).isEqualTo(four.trace().traces().size());
        Assertions.assertThat(windows.get(1).path("kernelMs").asDouble())
                .isCloseTo(four.trace().kernelTotalNs() / 1e6, Assertions.within(1e-6));
        Assertions.assertThat(windows.get(1).path("steps").path("max").asInt()).isPositive();
        Assertions.assertThat(windows.get(1).has("noData")).isFalse();
        Assertions.assertThat(dev.profiledrollout.report.RunHeader.of(summary).stageWindows()).hasSize(2);
        // each engine outcome of the combined summary names its stage window and finds that window's trace files
        Assertions.assertThat(summary.path("workers")).hasSize(2).allSatisfy(w -> Assertions.assertThat(
                w.path("traceFiles")).isNotEmpty());
        Assertions.assertThat(summary.path("workers").get(1).path("phase").asText()).isEqualTo("stage-2-concurrency-4");
        // the stage's verdict lands in its own summary
        JsonNode stageSummary = summary(test.resolve("stage-2-concurrency-4"));
        Assertions.assertThat(stageSummary.path("verdicts")).anySatisfy(v -> Assertions.assertThat(
                v.path("scope").asText()).isEqualTo("stage concurrency 4"));
        Assertions.assertThat(test.resolve("stage-2-concurrency-4/report.html")).isNotEmptyFile();

        JsonNode stages = ResultsModule.newMapper().readTree(test.resolve("stages.json").toFile());
        Assertions.assertThat(stages.path("stages").get(0).path("window").path("directory").asText())
                .isEqualTo("stage-1-concurrency-1");
        // the stage table reads the same window through the records
        dev.profiledrollout.report.StageReport.StagesFile typed = dev.profiledrollout.report.StageReport.read(test)
                .orElseThrow();
        Assertions.assertThat(typed.stages().get(0).window().directory()).isEqualTo("stage-1-concurrency-1");
        Assertions.assertThat(typed.stages().get(0).window().traceFiles())
                .isEqualTo(stages.path("stages").get(0).path("window").path("traceFiles").asInt());
        String html = Files.readString(test.resolve("report.html"), StandardCharsets.UTF_8);
        Assertions.assertThat(html).contains("<th>stage window</th>")
                .contains("<a href=\"stage-2-concurrency-4/report.html\">");
    }

    @Test
    void vllm_gets_a_window_per_stage_through_its_server_configured_profiler() {
        EngineExecutionResults results = run(VllmTestCase.class, output, "profiledrollout.vllm.max.iterations", "4");
        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        RolloutResult result = VllmTestCase.RESULT.get();
        for (int c : new int[] {2, 4}) {
            RolloutResult stage = result.stage(c);
            Assertions.assertThat(stage.trace().traces()).as("stage %d", c).hasSize(2);
            Assertions.assertThat(stage.trace().kernels()).as("stage %d", c).isNotEmpty();
        }
        Assertions.assertThat(Collections.disjoint(result.stage(2).traceFiles(), result.stage(4).traceFiles()))
                .isTrue();
    }

    @Test
    void a_stage_window_that_captured_nothing_fails_naming_the_stage() {
        Throwable failure = failure(run(EmptyStageTestCase.class, output, "profiledrollout.trace.timeout", "1"));

        Assertions.assertThat(failure).hasMessageContaining("stage concurrency 1 (1 of 2)")
                .hasMessageContaining("start_step=1100");
        JsonNode stage = summary(output.resolve("WindowPerStageTest$EmptyStageTestCase/sweep/stage-1-concurrency-1"));
        Assertions.assertThat(stage.path("workers")).isNotEmpty()
                .allSatisfy(w -> Assertions.assertThat(w.path("state").asText()).isEqualTo("NO_DATA"));
        Assertions.assertThat(output.resolve("WindowPerStageTest$EmptyStageTestCase/sweep/stage-2-concurrency-2"))
                .doesNotExist();
    }

    @Test
    void a_shared_window_has_no_trace_per_stage_and_says_how_to_get_one() {
        run(SharedWindowTestCase.class, output).testEvents().assertStatistics(stats -> stats.succeeded(1));
        RolloutResult result = SharedWindowTestCase.RESULT.get();
        Assertions.assertThat(result.stageWindows()).isEmpty();
        Assertions.assertThatThrownBy(() -> result.stage(2)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("windowPerStage = true");
    }

    @Test
    void a_launch_range_backend_is_refused_with_the_reason() {
        Assertions.assertThat(failure(run(TrtllmTestCase.class, output)).getMessage())
                .contains("@RolloutSweep(windowPerStage = true) with backend TRTLLM", "launched with", "windowPerStage = false");
    }
}
