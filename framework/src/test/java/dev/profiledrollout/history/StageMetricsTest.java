package dev.profiledrollout.history;

import dev.profiledrollout.history.stats.Direction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SortedMap;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

class StageMetricsTest {

    @Test
    void capacity_and_per_stage_figures_become_history_metrics(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("stages.json"), """
                {"stages": [
                  {"label": "rate 12.5/s", "closedLoop": false, "level": 12.5, "throughput": 12.1, "goodput": 11.0,
                   "ttftP99Ms": 80.5, "tpotP99Ms": 7.5, "lagP99Ms": 1.2},
                  {"label": "rate 40.0/s", "closedLoop": false, "level": 40.0, "throughput": 33.0, "goodput": null,
                   "ttftP99Ms": 420.0, "tpotP99Ms": null, "lagP99Ms": 0.4}],
                 "capacity": {"mode": "RATE", "status": "FOUND", "lower": 30.0, "upper": 32.0, "requestRate": 30.0}}
                """);
        SortedMap<String, Double> base = new TreeMap<>();
        base.put("ttft.p99", 100.0);
        SortedMap<String, Double> all = StageMetrics.with(base, dir);

        assertThat(all).containsEntry("ttft.p99", 100.0).containsEntry("capacity.request_rate", 30.0)
                .containsEntry("stage.r12_5.throughput.requests", 12.1).containsEntry("stage.r40.ttft.p99", 420.0)
                .containsEntry("stage.r40.lag.p99", 0.4).doesNotContainKey("stage.r40.tpot.p99")
                .doesNotContainKey("stage.r40.goodput.requests").doesNotContainKey("capacity.concurrency");
        // every recorded name is known to the history, with the direction a regression gate needs
        all.keySet().forEach(HistoryMetrics::measure);
        assertThat(HistoryMetrics.measure("capacity.request_rate").direction()).isEqualTo(Direction.HIGHER_IS_BETTER);
        assertThat(HistoryMetrics.measure("stage.c16.ttft.p99").direction()).isEqualTo(Direction.LOWER_IS_BETTER);
        assertThat(HistoryMetrics.measure("stage.c16.ttft.p99").name()).isEqualTo("p99 TTFT at concurrency 16");
    }

    @Test
    void a_directory_without_stages_keeps_its_metrics(@TempDir Path dir) {
        SortedMap<String, Double> base = new TreeMap<>();
        base.put("ttft.p99", 1.0);
        assertThat(StageMetrics.with(base, dir)).isEqualTo(base);
    }
}
