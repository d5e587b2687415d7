package dev.profiledrollout.metrics;

import org.junit.jupiter.api.Test;

import java.io.StringWriter;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TimeSeriesTest {

    private static final long S = 1_000_000_000L;

    @Test
    void buckets_count_starts_ends_tokens_and_overlap_per_second() {
        // GIVEN: #0 sent at 0.1 s, chunks at 0.5 s and 1.5 s; #1 sent at 1.2 s, one chunk at 1.3 s; #2 fails at 2.5 s
        RequestRecord a = RequestRecord.success(0, 1, 2, S / 10, new long[] {S / 2, 3 * S / 2}, 1, 2);
        RequestRecord b = RequestRecord.success(1, 1, 1, 12 * S / 10, new long[] {13 * S / 10}, 1, 1);
        RequestRecord c = RequestRecord.failure(2, 1, 1, 2 * S, new long[0], 5 * S / 2, -1, -1, ErrorKind.TIMEOUT, "t");
        TimeSeries series = TimeSeries.of(List.of(a, b, c), 0);
        // THEN
        assertThat(series.buckets()).containsExactly(
                new TimeSeries.Bucket(0, 1, 0, 0, 1, 1, 0.9),   // #0 in flight 0.9 s of the second
                new TimeSeries.Bucket(1, 1, 2, 0, 2, 2, 0.6),   // #0 0.5 s + #1 0.1 s
                new TimeSeries.Bucket(2, 1, 0, 1, 0, 1, 1.0));  // #2 all of the 0.5 s before the run's end
        assertThat(series.maxConcurrentRequests()).isEqualTo(2);
        assertThat(series.maxOutputTokensPerSecond()).isEqualTo(2);
        StringWriter csv = new StringWriter();
        series.writeCsv(csv);
        assertThat(csv.toString()).startsWith("second,started,completed,failed,output_tokens,in_flight,mean_in_flight\n0,1,0,0,1,1,0.900\n");
    }
}
