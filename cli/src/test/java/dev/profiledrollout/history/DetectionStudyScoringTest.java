package dev.profiledrollout.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.history.DetectionStudy.History;
import dev.profiledrollout.history.DetectionStudy.Run;
import dev.profiledrollout.history.DetectionStudy.Score;
import dev.profiledrollout.history.stats.StudentT;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the study counts detections and false alarms, on hand-made runs with known values. */
class DetectionStudyScoringTest {

    private static final List<String> METRICS = List.of("itl.p99", "throughput.output_tokens");

    @Test
    void counts_a_flag_on_either_metric_once_per_run_and_reads_each_direction() {
        // GIVEN seed 0: a slower ITL at the first shifted run; seed 1: a lower throughput only at the second;
        // the unchanged runs of seed 0 have one ITL spike, of seed 1 one throughput drop
        List<Run> base = runs(20, 10.0, 500.0);
        History first = new History(0, base, withSpike(runs(4, 10.0, 500.0), 2, 30.0, 500.0),
                List.of(run(30.0, 500.0), run(10.0, 500.0)));
        History second = new History(1, base, withSpike(runs(4, 10.0, 500.0), 0, 10.0, 100.0),
                List.of(run(10.0, 500.0), run(10.0, 100.0)));
        DetectionStudy.Detector t = DetectionStudy.single("t-test 0.99", 20, b -> new StudentT(20, b)::evaluate, 0.99);
        // WHEN
        Score s = DetectionStudy.score(t, List.of(first, second), METRICS);
        // THEN
        assertThat(s.histories()).isEqualTo(2);
        assertThat(s.firstRunHits()).isEqualTo(1);
        assertThat(s.withinHits()).isEqualTo(2);
        assertThat(s.noiseRuns()).isEqualTo(8);
        assertThat(s.falseAlarms()).isEqualTo(2);
        assertThat(s.firstRunHitsByMetric()).containsEntry("itl.p99", 1).containsEntry("throughput.output_tokens", 0);
        assertThat(s.falseAlarmsByMetric()).containsEntry("itl.p99", 1).containsEntry("throughput.output_tokens", 1);
        assertThat(DetectionStudy.table(List.of(s), 2)).contains("| t-test 0.99 | 1 / 2 (50 %) | 2 / 2 (100 %) | "
                + "2 / 8 (25.0 %) |");
    }

    @Test
    void a_two_sample_test_compares_with_the_previous_run_only_and_skips_metrics_without_samples() {
        // GIVEN a previous run whose ITL samples are all 10 ms, then a run at 20 ms
        Run previous = run(10.0, 500.0);
        Run current = run(20.0, 500.0);
        DetectionStudy.Detector mw = DetectionStudy.twoSample("Mann-Whitney 0.99",
                b -> new dev.profiledrollout.history.stats.MannWhitney(b)::evaluate, 0.99);
        // WHEN / THEN
        assertThat(mw.verdict().judge("itl.p99", current, List.of(run(30.0, 500.0), previous)))
                .isEqualTo(dev.profiledrollout.history.stats.Change.REGRESSION);
        assertThat(mw.verdict().judge("itl.p99", current, List.of(previous, run(30.0, 500.0))))
                .isEqualTo(dev.profiledrollout.history.stats.Change.NO_CHANGE);
        assertThat(mw.verdict().judge("throughput.output_tokens", current, List.of(previous)))
                .isEqualTo(dev.profiledrollout.history.stats.Change.INSUFFICIENT_HISTORY);
    }

    /** Runs whose values wobble by ±1 % around the given ones, so that the history has a spread. */
    private static List<Run> runs(int n, double itlMs, double throughput) {
        List<Run> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            double wobble = 1 + 0.01 * ((i % 3) - 1);
            out.add(run(itlMs * wobble, throughput * wobble));
        }
        return out;
    }

    private static List<Run> withSpike(List<Run> runs, int index, double itlMs, double throughput) {
        List<Run> out = new ArrayList<>(runs);
        out.set(index, run(itlMs, throughput));
        return out;
    }

    private static Run run(double itlMs, double throughput) {
        Map<String, Double> metrics = new LinkedHashMap<>();
        metrics.put("itl.p99", itlMs);
        metrics.put("throughput.output_tokens", throughput);
        double[] samples = new double[16];
        java.util.Arrays.fill(samples, itlMs);
        for (int i = 0; i < samples.length; i++) {
            samples[i] += i * 0.01; // distinct values, no ties
        }
        return new Run(metrics, Map.of("itl", samples));
    }
}
