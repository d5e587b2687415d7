package dev.profiledrollout.junit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RegressionCheck;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * The default regression gate ({@code @RegressionCheck} with no attributes) on the simulator with realistic GPU noise
 * (kernel jitter and a per-run clock factor, each run its own noise seed): three runs of history, then one unchanged
 * rerun, and, each against its own copy of the three runs, one run with every kernel twice as slow, one with only the
 * decode kernels twice as slow, and one whose steps take twice as long through host time alone. On the defaults before
 * issue 24 (Student's t at 0.9999 on mean TPOT and mean E2E only, no relative floor) none of the three is flagged:
 * over 3 runs the t-test's limit lies 82 standard deviations above the mean.
 *
 * <p>Two warm-up runs on a throwaway store come first: a cold JVM's first runs are slower (JIT), which would inflate
 * the history's median.
 *
 * <p>Why noise cannot flip these. The GPU metrics carry only the simulator's own noise: a clock factor of log-normal
 * sigma 0.01 per run (the four runs' factors are fixed by their seeds) and a 3 % jitter per launch that averages out
 * over the ~360 launches of a step; the decode step interval carries them and the simulated host time, on the engine's
 * own timeline, which a busy test machine does not stretch (docs/TRACES.md §8). A doubling moves them by +100 %
 * against a floor of +50 % over the median, about 70 clock sigmas. The latency means carry the machine's noise too
 * (7 % CV measured under heavy load, bench/README.md); they are judged by the relative floor alone (1.5× the median
 * of the last 3), which a doubling of every step's wall time clears (+87..+119 % mean TPOT, +59..+91 % mean E2E in the
 * runs seen while writing this test). The unchanged rerun's trace metrics lie within a few % of the others, far inside
 * both the t-test's limit at n = 3 and the floor; its latency means would have to be 1.5× the median to alarm, which
 * the detection study saw only on runs sharing the CPU with a build for most of their length, so the test asserts only
 * the trace metrics of that rerun.
 */
class RegressionGateTest {

    @ProfiledRollout
    @RolloutLoad(concurrency = 8, requests = 24, inputTokens = 128, outputTokens = 16, warmupRequests = 1)
    @RegressionCheck
    static class GatedTestCase {
        @Test
        void run(RolloutSession session) {
            session.awaitResult();
        }
    }

    private static final String GPU_DECODE = "kernel.decode.ms_per_step.bs";
    private static final String GPU_PREFILL = "kernel.extend.us_per_token.at1k";
    private static final String INTERVAL = "step.decode.interval_ms.bs";

    @TempDir
    static Path shared;

    private static Path baseStore;
    private static JsonNode unchanged;

    @TempDir
    Path dir;

    private static SimulatorConfig.Builder noisy(long noiseSeed) {
        return SimulatorConfig.builder().realisticGpuNoise().noiseSeed(noiseSeed);
    }

    /**
     * @param passes whether the gated test must pass (true), fail (false), or either (null: the unchanged rerun, whose
     *               client latency carries the machine's load and may be flagged on a machine shared with a build;
     *               its GPU metrics are asserted instead)
     */
    private static JsonNode run(Path store, Path output, SimulatorConfig.Builder config, Boolean passes) {
        try (EngineSimulator sim = EngineSimulator.start(config.build())) {
            EngineExecutionResults results = ProfiledTestKit.attach(GatedTestCase.class, output, sim.baseUri(),
                    "profiledrollout.history.url", "jdbc:sqlite:" + store);
            if (Boolean.TRUE.equals(passes)) {
                results.testEvents().assertStatistics(s -> s.succeeded(1));
            } else if (Boolean.FALSE.equals(passes)) {
                results.testEvents().assertStatistics(s -> s.failed(1));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return ProfiledTestKit.summary(output.resolve("RegressionGateTest$GatedTestCase/run")).path("history");
    }

    /** Metric → change of the run's declared verdicts. */
    private static Map<String, String> changes(JsonNode history) {
        Map<String, String> changes = new LinkedHashMap<>();
        history.path("verdicts").forEach(v -> changes.put(v.path("metric").asText(), v.path("change").asText()));
        return changes;
    }

    private static Map<String, String> only(Map<String, String> changes, java.util.function.Predicate<String> metric) {
        Map<String, String> out = new LinkedHashMap<>();
        changes.forEach((m, c) -> {
            if (metric.test(m)) {
                out.put(m, c);
            }
        });
        return out;
    }

    @BeforeAll
    static void history() throws Exception {
        // a cold JVM's first runs are slower than the rest (JIT), as DetectionStudyTest found: warm up first
        for (long seed = 101; seed <= 102; seed++) {
            run(shared.resolve("warm-up.db"), shared.resolve("warm-up"), noisy(seed), true);
        }
        Path store = shared.resolve("history.db");
        for (long seed = 1; seed <= 3; seed++) {
            run(store, shared.resolve("out"), noisy(seed), true);
        }
        baseStore = Files.copy(store, shared.resolve("three-runs.db"));
        unchanged = run(store, shared.resolve("out"), noisy(4), null);
    }

    private Path storeCopy() throws Exception {
        Path copy = dir.resolve("history.db");
        Files.copy(baseStore, copy);
        return copy;
    }

    /**
     * The checks that had history to compare with: a batch-size bucket this run filled and the base runs did not (on a
     * loaded machine the batch mix varies) is INSUFFICIENT_HISTORY, as the gate means it to be, and says nothing here.
     */
    private static Map<String, String> compared(Map<String, String> changes) {
        Map<String, String> out = new java.util.TreeMap<>(changes);
        out.values().removeIf("INSUFFICIENT_HISTORY"::equals);
        return out;
    }

    @Test
    void an_unchanged_rerun_has_no_regression_and_every_default_metric_is_checked() {
        Map<String, String> changes = changes(unchanged);
        Assertions.assertThat(changes).containsKeys("tpot.mean", "e2e.mean", GPU_PREFILL);
        Assertions.assertThat(changes.keySet()).anySatisfy(m -> Assertions.assertThat(m).startsWith(GPU_DECODE));
        Assertions.assertThat(changes.keySet()).anySatisfy(m -> Assertions.assertThat(m).startsWith(INTERVAL));
        Assertions.assertThat(compared(only(changes, m -> m.startsWith(GPU_DECODE) || m.equals(GPU_PREFILL)
                || m.startsWith(INTERVAL)))).hasSizeGreaterThan(2).allSatisfy((metric, change) ->
                        Assertions.assertThat(change).as(metric).isIn("NO_CHANGE", "IMPROVEMENT"));
        // the client's latency is judged by the relative floor alone, the trace's figures at Student's t 0.999
        Assertions.assertThat(unchanged.path("threshold").path("upper").asDouble()).isEqualTo(1.0);
        Assertions.assertThat(unchanged.path("threshold").path("traceBoundary").asDouble()).isEqualTo(0.999);
        Assertions.assertThat(unchanged.path("threshold").path("relativeLimit").asDouble()).isEqualTo(0.5);
        Assertions.assertThat(unchanged.path("threshold").path("outlierCutoff").asDouble()).isEqualTo(5.0);
    }

    @Test
    void every_kernel_twice_as_slow_is_a_regression_at_its_first_run() throws Exception {
        JsonNode h = run(storeCopy(), dir.resolve("out"), noisy(5).slowKernel(".*", 2.0), false);
        Map<String, String> changes = changes(h);
        // the report says the engine was slowed on purpose, and with which noise
        Path runDir = dir.resolve("out/RegressionGateTest$GatedTestCase/run");
        JsonNode engine = ProfiledTestKit.summary(runDir).path("engine");
        Assertions.assertThat(engine.path("simulatedFaults").path("injected").asBoolean()).isTrue();
        Assertions.assertThat(engine.path("simulatedGpuNoise").path("noise_seed").asLong()).isEqualTo(5);
        Assertions.assertThat(Files.readString(runDir.resolve("report.html"))).contains("faults injected",
                "simulator slowed on purpose: kernels /.*/ ×2.0", "simulated GPU noise");
        Assertions.assertThat(changes).containsEntry(GPU_PREFILL, "REGRESSION");
        Assertions.assertThat(changes).hasEntrySatisfying("tpot.mean", c -> Assertions.assertThat(c)
                .isEqualTo("REGRESSION"));
        Assertions.assertThat(compared(only(changes, m -> m.startsWith(GPU_DECODE)))).isNotEmpty()
                .allSatisfy((metric, change) -> Assertions.assertThat(change).as(metric).isEqualTo("REGRESSION"));
    }

    @Test
    void decode_kernels_alone_twice_as_slow_are_a_regression_at_their_first_run() throws Exception {
        JsonNode h = run(storeCopy(), dir.resolve("out"), noisy(5).slowDecode(2.0), false);
        Map<String, String> changes = changes(h);
        Assertions.assertThat(compared(only(changes, m -> m.startsWith(GPU_DECODE)))).isNotEmpty()
                .allSatisfy((metric, change) -> Assertions.assertThat(change).as(metric).isEqualTo("REGRESSION"));
        Assertions.assertThat(changes.get(GPU_PREFILL)).isIn("NO_CHANGE", "IMPROVEMENT"); // like with like
    }

    @Test
    void steps_twice_as_long_through_host_time_alone_are_a_regression_in_client_latency_and_step_interval() throws Exception {
        JsonNode h = run(storeCopy(), dir.resolve("out"), noisy(5).slowHost(2.0), false);
        Map<String, String> changes = changes(h);
        Assertions.assertThat(changes).containsEntry("tpot.mean", "REGRESSION").containsEntry("e2e.mean", "REGRESSION");
        // the engine's own step interval sees the host time, on its own clock, in the bucket of the load's 8 lanes;
        // a bucket of a few steps (batch 1 at the load's tail, when the timing of the machine makes one) may hold
        // the idle wait for a lane's next request after the batch emptied, which is the client's time, not the host's
        Assertions.assertThat(changes).containsEntry(INTERVAL + "8-15", "REGRESSION");
        // the kernels did not change, and the GPU metrics say so
        Assertions.assertThat(compared(only(changes, m -> m.startsWith(GPU_DECODE) || m.equals(GPU_PREFILL))))
                .hasSizeGreaterThan(1).allSatisfy((metric, change) ->
                        Assertions.assertThat(change).as(metric).isIn("NO_CHANGE", "IMPROVEMENT"));
    }
}
