package dev.profiledrollout.assertions;

import dev.profiledrollout.metrics.LatencyDistribution;
import dev.profiledrollout.metrics.QuantileInterval;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every budget relation at its boundary: {@code actual == budget} passes {@code ≤}/{@code ≥} and fails
 * {@code <}/{@code >}; each comparison returns the same assert for chaining and records one verdict.
 */
class BudgetBoundariesTest {

    private static NumberBudgetAssert number(double actual) {
        return new NumberBudgetAssert(actual, "busy fraction", Formats::percent, "on 2 ranks");
    }

    @Test
    void a_number_equal_to_its_budget_passes_only_the_inclusive_relations() {
        number(0.5).isLessThanOrEqualTo(0.5).isGreaterThanOrEqualTo(0.5).isBetween(0.5, 0.5).isLessThan(0.6)
                .isGreaterThan(0.4);
        number(2).isEqualTo(2).isEqualTo(2);
        assertThatThrownBy(() -> number(0.5).isLessThan(0.5)).isInstanceOf(AssertionError.class)
                .hasMessage("busy fraction was 50.0%, budget < 50.0% (+0.0%); on 2 ranks");
        assertThatThrownBy(() -> number(0.5).isGreaterThan(0.5)).isInstanceOf(AssertionError.class)
                .hasMessage("busy fraction was 50.0%, budget > 50.0% (+0.0%); on 2 ranks");
    }

    @Test
    void a_number_just_past_its_budget_fails_every_relation_on_that_side() {
        assertThatThrownBy(() -> number(0.51).isLessThanOrEqualTo(0.5)).hasMessageContaining("budget ≤ 50.0% (+2.0%)");
        assertThatThrownBy(() -> number(0.49).isGreaterThanOrEqualTo(0.5)).hasMessageContaining("budget ≥ 50.0% (-2.0%)");
        assertThatThrownBy(() -> number(0.49).isBetween(0.5, 0.6)).hasMessageContaining("budget ≥ 50.0%");
        assertThatThrownBy(() -> number(0.61).isBetween(0.5, 0.6)).hasMessageContaining("budget ≤ 60.0%");
        assertThatThrownBy(() -> number(3).isEqualTo(2)).hasMessageContaining("budget = 200.0%");
        number(0.51).isGreaterThan(0.5);
    }

