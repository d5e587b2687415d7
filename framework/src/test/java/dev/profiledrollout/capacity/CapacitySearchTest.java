package dev.profiledrollout.capacity;

import dev.profiledrollout.load.LoadFidelity;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.load.LoadStage;
import dev.profiledrollout.load.StageResult;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.ScheduleReport;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The search's logic against a model engine whose TTFT steps from 50 ms to 500 ms above a known capacity. */
class CapacitySearchTest {

    private static final LoadSpec BASE = LoadSpec.closedLoop(1, 50, 32, 8, 0.0, 0, 1L);

    /** A stage's records: n requests sent at the stage's rate, TTFT 50 ms up to the capacity and 500 ms above it. */
    private static CapacitySearch.StageExecutor model(double capacity, double clientCeiling) {
        int[] index = {0};
        return stage -> {
            double level = stage.level();
            int n = stage.spec().requests();
            double rate = stage.isClosedLoop() ? 10 * level : level;
            long ttft = level <= capacity ? 50_000_000L : 500_000_000L;
            List<RequestRecord> records = new ArrayList<>();
            long gap = (long) (1e9 / rate);
            long lateBy = level > clientCeiling ? 50_000_000L : 0;
            for (int i = 0; i < n; i++) {
                long intended = 1_000_000_000L + i * gap;
                long start = intended + lateBy * i / n;
                long first = start + ttft;
                long[] chunks = {first, first + 5_000_000, first + 10_000_000};
                records.add(new RequestRecord(index[0]++, 32, 3, start, first, chunks, first + 10_000_000, 32, 3,
                        null, null, stage.isClosedLoop() ? start : intended, new int[0]));
            }
            ScheduleReport schedule = ScheduleReport.of(records);
            return new StageResult(0, stage, List.of(), LatencyReport.of(records), schedule,
                    LoadFidelity.of(stage.spec(), records, schedule, LoadFidelity.DEFAULT_LAG_BOUND), Duration.ZERO);
        };
    }

    @Test
    void rate_search_brackets_the_capacity_to_the_precision() throws Exception {
        Capacity c = CapacitySearch.builder().slo("ttft.p90<100ms").byRate(5, 400).build()
                .run(BASE, model(37.3, Double.POSITIVE_INFINITY));
        assertThat(c.status()).isEqualTo(Capacity.Status.FOUND);
        assertThat(c.lower()).isLessThanOrEqualTo(37.3);
        assertThat(c.upper()).isGreaterThan(37.3);
        assertThat((c.upper() - c.lower()) / (c.upper() + c.lower())).isLessThanOrEqualTo(0.05);
        assertThat(c.requestRate()).isEqualTo(c.lower());
        assertThat(c.stages().stages()).hasSizeLessThanOrEqualTo(CapacitySearch.DEFAULT_MAX_STAGES);
        assertThat(c.message()).startsWith("capacity " + String.format(java.util.Locale.ROOT, "%.2f", c.lower()))
                .doesNotContain("inconclusive");
        assertThat(c.capacityStage()).isPresent();
    }

    @Test
    void concurrency_search_ends_on_adjacent_integers() throws Exception {
        Capacity c = CapacitySearch.builder().slo("ttft.p90<100ms").byConcurrency(1, 64).build()
                .run(BASE, model(6, Double.POSITIVE_INFINITY));
        assertThat(c.status()).isEqualTo(Capacity.Status.FOUND);
        assertThat(c.concurrency()).isEqualTo(6);
        assertThat(c.upper()).isEqualTo(7);
        assertThat(c.stages().stages()).allMatch(s -> s.stage().isClosedLoop());
    }

    @Test
    void slos_holding_at_the_maximum_give_a_lower_bound_only() throws Exception {
        Capacity c = CapacitySearch.builder().slo("ttft.p90<100ms").byRate(5, 30).build()
                .run(BASE, model(100, Double.POSITIVE_INFINITY));
        assertThat(c.status()).isEqualTo(Capacity.Status.AT_LEAST_MAX);
        assertThat(c.lower()).isEqualTo(30);
        assertThat(c.upper()).isNaN();
    }

