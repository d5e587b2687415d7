package dev.profiledrollout.trace.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** IndexMergeSort gives the order a stable sort of boxed indexes gives, ties included. */
class IndexMergeSortTest {

    private static Integer[] boxedOrder(long[] keys) {
        Integer[] boxed = new Integer[keys.length];
        for (int i = 0; i < keys.length; i++) {
            boxed[i] = i;
        }
        Arrays.sort(boxed, Comparator.comparingLong(i -> keys[i]));
        return boxed;
    }

    private static void assertSameOrder(long[] keys) {
        int[] sorted = IndexMergeSort.sort(keys.length, (a, b) -> keys[a] < keys[b]);
        Integer[] expected = boxedOrder(keys);
        for (int i = 0; i < keys.length; i++) {
            assertThat(sorted[i]).as("position %d of %d", i, keys.length).isEqualTo(expected[i]);
        }
        ArrayPool.give(sorted);
    }

    @Test
    void random_keys_with_many_ties_of_every_length_up_to_a_few_thousand() {
        Random random = new Random(3);
        for (int n = 0; n < 300; n++) {
            long[] keys = new long[n];
            for (int i = 0; i < n; i++) {
                keys[i] = random.nextInt(1 + n / 4);
            }
            assertSameOrder(keys);
        }
        long[] large = new long[5_000];
        for (int i = 0; i < large.length; i++) {
            large[i] = random.nextInt(700);
        }
        assertSameOrder(large);
    }

    @Test
    void interleaved_ascending_runs_as_the_ops_of_several_threads() {
        // four "threads" whose ids ascend, written to the file in blocks of a few events each
        Random random = new Random(4);
        long[] next = {0, 1, 2, 3};
        long[] keys = new long[20_000];
        for (int i = 0; i < keys.length; ) {
            int thread = random.nextInt(4);
            for (int b = 0; b < 1 + random.nextInt(30) && i < keys.length; b++) {
                keys[i++] = next[thread];
                next[thread] += 4;
            }
        }
        assertSameOrder(keys);
        long[] sortedAlready = new long[10_000];
        for (int i = 0; i < sortedAlready.length; i++) {
            sortedAlready[i] = i / 3;
        }
        assertSameOrder(sortedAlready);
    }
}
