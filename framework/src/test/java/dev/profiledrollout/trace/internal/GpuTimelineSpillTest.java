package dev.profiledrollout.trace.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

    /** Record i's start for each arrival order; every order is a permutation of 0..n-1 (times 1 µs). */
    private static long[] arrivals(String order, int n) {
        long[] starts = new long[n];
        for (int i = 0; i < n; i++) {
            starts[i] = 1_000L * i;
        }
        Random random = new Random(17);
        switch (order) {
            case "ascending" -> { }
            case "nearly sorted" -> { // neighbours swapped here and there, as profiler buffers interleave streams
                for (int i = 0; i + 1 < n; i += 37) {
                    long t = starts[i];
                    starts[i] = starts[i + 1];
                    starts[i + 1] = t;
                }
            }
            case "one late record per chunk" -> { // a far move within the insertion budget
                for (int c = 0; c + 5_000 < n; c += GpuTimeline.CHUNK) {
                    long t = starts[c];
                    System.arraycopy(starts, c + 1, starts, c, 5_000);
                    starts[c + 5_000] = t;
                }
            }
            case "shuffled" -> {
                for (int i = n - 1; i > 0; i--) {
                    int j = random.nextInt(i + 1);
                    long t = starts[i];
                    starts[i] = starts[j];
                    starts[j] = t;
                }
            }
            default -> throw new IllegalArgumentException(order);
        }
        return starts;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ascending", "nearly sorted", "one late record per chunk", "shuffled"})
    void should_replay_in_start_order_whatever_the_arrival_order(String order) {
        int n = 2 * GpuTimeline.CHUNK + 12_345;
        long[] starts = arrivals(order, n);
        long[] count = new long[1];
        long[] sum = new long[1];
        boolean[] ordered = {true};
        try (GpuTimeline timeline = new GpuTimeline()) {
            // GIVEN every record's fields derived from its start
            for (long start : starts) {
                long i = start / 1_000;
                timeline.add(start, start + 7, i, -i, (int) (i % 512), (int) (i % 13));
            }
            // WHEN replayed (twice: replay may be called again)
            for (int round = 0; round < 2; round++) {
                long[] last = {Long.MIN_VALUE};
                timeline.replay((start, end, corr, ext, tag, name) -> {
                    long i = start / 1_000;
                    ordered[0] &= start >= last[0] && end == start + 7 && corr == i && ext == -i
                            && tag == i % 512 && name == i % 13;
                    last[0] = start;
                    count[0]++;
                    sum[0] += i;
                });
            }
        }
        // THEN each record once per replay, intact, in start order
        assertThat(count[0]).isEqualTo(2L * n);
        assertThat(sum[0]).isEqualTo(2L * ((long) n * (n - 1) / 2));
        assertThat(ordered[0]).isTrue();
    }

    @org.junit.jupiter.api.Test
    void insertion_sort_gives_up_when_over_budget_and_sorts_within_it() {
        long[] reversed = {5, 4, 3, 2, 1};
        assertThat(GpuTimeline.insertionSort(reversed.clone(), 5, 3)).isFalse();
        long[] keys = reversed.clone();
        assertThat(GpuTimeline.insertionSort(keys, 5, 10)).isTrue();
        assertThat(keys).containsExactly(1, 2, 3, 4, 5);
        long[] partial = reversed.clone();
        GpuTimeline.insertionSort(partial, 5, 3);
        assertThat(partial).containsExactlyInAnyOrder(1, 2, 3, 4, 5); // a permutation: nothing lost
    }
}
