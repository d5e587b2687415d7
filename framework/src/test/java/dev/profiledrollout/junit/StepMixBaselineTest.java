package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.SimulatedEngine;
import dev.profiledrollout.trace.StepStats.Stage;
import dev.profiledrollout.trace.baselines.BaselineDiff;
import dev.profiledrollout.trace.baselines.StageDelta;
import dev.profiledrollout.trace.baselines.StageKernels;
import dev.profiledrollout.trace.baselines.TraceBaseline;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kernel baselines compare like with like: the same work per step, captured in a different mix of prefill (EXTEND) and
 * decode steps, is not a regression, while a decode kernel made 20 % slower still is. Runs the real simulator.
 *
 * <p>A profile window captures a fixed number of steps; how many are prefills depends on where request boundaries
 * fall. With concurrent load that is timing-dependent; here it is made deterministic by the output length alone: with
 * 8 output tokens per request, 10 steps hold two prefills, with 32 only one. Each prefill is one 1024-token prompt and
 * each decode step a batch of one, so the work per step is the same.
 */
class StepMixBaselineTest {

    private static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();
    private static final Duration NOISE = Duration.ofNanos(100_000);

    @TempDir
    Path output;

    @TempDir
    Path baselines;

    @ProfiledRollout(numSteps = 10, activities = {Activity.GPU, Activity.CPU})
    @RolloutLoad(concurrency = 1, requests = 4, inputTokens = 1024, outputTokens = 8)
    static class ShortRequests {
        @Test
        void decode(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(numSteps = 10, activities = {Activity.GPU, Activity.CPU})
    @RolloutLoad(concurrency = 1, requests = 2, inputTokens = 1024, outputTokens = 32)
    static class LongRequests {
        @Test
        void decode(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @ProfiledRollout(numSteps = 10, activities = {Activity.GPU, Activity.CPU})
    @SimulatedEngine(slowKernel = "BatchDecodeWithPagedKVCache", slowKernelFactor = 1.2)
    @RolloutLoad(concurrency = 1, requests = 2, inputTokens = 1024, outputTokens = 32)
    static class SlowDecode {
        @Test
        void decode(RolloutSession session) {
            RESULT.set(session.awaitResult());
            assertThat(RESULT.get().baseline().orElseThrow()).kernelTimeWithin(0.10, NOISE);
        }
    }

    @Test
    void should_pass_a_different_step_mix_that_window_totals_flag_and_still_flag_a_slower_decode_kernel()
            throws Exception {
        // GIVEN a baseline recorded from windows of 2 prefills + 8 decodes
        ProfiledTestKit.run(ShortRequests.class, output, "profiledrollout.baseline.dir", baselines.toString(),
                "profiledrollout.baseline.update", "true").testEvents().assertStatistics(s -> s.succeeded(1));
        Path recorded = baselines.resolve("ShortRequests.decode.json");
        TraceBaseline baseline = TraceBaseline.read(recorded);
        assertThat(baseline.stage(Stage.PREFILL).map(StageKernels::steps)).contains(2L);
        assertThat(baseline.stage(Stage.DECODE).map(StageKernels::steps)).contains(8L);
        assertThat(baseline.stage(Stage.PREFILL).orElseThrow().tokens()).hasValue(2048);
        Files.copy(recorded, baselines.resolve("LongRequests.decode.json"));
        Files.copy(recorded, baselines.resolve("SlowDecode.decode.json"));

        // WHEN unchanged code is profiled in windows of 1 prefill + 9 decodes
        compare(LongRequests.class).testEvents().assertStatistics(s -> s.succeeded(1));
        BaselineDiff unchanged = RESULT.get().baseline().orElseThrow();

        // THEN window totals flag it (the false failure: counts follow the mix)...
        assertThat(unchanged.mixDiffers()).as(unchanged.mix()).isTrue();
        assertThat(unchanged.mix()).isEqualTo("baseline 2 PREFILL + 8 DECODE steps, run 1 PREFILL + 9 DECODE steps");
        BaselineDiff windowTotals = new BaselineDiff(unchanged.baseline(), unchanged.run(), unchanged.kernels());
        assertThatThrownBy(() -> assertThat(windowTotals).kernelTimeWithin(0.10, NOISE))
                .hasMessageContaining("kernel time of").hasMessageContaining("count");
        assertThatThrownBy(() -> assertThat(windowTotals).totalKernelTimeWithin(0.05))
                .hasMessageContaining("total kernel time was");
        // ...while the per-step-kind comparison passes every check
        assertThat(unchanged.byStage()).isTrue();
        assertThat(unchanged.incomparable()).isEmpty();
        assertThat(unchanged).kernelTimeWithin(0.10, NOISE).totalKernelTimeWithin(0.05).hasNoNewKernels()
                .hasNoVanishedKernels();
        StageDelta prefill = unchanged.stages().get(0);
        assertThat(prefill.stage()).isEqualTo(Stage.PREFILL);
        assertThat(prefill.unit()).isEqualTo("token");
        assertThat(unchanged.stages().get(1).unit()).isEqualTo("step");
        // the history recorder's figure: kernel time per step of each kind
        Map<Stage, Double> msPerStep = StageKernels.kernelMsPerStep(RESULT.get().trace().traces());
        assertThat(msPerStep).containsOnlyKeys(Stage.PREFILL, Stage.DECODE);
        StageKernels decodeRun = unchanged.run().stage(Stage.DECODE).orElseThrow();
        assertThat(msPerStep.get(Stage.DECODE)).isEqualTo(decodeRun.kernelNs() / 9.0 / 1e6, within(1e-9));

        // WHEN the decode attention kernel is 20 % slower
        compare(SlowDecode.class);
        BaselineDiff slower = RESULT.get().baseline().orElseThrow();

        // THEN the per-step comparison names it, per decode step
        assertThatThrownBy(() -> assertThat(slower).kernelTimeWithin(0.10, NOISE))
                .hasMessageContaining("BatchDecodeWithPagedKVCache")
                .hasMessageContaining("per DECODE step")
                .hasMessageContaining("DECODE steps 8 → 9");
        StageDelta decode = slower.stages().stream().filter(s -> s.stage() == Stage.DECODE).findFirst().orElseThrow();
        double attention = decode.kernels().stream().filter(k -> k.name().contains("BatchDecodeWithPagedKVCache"))
                .mapToDouble(decode::change).findFirst().orElseThrow();
        assertThat(attention).isBetween(0.15, 0.30);
        // and the report carries the comparison per step kind
        Path slowDir = output.resolve("StepMixBaselineTest$SlowDecode/decode");
        assertThat(Files.readString(slowDir.resolve("report.html")))
                .contains("Per step kind (" + slower.mix() + ")").contains("class=\"baseline-stages\"");
        JsonNode summary = summary(slowDir);
        assertThat(summary.path("baseline").path("mix").asText()).isEqualTo(slower.mix());
        assertThat(summary.path("baseline").path("stages")).hasSize(2);
        JsonNode verdict = null;
        for (JsonNode v : summary.path("verdicts")) {
            if (v.path("kind").asText().equals("BASELINE")) {
                verdict = v;
            }
        }
        assertThat(verdict).as("a BASELINE verdict in " + summary.path("verdicts")).isNotNull();
        assertThat(verdict.path("outcome").asText()).isEqualTo("FAIL");
        assertThat(verdict.path("measure").asText()).contains("per DECODE step");
        assertThat(verdict.path("detail").asText()).contains("per step kind (" + slower.mix() + ")");
    }

    @ProfiledRollout(numSteps = 10, activities = {Activity.GPU, Activity.CPU})
    @RolloutLoad(concurrency = 4, requests = 16, inputTokens = 256, outputTokens = 16, warmupRequests = 1)
    static class ConcurrentLoad {
        @Test
        void decode(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_never_report_a_regression_when_unchanged_code_under_concurrent_load_is_rerun() throws Exception {
        // GIVEN a baseline of a window whose step mix and batches depend on how arrivals fall into batches
        ProfiledTestKit.run(ConcurrentLoad.class, output, "profiledrollout.baseline.dir", baselines.toString(),
                "profiledrollout.baseline.update", "true").testEvents().assertStatistics(s -> s.succeeded(1));
        for (int rerun = 0; rerun < 3; rerun++) {
            // WHEN the same code is profiled again, as a new user would
            compare(ConcurrentLoad.class).testEvents().assertStatistics(s -> s.succeeded(1));
            BaselineDiff diff = RESULT.get().baseline().orElseThrow();
            // THEN every check passes, or says the runs are incomparable (a WARN): never a false regression
            try (Verdicts.Recording recording = Verdicts.start(false)) {
                assertThat(diff).kernelTimeWithin(0.10, NOISE).totalKernelTimeWithin(0.05).hasNoNewKernels()
                        .hasNoVanishedKernels();
                assertThat(recording.verdicts()).as(diff.mix() + "; " + diff.incomparable().orElse(""))
                        .extracting(Verdict::outcome).doesNotContain(Verdict.Outcome.FAIL);
            }
        }
    }

    private org.junit.platform.testkit.engine.EngineExecutionResults compare(Class<?> testCase) {
        RESULT.set(null);
        return ProfiledTestKit.run(testCase, output, "profiledrollout.baseline.dir", baselines.toString(),
                "profiledrollout.baseline.update", "false");
    }
}
