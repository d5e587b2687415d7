package dev.profiledrollout.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.Phase;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.junit.ProfiledTestKit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link RunRecords} on the output directories of real runs against the embedded simulator. */
class RunRecordsTest {

    private static final RunIdentity BASE = new RunIdentity("com.acme.FooTest#bar",
            Instant.parse("2026-11-23T20:01:02Z"), "abc1234", "main", "42", null, "host");

    @TempDir
    Path output;

    @ProfiledRollout(numSteps = 4, activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 8, inputTokens = 64, outputTokens = 8, warmupRequests = 1)
    static class OneWindowTestCase {
        @org.junit.jupiter.api.Test
        void run(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(numSteps = 4, activities = Activity.GPU)
    @RolloutPhase(phase = Phase.PREFILL, inputTokens = 256, outputTokens = 1, concurrency = 4, requests = 4)
    @RolloutPhase(phase = Phase.DECODE, inputTokens = 16, outputTokens = 12, concurrency = 2, requests = 6)
    static class TwoPhasesTestCase {
        @org.junit.jupiter.api.Test
        void phases(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void should_build_one_record_with_configuration_metrics_histograms_and_gpu_from_a_run_directory() throws Exception {
        // GIVEN a run of the simulator
        ProfiledTestKit.run(OneWindowTestCase.class, output, "profiledrollout.history.enabled", "false")
                .testEvents().assertStatistics(s -> s.succeeded(1));
        Path dir = output.resolve("RunRecordsTest$OneWindowTestCase/run");
        JsonNode summary = ProfiledTestKit.summary(dir);

        // WHEN
        List<RunRecord> records = RunRecords.fromDirectory(dir, BASE);

        // THEN
        assertThat(records).hasSize(1);
        RunRecord run = records.get(0);
        assertThat(run.id()).isZero();
        assertThat(run.identity()).isEqualTo(BASE);
        assertThat(run.outcome()).isEqualTo("PASSED");
        RunConfiguration c = run.configuration();
        assertThat(c.backend()).isEqualTo("SGLANG");
        assertThat(c.engineKind()).isEqualTo(summary.path("profiled").path("kind").asText());
        assertThat(c.model()).isEqualTo(summary.path("engine").path("model").asText());
        assertThat(c.gpu()).isNotBlank(); // the simulator's deviceProperties
        assertThat(c.inputTokens()).isEqualTo(64);
        assertThat(c.outputTokens()).isEqualTo(8);
        assertThat(c.concurrency()).isEqualTo(4);
        assertThat(c.requestRate()).isInfinite();
        assertThat(c.numSteps()).isEqualTo(4);
        assertThat(c.phase()).isNull();
        assertThat(c.extra()).containsEntry("requests", "8").containsEntry("endpoint", "COMPLETIONS");
        assertThat(run.metrics().get("ttft.p99")).isCloseTo(summary.at("/latency/ttft/p99Ms").asDouble(), within(1e-9));
        assertThat(run.metrics().get("throughput.output_tokens"))
                .isCloseTo(summary.at("/latency/outputTokenThroughput").asDouble(), within(1e-9));
        assertThat(run.metrics().get("errors.fraction")).isZero();
        assertThat(run.metrics().get("trace.kernel_ms"))
                .isCloseTo(summary.at("/trace/kernelTotalNs").asDouble() / 1e6, within(1e-9));
        assertThat(run.metrics().get("trace.gpu_busy_fraction")).isBetween(0.0, 1.0);
        assertThat(run.metrics().keySet()).anyMatch(k -> k.startsWith("kernel.category."))
                .anyMatch(HistoryMetrics::isKernelMetric).contains("itl.p50", "tpot.mean", "e2e.max");
        List<String> kernelIds = run.metrics().keySet().stream().filter(HistoryMetrics::isKernelMetric).toList();
        assertThat(kernelIds).hasSize(Math.min(RunRecords.TOP_KERNELS, summary.at("/trace/kernels").size()));
        assertThat(run.kernelNames()).containsOnlyKeys(kernelIds);
        run.kernelNames().forEach((id, name) -> assertThat(HistoryMetrics.kernelMetric(name)).isEqualTo(id));
        assertThat(run.metrics().keySet()).allSatisfy(HistoryMetrics::measure); // every name is a known metric
        assertThat(run.histograms()).containsOnlyKeys("ttft", "itl", "tpot", "e2e");
        Histogram ttft = RunRecords.decode(run.histograms().get("ttft"));
        assertThat(ttft.getTotalCount()).isEqualTo(8);
        assertThat(ttft.getMaxValue() / 1e6).isCloseTo(summary.at("/latency/ttft/maxMs").asDouble(), within(0.5));
        assertThat(RunRecords.samplesMs(ttft)).hasSize(8);
    }

    @Test
    void should_rebuild_histograms_from_requests_jsonl_when_the_latency_log_is_missing() throws Exception {
        ProfiledTestKit.run(OneWindowTestCase.class, output, "profiledrollout.history.enabled", "false")
                .testEvents().assertStatistics(s -> s.succeeded(1));
        Path dir = output.resolve("RunRecordsTest$OneWindowTestCase/run");
        Histogram fromLog = RunRecords.decode(RunRecords.fromDirectory(dir, BASE).get(0).histograms().get("e2e"));
        Files.delete(dir.resolve("latency.hlog"));

        RunRecord rebuilt = RunRecords.fromDirectory(dir, BASE).get(0);

        assertThat(rebuilt.histograms()).containsOnlyKeys("ttft", "tpot", "e2e"); // ITL needs the chunk times
        Histogram e2e = RunRecords.decode(rebuilt.histograms().get("e2e"));
        assertThat(e2e.getTotalCount()).isEqualTo(fromLog.getTotalCount());
        assertThat(e2e.getValueAtPercentile(50)).isEqualTo(fromLog.getValueAtPercentile(50));
    }

    @Test
    void should_build_one_record_per_phase_under_the_phase_test_id() {
        ProfiledTestKit.run(TwoPhasesTestCase.class, output, "profiledrollout.history.enabled", "false")
                .testEvents().assertStatistics(s -> s.succeeded(1));
        Path dir = output.resolve("RunRecordsTest$TwoPhasesTestCase/phases");

        List<RunRecord> records = RunRecords.fromDirectory(dir, BASE);

        assertThat(records).extracting(r -> r.identity().testId())
                .containsExactly("com.acme.FooTest#bar/PREFILL", "com.acme.FooTest#bar/DECODE");
        assertThat(records).extracting(r -> r.configuration().phase()).containsExactly("PREFILL", "DECODE");
        assertThat(records.get(0).configuration().inputTokens()).isEqualTo(256);
        assertThat(records.get(1).configuration().outputTokens()).isEqualTo(12);
        assertThat(records.get(0).fingerprint()).isNotEqualTo(records.get(1).fingerprint());
        assertThat(records).allSatisfy(r -> assertThat(r.metrics()).containsKey("ttft.p99"));
    }

    @Test
    void should_name_the_directory_when_it_holds_no_summary() {
        assertThatThrownBy(() -> RunRecords.fromDirectory(output, BASE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(output.toString()).hasMessageContaining("no summary.json");
    }
}
