package dev.profiledrollout.metrics;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ScheduleAndGoodputTest {

    private static final long MS = 1_000_000L;

    /** start at {@code startMs}, chunks at the given ms, usage completion tokens {@code tokens}. */
    private static RequestRecord ok(int index, long startMs, int tokens, long... chunkMs) {
        long[] chunks = new long[chunkMs.length];
        for (int i = 0; i < chunks.length; i++) {
            chunks[i] = chunkMs[i] * MS;
        }
        return RequestRecord.success(index, 10, tokens, startMs * MS, chunks, 10, tokens);
    }

    @Test
    void goodput_uses_vllm_and_semantics_and_tpot_zero_for_one_token() {
        // GIVEN: TTFT 100, TPOT (300−100)/4 = 50, E2E 300
        RequestRecord a = ok(0, 0, 5, 100, 150, 200, 250, 300);
        // TTFT 50, TPOT (1050−50)/1 = 1000: fails tpot
        RequestRecord b = ok(1, 0, 2, 50, 1050);
        // one token: TTFT 90, TPOT counts as 0, E2E 90
        RequestRecord c = ok(2, 0, 1, 90);
        RequestRecord failed = RequestRecord.failure(3, 10, 5, 0, new long[0], 10 * MS, -1, -1,
                ErrorKind.HTTP_STATUS, "HTTP 500");
        List<RequestRecord> records = List.of(a, b, c, failed);
        Slo slo = Slo.parse(List.of("ttft:100", "tpot:50"));
        // THEN
        assertThat(slo.goodCount(records)).isEqualTo(2);
        assertThat(slo.requestGoodput(records, Duration.ofSeconds(4))).isEqualTo(0.5);
        assertThat(Slo.parse(List.of("ttft:99.9")).goodCount(records)).isEqualTo(2);
        assertThat(Slo.parse(List.of("e2el:100")).goodCount(records)).isEqualTo(1);
    }

    @Test
    void goodput_parse_names_the_accepted_keys() {
        assertThatThrownBy(() -> Slo.parse(List.of("itl:5"))).hasMessageContaining("use ttft, tpot or e2el");
        assertThatThrownBy(() -> Slo.parse(List.of("ttft"))).hasMessageContaining("KEY:MILLISECONDS");
    }

    @Test
    void schedule_lag_and_corrected_latency_come_from_the_intended_time() {
        // GIVEN: intended at 0, sent at 40 ms, first chunk 50, end 60
        RequestRecord late = ok(0, 40, 2, 50, 60).withIntendedNanos(0);
        RequestRecord onTime = ok(1, 100, 2, 110, 120).withIntendedNanos(100 * MS);
        ScheduleReport report = ScheduleReport.of(List.of(late, onTime));
        assertThat(report.lag().max()).isEqualTo(Duration.ofMillis(40));
        assertThat(report.correctedTtft().max()).isEqualTo(Duration.ofMillis(50));
        assertThat(report.correctedE2e().max()).isEqualTo(Duration.ofMillis(60));
        assertThat(LatencyReport.of(List.of(late, onTime)).e2e().max()).isEqualTo(Duration.ofMillis(20));
        assertThat(report.delayedRequests()).isEqualTo(1);
        assertThat(report.clientFellBehind()).isTrue();
        assertThat(ScheduleReport.of(List.of(onTime)).clientFellBehind()).isFalse();
    }
}
