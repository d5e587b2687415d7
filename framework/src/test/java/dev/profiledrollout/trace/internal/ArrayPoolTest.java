package dev.profiledrollout.trace.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * ArrayPool as the reader uses it: grow, give back, take again on the same thread. Each case runs on a new thread,
 * whose lists start empty: the test thread's lists hold whatever earlier reads in this JVM gave back.
 */
class ArrayPoolTest {

    private interface Body {
        void run() throws Exception;
    }

    private static void onNewThread(Body body) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.start();
        t.join();
        assertThat(failure.get()).as("failure on the test's thread").isNull();
    }

    @Test
    void lengths_are_powers_of_two_from_64_and_long_requests_are_exact() throws Exception {
        onNewThread(() -> {
            assertThat(ArrayPool.longs(0)).hasSize(64);
            assertThat(ArrayPool.longs(65)).hasSize(128);
            assertThat(ArrayPool.ints(1000)).hasSize(1024);
            assertThat(ArrayPool.ints(1024)).hasSize(1024);
            int over = (1 << ArrayPool.MAX_BITS) + 1;
            assertThat(ArrayPool.ints(over)).hasSize(over);
            assertThatThrownBy(() -> ArrayPool.longs(-1)).isInstanceOf(NegativeArraySizeException.class);
        });
    }

    @Test
    void an_array_given_back_is_the_next_one_of_its_length_on_this_thread_only() throws Exception {
        onNewThread(() -> {
            long[] first = ArrayPool.longs(300);
            ArrayPool.give(first);
            AtomicReference<long[]> other = new AtomicReference<>();
            Thread t = new Thread(() -> other.set(ArrayPool.longs(300)));
            t.start();
            t.join();
            assertThat(other.get()).isNotSameAs(first).hasSize(512);
            assertThat(ArrayPool.longs(300)).isSameAs(first);
            assertThat(ArrayPool.longs(300)).isNotSameAs(first);
        });
    }

    @Test
    void grow_keeps_the_used_prefix_and_recycles_the_old_array() throws Exception {
        onNewThread(() -> {
            int[] small = ArrayPool.ints(64);
            for (int i = 0; i < 64; i++) {
                small[i] = i * 3;
            }
            int[] bigger = ArrayPool.grow(small, 64, 65);
            assertThat(bigger).hasSize(128);
            for (int i = 0; i < 64; i++) {
                assertThat(bigger[i]).isEqualTo(i * 3);
            }
            assertThat(ArrayPool.ints(64)).isSameAs(small);
        });
    }

    @Test
    void zeroed_arrays_are_zero_after_a_dirty_array_came_back() throws Exception {
        onNewThread(() -> {
            long[] dirty = ArrayPool.longs(200);
            java.util.Arrays.fill(dirty, -7);
            ArrayPool.give(dirty);
            long[] again = ArrayPool.zeroedLongs(200);
            assertThat(again).isSameAs(dirty).containsOnly(0L);
        });
    }

    @Test
    void keeps_at_most_eight_per_length_and_nothing_of_other_lengths() throws Exception {
        onNewThread(() -> {
            long before = ArrayPool.keptBytes();
            for (int i = 0; i < ArrayPool.PER_LENGTH + 3; i++) {
                ArrayPool.give(new int[4096]);
            }
            assertThat(ArrayPool.keptBytes() - before).isEqualTo(ArrayPool.PER_LENGTH * 4096L * 4);
            ArrayPool.give(new long[100]);
            ArrayPool.give(new long[32]);
            ArrayPool.give(new long[0]);
            assertThat(ArrayPool.keptBytes() - before).isEqualTo(ArrayPool.PER_LENGTH * 4096L * 4);
            for (int i = 0; i < ArrayPool.PER_LENGTH; i++) {
                ArrayPool.ints(4096);
            }
            assertThat(ArrayPool.keptBytes()).isEqualTo(before);
        });
    }

    @Test
    void keeps_at_most_the_byte_limit_per_thread() throws Exception {
        onNewThread(() -> {
            for (int i = 0; i < 8; i++) {
                ArrayPool.give(new long[1 << 20]); // 8 MiB each
            }
            ArrayPool.give(new long[1 << 19]);
            assertThat(ArrayPool.keptBytes()).isEqualTo((long) ArrayPool.MAX_KEPT_MIB << 20);
        });
    }
}
