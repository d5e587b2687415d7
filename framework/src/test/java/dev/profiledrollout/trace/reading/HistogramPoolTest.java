package dev.profiledrollout.trace.reading;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.IntCountsHistogram;
import org.junit.jupiter.api.Test;

/** A histogram taken back from the pool is empty and answers exactly as a new one for the same durations. */
class HistogramPoolTest {

    @Test
    void a_reused_histogram_with_a_grown_range_gives_the_percentiles_of_a_new_one() throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                IntCountsHistogram first = HistogramPool.take();
                first.recordValue(40_000_000_000L); // a 40 s event grows the range far beyond the kernels below
                HistogramPool.give(first);
                IntCountsHistogram reused = HistogramPool.take();
                assertThat(reused).isSameAs(first);
                assertThat(reused.getTotalCount()).isZero();
                assertThat(reused.getMaxValue()).isZero();
                IntCountsHistogram fresh = new IntCountsHistogram(2);
                Random random = new Random(9);
                for (int i = 0; i < 50_000; i++) {
                    long ns = (long) Math.exp(5 + 10 * random.nextDouble());
                    reused.recordValue(ns);
                    fresh.recordValue(ns);
                }
                for (double p : new double[] {1, 25, 50, 90, 99, 99.9, 100}) {
                    assertThat(reused.getValueAtPercentile(p)).as("p%s", p).isEqualTo(fresh.getValueAtPercentile(p));
                }
                assertThat(reused.getMaxValue()).isEqualTo(fresh.getMaxValue());
                assertThat(reused.getMinValue()).isEqualTo(fresh.getMinValue());
                assertThat(reused.getMean()).isEqualTo(fresh.getMean());
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.start();
        t.join();
        assertThat(failure.get()).isNull();
    }
}
