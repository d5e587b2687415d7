package dev.profiledrollout.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.history.stats.Change;
import dev.profiledrollout.history.stats.Direction;
import dev.profiledrollout.history.stats.Measure;
import dev.profiledrollout.history.stats.ThresholdResult;
import java.util.List;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/** The trace-derived history metrics (decode time per batch-size bucket, prefill time per token) and the relative floor. */
class TraceMetricsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ObjectNode step(ArrayNode steps, String stage, int batch, int tokens, long kernelNs) {
        // as summary.json writes a step: the annotation name carries the batch size and tokens
        ObjectNode s = steps.addObject();
        s.put("name", stage.equals("PREFILL") ? "step[EXTEND bs=" + batch + " toks=" + tokens + "]"
                : "step[DECODE bs=" + batch + "]");
        s.put("stage", stage);
        s.put("kernelNs", kernelNs);
        return s;
    }

    private static JsonNode summary(int extraSmallBatches) {
        ObjectNode root = JSON.createObjectNode();
        // one rank as RunReport writes it: its file label and its steps
        ArrayNode steps = root.putObject("trace").putArray("ranks").addObject().put("file", "TP-0.trace.json.gz")
                .putArray("steps");
        step(steps, "PREFILL", 2, 256, 10_000_000);  // 10 ms for 256 tokens
        step(steps, "PREFILL", 1, 64, 2_800_000);    // 2.8 ms for 64 tokens
        for (int i = 0; i < 3; i++) {
            step(steps, "DECODE", 5, 5, 6_000_000);   // bucket 4-7
            step(steps, "DECODE", 7, 7, 6_200_000);
        }
        for (int i = 0; i < extraSmallBatches; i++) {
            step(steps, "DECODE", 1, 1, 5_500_000);   // bucket 1
        }
        step(steps, "DECODE", 2, 2, 5_700_000);       // bucket 2-3: one step only, not recorded
        return root;
    }

    @Test
    void decode_time_is_recorded_per_batch_size_bucket_and_prefill_time_per_token() {
        SortedMap<String, Double> m = RunRecords.metrics(summary(3));
        assertThat(m.get("kernel.decode.ms_per_step.bs4-7")).isCloseTo(6.1, within(1e-9));
        assertThat(m.get("kernel.decode.ms_per_step.bs1")).isCloseTo(5.5, within(1e-9));
        assertThat(m).doesNotContainKey("kernel.decode.ms_per_step.bs2-3");
        assertThat(m.get("kernel.extend.us_per_token")).isCloseTo(12_800.0 / 320, within(1e-9));
        // another batch mix (more small batches) leaves each bucket's figure alone, unlike the plain mean per step
        SortedMap<String, Double> other = RunRecords.metrics(summary(30));
        assertThat(other.get("kernel.decode.ms_per_step.bs4-7")).isEqualTo(m.get("kernel.decode.ms_per_step.bs4-7"));
        assertThat(other.get("kernel.decode.ms_per_step")).isLessThan(m.get("kernel.decode.ms_per_step") - 0.2);
    }

    @Test
    void the_bucket_family_expands_to_the_buckets_of_the_run_smallest_first() {
        SortedMap<String, Double> m = RunRecords.metrics(summary(3));
        assertThat(HistoryMetrics.expand(HistoryMetrics.CHECKED_METRICS, m.keySet())).containsExactly("tpot.mean",
                "e2e.mean", "kernel.decode.ms_per_step.bs1", "kernel.decode.ms_per_step.bs4-7",
                "kernel.extend.us_per_token.at1k");
        assertThat(HistoryMetrics.batchBucket(1)).isEqualTo(1);
        assertThat(HistoryMetrics.batchBucket(7)).isEqualTo(4);
        assertThat(HistoryMetrics.batchBucket(64)).isEqualTo(64);
        assertThat(HistoryMetrics.measure("kernel.decode.ms_per_step.bs8-15").unit()).isEqualTo("ms");
        assertThat(HistoryMetrics.measure("kernel.extend.us_per_token").unit()).isEqualTo("µs");
    }

    @Test
    void the_relative_floor_flags_a_doubling_that_a_t_test_on_three_runs_cannot() {
        Measure tpot = new Measure("mean TPOT", "ms", Direction.LOWER_IS_BETTER);
        double[] history = {8.0, 9.2, 7.4}; // 11 % run-to-run spread
        ThresholdResult plain = HistoryThreshold.DEFAULT.withBoundary(HistoryThreshold.DEFAULT_PROBABILITY)
                .withRelativeLimit(Double.POSITIVE_INFINITY).evaluate(tpot, 16.0, history);
        assertThat(plain.change()).isEqualTo(Change.NO_CHANGE);
        ThresholdResult gated = HistoryThreshold.DEFAULT.evaluate(tpot, 16.0, history);
        assertThat(gated.change()).isEqualTo(Change.REGRESSION);
        assertThat(gated.describe()).contains("median 8", "of last 3 runs", "+100.0 %", "REGRESSION");
        // quiet on a 30 % slower run, and not used with only 2 runs
        assertThat(HistoryThreshold.DEFAULT.evaluate(tpot, 10.4, history).change()).isEqualTo(Change.NO_CHANGE);
        assertThat(HistoryThreshold.DEFAULT.evaluate(tpot, 16.0, new double[] {8.0, 9.2}).change())
                .isNotEqualTo(Change.REGRESSION);
        // the floor looks at the last 3 runs: a slowdown made on purpose fails twice, then the median is the new level
        ThresholdResult floorOnly = HistoryThreshold.DEFAULT.withWindow(20).evaluate(tpot, 16.0,
                new double[] {8.1, 7.9, 8.0, 8.2, 7.8, 16.1});
        assertThat(floorOnly.change()).isEqualTo(Change.REGRESSION);
        assertThat(floorOnly.n()).isEqualTo(3);
        assertThat(HistoryThreshold.DEFAULT.relativeFloor(tpot, 16.0, new double[] {8.1, 7.9, 8.0, 8.2, 16.1, 15.9}))
                .isEmpty();
        // throughput: half the median is a regression
        Measure tput = new Measure("output token throughput", "tok/s", Direction.HIGHER_IS_BETTER);
        assertThat(HistoryThreshold.DEFAULT.evaluate(tput, 240, new double[] {500, 560, 520}).change())
                .isEqualTo(Change.REGRESSION);
        assertThat(List.of(HistoryThreshold.DEFAULT.relativeLimit())).containsExactly(0.5);
        // the configuration key
        assertThat(HistoryThreshold.from(k -> java.util.Optional.ofNullable(
                k.equals("profiledrollout.history.relative.limit") ? "Infinity" : null)).relativeLimit())
                .isInfinite();
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> HistoryThreshold.from(
                k -> java.util.Optional.ofNullable(k.equals("profiledrollout.history.relative.limit") ? "0" : null)))
                .withMessageContaining("profiledrollout.history.relative.limit");
    }

    /** A rank whose prefill steps cost 2 ms + 30 µs per token, {@code small} of them of 128 tokens. */
    private static JsonNode prefillMix(int small) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode steps = root.putObject("trace").putArray("ranks").addObject().put("file", "TP-0.trace.json.gz")
                .putArray("steps");
        for (int tokens : new int[] {512, 896}) {
            step(steps, "PREFILL", tokens / 128, tokens, 2_000_000 + 30_000L * tokens);
        }
        for (int i = 0; i < small; i++) {
            step(steps, "PREFILL", 1, 128, 2_000_000 + 30_000L * 128);
        }
        return root;
    }

    @Test
    void prefill_time_per_token_at_1024_tokens_does_not_move_with_the_mix_of_step_sizes() {
        SortedMap<String, Double> few = RunRecords.metrics(prefillMix(1));
        SortedMap<String, Double> many = RunRecords.metrics(prefillMix(12));
        // the line through the steps at 1,024 tokens: (2 ms + 30.72 ms) / 1024
        assertThat(few.get(HistoryMetrics.PREFILL_US_PER_TOKEN_FIT)).isCloseTo(32_720.0 / 1024, within(1e-6));
        assertThat(many.get(HistoryMetrics.PREFILL_US_PER_TOKEN_FIT)).isCloseTo(32_720.0 / 1024, within(1e-6));
        // the plain ratio reads the extra small steps as a slowdown
        assertThat(many.get(HistoryMetrics.PREFILL_US_PER_TOKEN))
                .isGreaterThan(few.get(HistoryMetrics.PREFILL_US_PER_TOKEN) * 1.1);
        // two steps, or steps of one size, cannot separate the fixed part from the per-token part: not recorded
        assertThat(RunRecords.metrics(summary(3))).doesNotContainKey(HistoryMetrics.PREFILL_US_PER_TOKEN_FIT);
        ObjectNode oneSize = JSON.createObjectNode();
        ArrayNode steps = oneSize.putObject("trace").putArray("ranks").addObject().put("file", "TP-0.trace.json.gz")
                .putArray("steps");
        for (int i = 0; i < 5; i++) {
            step(steps, "PREFILL", 4, 512, 17_000_000);
        }
        assertThat(RunRecords.metrics(oneSize)).doesNotContainKey(HistoryMetrics.PREFILL_US_PER_TOKEN_FIT)
                .containsKey(HistoryMetrics.PREFILL_US_PER_TOKEN);
        assertThat(HistoryMetrics.measure(HistoryMetrics.PREFILL_US_PER_TOKEN_FIT).unit()).isEqualTo("µs");
    }

    @Test
    void the_decode_step_interval_is_the_median_start_to_start_time_per_batch_bucket() {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode steps = root.putObject("trace").putArray("ranks").addObject().put("file", "TP-0.trace.json.gz")
                .putArray("steps");
        long t = 1_000_000_000L;
        long[] gaps = {7_000_000, 7_200_000, 6_900_000, 500_000_000, 7_100_000}; // one idle gap: the engine waited
        for (long gap : gaps) {
            step(steps, "DECODE", 8, 8, 6_000_000).put("startNs", t).put("durationNs", 6_500_000);
            t += gap;
        }
        step(steps, "PREFILL", 1, 128, 5_000_000).put("startNs", t).put("durationNs", 5_500_000);
        SortedMap<String, Double> m = RunRecords.metrics(root);
        assertThat(m.get("step.decode.interval_ms.bs8-15")).isCloseTo(7.1, within(1e-9));
        assertThat(HistoryMetrics.expand(List.of(HistoryMetrics.DECODE_INTERVAL_BUCKETS), m.keySet()))
                .containsExactly("step.decode.interval_ms.bs8-15");
        assertThat(HistoryMetrics.measure("step.decode.interval_ms.bs8-15").unit()).isEqualTo("ms");
    }

    @Test
    void trace_metrics_get_their_own_default_boundary_unless_one_is_given() {
        HistoryThreshold d = HistoryThreshold.DEFAULT;
        assertThat(d.forMetric("kernel.decode.ms_per_step.bs8-15").boundary())
                .isEqualTo(HistoryThreshold.DEFAULT_TRACE_PROBABILITY);
        assertThat(d.forMetric("step.decode.interval_ms.bs8-15").boundary())
                .isEqualTo(HistoryThreshold.DEFAULT_TRACE_PROBABILITY);
        // the client's metrics: the relative floor alone, unless a model is named
        assertThat(d.forMetric("tpot.mean").boundary()).isEqualTo(HistoryThreshold.FLOOR_ONLY);
        assertThat(d.forMetric("tpot.mean").floorOnly()).isTrue();
        assertThat(HistoryThreshold.from(k -> java.util.Optional.ofNullable(
                k.equals("profiledrollout.history.threshold") ? "z-score" : null)).forMetric("tpot.mean").boundary())
                .isEqualTo(HistoryThreshold.DEFAULT_PROBABILITY);
        assertThat(d.withModel(HistoryThreshold.Model.MANN_WHITNEY).boundary())
                .isEqualTo(HistoryThreshold.DEFAULT_PROBABILITY);
        // without the floor, the model checks the client's metrics again; a boundary of 1 without a floor is refused
        assertThat(d.withRelativeLimit(Double.POSITIVE_INFINITY).boundary())
                .isEqualTo(HistoryThreshold.DEFAULT_PROBABILITY);
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> new HistoryThreshold(HistoryThreshold.Model.T_TEST, 1, 20, Double.POSITIVE_INFINITY))
                .withMessageContaining("nothing would be checked");
        // a boundary given applies to every metric
        assertThat(d.withBoundary(0.99).forMetric("kernel.extend.us_per_token.at1k").boundary()).isEqualTo(0.99);
        assertThat(HistoryThreshold.from(k -> java.util.Optional.ofNullable(
                k.equals("profiledrollout.history.boundary") ? "0.995" : null)).forMetric("kernel.x.ms").boundary())
                .isEqualTo(0.995);
        assertThat(HistoryThreshold.from(k -> java.util.Optional.empty())).isEqualTo(d);
        // the relative model has one boundary, a fraction
        assertThat(d.withModel(HistoryThreshold.Model.RELATIVE).forMetric("kernel.x.ms").boundary())
                .isEqualTo(dev.profiledrollout.history.stats.RelativeChange.DEFAULT_FRACTION);
    }

    @Test
    void a_change_below_one_percent_is_not_a_regression_even_against_a_history_without_spread() {
        Measure fit = HistoryMetrics.measure(HistoryMetrics.PREFILL_US_PER_TOKEN_FIT);
        double[] exact = {23.6, 23.6, 23.6, 23.6}; // an engine without noise: the same figure every run
        ThresholdResult tiny = HistoryThreshold.DEFAULT.forMetric(HistoryMetrics.PREFILL_US_PER_TOKEN_FIT)
                .evaluate(fit, 23.61, exact);
        assertThat(tiny.change()).isEqualTo(Change.NO_CHANGE);
        assertThat(tiny.describe()).contains("+0.0 %", "+1.0 %", "NO_CHANGE");
        // 2 % is beyond both the model's limit and the smallest change reported
        assertThat(HistoryThreshold.DEFAULT.forMetric(HistoryMetrics.PREFILL_US_PER_TOKEN_FIT)
                .evaluate(fit, 24.1, exact).change()).isEqualTo(Change.REGRESSION);
        // throughput: the regression side is below
        Measure tput = new Measure("output token throughput", "tok/s", Direction.HIGHER_IS_BETTER);
        assertThat(HistoryThreshold.DEFAULT.withBoundary(0.999).evaluate(tput, 499.5, new double[] {500, 500, 500})
                .change()).isEqualTo(Change.NO_CHANGE);
    }

    /**
     * History 0 of the 2026-11-28 detection study (/tmp/study3; bench/README.md): its last base run's prefill fit came
     * out 15 % low, and with it in the window the first run with prefill kernels +10 % passed. The default leaves that
     * run out of the t-test's mean and spread (Hampel identifier, k = 5: it lies 9.6 robust standard deviations below the
     * window's median).
     */
    @Test
    void the_default_gate_catches_the_prefill_shift_that_one_outlying_base_run_hid() {
        double[] window = {23.817, 22.796, 22.807, 23.402, 23.087, 22.242, 22.737, 23.395, 23.063, 22.72, 23.159,
                22.578, 22.938, 23.069, 22.669, 22.898, 21.685, 23.252, 22.798, 19.641};
        Measure fit = HistoryMetrics.measure(HistoryMetrics.PREFILL_US_PER_TOKEN_FIT);
        HistoryThreshold gate = HistoryThreshold.DEFAULT.forMetric(HistoryMetrics.PREFILL_US_PER_TOKEN_FIT);

        assertThat(gate.outlierCutoff()).isEqualTo(5);
        assertThat(gate.evaluate(fit, 25.553, window).change()).isEqualTo(Change.REGRESSION);
        assertThat(gate.withOutlierCutoff(Double.POSITIVE_INFINITY).evaluate(fit, 25.553, window).change())
                .isEqualTo(Change.NO_CHANGE);
        // an unchanged run of that history (the base runs' own range) stays quiet with the outlier left out
        assertThat(gate.evaluate(fit, 23.817, window).change()).isEqualTo(Change.NO_CHANGE);
    }

    @Test
    void a_noise_free_window_keeps_every_run_and_a_small_wobble_stays_below_the_minimum_effect() {
        // the examples' simulator without GPU noise: one figure in most runs (MAD = 0), a wobble in a few
        double[] window = {23.6, 23.6, 23.6, 23.6, 23.6, 23.6, 23.61, 23.6, 23.6, 23.59, 23.6, 23.6};
        Measure fit = HistoryMetrics.measure(HistoryMetrics.PREFILL_US_PER_TOKEN_FIT);
        HistoryThreshold gate = HistoryThreshold.DEFAULT.forMetric(HistoryMetrics.PREFILL_US_PER_TOKEN_FIT);

        ThresholdResult wobble = gate.evaluate(fit, 23.7, window);
        assertThat(wobble.change()).isEqualTo(Change.NO_CHANGE);
        assertThat(wobble.describe()).contains("+1.0 %");
        assertThat(gate.evaluate(fit, 24.1, window).change()).isEqualTo(Change.REGRESSION);
    }

    @Test
    void the_outlier_cutoff_key_sets_the_cutoff_and_refuses_a_value_not_above_zero() {
        assertThat(HistoryThreshold.from(k -> java.util.Optional.empty()).outlierCutoff())
                .isEqualTo(HistoryThreshold.DEFAULT_OUTLIER_CUTOFF);
        assertThat(HistoryThreshold.from(k -> java.util.Optional.ofNullable(
                k.equals("profiledrollout.history.outlier.cutoff") ? "Infinity" : null)).outlierCutoff())
                .isInfinite();
        assertThat(HistoryThreshold.from(k -> java.util.Optional.ofNullable(
                k.equals("profiledrollout.history.outlier.cutoff") ? "3.5" : null)).outlierCutoff()).isEqualTo(3.5);
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> HistoryThreshold.from(k -> java.util.Optional.ofNullable(
                        k.equals("profiledrollout.history.outlier.cutoff") ? "-1" : null)))
                .withMessageContaining("profiledrollout.history.outlier.cutoff is -1.0");
    }

    @Test
    void an_outlier_cutoff_not_above_zero_is_refused_with_the_fix() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> HistoryThreshold.DEFAULT.withOutlierCutoff(0))
                .withMessageContaining("outlierCutoff is 0.0").withMessageContaining("Infinity");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> HistoryThreshold.DEFAULT.withOutlierCutoff(Double.NaN))
                .withMessageContaining("outlierCutoff is NaN");
        assertThat(HistoryThreshold.DEFAULT.withWindow(5).withBoundary(0.99).withRelativeLimit(0.3)
                .withModel(HistoryThreshold.Model.Z_SCORE).forMetric("kernel.x.ms").outlierCutoff())
                .isEqualTo(HistoryThreshold.DEFAULT_OUTLIER_CUTOFF);
        assertThat(HistoryThreshold.DEFAULT.withOutlierCutoff(3.5).withWindow(5).outlierCutoff()).isEqualTo(3.5);
    }
}
