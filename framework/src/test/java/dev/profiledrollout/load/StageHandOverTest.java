package dev.profiledrollout.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.Slo;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The hand-over between closed-loop stages of {@link StageRunner#run(LoadSweep)}: the next stage is started by the
 * thread that ends the previous one, on the previous stage's idle keep-alive connections.
 */
class StageHandOverTest {

    private static final LoadSpec BASE = LoadSpec.closedLoop(1, 4, 8, SseTestServer.TOKENS, 0.0, 0, 3L);

    private static StageRunner runner(SseTestServer server) {
        return new StageRunner(LoadTarget.of(server.base()), "m", BASE, Slo.none(), Duration.ofMinutes(1),
                LoadFidelity.DEFAULT_LAG_BOUND);
    }

    @Test
    void the_next_stage_takes_over_the_previous_stages_connections() throws Exception {
        try (SseTestServer server = new SseTestServer(0, 0); StageRunner runner = runner(server)) {
            SweepResult sweep = runner.run(LoadSweep.concurrencies(BASE, 2, 2, 1, 2));

            assertThat(sweep.stages()).allSatisfy(s -> {
                assertThat(s.latency().completed()).isEqualTo(4);
                assertThat(s.failures()).isZero();
            });
            // 2 connections, kept by the second stage, one of them by the third (the other closed), and one new for
            // the fourth's second lane: 3 in all, where a connection per lane per stage would be 7
            assertThat(server.clientPorts).hasSize(3);
            assertThat(server.requests.get()).isEqualTo(16);
            assertStagesDoNotOverlap(sweep);
        }
    }

    @Test
    void a_cancelled_sweep_ends_without_starting_the_chained_stage_requests() throws Exception {
        try (SseTestServer server = new SseTestServer(1, 30_000); StageRunner runner = runner(server)) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread sweep = new Thread(() -> {
                try {
                    runner.run(LoadSweep.concurrencies(BASE, 1, 2, 4));
                } catch (Throwable t) {
                    thrown.set(t);
                }
            });
            sweep.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (server.requests.get() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(server.requests.get()).as("the first request reached the server").isEqualTo(1);

            runner.cancel();
            sweep.join(Duration.ofSeconds(20).toMillis());

            assertThat(sweep.isAlive()).as("the sweep ended after cancel").isFalse();
            assertThat(thrown.get()).isInstanceOf(CancellationException.class);
            // the stalled first request was the only one sent: the chained stage ended without sending
            assertThat(server.requests.get()).isEqualTo(1);
            List<RequestRecord> records = runner.recordsSoFar();
            assertThat(records).isNotEmpty().allSatisfy(r -> assertThat(r.succeeded()).isFalse());
        }
    }

    /**
     * A stage with a warm-up of its own starts with that warm-up, chained like a stage: its warm-up requests go out on
     * the previous stage's connections after its last response, then its measured requests on the warm-up's.
     */
    @Test
    void a_stage_warm_up_is_chained_on_the_previous_stages_connections() throws Exception {
        try (SseTestServer server = new SseTestServer(0, 0); StageRunner runner = runner(server)) {
            SweepResult sweep = runner.run(LoadSweep.builder(BASE).concurrency(2)
                    .stage(LoadStage.closedLoop(BASE, 2).withWarmup(2)).build());

            StageResult first = sweep.stages().get(0);
            StageResult second = sweep.stages().get(1);
            assertThat(second.warmup()).hasSize(2).allSatisfy(r -> assertThat(r.succeeded()).isTrue());
            assertThat(second.latency().completed()).isEqualTo(4);
            // 2 connections for the first stage's lanes, taken over by the warm-up's 2 lanes, then by the stage's
            assertThat(server.clientPorts).hasSize(2);
            assertThat(server.requests.get()).isEqualTo(10);
            long firstEnd = first.latency().records().stream().mapToLong(RequestRecord::endNanos).max().orElseThrow();
            long warmupStart = second.warmup().stream().mapToLong(RequestRecord::startNanos).min().orElseThrow();
            long warmupEnd = second.warmup().stream().mapToLong(RequestRecord::endNanos).max().orElseThrow();
            long measuredStart = second.latency().records().stream().mapToLong(RequestRecord::startNanos).min()
                    .orElseThrow();
            assertThat(warmupStart).isGreaterThanOrEqualTo(firstEnd);
            assertThat(measuredStart).isGreaterThanOrEqualTo(warmupEnd);
            assertThat(second.gapBefore().toNanos()).isEqualTo(warmupStart - firstEnd);
        }
    }

    /**
     * Stages chosen from the previous stage's result (as a capacity search chooses them) are chosen and started on
     * the thread that read the last response, on the ended stage's connections; the chooser sees each result once,
     * in order, and an empty choice ends the run.
     */
    @Test
    void stages_chosen_from_the_previous_result_take_over_its_connections() throws Exception {
        try (SseTestServer server = new SseTestServer(0, 0); StageRunner runner = runner(server)) {
            List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
            List<String> told = new java.util.ArrayList<>();
            SweepResult sweep = runner.run(LoadStage.closedLoop(BASE, 1), r -> {
                seen.add(r.label() + ":" + r.latency().completed() + ":" + Thread.currentThread().getName());
                int lanes = r.stage().concurrency();
                return lanes >= 4 ? java.util.Optional.empty()
                        : java.util.Optional.of(LoadStage.closedLoop(BASE, lanes * 2));
            }, r -> told.add(r.label()));

            assertThat(sweep.stages()).extracting(s -> s.stage().concurrency()).containsExactly(1, 2, 4);
            assertThat(told).containsExactly("concurrency 1", "concurrency 2", "concurrency 4");
            assertThat(seen).hasSize(3).allSatisfy(x -> assertThat(x).contains(":4:")
                    .as("chosen on the load's event-loop thread").contains("profiledrollout-load"));
            // 1 connection, kept by the second stage (plus one), both kept by the third (plus two): 4 in all
            assertThat(server.clientPorts).hasSize(4);
            assertStagesDoNotOverlap(sweep);
        }
    }

    /**
     * A stage whose verdict is decided ends early: {@code decided} is asked at each eighth of its requests (at most
     * 7 times), and once it answers true no further request is sent while those in flight finish (none cancelled);
     * the runner then runs the next stage as usual.
     */
    @Test
    void a_stage_decided_early_sends_no_more_and_lets_its_requests_finish() throws Exception {
        LoadSpec base = LoadSpec.closedLoop(1, 64, 8, SseTestServer.TOKENS, 0.0, 0, 3L);
        try (SseTestServer server = new SseTestServer(0, 0);
             StageRunner runner = new StageRunner(LoadTarget.of(server.base()), "m", base, Slo.none(),
                     Duration.ofMinutes(1), LoadFidelity.DEFAULT_LAG_BOUND)) {
            List<Integer> seen = new java.util.ArrayList<>();
            StageResult cut = runner.run(LoadStage.closedLoop(base, 2), (stage, ended) -> {
                seen.add(ended.size());
                return ended.size() >= 16; // the second look at the latest (every 64 / 8 = 8 ended requests)
            });
            StageResult next = runner.run(LoadStage.closedLoop(base, 2), (stage, ended) -> false);

            assertThat(seen).isNotEmpty().hasSizeLessThanOrEqualTo(StageRunner.LOOKS_PER_STAGE);
            assertThat(seen.get(0)).as("the first look once an eighth had ended").isGreaterThanOrEqualTo(8);
            int sent = cut.latency().completed() + cut.failures();
            assertThat(sent).isLessThan(64).isGreaterThanOrEqualTo(seen.get(seen.size() - 1));
            assertThat(cut.failures()).as("requests in flight finished, none cancelled").isZero();
            assertThat(next.latency().completed()).isEqualTo(64);
            assertThat(server.requests.get()).isEqualTo(sent + 64);
        }
    }

    /** Each stage's first request started no earlier than the previous stage's last response ended. */
    private static void assertStagesDoNotOverlap(SweepResult sweep) {
        long previousEnd = 0;
        for (StageResult s : sweep.stages()) {
            long firstStart = s.latency().records().stream().mapToLong(RequestRecord::startNanos).min().orElseThrow();
            assertThat(firstStart).isGreaterThanOrEqualTo(previousEnd);
            previousEnd = s.latency().records().stream().mapToLong(RequestRecord::endNanos).max().orElseThrow();
        }
    }
}