    @Test
    void no_stage_meeting_the_slos_gives_no_figure() throws Exception {
        Capacity c = CapacitySearch.builder().slo("ttft.p90<100ms").byRate(5, 100).build()
                .run(BASE, model(0.01, Double.POSITIVE_INFINITY));
        assertThat(c.status()).isEqualTo(Capacity.Status.NONE_MET);
        assertThat(c.found()).isFalse();
        assertThat(c.requestRate()).isNaN();
    }

    @Test
    void a_stage_the_client_could_not_drive_stops_the_search_without_a_figure_from_it() throws Exception {
        Capacity c = CapacitySearch.builder().slo("ttft.p90<100ms").byRate(5, 400).build()
                .run(BASE, model(300, 30));
        assertThat(c.status()).isEqualTo(Capacity.Status.CLIENT_LIMITED);
        assertThat(c.lower()).isLessThan(30);
        assertThat(c.undriven()).hasSize(1);
        assertThat(c.undriven().get(0).fidelity().limit()).isEqualTo(LoadFidelity.Limit.CLIENT);
        assertThat(c.message()).contains("client could not drive", "client-limited");
    }

    @Test
    void every_stage_is_large_enough_for_the_strictest_percentile_to_have_an_upper_interval_end() throws Exception {
        // p99 of 50 samples has no upper interval end, so a 50-request stage could never show a p99 SLO met: the
        // search raises its stages to the 368 samples the interval needs (0.99^368 <= 2.5 % < 0.99^367)
        assertThat(dev.profiledrollout.metrics.QuantileInterval.samplesForUpperEnd(99, 0.95)).isEqualTo(368);
        assertThat(dev.profiledrollout.metrics.QuantileInterval.samplesForUpperEnd(90, 0.95)).isEqualTo(36);
        assertThat(Math.pow(0.99, 368)).isLessThanOrEqualTo(0.025);
        assertThat(Math.pow(0.99, 367)).isGreaterThan(0.025);
        CapacitySearch s = CapacitySearch.builder().slo("ttft.p90<100ms").slo("ttft.p99<100ms").byRate(5, 100)
                .stageSize(50, 0.1, 1).build();
        assertThat(s.stageAt(BASE, 5, false).spec().requests()).isEqualTo(368);
        Capacity c = s.run(BASE, model(1000, Double.POSITIVE_INFINITY));
        assertThat(c.checks()).isNotEmpty().allSatisfy(stage -> assertThat(stage)
                .noneMatch(check -> check.text().contains("has no upper end")));
    }

    @Test
    void the_stage_bound_is_kept() throws Exception {
        Capacity c = CapacitySearch.builder().slo("ttft.p90<100ms").byRate(1, 1000).maxStages(4).build()
                .run(BASE, model(500, Double.POSITIVE_INFINITY));
        assertThat(c.stages().stages()).hasSize(4);
        assertThat(c.status()).isEqualTo(Capacity.Status.STAGE_BUDGET_SPENT);
        assertThat(c.lower()).isEqualTo(8);
    }

    @Test
    void slo_syntax_errors_name_the_accepted_form() {
        assertThat(SloTarget.parse("tpot.p99.9 < 0.05s")).isEqualTo(new SloTarget("tpot", 99.9, Duration.ofMillis(50)));
        assertThat(SloTarget.parse("e2el.p50<2s").toString()).isEqualTo("e2e.p50<2000ms");
        assertThatThrownBy(() -> SloTarget.parse("ttft p99 < 500")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"ttft.p99<500ms\"");
        assertThatThrownBy(() -> CapacitySearch.builder().byRate(1, 10).build())
                .hasMessageContaining("at least one SLO");
        assertThatThrownBy(() -> CapacitySearch.builder().slo("ttft.p90<1s").build())
                .hasMessageContaining("byRate(start, max)");
    }

    @Test
    void stages_are_sized_by_rate_and_duration_or_lanes() {
        CapacitySearch s = CapacitySearch.builder().slo("ttft.p90<1s").byRate(10, 100).stageSize(40, 3, 4).build();
        LoadStage high = s.stageAt(BASE, 50, false);
        assertThat(high.spec().requests()).isEqualTo(150);
        assertThat(s.stageAt(BASE, 5, false).spec().requests()).isEqualTo(40);
    }
}
