package dev.profiledrollout.assertions;

import dev.profiledrollout.history.HistoryStoreException;
import dev.profiledrollout.history.HistoryThreshold;
import dev.profiledrollout.history.RunHistory;
import dev.profiledrollout.metrics.LatencyDistribution;
import dev.profiledrollout.metrics.QuantileInterval;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How figures print in failure messages, and a history check whose store cannot be used. */
class FormatsAndHistoryAssertTest {

    @Test
    void durations_print_with_three_significant_digits_in_the_largest_fitting_unit() {
        assertThat(Formats.duration(Duration.ofNanos(999))).isEqualTo("999 ns");
        assertThat(Formats.duration(Duration.ofNanos(1_000))).isEqualTo("1 µs");
        assertThat(Formats.duration(Duration.ofNanos(1_500))).isEqualTo("1.50 µs");
        assertThat(Formats.duration(Duration.ofNanos(999_999))).isEqualTo("1000 µs");
        assertThat(Formats.duration(Duration.ofNanos(1_000_000))).isEqualTo("1 ms");
        assertThat(Formats.duration(Duration.ofNanos(12_345_678))).isEqualTo("12.3 ms");
        assertThat(Formats.duration(Duration.ofNanos(123_456_789))).isEqualTo("123 ms");
        assertThat(Formats.duration(Duration.ofNanos(999_999_999))).isEqualTo("1000 ms");
        assertThat(Formats.duration(Duration.ofSeconds(1))).isEqualTo("1 s");
        assertThat(Formats.duration(Duration.ofMillis(1_234))).isEqualTo("1.23 s");
        assertThat(Formats.duration(Duration.ofMillis(-2_500))).isEqualTo("-2.50 s");
        assertThat(Formats.duration(Duration.ofNanos(-2_500))).isEqualTo("-2.50 µs");
        assertThat(Formats.duration(Duration.ofNanos(123_4))).isEqualTo("1.23 µs");
        assertThat(Formats.duration(Duration.ofNanos(120))).isEqualTo("120 ns");
    }

    @Test
    void plain_numbers_keep_three_significant_digits() {
        assertThat(Formats.plain(0.012345)).isEqualTo("0.0123");
        assertThat(Formats.plain(1.2345)).isEqualTo("1.23");
        assertThat(Formats.plain(1)).isEqualTo("1");
        assertThat(Formats.plain(10)).isEqualTo("10");
        assertThat(Formats.plain(12.345)).isEqualTo("12.3");
        assertThat(Formats.plain(99.96)).isEqualTo("100.0");
        assertThat(Formats.plain(100)).isEqualTo("100");
        assertThat(Formats.plain(123.6)).isEqualTo("124");
        assertThat(Formats.plain(-12.345)).isEqualTo("-12.3");
        assertThat(Formats.plain(-1.2345)).isEqualTo("-1.23");
        assertThat(Formats.plain(1e15)).isEqualTo("1000000000000000");
    }

    @Test
    void gaps_are_signed_percentages_of_the_budget_and_na_for_a_zero_budget() {
        assertThat(Formats.gap(125, 100)).isEqualTo("+25.0%");
        assertThat(Formats.gap(75, 100)).isEqualTo("-25.0%");
        assertThat(Formats.gap(-50, -100)).isEqualTo("+50.0%");
        assertThat(Formats.gap(5, 0)).isEqualTo("n/a");
        assertThat(Formats.percent(0.1234)).isEqualTo("12.3%");
    }

    @Test
    void scopes_join_a_phase_and_a_rank() {
        assertThat(Formats.scoped("")).isEmpty();
        assertThat(Formats.scoped(null)).isEmpty();
        assertThat(Formats.scoped("DECODE")).isEqualTo("[DECODE] ");
        assertThat(Formats.join("", "TP-1")).isEqualTo("TP-1");
        assertThat(Formats.join(null, "TP-1")).isEqualTo("TP-1");
        assertThat(Formats.join("DECODE", "")).isEqualTo("DECODE");
        assertThat(Formats.join("DECODE", null)).isEqualTo("DECODE");
        assertThat(Formats.join("DECODE", "TP-1")).isEqualTo("DECODE · TP-1");
    }

    private static QuantileInterval interval(long[] samples, double p, double confidence) {
        return LatencyDistribution.of("d", samples).percentileInterval(p, confidence);
    }

    @Test
    void intervals_print_their_level_and_ends_or_say_which_end_is_open() {
        assertThat(Formats.interval(interval(BudgetBoundariesTest.samples(200), 50, 0.95)))
                .matches("95% CI \\d+–\\d+ ms");
        assertThat(Formats.interval(interval(BudgetBoundariesTest.samples(50), 99, 0.95)))
                .matches("95% CI ≥ [0-9.]+ ms, too few samples to bound it above");
        assertThat(Formats.interval(interval(BudgetBoundariesTest.samples(50), 1, 0.95)))
                .matches("95% CI ≤ [0-9.]+ ms, too few samples to bound it below");
        assertThat(Formats.interval(interval(new long[0], 50, 0.99))).isEqualTo("99% CI unbounded, too few samples");
        // the ends' units differ: each keeps its own
        assertThat(Formats.interval(interval(new long[]{1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000,
                100_000_000, 1_000_000_000}, 50, 0.9))).matches("90% CI [0-9.]+ (ns|µs)–[0-9.]+ ms");
    }

    @Test
    void a_history_store_that_cannot_be_used_is_a_warning_not_a_failure() {
        RunHistory history = new RunHistory(() -> {
            throw new HistoryStoreException("cannot open jdbc:sqlite:/nowhere/history.db");
        }, () -> {
            throw new AssertionError("the current run is not read when the store fails");
        }, HistoryThreshold.DEFAULT, "DECODE");
        List<Verdict> verdicts;
        try (Verdicts.Recording recording = Verdicts.start(false)) {
            new HistoryAssert(history).metric("ttft.p99").window(5).usingThreshold(HistoryThreshold.DEFAULT)
                    .hasNoRegression().hasNoRegression();
            verdicts = recording.verdicts();
        }
        assertThat(verdicts).hasSize(2);
        Verdict v = verdicts.get(0);
        assertThat(v.kind()).isEqualTo(Verdict.Kind.HISTORY);
        assertThat(v.scope()).isEqualTo("DECODE");
        assertThat(v.outcome()).isEqualTo(Verdict.Outcome.WARN);
        assertThat(v.actualText()).isEqualTo("unknown");
        assertThat(v.detail()).isEqualTo("cannot open jdbc:sqlite:/nowhere/history.db (set profiledrollout.history.url"
                + " to a reachable, writable store)");
        assertThatThrownBy(() -> new HistoryAssert(history).metric("ttft.p99").window(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HistoryAssert(history).metric("no.such.metric"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
