package dev.profiledrollout.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;

import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Hand-built records with known figures: ITL over multi-token chunks (SGLang {@code stream_interval > 1}),
 * {@code requests.jsonl}'s relative timestamps, the schedule-lag criteria and warning, SLO bounds, and the records'
 * equality and text.
 */
class RecordsAndScheduleTest {

    private static final long MS = 1_000_000L;
    private static final ObjectMapper JSON = new ObjectMapper();

    // ---- ITL over multi-token chunks ----

    @Test
    void a_chunk_of_n_tokens_gives_n_itl_samples_of_a_nth_of_its_gap() {
        // chunks at 10, 16 and 17 ms carrying 1, 3 and 0 (reported as no new token) tokens
        RequestRecord r = RequestRecord.success(0, 8, 4, 0, new long[]{10 * MS, 16 * MS, 17 * MS}, 8, 4)
                .withChunkTokens(new int[]{1, 3, 0});
        assertThat(r.chunkTokens()).containsExactly(1, 3, 0);
        LatencyReport report = LatencyReport.of(List.of(r));
        // 6 ms over 3 tokens: three gaps of 2 ms; the last chunk counts as one gap of 1 ms
        assertThat(report.itl().valuesNanos()).containsExactlyInAnyOrder(2 * MS, 2 * MS, 2 * MS, MS);
        // without token counts each chunk is one gap
        LatencyReport plain = LatencyReport.of(List.of(RequestRecord.success(0, 8, 4, 0,
                new long[]{10 * MS, 16 * MS, 17 * MS}, 8, 4)));
        assertThat(plain.itl().valuesNanos()).containsExactlyInAnyOrder(6 * MS, MS);
    }

