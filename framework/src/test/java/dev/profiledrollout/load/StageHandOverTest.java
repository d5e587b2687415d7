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
            long previousEnd = 0;
            for (StageResult s : sweep.stages()) {
                long firstStart = s.latency().records().stream().mapToLong(RequestRecord::startNanos).min()
                        .orElseThrow();
                assertThat(firstStart).isGreaterThanOrEqualTo(previousEnd);
                previousEnd = s.latency().records().stream().mapToLong(RequestRecord::endNanos).max().orElseThrow();
            }
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
}
