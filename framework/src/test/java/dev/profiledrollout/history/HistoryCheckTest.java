package dev.profiledrollout.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.history.stats.Change;
import dev.profiledrollout.verdict.Verdict;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link HistoryCheck} against a real SQLite store holding a hand-made series. */
class HistoryCheckTest {

    /**
     * Student's t at {@link HistoryThreshold#DEFAULT_PROBABILITY} on every metric, as when a model is named: the
     * default judges the client's metrics by the relative floor alone ({@link HistoryThreshold#FLOOR_ONLY}).
     */
    private static final HistoryThreshold T_TEST = HistoryThreshold.DEFAULT
            .withBoundary(HistoryThreshold.DEFAULT_PROBABILITY);


    private static final String TEST = "com.acme.FooTest#bar";
    private static final RunConfiguration CONFIG = new RunConfiguration("SGLANG", "embedded simulator", "0.5.0",
            "meta-llama/Llama-3.1-8B-Instruct", "NVIDIA H100 80GB HBM3", 1, 1, 1, 1, 512, 64, 16,
            Double.POSITIVE_INFINITY, 10, null, null);

    @TempDir
    Path dir;

    private HistoryStore store;

    @BeforeEach
    void open() {
        store = HistoryStore.sqlite(dir.resolve("history.db"));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private RunRecord run(String commit, Map<String, Double> metrics, Map<String, byte[]> histograms) {
        return new RunRecord(0, new RunIdentity(TEST, Instant.parse("2026-11-23T20:00:00Z"), commit, "main", null, null,
                "host"), CONFIG, "PASSED", new TreeMap<>(metrics), histograms);
    }

    private RunRecord seed(String commit, double ttftP99, double throughput) {
        return store.record(run(commit, Map.of("ttft.p99", ttftP99, "throughput.output_tokens", throughput), Map.of()));
    }

    private static byte[] histogram(long centreNs, long spreadNs, int count) {
        Histogram h = new Histogram(3);
        for (int i = 0; i < count; i++) {
            h.recordValue(centreNs + (i % 11 - 5) * spreadNs);
        }
        return RunRecords.encode(h);
    }

    @Test
    void should_find_a_latency_regression_and_a_throughput_improvement_with_the_t_test() {
        double[] ttft = {250, 252, 248, 251, 249, 250, 253, 247};
        for (int i = 0; i < ttft.length; i++) {
            seed("c" + i, ttft[i], 1000 + i % 3);
        }
        RunRecord current = run("new", Map.of("ttft.p99", 300.0, "throughput.output_tokens", 1200.0), Map.of());

        HistoryCheck check = HistoryCheck.of(store, current, T_TEST);
        HistoryVerdict latency = check.check("ttft.p99").orElseThrow();
        HistoryVerdict throughput = check.check("throughput.output_tokens").orElseThrow();

        assertThat(latency.change()).isEqualTo(Change.REGRESSION);
        assertThat(latency.result().n()).isEqualTo(8);
        assertThat(latency.against()).extracting(HistoryVerdict.RunRef::runId).containsExactly(1L, 2L, 3L, 4L, 5L, 6L,
                7L, 8L);
        assertThat(latency.describe()).contains("p99 TTFT 300 ms vs mean 250 ms of last 8 runs", "REGRESSION",
                "runs #1..#8, commits c0..c7");
        assertThat(latency.toVerdict("").outcome()).isEqualTo(Verdict.Outcome.FAIL);
        assertThat(latency.toVerdict("").kind()).isEqualTo(Verdict.Kind.HISTORY);
        // higher throughput is better: an improvement, which passes
        assertThat(throughput.change()).isEqualTo(Change.NO_CHANGE); // no lower boundary: upward moves are not flagged
        assertThat(throughput.toVerdict("").outcome()).isEqualTo(Verdict.Outcome.PASS);
        assertThat(check.check("goodput.requests")).isEmpty(); // the run has no such figure
    }

    @Test
    void should_use_only_the_window_and_warn_on_insufficient_history() {
        for (int i = 0; i < 30; i++) {
            seed("c" + i, 250 + i % 2, 1000);
        }
        RunRecord current = run("new", Map.of("ttft.p99", 250.5), Map.of());

        HistoryVerdict windowed = HistoryCheck.of(store, current, T_TEST.withWindow(5))
                .check("ttft.p99").orElseThrow();
        HistoryVerdict first = HistoryCheck.of(HistoryStore.sqlite(dir.resolve("empty.db")), current,
                T_TEST).check("ttft.p99").orElseThrow();

        assertThat(windowed.change()).isEqualTo(Change.NO_CHANGE);
        assertThat(windowed.against()).extracting(HistoryVerdict.RunRef::runId).containsExactly(26L, 27L, 28L, 29L, 30L);
        assertThat(first.change()).isEqualTo(Change.INSUFFICIENT_HISTORY);
        assertThat(first.againstText()).isEqualTo("no earlier runs");
        assertThat(first.toVerdict("DECODE").outcome()).isEqualTo(Verdict.Outcome.WARN);
        assertThat(first.toVerdict("DECODE").scope()).isEqualTo("DECODE");
    }

    @Test
    void should_compare_raw_samples_with_the_previous_run_under_mann_whitney() {
        store.record(run("old", Map.of("ttft.p99", 12.0), Map.of("ttft", histogram(10_000_000, 100_000, 200))));
        RunRecord previous = store.record(run("prev", Map.of("ttft.p99", 11.0),
                Map.of("ttft", histogram(10_000_000, 100_000, 200))));
        RunRecord slower = run("new", Map.of("ttft.p99", 21.0), Map.of("ttft", histogram(20_000_000, 100_000, 200)));
        RunRecord same = run("new", Map.of("ttft.p99", 11.0), Map.of("ttft", histogram(10_000_000, 100_000, 200)));
        HistoryThreshold mannWhitney = HistoryThreshold.DEFAULT.withModel(HistoryThreshold.Model.MANN_WHITNEY);

        HistoryVerdict regressed = HistoryCheck.of(store, slower, mannWhitney).check("ttft.p99").orElseThrow();
        HistoryVerdict unchanged = HistoryCheck.of(store, same, mannWhitney).check("ttft.p99").orElseThrow();
        HistoryVerdict welch = HistoryCheck.of(store, slower,
                HistoryThreshold.DEFAULT.withModel(HistoryThreshold.Model.WELCH)).check("ttft.p99").orElseThrow();

        assertThat(regressed.change()).isEqualTo(Change.REGRESSION);
        assertThat(regressed.result().model()).isEqualTo("Mann-Whitney U");
        assertThat(regressed.result().currentCount()).isEqualTo(200);
        assertThat(regressed.against()).extracting(HistoryVerdict.RunRef::runId).containsExactly(previous.id());
        assertThat(regressed.describe()).contains("of the previous run (200 samples)", "run #" + previous.id());
        assertThat(unchanged.change()).isEqualTo(Change.NO_CHANGE);
        assertThat(welch.change()).isEqualTo(Change.REGRESSION);
        assertThat(welch.result().model()).isEqualTo("Welch's t");
    }

    @Test
    void should_fall_back_to_the_t_test_for_metrics_without_samples() {
        for (int i = 0; i < 5; i++) {
            seed("c" + i, 250, 1000 + i);
        }
        RunRecord current = run("new", Map.of("throughput.output_tokens", 500.0), Map.of());

        HistoryVerdict verdict = HistoryCheck.of(store, current,
                HistoryThreshold.DEFAULT.withModel(HistoryThreshold.Model.MANN_WHITNEY))
                .check("throughput.output_tokens").orElseThrow();

        assertThat(verdict.result().model()).isEqualTo("t-test");
        assertThat(verdict.change()).isEqualTo(Change.REGRESSION); // lower throughput is worse
    }

    @Test
    void should_give_trends_oldest_first_with_change_points_and_the_current_run_last() {
        double[] values = {100, 101, 99, 100, 100.5, 99.5, 100, 150, 151, 149};
        for (int i = 0; i < values.length; i++) {
            seed("c" + i, values[i], 1000);
        }
        RunRecord current = store.record(run("new", Map.of("ttft.p99", 150.5), Map.of()));

        List<HistoryCheck.Trend> trends = HistoryCheck.of(store, current,
                T_TEST.withWindow(9)).trends(HistoryMetrics.KEY_METRICS, current.id());

        assertThat(trends).extracting(HistoryCheck.Trend::metric).containsExactly("ttft.p99");
        List<HistoryCheck.Trend.Point> points = trends.get(0).points();
        assertThat(points).hasSize(10);
        assertThat(points).extracting(HistoryCheck.Trend.Point::runId)
                .containsExactly(2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L);
        assertThat(points.get(9).current()).isTrue();
        assertThat(points.get(0).current()).isFalse();
        assertThat(points.get(6).change()).isEqualTo(Change.REGRESSION); // run 8: the jump to 150
        assertThat(points.get(1).change()).isEqualTo(Change.NO_CHANGE);
    }

    @Test
    void should_read_the_threshold_keys_and_name_the_key_of_a_bad_value() {
        Map<String, String> keys = new HashMap<>(Map.of("profiledrollout.history.threshold", "relative",
                "profiledrollout.history.window", "5"));

        HistoryThreshold relative = HistoryThreshold.from(k -> Optional.ofNullable(keys.get(k)));
        keys.put("profiledrollout.history.threshold", "bayes");

        assertThat(relative).isEqualTo(new HistoryThreshold(HistoryThreshold.Model.RELATIVE, 0.10, 5));
        assertThat(HistoryThreshold.from(k -> Optional.empty())).isEqualTo(HistoryThreshold.DEFAULT);
        assertThatThrownBy(() -> HistoryThreshold.from(k -> Optional.ofNullable(keys.get(k))))
                .hasMessageContaining("profiledrollout.history.threshold").hasMessageContaining("mann-whitney");
        assertThatThrownBy(() -> new HistoryThreshold(HistoryThreshold.Model.T_TEST, 0.2, 20))
                .hasMessageContaining("profiledrollout.history.boundary").hasMessageContaining("[0.5, 1)");
        assertThatThrownBy(() -> HistoryThreshold.DEFAULT.withWindow(0))
                .hasMessageContaining("profiledrollout.history.window");
    }
}
