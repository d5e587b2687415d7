package dev.profiledrollout.load;

import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.Slo;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class StageRunnerSimulatorTest {

    private static final LoadSpec BASE = LoadSpec.closedLoop(1, 16, 32, 8, 0.0, 2, 7L);

    private static StageRunner runner(EngineSimulator sim, LoadSpec base) {
        return new StageRunner(LoadTarget.of(sim.baseUri()), "m", base, Slo.parse(List.of("ttft:60000")),
                Duration.ofMinutes(2), LoadFidelity.DEFAULT_LAG_BOUND);
    }

    @Test
    void concurrency_stages_run_back_to_back_each_measured_on_its_own() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().maxRunningRequests(16).build());
             StageRunner runner = runner(sim, BASE)) {
            SweepResult sweep = runner.run(LoadSweep.concurrencies(BASE, 1, 4, 16));

            assertThat(sweep.stages()).extracting(StageResult::label)
                    .containsExactly("concurrency 1", "concurrency 4", "concurrency 16");
            Set<Integer> indices = new HashSet<>();
            long previousEnd = 0;
            for (StageResult s : sweep.stages()) {
                assertThat(s.latency().completed()).isEqualTo(16);
                assertThat(s.failures()).isZero();
                assertThat(s.fidelity().driven()).isTrue();
                assertThat(s.goodput()).isPositive();
                long firstStart = s.latency().records().stream().mapToLong(RequestRecord::startNanos).min().orElseThrow();
                // the next stage starts only after the previous one has ended, and the gap is what was measured
                assertThat(firstStart).isGreaterThanOrEqualTo(previousEnd);
                if (previousEnd > 0) {
                    assertThat(s.gapBefore().toNanos()).isEqualTo(firstStart - previousEnd);
                }
                previousEnd = s.latency().records().stream().mapToLong(RequestRecord::endNanos).max().orElseThrow();
                s.latency().records().forEach(r -> assertThat(indices.add(r.index())).as("index %d", r.index()).isTrue());
            }
            sweep.stages().forEach(s -> System.out.println("gap before " + s.label() + ": "
                    + s.gapBefore().toNanos() / 1e3 + " µs"));
            // warm-up only before the first stage, as the sweep builder documents
            assertThat(sweep.stage(1).warmup()).hasSize(2);
            assertThat(sweep.stage(4).warmup()).isEmpty();
            // more lanes bought throughput on a batching engine
            assertThat(sweep.stage(16).throughput()).isGreaterThan(2 * sweep.stage(1).throughput());
            assertThat(sweep.toTable()).contains("concurrency 16", "TTFT p99", "driven");
            assertThatThrownBy(() -> sweep.stage(64)).isInstanceOf(NoSuchElementException.class)
                    .hasMessageContaining("[concurrency 1, concurrency 4, concurrency 16]");
        }
    }

    @Test
    void open_loop_stages_report_achieved_rate_against_the_schedule() throws Exception {
        LoadSpec base = BASE.withArrival(ArrivalProcess.constant(40), 0);
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().maxRunningRequests(16).build());
             StageRunner runner = runner(sim, base)) {
            SweepResult sweep = runner.run(LoadSweep.rates(base, 20, 40));
            StageResult s20 = sweep.stageAtRate(20);
            assertThat(s20.stage().requestRate()).isEqualTo(20.0);
            assertThat(s20.fidelity().scheduledRate()).isCloseTo(20.0, within(1e-6));
            assertThat(s20.achievedRate()).isCloseTo(20.0, within(2.0));
            assertThat(sweep.stageAtRate(40).fidelity().scheduledRate()).isCloseTo(40.0, within(1e-6));
        }
    }

    @Test
    void a_capped_open_loop_above_what_the_engine_serves_is_engine_limited_not_driven() throws Exception {
        LoadSpec base = LoadSpec.closedLoop(1, 24, 32, 32, 0.0, 0, 7L);
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().maxRunningRequests(16).build());
             StageRunner runner = runner(sim, base)) {
            // one request in flight at a time, each ~32 decode steps: far below 400 req/s
            StageResult s = runner.run(LoadStage.atRate(base, ArrivalProcess.constant(400), 1));
            assertThat(s.fidelity().limit()).isEqualTo(LoadFidelity.Limit.ENGINE);
            assertThat(s.fidelity().driven()).isFalse();
            assertThat(s.fidelity().message()).contains("engine-limited", "cap of 1");
        }
    }

    @Test
    void guidellm_sweep_runs_synchronous_throughput_then_rates_evenly_between() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().maxRunningRequests(16).build());
             StageRunner runner = runner(sim, BASE)) {
            SweepResult sweep = runner.guideLlmSweep(5, 0);
            assertThat(sweep.stages()).hasSize(5);
            StageResult sync = sweep.stages().get(0);
            StageResult max = sweep.stages().get(1);
            assertThat(sync.stage().concurrency()).isEqualTo(1);
            assertThat(max.stage().concurrency()).isEqualTo(16);
            double step = (max.throughput() - sync.throughput()) / 3;
            for (int i = 1; i <= 3; i++) {
                assertThat(sweep.stages().get(1 + i).stage().requestRate())
                        .isCloseTo(sync.throughput() + i * step, within(1e-9));
            }
        }
    }

    @Test
    void a_stage_of_another_request_shape_is_refused() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().build());
             StageRunner runner = runner(sim, BASE)) {
            LoadSpec other = LoadSpec.closedLoop(2, 4, 64, 8, 0.0, 0, 7L);
            assertThatThrownBy(() -> runner.run(LoadStage.closedLoop(other, 2)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("input 32")
                    .hasMessageContaining("derive the stage from the generator's spec");
        }
    }
}
