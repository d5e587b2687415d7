package dev.profiledrollout.history.stats;

import org.apiguardian.api.API;

/**
 * A lower and/or an upper boundary of a threshold model, as Bencher's thresholds have
 * (https://bencher.dev/docs/explanation/thresholds/). {@link Double#NaN} means "no boundary on that side": a move
 * to that side is then never flagged. What a boundary number means depends on the model: a fraction of the
 * baseline for {@link RelativeChange} ({@code 0.10} = 10 %), a cumulative probability in {@code [0.5, 1)} for
 * {@link ZScore}, {@link StudentT} and {@link MannWhitney} ({@code 0.99} flags the outer 1 % on that side).
 *
 * @param lower boundary below the baseline, or NaN
 * @param upper boundary above the baseline, or NaN
 */
@API(status = API.Status.EXPERIMENTAL)
public record Boundaries(double lower, double upper) {

    /** The default cumulative probability of the statistical models: 0.99, a 1 % false-alarm rate per side. */
    public static final double DEFAULT_PROBABILITY = 0.99;

    /** @throws IllegalArgumentException if both sides are NaN or a side is infinite or negative */
    public Boundaries {
        if (Double.isNaN(lower) && Double.isNaN(upper)) {
            throw new IllegalArgumentException(
                    "Boundaries has neither a lower nor an upper boundary: set at least one (upper for latency, lower for throughput)");
        }
        for (double b : new double[] {lower, upper}) {
            if (!Double.isNaN(b) && (Double.isInfinite(b) || b < 0)) {
                throw new IllegalArgumentException("boundary " + b + " is negative or infinite: use a finite value >= 0");
            }
        }
    }

    /** Only an upper boundary. */
    public static Boundaries upper(double upper) {
        return new Boundaries(Double.NaN, upper);
    }

    /** Only a lower boundary. */
    public static Boundaries lower(double lower) {
        return new Boundaries(lower, Double.NaN);
    }

    /** The same boundary on both sides. */
    public static Boundaries both(double boundary) {
        return new Boundaries(boundary, boundary);
    }

    /** A boundary only on the side where a move is a regression for {@code direction}. */
    public static Boundaries regressionSide(Direction direction, double boundary) {
        return direction == Direction.LOWER_IS_BETTER ? upper(boundary) : lower(boundary);
    }

    public boolean hasLower() {
        return !Double.isNaN(lower);
    }

    public boolean hasUpper() {
        return !Double.isNaN(upper);
    }

    /** Checks both sides are cumulative probabilities in {@code [0.5, 1)}, as the statistical models need. */
    void requireProbabilities(String model) {
        for (double b : new double[] {lower, upper}) {
            if (!Double.isNaN(b) && (b < 0.5 || b >= 1)) {
                throw new IllegalArgumentException(model + " boundary " + b
                        + " is not a cumulative probability in [0.5, 1): use e.g. 0.99 to flag the outer 1 % on that side");
            }
        }
    }
}
