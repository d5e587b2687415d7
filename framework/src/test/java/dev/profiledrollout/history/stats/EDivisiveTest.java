package dev.profiledrollout.history.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class EDivisiveTest {

    private static double[] noisy(long seed, double... levels) {
        // 15 values per level, 5 % normal noise
        Random r = new Random(seed);
        double[] x = new double[15 * levels.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = levels[i / 15] * (1 + 0.05 * r.nextGaussian());
        }
        return x;
    }

    @Test
    void finds_a_level_shift_where_it_happened() {
        List<EDivisive.ChangePoint> points = new EDivisive().changePoints(noisy(1, 100, 130));
        assertThat(points).hasSize(1);
        assertThat(points.get(0).index()).isBetween(14, 16);
        assertThat(points.get(0).pValue()).isLessThanOrEqualTo(0.05);
        assertThat(points.get(0).relativeChange()).isBetween(0.2, 0.4);
    }

    @Test
    void finds_a_shift_and_its_revert() {
        List<EDivisive.ChangePoint> points = new EDivisive().changePoints(noisy(2, 100, 150, 100));
        assertThat(points).extracting(EDivisive.ChangePoint::index).hasSize(2)
                .allSatisfy(i -> assertThat(Math.abs(i - 15) <= 1 || Math.abs(i - 30) <= 1).as("index " + i).isTrue());
    }

    @Test
    void finds_nothing_in_most_flat_noisy_series() {
        // a 5 % test: of 40 flat series, expect about 2 with a (false) change point; 8 or more has probability < 1e-3
        int withPoints = 0;
        for (long seed = 10; seed < 50; seed++) {
            withPoints += new EDivisive(0.05, 99, 3, seed).changePoints(noisy(seed, 100, 100)).isEmpty() ? 0 : 1;
        }
        assertThat(withPoints).isLessThan(8);
    }

    @Test
    void is_deterministic_and_validates_its_settings() {
        double[] x = noisy(3, 100, 120);
        assertThat(new EDivisive().changePoints(x)).isEqualTo(new EDivisive().changePoints(x));
        assertThat(new EDivisive().changePoints(new double[] {1, 2, 3, 4, 5})).isEmpty();
        assertThatIllegalArgumentException().isThrownBy(() -> new EDivisive(1.5, 10, 3, 0)).withMessageContaining("significance");
        assertThatIllegalArgumentException().isThrownBy(() -> new EDivisive().changePoints(new double[] {1, Double.NaN}))
                .withMessageContaining("finite");
    }
}
