package dev.profiledrollout.trace.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Records that went through a spilled run come back whole, the kernel name id included, in start order. */
class GpuTimelineSpillTest {

    @Test
    void should_replay_every_field_of_spilled_and_in_memory_records_in_start_order() {
        int n = 2 * GpuTimeline.CHUNK + 5;
        long[] seen = new long[3];
        boolean[] intact = {true};
        try (GpuTimeline timeline = new GpuTimeline()) {
            // GIVEN starts in descending order, so every chunk must be sorted, each field derived from the start
            for (int i = n - 1; i >= 0; i--) {
                timeline.add(1_000L * i, 1_000L * i + 500, i + 1, i + 2, i % 1024, i % 7 == 0 ? -1 : i % 7);
            }
            assertThat(timeline.spilledRuns()).isEqualTo(2);
            // WHEN replayed
            long[] last = {Long.MIN_VALUE};
            timeline.replay((start, end, corr, ext, tag, name) -> {
                int i = (int) (start / 1_000);
                intact[0] &= start >= last[0] && end == start + 500 && corr == i + 1 && ext == i + 2
                        && tag == i % 1024 && name == (i % 7 == 0 ? -1 : i % 7);
                last[0] = start;
                seen[0]++;
            });
        }
        // THEN all records, intact and ordered
        assertThat(seen[0]).isEqualTo(n);
        assertThat(intact[0]).isTrue();
    }
}
