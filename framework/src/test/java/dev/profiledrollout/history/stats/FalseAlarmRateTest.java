package dev.profiledrollout.history.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * On pure noise (independent draws from one normal distribution, seeded) each statistical model at its default
 * boundary ({@link Boundaries#DEFAULT_PROBABILITY} = 0.99 on the regression side) should flag about 1 % of runs.
 * 4000 seeded trials: at 1 % the count is binomial with mean 40 and sd 6.3, so [25, 58] is ±2.5 sd around the
 * expectation (z-score over 100 runs: expected 1.13 %, 45).
 */
class FalseAlarmRateTest {

    private static final int TRIALS = 4000;
    private static final Measure TTFT = new Measure("p99 TTFT", "ms", Direction.LOWER_IS_BETTER);
    private static final Boundaries DEFAULT = Boundaries.regressionSide(Direction.LOWER_IS_BETTER, Boundaries.DEFAULT_PROBABILITY);

    @Test
    void student_t_on_a_short_history_alarms_at_the_nominal_rate() {
        assertThat(alarms(random -> new StudentT(20, DEFAULT).evaluate(TTFT, noise(random), noise(random, 20))))
                .isBetween(25, 58);
    }

    @Test
    void student_t_over_the_runs_the_hampel_identifier_keeps_alarms_near_the_nominal_rate() {
        // k = 5 (HistoryThreshold's default) drops a normal run from 20 in 1.6 % of windows: 1.03 % expected
        // (200,000 simulated windows), 41 of 4000
        assertThat(alarms(random -> new StudentT(20, DEFAULT, 5.0).evaluate(TTFT, noise(random), noise(random, 20))))
                .isBetween(25, 58);
    }

    @Test
    void z_score_on_a_long_history_alarms_near_the_nominal_rate() {
        assertThat(alarms(random -> new ZScore(100, DEFAULT).evaluate(TTFT, noise(random), noise(random, 100))))
                .isBetween(25, 62);
    }

    @Test
    void z_score_on_a_short_history_alarms_more_often_than_nominal() {
        // Expected P(t₁₉ > 2.326/√1.05) = 1.75 %, i.e. 70 of 4000: the documented reason to prefer t on short histories.
        assertThat(alarms(random -> new ZScore(20, DEFAULT).evaluate(TTFT, noise(random), noise(random, 20))))
                .isBetween(55, 90);
    }

    @Test
    void mann_whitney_on_equal_distributions_alarms_at_the_nominal_rate() {
        assertThat(alarms(random -> new MannWhitney(DEFAULT).evaluate(TTFT, noise(random, 40), noise(random, 40))))
                .isBetween(25, 58);
    }

    @Test
    void welch_on_equal_distributions_alarms_at_the_nominal_rate() {
        assertThat(alarms(random -> new Welch(DEFAULT).evaluate(TTFT, noise(random, 10), noise(random, 30))))
                .isBetween(25, 58);
    }

    @Test
    void the_same_models_catch_a_real_shift() {
        // Current run 4 sd slower than the history: t flags it unless the noise pulls it back by about 1 sd, most of the time.
        int caught = alarms(random -> new StudentT(20, DEFAULT).evaluate(TTFT, 20 + noise(random), noise(random, 20)));
        assertThat(caught).isGreaterThan(TRIALS * 3 / 4);
    }

    private static int alarms(Function<SplittableRandom, ThresholdResult> trial) {
        int alarms = 0;
        for (int seed = 0; seed < TRIALS; seed++) {
            ThresholdResult r = trial.apply(new SplittableRandom(seed));
            assertThat(r.change()).isIn(Change.REGRESSION, Change.NO_CHANGE);
            if (r.regressed()) {
                alarms++;
            }
        }
        return alarms;
    }

    private static double noise(SplittableRandom random) {
        return 100 + 5 * random.nextGaussian();
    }

    private static double[] noise(SplittableRandom random, int n) {
        double[] values = new double[n];
        for (int i = 0; i < n; i++) {
            values[i] = noise(random);
        }
        return values;
    }
}