    @Test
    void token_counts_must_be_parallel_to_the_chunks() {
        RequestRecord r = RequestRecord.success(0, 8, 4, 0, new long[]{10 * MS, 16 * MS}, 8, 4);
        assertThatThrownBy(() -> r.withChunkTokens(new int[]{1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("had 1 and 2");
    }

    @Test
    void a_one_token_request_has_no_tpot_and_zero_completion_tokens_are_usage() {
        RequestRecord one = RequestRecord.success(0, 8, 1, 0, new long[]{5 * MS}, 8, 1);
        RequestRecord zero = RequestRecord.success(1, 8, 1, 0, new long[]{5 * MS}, 8, 0);
        LatencyReport report = LatencyReport.of(List.of(one, zero));
        assertThat(report.tpot().count()).isZero();
        assertThat(report.requestsWithoutUsage()).isZero();
        assertThat(report.outputTokens()).isEqualTo(1);
        assertThat(report.toTable()).doesNotContain("warning");
        LatencyReport noUsage = LatencyReport.of(List.of(RequestRecord.success(0, 8, 1, 0, new long[]{5 * MS}, 8, -1)));
        assertThat(noUsage.toTable()).contains("warning: 1 successful requests had no usage chunk");
    }

    @Test
    void the_table_prints_the_duration_in_seconds_goodput_and_every_error_kind() {
        List<RequestRecord> records = List.of(
                RequestRecord.success(0, 8, 2, 0, new long[]{5 * MS, 2_500 * MS}, 8, 2),
                RequestRecord.failure(1, 8, 2, MS, new long[0], 2 * MS, -1, -1, ErrorKind.HTTP_STATUS, "HTTP 503"),
                RequestRecord.failure(2, 8, 2, MS, new long[0], 2 * MS, -1, -1, ErrorKind.TIMEOUT, null));
        String table = LatencyReport.of(records, new Slo(Duration.ofMillis(10), null, null)).toTable();
        assertThat(table).contains("1 completed, 2 failed in 2.500 s; throughput 0.40 req/s")
                .contains("goodput: 0.40 req/s, 1 of 3 requests met every SLO (ttft:10)")
                .contains("errors: HTTP_STATUS=1, TIMEOUT=1; first: #1 HTTP 503");
        assertThat(LatencyReport.of(records.subList(0, 1)).toTable()).contains("errors: none")
                .doesNotContain("goodput");
    }

    @Test
    void the_histogram_log_has_its_header_four_tagged_intervals_over_the_run_and_is_flushed() throws Exception {
        List<RequestRecord> records = List.of(RequestRecord.success(0, 8, 3, 0, new long[]{5 * MS, 7 * MS, 9 * MS},
                8, 3), RequestRecord.success(1, 8, 3, 0, new long[]{6 * MS, 8 * MS, 2_000 * MS}, 8, 3));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        LatencyReport.of(records).writeHistogramLog(new BufferedOutputStream(bytes)); // not flushed by the test
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("#Profiled Rollout latency log; values in ns", "#[Histogram log format version",
                "\"StartTimestamp\",\"Interval_Length\"");
        Map<String, EncodableHistogram> byTag = read(bytes.toByteArray());
        assertThat(byTag).containsOnlyKeys("TTFT", "ITL", "TPOT", "E2E");
        assertThat(((org.HdrHistogram.Histogram) byTag.get("ITL")).getTotalCount()).isEqualTo(4);
        EncodableHistogram e2e = byTag.get("E2E");
        assertThat(e2e.getStartTimeStamp()).isZero();
        assertThat(e2e.getEndTimeStamp()).isEqualTo(2_000);
    }

    private static Map<String, EncodableHistogram> read(byte[] log) {
        HistogramLogReader reader = new HistogramLogReader(new ByteArrayInputStream(log));
        Map<String, EncodableHistogram> byTag = new LinkedHashMap<>();
        for (EncodableHistogram h = reader.nextIntervalHistogram(); h != null; h = reader.nextIntervalHistogram()) {
            byTag.put(h.getTag(), h);
        }
        return byTag;
    }

    // ---- requests.jsonl ----

    @Test
    void requests_jsonl_timestamps_are_relative_to_the_earliest_intended_send() throws Exception {
        RequestRecord ok = RequestRecord.success(3, 16, 2, 1_005 * MS, new long[]{1_020 * MS, 1_050 * MS}, 17, 2)
                .withIntendedNanos(1_001 * MS);
        RequestRecord failed = RequestRecord.failure(4, 16, 2, 1_100 * MS, new long[0], 1_130 * MS, -1, -1,
                ErrorKind.CONNECTION, "refused").withIntendedNanos(1_000 * MS);
        assertThat(RequestLog.origin(List.of(ok, failed))).isEqualTo(1_000 * MS);
        assertThat(RequestLog.origin(List.of())).isZero();

        StringWriter out = new StringWriter();
        RequestLog.writeJsonl(List.of(ok, failed), out);
        String[] lines = out.toString().split("\n", -1);
        assertThat(lines).hasSize(3);
        assertThat(lines[2]).isEmpty();
        JsonNode a = JSON.readTree(lines[0]);
        assertThat(a.get("index").asInt()).isEqualTo(3);
        assertThat(a.get("promptTokens").asInt()).isEqualTo(17);
        assertThat(a.get("intendedNs").asLong()).isEqualTo(MS);
        assertThat(a.get("sendNs").asLong()).isEqualTo(5 * MS);
        assertThat(a.get("firstChunkNs").asLong()).isEqualTo(20 * MS);
        assertThat(a.get("endNs").asLong()).isEqualTo(50 * MS);
        assertThat(a.get("scheduleLagNs").asLong()).isEqualTo(4 * MS);
        assertThat(a.get("ttftNs").asLong()).isEqualTo(15 * MS);
        assertThat(a.get("e2eNs").asLong()).isEqualTo(45 * MS);
        assertThat(a.get("chunks").asInt()).isEqualTo(2);
        assertThat(a.get("error").isNull()).isTrue();
        JsonNode b = JSON.readTree(lines[1]);
        assertThat(b.get("intendedNs").asLong()).isZero();
        assertThat(b.get("sendNs").asLong()).isEqualTo(100 * MS);
        assertThat(b.get("firstChunkNs").asLong()).isEqualTo(-1);
        assertThat(b.get("endNs").asLong()).isEqualTo(130 * MS);
        assertThat(b.get("ttftNs").asLong()).isEqualTo(-1);
        assertThat(b.get("e2eNs").asLong()).isEqualTo(-1);
        assertThat(b.get("error").asText()).isEqualTo("CONNECTION");
        assertThat(b.get("errorMessage").asText()).isEqualTo("refused");
    }

    @Test
    void requests_jsonl_is_flushed_to_a_buffered_writer_and_a_zero_prompt_count_is_the_servers() {
        StringWriter sink = new StringWriter();
        java.io.BufferedWriter buffered = new java.io.BufferedWriter(sink);
        RequestLog.writeJsonl(List.of(RequestRecord.success(0, 8, 2, 0, new long[]{MS}, 0, 2)), buffered);
        assertThat(sink.toString()).startsWith("{\"index\":0,").endsWith("}\n");
        // the server said 0 prompt tokens: that is the count, not the requested 8
        assertThat(LatencyReport.of(List.of(RequestRecord.success(0, 8, 2, 0, new long[]{MS}, 0, 2))).inputTokens())
                .isZero();
        assertThat(LatencyReport.of(List.of(RequestRecord.success(0, 8, 2, 0, new long[]{MS}, -1, 2))).inputTokens())
                .isEqualTo(8);
        assertThatThrownBy(() -> LatencyDistribution.of("d", new long[]{1}).interpolatedPercentile(100.5))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LatencyDistribution.of("d", new long[]{1}).percentileInterval(-1, 0.95))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void a_first_chunk_at_the_origin_is_a_timestamp_not_a_missing_one() {
        RequestRecord r = RequestRecord.success(0, 1, 2, -5, new long[]{0, 4}, 1, 2).withIntendedNanos(0);
        JsonNode line = RequestLog.toJson(r, 0);
        assertThat(line.get("firstChunkNs").asLong()).isZero();
        assertThat(line.get("sendNs").asLong()).isEqualTo(-5);
        assertThat(line.get("ttftNs").asLong()).isEqualTo(5);
        assertThat(r.toString()).contains("ttftNs=5,");
    }

    // ---- schedule lag ----

    private static List<RequestRecord> lagged(long... lagsNanos) {
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < lagsNanos.length; i++) {
            long intended = i * 100 * MS;
            long start = intended + lagsNanos[i];
            records.add(RequestRecord.success(i, 8, 2, start, new long[]{start + MS, start + 3 * MS}, 8, 2)
                    .withIntendedNanos(intended));
        }
        return records;
    }

    @Test
    void a_lag_equal_to_the_budget_is_not_a_delay() {
        ScheduleReport s = ScheduleReport.of(lagged(0, 10 * MS, 10 * MS + 1));
        assertThat(s.delayedRequests()).isEqualTo(1);
        assertThat(s.correctedTtft().valuesNanos()).containsExactly(MS, 11 * MS, 11 * MS + 1);
        assertThat(s.correctedE2e().valuesNanos()).containsExactly(3 * MS, 13 * MS, 13 * MS + 1);
    }

    @Test
    void the_delayed_fraction_alone_flags_the_client_beyond_its_budget_only() {
        // one of ten requests 10.5 ms late: the interpolated p99 (9.555 ms) stays under the 10 ms budget
        long[] lags = new long[10];
        lags[9] = 10_500_000L;
        List<RequestRecord> records = lagged(lags);
        assertThat(ScheduleReport.of(records, Duration.ofMillis(10), 0.10).lagPercentile(99))
                .isLessThan(Duration.ofMillis(10));
        ScheduleReport atBudget = ScheduleReport.of(records, Duration.ofMillis(10), 0.10);
        assertThat(atBudget.clientFellBehind()).isFalse();
        assertThat(atBudget.verdict()).isEqualTo("schedule lag p50 0.000 ms, p99 9.555 ms, max 10.500 ms; 1 of 10"
                + " requests later than 10 ms");
        ScheduleReport over = ScheduleReport.of(records, Duration.ofMillis(10), 0.05);
        assertThat(over.clientFellBehind()).isTrue();
        assertThat(over.verdict()).isEqualTo("WARNING: the client, not the server, fell behind its schedule ("
                + "schedule lag p50 0.000 ms, p99 9.555 ms, max 10.500 ms; 1 of 10 requests later than 10 ms);"
                + " service latencies understate what users would see, read the schedule-corrected ones");
        assertThat(over.toString()).isEqualTo(over.verdict());
    }

    @Test
    void a_p99_lag_equal_to_the_budget_does_not_flag_the_client() {
        List<RequestRecord> records = lagged(0, 100 * MS);
        Duration p99 = ScheduleReport.of(records).lagPercentile(99);
        assertThat(ScheduleReport.of(records, p99, 1.0).clientFellBehind()).isFalse();
        assertThat(ScheduleReport.of(records, p99.minusNanos(1), 1.0).clientFellBehind()).isTrue();
        assertThat(ScheduleReport.of(List.of(), Duration.ZERO, 0).clientFellBehind()).isFalse();
    }

    @Test
    void the_delayed_fraction_budget_must_be_in_zero_to_one() {
        List<RequestRecord> records = lagged(0);
        assertThat(ScheduleReport.of(records, Duration.ofMillis(1), 0).delayedRequests()).isZero();
        assertThat(ScheduleReport.of(records, Duration.ofMillis(1), 1).delayedRequests()).isZero();
        for (double bad : new double[]{-0.01, 1.01, Double.NaN}) {
            assertThatThrownBy(() -> ScheduleReport.of(records, Duration.ofMillis(1), bad))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("delayedFractionBudget");
        }
    }

    @Test
    void the_schedule_log_has_three_tagged_histograms_and_is_flushed() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ScheduleReport.of(lagged(0, 2 * MS, 4 * MS)).writeHistogramLog(new BufferedOutputStream(bytes));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("#Profiled Rollout schedule log; values in ns", "#[Histogram log format version",
                "\"StartTimestamp\",\"Interval_Length\"");
        Map<String, EncodableHistogram> byTag = read(bytes.toByteArray());
        assertThat(byTag).containsOnlyKeys("LAG", "CORRECTED_TTFT", "CORRECTED_E2E");
        org.HdrHistogram.Histogram lag = (org.HdrHistogram.Histogram) byTag.get("LAG");
        assertThat(lag.getTotalCount()).isEqualTo(3);
        assertThat(lag.getMaxValue()).isBetween(4 * MS - 4_000, 4 * MS + 4_000);
        assertThat(byTag.get("LAG").getStartTimeStamp()).isZero();
        assertThat(byTag.get("LAG").getEndTimeStamp()).isZero();
    }

    // ---- SLO ----

    @Test
    void every_bound_alone_makes_an_slo_and_a_value_at_the_bound_is_good() {
        assertThat(Slo.none().isEmpty()).isTrue();
        assertThat(new Slo(Duration.ofMillis(1), null, null).isEmpty()).isFalse();
        assertThat(new Slo(null, Duration.ofMillis(1), null).isEmpty()).isFalse();
        assertThat(new Slo(null, null, Duration.ofMillis(1)).isEmpty()).isFalse();

        // start 10 ms, first chunk 15 ms (TTFT 5 ms), last 25 ms (E2E 15 ms), 3 tokens: TPOT 5 ms
        RequestRecord r = RequestRecord.success(0, 8, 3, 10 * MS, new long[]{15 * MS, 20 * MS, 25 * MS}, 8, 3);
        assertThat(new Slo(Duration.ofMillis(5), null, null).isGood(r)).isTrue();
        assertThat(new Slo(Duration.ofMillis(5).minusNanos(1), null, null).isGood(r)).isFalse();
        assertThat(new Slo(null, Duration.ofMillis(5), null).isGood(r)).isTrue();
        assertThat(new Slo(null, Duration.ofMillis(5).minusNanos(1), null).isGood(r)).isFalse();
        assertThat(new Slo(null, null, Duration.ofMillis(15)).isGood(r)).isTrue();
        assertThat(new Slo(null, null, Duration.ofMillis(15).minusNanos(1)).isGood(r)).isFalse();
    }

    @Test
    void slo_pairs_round_trip_and_zero_is_a_bound() {
        Slo slo = new Slo(Duration.ofMillis(250), Duration.ofNanos(20_500_000), Duration.ofSeconds(2));
        assertThat(slo.toPairs()).containsExactly("ttft:250", "tpot:20.5", "e2el:2000");
        assertThat(Slo.parse(slo.toPairs())).isEqualTo(slo);
        assertThat(Slo.none().toPairs()).isEmpty();
        assertThat(new Slo(null, Duration.ofMillis(1), null).toPairs()).containsExactly("tpot:1");
        assertThat(Slo.parse(List.of("ttft:0")).ttft()).isEqualTo(Duration.ZERO);
    }

    // ---- records ----

    @Test
    void records_are_equal_field_by_field() {
        RequestRecord base = record(1, 8, 4, 100, new long[]{110, 120}, 8, 2, null, null, 90, new int[0]);
        assertThat(base).isEqualTo(record(1, 8, 4, 100, new long[]{110, 120}, 8, 2, null, null, 90, new int[0]))
                .hasSameHashCodeAs(record(1, 8, 4, 100, new long[]{110, 120}, 8, 2, null, null, 90, new int[0]));
        List<RequestRecord> others = List.of(
                record(2, 8, 4, 100, new long[]{110, 120}, 8, 2, null, null, 90, new int[0]),
                record(1, 9, 4, 100, new long[]{110, 120}, 8, 2, null, null, 90, new int[0]),
                record(1, 8, 5, 100, new long[]{110, 120}, 8, 2, null, null, 90, new int[0]),
                record(1, 8, 4, 101, new long[]{110, 120}, 8, 2, null, null, 90, new int[0]),
                new RequestRecord(1, 8, 4, 100, 111, new long[]{110, 120}, 120, 8, 2, null, null, 90, new int[0]),
                record(1, 8, 4, 100, new long[]{110, 121}, 8, 2, null, null, 90, new int[0]),
                new RequestRecord(1, 8, 4, 100, 110, new long[]{110, 120}, 121, 8, 2, null, null, 90, new int[0]),
                record(1, 8, 4, 100, new long[]{110, 120}, 9, 2, null, null, 90, new int[0]),
                record(1, 8, 4, 100, new long[]{110, 120}, 8, 3, null, null, 90, new int[0]),
                record(1, 8, 4, 100, new long[]{110, 120}, 8, 2, ErrorKind.TIMEOUT, null, 90, new int[0]),
                record(1, 8, 4, 100, new long[]{110, 120}, 8, 2, null, null, 91, new int[0]),
                record(1, 8, 4, 100, new long[]{110, 120}, 8, 2, null, null, 90, new int[]{1, 1}));
        for (RequestRecord other : others) {
            assertThat(base).as(other.toString()).isNotEqualTo(other);
        }
        assertThat(record(1, 8, 4, 100, new long[]{110}, 8, 2, ErrorKind.TIMEOUT, "a", 90, new int[0]))
                .isNotEqualTo(record(1, 8, 4, 100, new long[]{110}, 8, 2, ErrorKind.TIMEOUT, "b", 90, new int[0]));
        assertThat(base).isNotEqualTo("a record");
    }

    private static RequestRecord record(int index, int in, int out, long start, long[] chunks, int prompt,
            int completion, ErrorKind error, String message, long intended, int[] tokens) {
        return new RequestRecord(index, in, out, start, chunks[0], chunks, chunks[chunks.length - 1], prompt,
                completion, error, message, intended, tokens);
    }

    @Test
    void a_records_text_gives_its_latencies_and_error() {
        RequestRecord ok = RequestRecord.success(7, 16, 4, 1_000, new long[]{1_300, 1_900}, 17, 4)
                .withIntendedNanos(900);
        assertThat(ok).hasToString("RequestRecord[index=7, in=16, out=4, chunks=2, ttftNs=300, e2eNs=900, lagNs=100,"
                + " promptTokens=17, completionTokens=4]");
        RequestRecord failed = RequestRecord.failure(8, 16, 4, 1_000, new long[0], 1_500, -1, -1, ErrorKind.TIMEOUT,
                "read timed out");
        assertThat(failed).hasToString("RequestRecord[index=8, in=16, out=4, chunks=0, ttftNs=-1, e2eNs=500, lagNs=0,"
                + " promptTokens=-1, completionTokens=-1, error=TIMEOUT: read timed out]");
        assertThat(LongStream.of(failed.chunkNanos()).count()).isZero();
    }
}
