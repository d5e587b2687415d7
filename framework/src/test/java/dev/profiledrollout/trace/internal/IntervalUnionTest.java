package dev.profiledrollout.trace.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.util.Random;

class IntervalUnionTest {

    @Test
    void should_measure_union_and_span_of_overlapping_touching_and_nested_intervals() {
        IntervalUnion union = new IntervalUnion();
        union.add(10, 20);
        union.add(15, 25);   // overlaps
        union.add(25, 30);   // touches
        union.add(40, 50);
        union.add(42, 44);   // nested
        union.add(60, 60);   // empty

        assertThat(union.unionNs()).isEqualTo(20 + 10);
        assertThat(union.spanNs()).isEqualTo(50);
        assertThat(union.size()).isEqualTo(6);
    }

    @Test
    void should_agree_with_a_brute_force_count_on_random_intervals() {
        Random random = new Random(42);
        for (int round = 0; round < 50; round++) {
            IntervalUnion union = new IntervalUnion();
            boolean[] covered = new boolean[3000];
            int n = 1 + random.nextInt(2500);   // crosses the initial capacity of 1024
            for (int i = 0; i < n; i++) {
                int start = random.nextInt(2900);
                int end = start + random.nextInt(40);
                union.add(start, end);
                for (int t = start; t < end; t++) {
                    covered[t] = true;
                }
            }
            long expected = 0;
            for (boolean c : covered) {
                expected += c ? 1 : 0;
            }
            assertThat(union.unionNs()).as("round %d", round).isEqualTo(expected);
        }
    }

    @Test
    void should_be_zero_when_empty() {
        assertThat(new IntervalUnion().unionNs()).isZero();
        assertThat(new IntervalUnion().spanNs()).isZero();
    }
}
