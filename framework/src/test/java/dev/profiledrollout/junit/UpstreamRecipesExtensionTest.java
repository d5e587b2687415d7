package dev.profiledrollout.junit;

import static dev.profiledrollout.junit.ProfiledTestKit.attachRouter;
import static dev.profiledrollout.junit.ProfiledTestKit.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import dev.profiledrollout.Phase;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutRecipe;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.simulator.RouterShape;
import dev.profiledrollout.simulator.SimulatedCluster;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * Every profiling recipe of NVIDIA/srt-slurm (src/test/resources/recipes/srt-slurm, see ORIGIN.md) as
 * {@code @RolloutRecipe} against the simulator: aggregated recipes through the embedded engine, disaggregated ones
 * through a prefill/decode router of simulators. Production loads are capped with the annotation's
 * {@code maxInputTokens/maxOutputTokens/maxConcurrency}; steps are the recipe's. torch recipes pass with traces (a
 * sweep as stages of the load); nsys recipes without {@code profiledrollout.nsys.report} fail saying how to get it.
 */
class UpstreamRecipesExtensionTest {

    static final Map<Class<?>, RolloutResult> RESULTS = new ConcurrentHashMap<>();

    @TempDir
    Path output;

    @TempDir
    Path traces;

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/srt-slurm/recipes/qwen3.5/fp8/agg/profile/agg-dep4-profile.yaml", maxInputTokens = 32, maxOutputTokens = 8,
            maxConcurrency = 4)
    @RolloutLoad(requests = 12, warmupRequests = 0)
    static class AggDep4 {
        @Test
        void recipe(RolloutSession session) {
            RESULTS.put(AggDep4.class, session.awaitResult());
        }
    }

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/srt-slurm/recipes/qwen3.5/fp8/agg/profile/agg-tep4-profile.yaml", maxInputTokens = 32, maxOutputTokens = 8,
            maxConcurrency = 4)
    @RolloutLoad(requests = 12, warmupRequests = 0)
    static class AggTep4 {
        @Test
        void recipe(RolloutSession session) {
            RESULTS.put(AggTep4.class, session.awaitResult());
        }
    }

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/srt-slurm/recipes/qwen3.5/fp8/agg/profile/agg-tp4-profile.yaml", maxInputTokens = 32, maxOutputTokens = 8,
            maxConcurrency = 4)
    @RolloutLoad(requests = 12, warmupRequests = 0)
    static class AggTp4 {
        @Test
        void recipe(RolloutSession session) {
            RESULTS.put(AggTp4.class, session.awaitResult());
        }
    }

    /** {@link AggTp4} run to the sweep's last stage. */
    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/srt-slurm/recipes/qwen3.5/fp8/agg/profile/agg-tp4-profile.yaml", maxInputTokens = 32, maxOutputTokens = 8,
            maxConcurrency = 4, fullSweep = true)
    @RolloutLoad(requests = 12, warmupRequests = 0)
    static class AggTp4FullSweep {
        @Test
        void recipe(RolloutSession session) {
            RESULTS.put(AggTp4FullSweep.class, session.awaitResult());
        }
    }

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/srt-slurm/recipes/qwen3.5/nvfp4/agg/profile/tp4-profile.yaml", maxInputTokens = 32, maxOutputTokens = 8,
            maxConcurrency = 4)
    @RolloutLoad(requests = 24, warmupRequests = 0)
    static class Nvfp4Tp4 {
        @Test
        void recipe(RolloutSession session) {
            RESULTS.put(Nvfp4Tp4.class, session.awaitResult());
        }
    }

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/srt-slurm/recipes/qwen3.5/fp8/disagg/mooncake/profile/1p1d-tp4-profile.yaml", maxInputTokens = 32, maxOutputTokens = 8,
            maxConcurrency = 4)
    @RolloutLoad(requests = 12, warmupRequests = 0)
    static class Disagg1p1dTp4 {
        @Test
        void recipe(RolloutSession session) {
            RESULTS.put(Disagg1p1dTp4.class, session.awaitResult());
        }
    }

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/srt-slurm/recipes/qwen3.5/fp8/disagg/mooncake/profile/1p1d-tp4-mtp-profile.yaml", maxInputTokens = 32, maxOutputTokens = 8,
            maxConcurrency = 4)
    @RolloutLoad(requests = 12, warmupRequests = 0)
    static class Disagg1p1dTp4Mtp {
        @Test
        void recipe(RolloutSession session) {
            RESULTS.put(Disagg1p1dTp4Mtp.class, session.awaitResult());
        }
    }

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/srt-slurm/recipes/qwen3.5/fp8/disagg/mooncake/profile/1p1d-dep4-nsys-profile.yaml", maxInputTokens = 32, maxOutputTokens = 8,
            maxConcurrency = 4)
    @RolloutLoad(requests = 12, warmupRequests = 0)
    static class Dep4Nsys {
        @Test
        void recipe(RolloutSession session) {
            RESULTS.put(Dep4Nsys.class, session.awaitResult());
        }
    }

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/srt-slurm/recipes/qwen3.5/fp8/disagg/mooncake/profile/1p1d-dep4-nsys-profile-slowdown.yaml", maxInputTokens = 32, maxOutputTokens = 8,
            maxConcurrency = 4)
    @RolloutLoad(requests = 12, warmupRequests = 0)
    static class Dep4NsysSlowdown {
        @Test
        void recipe(RolloutSession session) {
            RESULTS.put(Dep4NsysSlowdown.class, session.awaitResult());
        }
    }

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/srt-slurm/examples/enable-profiling.yaml", maxInputTokens = 32, maxOutputTokens = 8,
            maxConcurrency = 4)
    @RolloutLoad(requests = 12, warmupRequests = 0)
    static class EnableProfiling {
        @Test
        void recipe(RolloutSession session) {
            RESULTS.put(EnableProfiling.class, session.awaitResult());
        }
    }

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/vllm-nsys-agg.yaml")
    @RolloutLoad(requests = 4, warmupRequests = 0)
    static class VllmNsysVariant {
        @Test
        void recipe(RolloutSession session) {
            RESULTS.put(VllmNsysVariant.class, session.awaitResult());
        }
    }

    /**
     * A vLLM nsys recipe (srtctl: --profiler-config cuda with delay_iterations = start_step and max_iterations =
     * stop_step − start_step) is accepted, and without a report its window fails saying how to get one.
     */
    @Test
    void should_accept_a_vllm_nsys_recipe_and_fail_its_window_without_a_report() {
        EngineExecutionResults results = run(VllmNsysVariant.class, output,
                "profiledrollout.vllm.max.iterations", "6");

        String failure = results.testEvents().failed().stream().findFirst().orElseThrow()
                .getPayload(org.junit.platform.engine.TestExecutionResult.class).orElseThrow()
                .getThrowable().orElseThrow().getMessage();
        assertThat(failure).as(failure).contains("profiledrollout.nsys.report is not set");
    }

    /** With the report nsys wrote (here a stand-in's), the vLLM nsys recipe's window is summarised and passes. */
    @Test
    void should_summarise_a_vllm_nsys_recipe_with_its_report() throws Exception {
        Path nsys = dev.profiledrollout.engine.nsys.NsysStandIn.install(traces);
        Path report = Files.writeString(traces.resolve("agg.nsys-rep"), "report");

        EngineExecutionResults results = run(VllmNsysVariant.class, output, "profiledrollout.vllm.max.iterations",
                "6", "profiledrollout.nsys.path", nsys.toString(), "profiledrollout.nsys.report", report.toString());

        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        RolloutResult result = RESULTS.get(VllmNsysVariant.class);
        assertThat(result.trace().kernels()).isNotEmpty();
        assertThat(result.stages().stages()).extracting(s -> s.stage().concurrency()).containsExactly(1, 2);
    }

    /** The console says which stage(s) of the sweep the captured steps fell in, from the steps' timestamps. */
    @Test
    void should_say_which_stages_the_captured_steps_fell_in() {
        java.io.PrintStream original = System.out;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        EngineExecutionResults results;
        try {
            System.setOut(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
            results = run(AggTp4.class, output);
        } finally {
            System.setOut(original);
        }

        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        String text = printed.toString(java.nio.charset.StandardCharsets.UTF_8);
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("=== captured steps fell in: ((?:(?:stage concurrency \\d+|before the sweep) \\((\\d+) steps\\)(?:, )?)+)")
                .matcher(text);
        assertThat(m.find()).as(text).isTrue();
        int steps = java.util.regex.Pattern.compile("\\((\\d+) steps\\)").matcher(m.group(1)).results()
                .mapToInt(r -> Integer.parseInt(r.group(1))).sum();
        assertThat(steps).isEqualTo(RESULTS.get(AggTp4.class).trace().traces().get(0).details().steps().size());
        assertThat(m.group(1)).contains("stage concurrency 1");
    }

    /**
     * The same placement is in summary.json ({@code stagePlacement}, read through {@code RunHeader}), per rank trace
     * adding up to its steps, in stages.json per stage, and in the stage table of report.html.
     */
    @Test
    void should_write_where_the_captured_steps_fell_into_summary_json_and_the_stage_table() throws Exception {
        run(AggTp4.class, output).testEvents().assertStatistics(stats -> stats.succeeded(1));
        RolloutResult result = RESULTS.get(AggTp4.class);
        RolloutResult window = result.phases().isEmpty() ? result : result.phases().values().iterator().next();
        Path dir = window.outputDirectory();
        dev.profiledrollout.report.RunHeader header = dev.profiledrollout.report.RunHeader.of(
                ProfiledTestKit.summary(dir));
        assertThat(header.stagePlacement()).hasSize(window.trace().traces().size());
        for (int i = 0; i < header.stagePlacement().size(); i++) {
            dev.profiledrollout.report.RunHeader.StagePlacement p = header.stagePlacement().get(i);
            assertThat(p.trace()).isEqualTo(window.trace().rankLabel(window.trace().traces().get(i)));
            assertThat(p.beforeSweep() + p.stages().stream().mapToInt(s -> s.steps()).sum())
                    .isEqualTo(window.trace().traces().get(i).details().steps().size());
            assertThat(p.stages()).extracting(s -> s.stage()).isSubsetOf(result.stages().stages().stream()
                    .map(s -> s.label()).toList()).contains("concurrency 1");
        }
        com.fasterxml.jackson.databind.JsonNode stages = dev.profiledrollout.report.ResultsModule.newMapper()
                .readTree(dir.resolve("stages.json").toFile());
        int firstTrace = header.stagePlacement().get(0).stages().stream()
                .filter(s -> s.stage().equals("concurrency 1")).mapToInt(s -> s.steps()).sum();
        assertThat(stages.path("stages").get(0).path("capturedSteps").asInt()).isGreaterThanOrEqualTo(firstTrace)
                .isPositive();
        String html = java.nio.file.Files.readString(dir.resolve("report.html"));
        assertThat(html).contains(">captured steps</th>").contains("<td class=\"captured-steps\">");
        if (!result.phases().isEmpty()) {
            assertThat(ProfiledTestKit.summary(result.outputDirectory()).path("phases").get(0)
                    .path("stagePlacement")).hasSize(header.stagePlacement().size());
        }
    }

    /**
     * A disaggregated recipe with a benchmark sweep arms prefill and decode at once over one load through the PD
     * router, as srtctl arms every worker before its one benchmark (src/srtctl/benchmarks/scripts/lib/profiling.sh):
     * both phases hold the same requests, the combined result counts them once, and both windows' steps fall in the
     * sweep's first stage.
     */
    @Test
    void should_arm_prefill_and_decode_at_once_over_one_sweep() throws Exception {
        EngineExecutionResults results;
        try (SimulatedCluster cluster = SimulatedCluster.prefillDecode(
                SimulatorConfig.builder().profilerDir(traces).build(), RouterShape.SGL_MODEL_GATEWAY)) {
            results = attachRouter(Disagg1p1dTp4.class, output, cluster.router().baseUri());
        }
        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        RolloutResult result = RESULTS.get(Disagg1p1dTp4.class);
        RolloutResult prefill = result.phase(Phase.PREFILL);
        RolloutResult decode = result.phase(Phase.DECODE);
        assertThat(prefill.latency().records()).isNotEmpty().isEqualTo(decode.latency().records());
        assertThat(result.latency().completed()).isEqualTo(prefill.latency().completed());
        assertThat(stagesRunThenNotRun(prefill)).containsExactly(1, 2, 4);
        for (RolloutResult phase : List.of(prefill, decode)) {
            assertThat(phase.trace().kernels()).isNotEmpty();
            dev.profiledrollout.report.RunHeader header = dev.profiledrollout.report.RunHeader.of(
                    ProfiledTestKit.summary(phase.outputDirectory()));
            assertThat(header.stagePlacement()).isNotEmpty().allSatisfy(p -> assertThat(p.stages())
                    .extracting(x -> x.stage()).contains("concurrency 1"));
        }
    }

    /**
     * A recipe's sweep stops once its window has closed and its traces are in, as {@code profile --recipe} does
     * (steps 10..20 of agg-tp4-profile.yaml fall in the first stage: 12 requests of 8 output tokens at concurrency 1
     * are about 96 steps); the stages left are listed as not run, and no stage result answers for them.
     * {@code fullSweep = true} runs every stage.
     */
    @Test
    void should_stop_the_sweep_once_the_window_closed_and_run_it_whole_with_full_sweep() throws Exception {
        run(AggTp4.class, output).testEvents().assertStatistics(stats -> stats.succeeded(1));
        dev.profiledrollout.load.SweepResult stopped = RESULTS.get(AggTp4.class).stages();
        assertThat(stopped.stages()).hasSizeLessThan(3);
        assertThat(stopped.stages()).extracting(s -> s.stage().concurrency()).startsWith(1);
        assertThat(stagesRunThenNotRun(RESULTS.get(AggTp4.class))).containsExactly(1, 2, 4);
        assertThat(stopped.whyNotRun()).contains("traces were in");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> stopped.stage(4))
                .isInstanceOf(java.util.NoSuchElementException.class)
                .hasMessageContaining("not run: [").hasMessageContaining("concurrency 4");
        com.fasterxml.jackson.databind.JsonNode verdicts = ProfiledTestKit.summary(RESULTS.get(AggTp4.class)
                .outputDirectory()).path("verdicts");
        assertThat(verdicts.toString()).contains("not run: [").contains("concurrency 4");
        Path runDir = RESULTS.get(AggTp4.class).outputDirectory();
        dev.profiledrollout.report.StageReport.StagesFile stagesFile = dev.profiledrollout.report.StageReport
                .read(runDir).orElseThrow();
        assertThat(stagesFile.stages()).hasSameSizeAs(stopped.stages());
        assertThat(stagesFile.notRun()).contains("concurrency 4");
        assertThat(stagesFile.whyNotRun()).contains("traces were in");
        assertThat(java.nio.file.Files.readString(runDir.resolve("report.html"))).contains("Not run: ")
                .contains("concurrency 4");

        Path full = output.resolve("full");
        run(AggTp4FullSweep.class, full).testEvents().assertStatistics(stats -> stats.succeeded(1));
        dev.profiledrollout.load.SweepResult whole = RESULTS.get(AggTp4FullSweep.class).stages();
        assertThat(whole.stages()).extracting(s -> s.stage().concurrency()).containsExactly(1, 2, 4);
        assertThat(whole.notRun()).isEmpty();
        assertThat(whole.stage(4).latency().completed()).isEqualTo(12);
    }

    /** The concurrencies of the stages that ran, then of those not run. */
    private static List<Integer> stagesRunThenNotRun(RolloutResult result) {
        List<Integer> all = new java.util.ArrayList<>();
        result.stages().stages().forEach(s -> all.add(s.stage().concurrency()));
        result.stages().notRun().forEach(s -> all.add(s.concurrency()));
        return all;
    }

    static Stream<Arguments> recipes() {
        return Stream.of(
                Arguments.of(AggDep4.class, false, false, true),
                Arguments.of(AggTep4.class, false, false, true),
                Arguments.of(AggTp4.class, false, false, true),
                Arguments.of(Nvfp4Tp4.class, false, false, false),
                Arguments.of(Disagg1p1dTp4.class, true, false, true),
                Arguments.of(Disagg1p1dTp4Mtp.class, true, false, true),
                Arguments.of(Dep4Nsys.class, true, true, false),
                Arguments.of(Dep4NsysSlowdown.class, true, true, false),
                Arguments.of(EnableProfiling.class, true, false, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void should_run_the_upstream_recipe_or_fail_saying_how(Class<?> testCase, boolean disaggregated, boolean nsys,
            boolean sweep) throws Exception {
        EngineExecutionResults results;
        if (disaggregated) {
            try (SimulatedCluster cluster = SimulatedCluster.prefillDecode(
                    SimulatorConfig.builder().profilerDir(traces).build(), RouterShape.SGL_MODEL_GATEWAY)) {
                results = attachRouter(testCase, output, cluster.router().baseUri());
            }
        } else {
            results = run(testCase, output);
        }

        if (nsys) {
            results.testEvents().assertThatEvents().haveExactly(1, event(finishedWithFailure(
                    message(m -> m.contains("nsys")))));
            String failure = results.testEvents().failed().stream().findFirst().orElseThrow()
                    .getPayload(org.junit.platform.engine.TestExecutionResult.class).orElseThrow()
                    .getThrowable().orElseThrow().getMessage();
            assertThat(failure).as(failure).contains("profiledrollout.nsys.report");
            return;
        }
        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        RolloutResult result = RESULTS.get(testCase);
        if (disaggregated) {
            assertThat(result.phase(Phase.PREFILL).trace().kernels()).isNotEmpty();
            assertThat(result.phase(Phase.DECODE).trace().kernels()).isNotEmpty();
        } else {
            assertThat(result.trace().kernels()).isNotEmpty();
        }
        if (sweep && !disaggregated) {
            assertThat(stagesRunThenNotRun(result)).containsExactly(1, 2, 4);
        }
        assertThat(traceFiles(output)).isNotEmpty();
    }

    private static List<Path> traceFiles(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(p -> p.toString().endsWith(".trace.json.gz")).toList();
        }
    }
}
