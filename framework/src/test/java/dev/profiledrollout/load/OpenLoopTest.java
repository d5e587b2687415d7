package dev.profiledrollout.load;

import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.ScheduleReport;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class OpenLoopTest {

    private static LoadSpec spec(ArrivalProcess arrival, int requests, int cap) {
        return new LoadSpec(1, requests, 8, 4, 0.0, 0, 1L).withArrival(arrival, cap);
    }

    @Test
    void a_stalled_server_shows_in_schedule_corrected_latency_and_lag_but_not_in_service_latency() throws Exception {
        // GIVEN: 100 req/s, at most 1 in flight; the 10th response stalls 300 ms, holding back the ~30 after it
        try (SseTestServer server = new SseTestServer(10, 300);
             LoadGenerator load = new LoadGenerator(LoadTarget.of(server.base()), "m",
                     spec(ArrivalProcess.constant(100), 60, 1), new RandomTokenWorkload(spec(ArrivalProcess.constant(100), 60, 1), 100),
                     Endpoint.COMPLETIONS, Duration.ofSeconds(10))) {
            // WHEN
            List<RequestRecord> records = load.start().await(Duration.ofSeconds(30));
            // THEN
            assertThat(records).hasSize(60).allMatch(RequestRecord::succeeded);
            RequestRecord stalled = records.get(9);
            assertThat(stalled.endNanos() - stalled.startNanos()).isGreaterThan(250_000_000L);
            // requests intended during the stall were sent late: their lag is large, their service E2E small
            List<RequestRecord> heldBack = records.subList(11, 30);
            for (RequestRecord r : heldBack) {
                long serviceNs = r.endNanos() - r.startNanos();
                long correctedNs = r.endNanos() - r.intendedNanos();
                assertThat(r.scheduleLagNanos()).as("lag of #%d", r.index()).isGreaterThan(50_000_000L);
                assertThat(correctedNs - serviceNs).isEqualTo(r.scheduleLagNanos());
                assertThat(serviceNs).as("service E2E of #%d", r.index()).isLessThan(stalled.endNanos() - stalled.startNanos());
            }
            ScheduleReport schedule = ScheduleReport.of(records);
            assertThat(schedule.lag().max()).isGreaterThan(Duration.ofMillis(200));
            assertThat(schedule.correctedE2e().percentile(90)).isGreaterThan(LatencyReport.of(records).e2e().percentile(90));
            assertThat(schedule.clientFellBehind()).isTrue();
            assertThat(schedule.verdict()).contains("the client, not the server, fell behind");
        }
    }

    @Test
    void open_loop_without_cap_is_not_held_back_by_a_slow_response() throws Exception {
        // GIVEN: the same stall, no cap: later requests go out on their own threads and connections
        try (SseTestServer server = new SseTestServer(10, 300);
             LoadGenerator load = new LoadGenerator(LoadTarget.of(server.base()), "m",
                     spec(ArrivalProcess.constant(100), 40, 0),
                     new RandomTokenWorkload(spec(ArrivalProcess.constant(100), 40, 0), 100), Endpoint.COMPLETIONS,
                     Duration.ofSeconds(10))) {
            List<RequestRecord> records = load.start().await(Duration.ofSeconds(30));
            // THEN: the requests intended during the stall were sent on schedule (far less than the 300 ms stall)
            assertThat(records).hasSize(40);
            for (RequestRecord r : records.subList(11, 30)) {
                assertThat(r.scheduleLagNanos()).as("lag of #%d", r.index()).isLessThan(150_000_000L);
            }
            // AND their requests reached the server during the stall, so their service latency includes it
            assertThat(records.get(15).endNanos() - records.get(15).startNanos()).isGreaterThan(100_000_000L);
        }
    }

    @Test
    void intended_send_times_follow_the_schedule() throws Exception {
        try (SseTestServer server = new SseTestServer(-1, 0);
             LoadGenerator load = new LoadGenerator(LoadTarget.of(server.base()), "m",
                     spec(ArrivalProcess.constant(200), 20, 0),
                     new RandomTokenWorkload(spec(ArrivalProcess.constant(200), 20, 0), 100), Endpoint.COMPLETIONS,
                     Duration.ofSeconds(10))) {
            List<RequestRecord> records = load.start().await(Duration.ofSeconds(30));
            for (int i = 1; i < records.size(); i++) {
                assertThat(records.get(i).intendedNanos() - records.get(i - 1).intendedNanos()).isEqualTo(5_000_000L);
            }
            assertThat(records).allMatch(r -> r.scheduleLagNanos() >= 0);
        }
    }

    @Test
    void duration_bound_stops_issuing() throws Exception {
        LoadSpec bounded = spec(ArrivalProcess.constant(100), 1000, 0).withMaxDuration(Duration.ofMillis(200));
        try (SseTestServer server = new SseTestServer(-1, 0);
             LoadGenerator load = new LoadGenerator(LoadTarget.of(server.base()), "m", bounded,
                     new RandomTokenWorkload(bounded, 100), Endpoint.COMPLETIONS, Duration.ofSeconds(10))) {
            List<RequestRecord> records = load.start().await(Duration.ofSeconds(30));
            // offsets 10, 20, …, 200 ms are ≤ 200 ms
            assertThat(records).hasSize(20);
        }
    }

    @Test
    void no_load_thread_outlives_close() throws Exception {
        try (SseTestServer server = new SseTestServer(-1, 0)) {
            LoadSpec s = spec(ArrivalProcess.poisson(500), 50, 0);
            LoadGenerator load = new LoadGenerator(LoadTarget.of(server.base()), "m", s,
                    new RandomTokenWorkload(s, 100), Endpoint.COMPLETIONS, Duration.ofSeconds(10));
            load.start();
            load.close();
            assertThat(Thread.getAllStackTraces().keySet())
                    .noneMatch(t -> t.isAlive() && t.getName().startsWith("profiledrollout-load-"));
        }
    }
}
