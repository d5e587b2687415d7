package dev.profiledrollout.cli.bench;

import dev.profiledrollout.metrics.ErrorKind;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.ScheduleReport;
import dev.profiledrollout.metrics.Slo;
import dev.profiledrollout.metrics.TimeSeries;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BenchmarkSummaryTest {

    private static final long MS = 1_000_000L;

    /** 40 open-loop requests with uneven schedule lags (0.1 to 3.9 ms, one of 3.67 ms); 3 tokens each; one failure. */
    private static List<RequestRecord> records() {
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            long intended = i * 20 * MS;
            long lag = i == 39 ? 3_670_000L : (i * 97_331L) % 3_900_000L + 100_000L;
            long start = intended + lag;
            records.add(RequestRecord.success(i, 16, 3, start,
                    new long[]{start + 5 * MS + i * 1000L, start + 7 * MS, start + 9 * MS}, 16, 3)
                    .withIntendedNanos(intended));
        }
        records.add(RequestRecord.failure(40, 16, 3, 900 * MS, new long[0], 901 * MS, -1, -1, ErrorKind.HTTP_STATUS,
                "HTTP 500").withIntendedNanos(900 * MS));
        return records;
    }

    private static BenchmarkSummary summary(List<RequestRecord> records) {
        return new BenchmarkSummary("vllm", "m", records.size(), 50, 1.0, 0, LatencyReport.of(records),
                ScheduleReport.of(records), TimeSeries.of(records, 0), new Slo(null, null, null));
    }

    private static double row(String table, String label) {
        Matcher m = Pattern.compile(Pattern.quote(label) + "\\s+([0-9.]+)").matcher(table);
        assertThat(m.find()).as(label + " in\n" + table).isTrue();
        return Double.parseDouble(m.group(1));
    }

    @Test
    void the_table_and_the_trailing_schedule_line_print_one_p99_lag() {
        BenchmarkSummary s = summary(records());
        String table = s.toTable();
        Matcher verdict = Pattern.compile("schedule lag p50 ([0-9.]+) ms, p99 ([0-9.]+) ms, max ([0-9.]+) ms")
                .matcher(table);
        assertThat(verdict.find()).as(table).isTrue();
        double p99 = Double.parseDouble(verdict.group(2));
        assertThat(String.format(Locale.ROOT, "%.2f", p99))
                .isEqualTo(String.format(Locale.ROOT, "%.2f", row(table, "P99 lag (ms):")));
        assertThat(String.format(Locale.ROOT, "%.2f", Double.parseDouble(verdict.group(1))))
                .isEqualTo(String.format(Locale.ROOT, "%.2f", row(table, "Median lag (ms):")));
        assertThat(s.toJson().get("p99_schedule_lag_ms").asDouble())
                .isEqualTo(s.schedule().lagPercentile(99).toNanos() / 1e6);
        assertThat(p99).isLessThanOrEqualTo(Double.parseDouble(verdict.group(3)));
    }

    @Test
    void only_the_selected_metrics_and_percentiles_are_reported_as_vllm_does() {
        BenchmarkSummary s = summary(records()).withPercentiles(BenchmarkSummary.VLLM_DEFAULT_METRICS,
                BenchmarkSummary.VLLM_DEFAULT_PERCENTILES);
        String table = s.toTable();
        assertThat(table).contains("Mean TTFT (ms):", "Median TPOT (ms):", "P99 ITL (ms):", "P99 lag (ms):")
                .doesNotContain("End-to-end Latency", "P90 TTFT", "P99.9");
        JsonNode json = s.toJson();
        assertThat(json.has("p99_ttft_ms")).isTrue();
        assertThat(json.has("std_itl_ms")).isTrue();
        assertThat(json.has("mean_e2el_ms")).isFalse();
        assertThat(json.has("p90_ttft_ms")).isFalse();
        assertThat(json.has("p99_schedule_lag_ms")).isTrue();

        BenchmarkSummary custom = s.withPercentiles(List.of("e2el"), List.of(25.0, 50.0, 99.9));
        assertThat(custom.toTable()).contains("P25 E2EL (ms):", "P50 E2EL (ms):", "P99.9 E2EL (ms):")
                .doesNotContain("Time to First Token");
        assertThat(custom.toJson().has("p99.9_e2el_ms")).isTrue();
        assertThat(custom.toJson().has("p25_e2el_ms")).isTrue();
    }

    @Test
    void unknown_metrics_and_percentiles_outside_0_100_name_the_allowed_values() {
        BenchmarkSummary s = summary(records());
        assertThatThrownBy(() -> s.withPercentiles(List.of("ttft", "queue"), List.of(99.0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttft,tpot,itl,e2el")
                .hasMessageContaining("queue");
        assertThatThrownBy(() -> s.withPercentiles(List.of("ttft"), List.of(101.0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[0, 100]");
    }

    @Test
    void detailed_json_has_vllms_per_request_lists_in_request_order() {
        List<RequestRecord> records = records();
        JsonNode plain = summary(records).toJson();
        assertThat(plain.has("ttfts")).isFalse();
        JsonNode json = summary(records).toJson(true);
        for (String key : List.of("input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "errors")) {
            assertThat(json.get(key).size()).as(key).isEqualTo(41);
        }
        assertThat(json.get("input_lens").get(0).asInt()).isEqualTo(16);
        assertThat(json.get("output_lens").get(0).asInt()).isEqualTo(3);
        assertThat(json.get("output_lens").get(40).asInt()).isZero();
        assertThat(json.get("ttfts").get(0).asDouble()).isEqualTo(0.005);
        assertThat(json.get("itls").get(0)).hasSize(2);
        assertThat(json.get("itls").get(0).get(0).asDouble()).isEqualTo(0.002);
        assertThat(json.get("latencies").get(0).asDouble()).isEqualTo(0.009);
        assertThat(json.get("start_times").get(0).asDouble()).isZero();
        assertThat(json.get("errors").get(0).asText()).isEmpty();
        assertThat(json.get("errors").get(40).asText()).isEqualTo("HTTP 500");
    }
}
