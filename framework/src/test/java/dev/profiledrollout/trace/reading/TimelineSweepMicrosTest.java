package dev.profiledrollout.trace.reading;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * HTA's arithmetic needs the double nearest to ns / 1000 (the value pandas parses from the µs text); the sweep computes
 * it without BigDecimal. Checked against BigDecimal's correctly rounded conversion.
 */
class TimelineSweepMicrosTest {

    private static double exact(long ns) {
        return BigDecimal.valueOf(ns, 3).doubleValue();
    }

    @Test
    void every_sub_microsecond_rest_of_epoch_and_binade_edge_values_rounds_as_big_decimal() {
        long[] wholes = {1_712_345_678_901_234L, 1L << 43, (1L << 44) - 1, 1L << 44, (1L << 50) + 3, 9_007_199_254_740L,
                9_223_372_036_854_774L, -1_712_345_678_901_234L, -(1L << 44), -9_223_372_036_854_775L};
        int checked = 0;
        for (long whole : wholes) {
            for (long rest = 0; rest < 1000; rest++) {
                long ns = whole >= 0 ? whole * 1000 + rest : whole * 1000 - rest;
                assertThat(TimelineSweep.micros(ns)).as("ns %d", ns).isEqualTo(exact(ns));
                checked++;
            }
        }
        assertThat(checked).isEqualTo(10_000);
    }

    @Test
    void random_values_of_every_magnitude_round_as_big_decimal() {
        Random random = new Random(11);
        for (int i = 0; i < 2_000_000; i++) {
            long ns = random.nextLong() >> random.nextInt(12); // epoch ns and larger, both signs
            assertThat(TimelineSweep.micros(ns)).as("ns %d", ns).isEqualTo(exact(ns));
        }
    }
}
