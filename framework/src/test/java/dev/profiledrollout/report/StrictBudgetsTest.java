package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import dev.profiledrollout.assertions.ProfiledRolloutAssertions;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StrictBudgetsTest {

    private static final long MS = 1_000_000L;

    /** Requests whose TTFTs are 1, 2, …, n ms: p99 of 1000 is 990 ms, its 95 % CI ranks 983 and 997. */
    private static LatencyReport ttftsOneToMs(int n) {
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            long start = i * 2000 * MS;
            records.add(RequestRecord.success(i, 16, 2, start, new long[] {start + i * MS, start + i * MS + MS}, 16, 2));
        }
        return LatencyReport.of(records);
    }

    @Test
    void should_pass_a_strict_budget_the_point_estimate_misses_while_the_interval_reaches_below_it() {
        // GIVEN p99 = 990 ms, 95% CI 983–997 ms
        LatencyReport latency = ttftsOneToMs(1000);
        List<Verdict> verdicts;
        // WHEN
        try (Verdicts.Recording recording = Verdicts.start()) {
            ProfiledRolloutAssertions.assertThat(latency).ttft().percentile(99).strictly()
                    .isLessThan(Duration.ofMillis(985));
            assertThatThrownBy(() -> ProfiledRolloutAssertions.assertThat(latency).ttft().percentile(99)
                    .isLessThan(Duration.ofMillis(985))).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("95% CI 983–997 ms");
            verdicts = recording.verdicts();
        }
        // THEN
        assertThat(verdicts).extracting(Verdict::passed).containsExactly(true, false);
        Verdict strict = verdicts.get(0);
        assertThat(strict.actual()).isCloseTo(990.0, within(0.5));
        assertThat(strict.actualText()).isEqualTo("990 ms (95% CI 983–997 ms)");
        assertThat(strict.detail()).startsWith("strict: fails only when the whole interval lies beyond the budget; ");
        assertThat(verdicts.get(1).actualText()).isEqualTo("990 ms (95% CI 983–997 ms)");
        assertThat(verdicts.get(1).detail()).endsWith(" of 1000 requests above budget");
    }

    @Test
    void should_fail_a_strict_budget_when_the_whole_interval_lies_beyond_it() {
        LatencyReport latency = ttftsOneToMs(1000);
        List<Verdict> verdicts;
        try (Verdicts.Recording recording = Verdicts.start()) {
            // lower end 983 ms is not below 983 ms
            assertThatThrownBy(() -> ProfiledRolloutAssertions.assertThat(latency).ttft().percentile(99).strictly()
                    .isLessThan(Duration.ofMillis(983))).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("p99 TTFT was 990 ms (95% CI 983–997 ms), budget < 983 ms");
            // upper end 997 ms is not above 997 ms; 996 ms it is
            assertThatThrownBy(() -> ProfiledRolloutAssertions.assertThat(latency).ttft().percentile(99).strictly()
                    .isGreaterThan(Duration.ofMillis(997))).isInstanceOf(AssertionError.class);
            ProfiledRolloutAssertions.assertThat(latency).ttft().percentile(99).strictly()
                    .isGreaterThan(Duration.ofMillis(996));
            verdicts = recording.verdicts();
        }
        assertThat(verdicts).extracting(Verdict::passed).containsExactly(false, false, true);
    }

    @Test
    void should_use_the_chosen_confidence_and_never_fail_on_an_open_end() {
        LatencyReport latency = ttftsOneToMs(1000);
        LatencyReport few = ttftsOneToMs(50);
        List<Verdict> verdicts;
        try (Verdicts.Recording recording = Verdicts.start()) {
            // the 99 % interval of p99 reaches further down than the 95 % one (983 ms)
            ProfiledRolloutAssertions.assertThat(latency).ttft().percentile(99).strictly(0.99)
                    .isLessThan(Duration.ofMillis(983));
            // p99 of 50 samples has no upper end: a strict floor cannot fail, however high
            ProfiledRolloutAssertions.assertThat(few).ttft().percentile(99).strictly()
                    .isGreaterThan(Duration.ofSeconds(10));
            verdicts = recording.verdicts();
        }
        assertThat(verdicts).extracting(Verdict::passed).containsExactly(true, true);
        assertThat(verdicts.get(0).actualText()).contains("99% CI ");
        assertThat(verdicts.get(1).actualText())
                .isEqualTo("50 ms (95% CI ≥ 48 ms, too few samples to bound it above)");
    }

    @Test
    void should_refuse_strict_mode_for_a_statistic_without_an_interval() {
        LatencyReport latency = ttftsOneToMs(10);
        assertThatThrownBy(() -> ProfiledRolloutAssertions.assertThat(latency).ttft().mean().strictly())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mean TTFT has no confidence interval")
                .hasMessageContaining("percentile(99).strictly()");
        assertThatThrownBy(() -> ProfiledRolloutAssertions.assertThat(latency).ttft().percentile(99).strictly(1.0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confidence must be in (0, 1)");
    }
}
