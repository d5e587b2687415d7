package dev.profiledrollout.cli.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.history.stats.Boundaries;
import dev.profiledrollout.history.stats.MannWhitney;
import dev.profiledrollout.history.stats.Measure;
import dev.profiledrollout.history.stats.RelativeChange;
import dev.profiledrollout.history.stats.StudentT;
import dev.profiledrollout.history.stats.ThresholdModel;
import dev.profiledrollout.history.stats.ThresholdResult;
import dev.profiledrollout.history.stats.Welch;
import dev.profiledrollout.history.stats.ZScore;
import java.util.List;
import java.util.Locale;
import org.apiguardian.api.API;

/**
 * A threshold model chosen by the name {@code profiledrollout.history.threshold} takes ({@code relative},
 * {@code z-score}, {@code t-test}, {@code mann-whitney}, {@code welch}), with boundaries on both sides so that the
 * CLI reports improvements as well as regressions. The single-value models test a run's value against the values of
 * the runs before it; the two-sample models ({@code mann-whitney}, {@code welch}) test a run's raw samples against
 * the previous run's.
 *
 * @param name       the name as given
 * @param window     how many earlier runs a single-value model uses
 * @param boundaries the boundaries (fraction of the baseline for {@code relative}, else a cumulative probability)
 */
@API(status = INTERNAL)
public record ThresholdModels(String name, int window, Boundaries boundaries) {

    /** The names accepted. */
    public static final List<String> NAMES = List.of("relative", "z-score", "t-test", "mann-whitney", "welch");

    /**
     * @param name     one of {@link #NAMES}
     * @param window   at least 1
     * @param boundary the boundary on both sides, or NaN for the model's default (0.10 for {@code relative}, else
     *                 {@link Boundaries#DEFAULT_PROBABILITY})
     * @throws IllegalArgumentException naming the accepted names or the accepted boundary range
     */
    public static ThresholdModels of(String name, int window, double boundary) {
        String key = name.trim().toLowerCase(Locale.ROOT);
        if (!NAMES.contains(key)) {
            throw new IllegalArgumentException("unknown threshold model '" + name + "': use one of "
                    + String.join(", ", NAMES));
        }
        if (window < 1) {
            throw new IllegalArgumentException("--window " + window + " is below 1: use the number of earlier runs "
                    + "a verdict compares against, e.g. 20");
        }
        double b = Double.isNaN(boundary)
                ? (key.equals("relative") ? RelativeChange.DEFAULT_FRACTION : Boundaries.DEFAULT_PROBABILITY)
                : boundary;
        ThresholdModels models = new ThresholdModels(key, window, Boundaries.both(b));
        models.single(); // validates the boundary for the model
        if (key.equals("welch")) {
            new Welch(models.boundaries);
        } else if (key.equals("mann-whitney")) {
            new MannWhitney(models.boundaries);
        }
        return models;
    }

    /** True for the models that compare raw samples of two runs. */
    public boolean twoSample() {
        return name.equals("mann-whitney") || name.equals("welch");
    }

    /** The single-value model ({@code mann-whitney} and {@code welch} have none: use {@link #samples}). */
    public ThresholdModel single() {
        return switch (name) {
            case "relative" -> new RelativeChange(RelativeChange.Baseline.MEAN, window, boundaries);
            case "z-score" -> new ZScore(window, boundaries);
            case "t-test" -> new StudentT(window, boundaries);
            default -> null;
        };
    }

    /** A two-sample model's verdict on {@code current} samples against {@code previous} ones. */
    public ThresholdResult samples(Measure measure, double[] current, double[] previous) {
        return name.equals("welch") ? new Welch(boundaries).evaluate(measure, current, previous)
                : new MannWhitney(boundaries).evaluate(measure, current, previous);
    }
}