    @Test
    void every_number_comparison_records_one_verdict_with_its_outcome_and_scope() {
        NumberBudgetAssert scoped = new NumberBudgetAssert(2.0, Verdict.Kind.STEPS, "TP-1", "number of steps",
                Formats::plain, null);
        List<Verdict> verdicts;
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            scoped.isLessThan(2).isLessThanOrEqualTo(2).isGreaterThan(2).isGreaterThanOrEqualTo(2);
            verdicts = recording.verdicts();
            assertThat(recording.failures()).extracting(Throwable::getMessage).containsExactly(
                    "[TP-1] number of steps was 2, budget < 2 (+0.0%)",
                    "[TP-1] number of steps was 2, budget > 2 (+0.0%)");
        }
        assertThat(verdicts).extracting(Verdict::relation, Verdict::outcome, Verdict::scope, Verdict::kind)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("<", Verdict.Outcome.FAIL, "TP-1", Verdict.Kind.STEPS),
                        org.assertj.core.groups.Tuple.tuple("≤", Verdict.Outcome.PASS, "TP-1", Verdict.Kind.STEPS),
                        org.assertj.core.groups.Tuple.tuple(">", Verdict.Outcome.FAIL, "TP-1", Verdict.Kind.STEPS),
                        org.assertj.core.groups.Tuple.tuple("≥", Verdict.Outcome.PASS, "TP-1", Verdict.Kind.STEPS));
        assertThat(verdicts.get(0).actualText()).isEqualTo("2");
        assertThat(verdicts.get(0).detail()).isEmpty();
    }

    private static DurationBudgetAssert duration(long millis) {
        return new DurationBudgetAssert(Duration.ofMillis(millis), "p99 TTFT", budget -> "1 of 4 requests above");
    }

    @Test
    void a_duration_equal_to_its_budget_passes_only_the_inclusive_relations() {
        Duration b = Duration.ofMillis(250);
        duration(250).isLessThanOrEqualTo(b).isGreaterThanOrEqualTo(b).isBetween(b, b).isLessThan(b.plusNanos(1))
                .isGreaterThan(b.minusNanos(1));
        assertThatThrownBy(() -> duration(250).isLessThan(b))
                .hasMessage("p99 TTFT was 250 ms, budget < 250 ms (+0.0%); 1 of 4 requests above");
        assertThatThrownBy(() -> duration(250).isGreaterThan(b)).hasMessageContaining("budget > 250 ms");
        assertThatThrownBy(() -> duration(251).isLessThanOrEqualTo(b)).hasMessageContaining("budget ≤ 250 ms (+0.4%)");
        assertThatThrownBy(() -> duration(249).isGreaterThanOrEqualTo(b)).hasMessageContaining("budget ≥ 250 ms (-0.4%)");
        assertThatThrownBy(() -> duration(249).isBetween(b, b.plusSeconds(1))).hasMessageContaining("budget ≥ 250 ms");
        assertThatThrownBy(() -> duration(1_251).isBetween(b, b.plusSeconds(1))).hasMessageContaining("budget ≤ 1.25 s");
    }

    @Test
    void a_duration_verdict_is_in_milliseconds_with_the_context_as_detail() {
        Verdict verdict;
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            new DurationBudgetAssert(Duration.ofMillis(3), Verdict.Kind.LATENCY, "DECODE", "mean ITL", null)
                    .isLessThan(Duration.ofMillis(2));
            verdict = recording.verdicts().get(0);
            assertThat(recording.failures()).extracting(Throwable::getMessage)
                    .containsExactly("[DECODE] mean ITL was 3 ms, budget < 2 ms (+50.0%)");
        }
        assertThat(verdict.actual()).isEqualTo(3.0);
        assertThat(verdict.budget()).isEqualTo(2.0);
        assertThat(verdict.unit()).isEqualTo("ms");
        assertThat(verdict.detail()).isEmpty();
        assertThat(verdict.passed()).isFalse();
    }

    @Test
    void strict_budgets_need_a_confidence_strictly_between_zero_and_one_and_an_interval() {
        LatencyDistribution d = LatencyDistribution.of("d", samples(200));
        DurationBudgetAssert p50 = new LatencyMetricAssert(d, "TTFT", "requests", "").percentile(50);
        assertThatThrownBy(() -> p50.strictly(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("confidence must be in (0, 1)");
        assertThatThrownBy(() -> p50.strictly(1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p50.strictly(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> duration(1).strictly()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("p99 TTFT has no confidence interval");

        // 200 samples 1..200 ms: the median's 95 % interval lies well inside [80, 120] ms
        QuantileInterval ci = d.percentileInterval(50);
        Duration low = ci.low().orElseThrow();
        Duration high = ci.high().orElseThrow();
        p50.strictly().isLessThan(low.plusNanos(1)).isLessThanOrEqualTo(low).isGreaterThan(high.minusNanos(1))
                .isGreaterThanOrEqualTo(high);
        assertThatThrownBy(() -> p50.strictly().isLessThan(low)).hasMessageContaining("strict: fails only when");
        assertThatThrownBy(() -> p50.strictly().isLessThanOrEqualTo(low.minusNanos(1)))
                .hasMessageContaining("95% CI");
        assertThatThrownBy(() -> p50.strictly().isGreaterThan(high)).hasMessageContaining("budget >");
        assertThatThrownBy(() -> p50.strictly().isGreaterThanOrEqualTo(high.plusNanos(1)))
                .hasMessageContaining("budget ≥");
        // the point estimate decides a non-strict budget even inside the interval
        assertThatThrownBy(() -> p50.isLessThan(d.percentile(50))).hasMessageContaining("budget <");
    }

    @Test
    void an_open_interval_end_never_fails_a_strict_budget() {
        // p99 of 50 samples has no upper end
        LatencyDistribution d = LatencyDistribution.of("d", samples(50));
        DurationBudgetAssert p99 = new LatencyMetricAssert(d, "TTFT", "requests", "").percentile(99);
        p99.strictly().isGreaterThan(Duration.ofHours(1)).isGreaterThanOrEqualTo(Duration.ofHours(1));
        assertThatThrownBy(() -> p99.isGreaterThan(Duration.ofHours(1))).hasMessageContaining("too few samples");
    }

    static long[] samples(int n) {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            v[i] = (i + 1) * 1_000_000L;
        }
        return v;
    }
}
