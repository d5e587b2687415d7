package dev.profiledrollout.assertions;

import dev.profiledrollout.metrics.ErrorKind;
import dev.profiledrollout.metrics.LatencyDistribution;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.Slo;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import dev.profiledrollout.trace.StepStats;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Latency statistics, failed requests, goodput and step durations on hand-built runs whose every figure is known.
 */
class LatencyAndStepsAssertTest {

    private static final long MS = 1_000_000L;

    /** Three requests, TTFT 10, 20 and 30 ms, E2E 40, 60, 80 ms, 3 tokens each; one more failed (timeout). */
    private static List<RequestRecord> run(boolean withFailure) {
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            long start = i * 100 * MS;
            long ttft = (i + 1) * 10 * MS;
            long e2e = 40 * MS + i * 20 * MS;
            records.add(RequestRecord.success(i, 8, 3, start, new long[]{start + ttft, start + (ttft + e2e) / 2,
                    start + e2e}, 8, 3));
        }
        if (withFailure) {
            records.add(RequestRecord.failure(3, 8, 3, 300 * MS, new long[0], 400 * MS, -1, -1, ErrorKind.TIMEOUT,
                    "read timed out"));
        }
        return records;
    }

    @Test
    void mean_and_max_are_the_samples_mean_and_largest() {
        LatencyReport report = LatencyReport.of(run(false));
        assertThat(report).ttft().mean().isLessThanOrEqualTo(Duration.ofMillis(20)).isGreaterThanOrEqualTo(Duration.ofMillis(20));
        assertThat(report).ttft().max().isGreaterThanOrEqualTo(Duration.ofMillis(30)).isLessThan(Duration.ofMillis(31));
        assertThatThrownBy(() -> assertThat(report).e2e().max().isLessThan(Duration.ofMillis(70)))
                .hasMessage("max E2E latency was 80 ms, budget < 70 ms (+14.3%); 1 of 3 requests above budget");
        // a sample equal to the budget is not above it (the histogram's 80 ms bucket also holds values above 80 ms)
        assertThatThrownBy(() -> assertThat(report).e2e().max().isLessThan(Duration.ofMillis(80)))
                .hasMessage("max E2E latency was 80 ms, budget < 80 ms (+0.0%); 0 of 3 requests above budget");
        assertThatThrownBy(() -> assertThat(report).e2e().mean().isLessThan(Duration.ofMillis(50)))
                .hasMessage("mean E2E latency was 60 ms, budget < 50 ms (+20.0%); 2 of 3 requests above budget");
        assertThatThrownBy(() -> assertThat(report).ttft().percentile(50).isLessThan(Duration.ofMillis(20)))
                .hasMessageContaining("p50 TTFT was 20").hasMessageContaining("budget < 20 ms");
        assertThatThrownBy(() -> assertThat(report).itl().percentile(99.9).isLessThan(Duration.ofMillis(1)))
                .hasMessageContaining("p99.9 ITL was ").hasMessageContaining("of 6 chunk gaps above budget");
        assertThat(report).tpot().hasSamples().hasSamples();
    }

    @Test
    void percentiles_must_be_in_zero_to_a_hundred_inclusive() {
        LatencyReport report = LatencyReport.of(run(false));
        assertThat(report).ttft().percentile(0).isLessThanOrEqualTo(Duration.ofMillis(10));
        assertThat(report).ttft().percentile(100).isGreaterThanOrEqualTo(Duration.ofMillis(30));
        for (double bad : new double[]{-0.001, 100.001, Double.NaN}) {
            assertThatThrownBy(() -> assertThat(report).ttft().percentile(bad))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("percentile must be in [0, 100]");
        }
    }

    @Test
    void a_statistic_without_samples_fails_at_once_even_with_soft_budgets() {
        // one-token requests have no ITL and no TPOT
        LatencyReport report = LatencyReport.of(List.of(RequestRecord.success(0, 8, 1, 0, new long[]{5 * MS}, 8, 1)));
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            assertThatThrownBy(() -> assertThat(report).itl().mean()).hasMessageContaining("ITL has no samples");
            assertThatThrownBy(() -> assertThat(report).itl().max()).hasMessageContaining("ITL has no samples");
            assertThatThrownBy(() -> assertThat(report).tpot().percentile(50)).hasMessageContaining("TPOT has no samples");
            assertThat(report).tpot().hasSamples();
            org.assertj.core.api.Assertions.assertThat(recording.failures()).extracting(Throwable::getMessage)
                    .containsExactly("TPOT has no samples (" + report.tpot().definition() + ")");
            org.assertj.core.api.Assertions.assertThat(recording.verdicts()).extracting(Verdict::measure)
                    .containsExactly("ITL samples", "ITL samples", "TPOT samples", "TPOT samples");
        }
        assertThatThrownBy(() -> assertThat(report).itl().hasSamples()).hasMessageContaining("ITL has no samples");
    }

    @Test
    void failed_requests_are_counted_with_the_first_one_named() {
        assertThat(LatencyReport.of(run(false))).hasNoFailedRequests().hasNoFailedRequests();
        LatencyReport failing = LatencyReport.of(run(true));
        assertThatThrownBy(() -> assertThat(failing).hasNoFailedRequests())
                .hasMessage("1 of 4 requests failed {TIMEOUT=1}; first: request 3: TIMEOUT read timed out");
        Verdict verdict;
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            assertThat(LatencyReport.of(run(false))).hasNoFailedRequests();
            verdict = recording.verdicts().get(0);
        }
        org.assertj.core.api.Assertions.assertThat(verdict.detail()).isEqualTo("0 of 3 requests failed");
        org.assertj.core.api.Assertions.assertThat(verdict.passed()).isTrue();
    }

    @Test
    void throughputs_are_per_second_of_the_run() {
        // first send 0, last end 240 ms (request 2: start 200 ms, E2E 80 ms... ends at 280 ms)
        LatencyReport report = LatencyReport.of(run(false));
        double seconds = report.duration().toNanos() / 1e9;
        assertThat(report).requestThroughput().isGreaterThanOrEqualTo(3 / seconds).isLessThanOrEqualTo(3 / seconds);
        assertThatThrownBy(() -> assertThat(report).requestThroughput().isGreaterThan(100))
                .hasMessageContaining("request throughput was 10.71 req/s, budget > 100.00 req/s")
                .hasMessageContaining("3 requests in 280 ms");
        assertThatThrownBy(() -> assertThat(report).outputTokenThroughput().isGreaterThan(100))
                .hasMessageContaining("output token throughput was 32.1 tok/s, budget > 100.0 tok/s")
                .hasMessageContaining("9 output tokens in 280 ms");
    }

    @Test
    void goodput_needs_an_slo_and_counts_the_requests_meeting_every_bound() {
        Slo slo = new Slo(Duration.ofMillis(20), null, null); // TTFT 10 and 20 ms meet it, 30 ms does not
        LatencyReport report = LatencyReport.of(run(true), slo);
        assertThat(report).goodRequests().isEqualTo(2).isEqualTo(2);
        assertThat(report).goodRequestFraction().isLessThan(0.51).isGreaterThan(0.49);
        assertThat(report).goodput().isGreaterThan(0).isLessThan(2 / 0.4 + 1e-9).isGreaterThan(2 / 0.4 - 1e-9);
        assertThatThrownBy(() -> assertThat(report).goodRequestFraction().isGreaterThan(0.9))
                .hasMessage("good-request fraction (SLO ttft:20) was 50.0%, budget > 90.0% (-44.4%); 2 of 4 requests"
                        + " met every SLO in 400 ms");
        assertThatThrownBy(() -> assertThat(report).goodput().isGreaterThan(10))
                .hasMessageContaining("request goodput (SLO ttft:20) was 5.00 req/s, budget > 10.00 req/s");
        assertThatThrownBy(() -> assertThat(report).goodRequests().isGreaterThan(3))
                .hasMessageContaining("good requests (SLO ttft:20) was 2, budget > 3");

        LatencyReport noSlo = LatencyReport.of(run(false));
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            assertThatThrownBy(() -> assertThat(noSlo).goodput()).hasMessageContaining("no goodput SLO set");
            assertThatThrownBy(() -> assertThat(noSlo).goodRequests()).hasMessageContaining("no goodput SLO set");
            assertThatThrownBy(() -> assertThat(noSlo).goodRequestFraction()).hasMessageContaining("@RolloutLoad(goodput");
        }
        // no request sent: no fraction to judge, whatever the budget
        LatencyReport empty = LatencyReport.of(List.of(), slo);
        assertThatThrownBy(() -> assertThat(empty).goodRequestFraction().isEqualTo(0))
                .hasMessageContaining("good-request fraction (SLO ttft:20) has no data").hasMessageEndingWith(
                        "no request was sent");
    }

    // ---- steps ----

    private static StepStats step(String name, long durationMs, long kernelMs) {
        return new StepStats(name, StepStats.Stage.DECODE, OptionalInt.of(8), OptionalInt.empty(), 0,
                durationMs * MS, -1, 1, kernelMs * MS, 0, 0, 0);
    }

    /** Durations 5, 1, 4, 2, 3 ms (sorted 1..5); kernel times 1, 5, 2, 3, 4 ms. */
    private static StepsAssert steps() {
        return new StepsAssert(List.of(step("s0", 5, 1), step("s1", 1, 5), step("s2", 4, 2), step("s3", 2, 3),
                step("s4", 3, 4)), "DECODE steps", "TP-0");
    }

    @Test
    void duration_percentiles_take_the_nearest_rank() {
        // nearest rank: ceil(p/100 · 5)th smallest
        steps().durationPercentile(20).isLessThanOrEqualTo(Duration.ofMillis(1)).isGreaterThanOrEqualTo(Duration.ofMillis(1));
        steps().durationPercentile(21).isGreaterThanOrEqualTo(Duration.ofMillis(2)).isLessThanOrEqualTo(Duration.ofMillis(2));
        steps().durationPercentile(50).isGreaterThanOrEqualTo(Duration.ofMillis(3)).isLessThanOrEqualTo(Duration.ofMillis(3));
        steps().durationPercentile(80).isGreaterThanOrEqualTo(Duration.ofMillis(4)).isLessThanOrEqualTo(Duration.ofMillis(4));
        steps().durationPercentile(99).isGreaterThanOrEqualTo(Duration.ofMillis(5)).isLessThanOrEqualTo(Duration.ofMillis(5));
        steps().durationPercentile(100).isGreaterThanOrEqualTo(Duration.ofMillis(5)).isLessThanOrEqualTo(Duration.ofMillis(5));
        steps().durationPercentile(0).isGreaterThanOrEqualTo(Duration.ofMillis(1)).isLessThanOrEqualTo(Duration.ofMillis(1));
        assertThatThrownBy(() -> steps().durationPercentile(50).isLessThan(Duration.ofMillis(3)))
                .hasMessage("[TP-0] p50 duration of DECODE steps was 3 ms, budget < 3 ms (+0.0%); 2 of 5 steps"
                        + " above budget; slowest s0 (5 ms, kernels 1 ms)");
    }

    @Test
    void the_largest_step_is_named_with_its_index() {
        steps().maxDuration().isLessThanOrEqualTo(Duration.ofMillis(5)).isGreaterThanOrEqualTo(Duration.ofMillis(5));
        steps().maxKernelTime().isLessThanOrEqualTo(Duration.ofMillis(5)).isGreaterThanOrEqualTo(Duration.ofMillis(5));
        assertThatThrownBy(() -> steps().maxDuration().isLessThan(Duration.ofMillis(3)))
                .hasMessage("[TP-0] duration of step #0 s0 (the largest of 5 DECODE steps) was 5 ms, budget <"
                        + " 3 ms (+66.7%); 2 of 5 steps above budget");
        assertThatThrownBy(() -> steps().maxKernelTime().isLessThan(Duration.ofMillis(4)))
                .hasMessage("[TP-0] kernel time of step #1 s1 (the largest of 5 DECODE steps) was 5 ms, budget <"
                        + " 4 ms (+25.0%); 1 of 5 steps above budget");
        // ties keep the first step
        StepsAssert tied = new StepsAssert(List.of(step("a", 2, 2), step("b", 2, 2)), "steps");
        assertThatThrownBy(() -> tied.maxDuration().isLessThan(Duration.ofMillis(1)))
                .hasMessageContaining("duration of step #0 a");
        StepsAssert rising = new StepsAssert(List.of(step("a", 1, 1), step("b", 2, 2), step("c", 3, 1)), "steps");
        assertThatThrownBy(() -> rising.maxDuration().isLessThan(Duration.ofMillis(1)))
                .hasMessageContaining("duration of step #2 c");
        assertThatThrownBy(() -> rising.maxKernelTime().isLessThan(Duration.ofMillis(1)))
                .hasMessageContaining("kernel time of step #1 b");
    }

    @Test
    void without_steps_every_duration_fails_at_once_and_the_count_is_a_verdict() {
        StepsAssert none = new StepsAssert(List.of(), "PREFILL steps", "TP-0");
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            assertThatThrownBy(none::maxDuration).hasMessageContaining("[TP-0] no PREFILL steps");
            assertThatThrownBy(none::maxKernelTime).hasMessageContaining("no PREFILL steps");
            assertThatThrownBy(() -> none.durationPercentile(50)).hasMessageContaining("no PREFILL steps");
            none.hasSteps();
            org.assertj.core.api.Assertions.assertThat(recording.failures()).hasSize(1);
            org.assertj.core.api.Assertions.assertThat(recording.verdicts()).extracting(Verdict::detail)
                    .containsOnly("no step annotations of this kind (SGLang step[…], vLLM execute_…, ProfilerStep#N)");
        }
        Verdict verdict;
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            steps().hasSteps().hasSteps().count().isEqualTo(5);
            verdict = recording.verdicts().get(0);
        }
        org.assertj.core.api.Assertions.assertThat(verdict.passed()).isTrue();
        org.assertj.core.api.Assertions.assertThat(verdict.detail()).isEmpty();
        org.assertj.core.api.Assertions.assertThat(verdict.measure()).isEqualTo("number of DECODE steps");
    }

    @Test
    void a_percentile_interval_of_the_distribution_is_shown_in_the_message() {
        LatencyDistribution d = LatencyDistribution.of("d", BudgetBoundariesTest.samples(200));
        assertThatThrownBy(() -> new LatencyMetricAssert(d, "TTFT", "requests", "").percentile(50)
                .isLessThan(Duration.ofMillis(1)))
                .hasMessageContaining("p50 TTFT was 100 ms (95% CI ").hasMessageContaining("199 of 200 requests above budget");
    }
}
