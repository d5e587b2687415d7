package dev.profiledrollout.history;

import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.history.stats.Boundaries;
import dev.profiledrollout.history.stats.Change;
import dev.profiledrollout.history.stats.Direction;
import dev.profiledrollout.history.stats.HampelFilter;
import dev.profiledrollout.history.stats.MannWhitney;
import dev.profiledrollout.history.stats.Measure;
import dev.profiledrollout.history.stats.RelativeChange;
import dev.profiledrollout.history.stats.StudentT;
import dev.profiledrollout.history.stats.ThresholdModel;
import dev.profiledrollout.history.stats.ThresholdResult;
import dev.profiledrollout.history.stats.Welch;
import dev.profiledrollout.history.stats.ZScore;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.apiguardian.api.API;

/**
 * How a regression check decides: the threshold model, its boundary on each metric's regression side (an upper one
 * for latency, a lower one for throughput, see {@link Boundaries#regressionSide}) and how many earlier runs it uses.
 * The models are those of docs/METRICS.md §8.
 *
 * @param model    which threshold model
 * @param boundary a fraction of the baseline for {@link Model#RELATIVE} (e.g. {@code 0.10}), else a cumulative
 *                 probability in {@code [0.5, 1)} (e.g. {@code 0.99})
 * @param window   how many earlier runs of the same test and configuration are compared with, at least 1
 * @param relativeLimit the relative floor of a statistical model: a value beyond the median of the last
 *                 {@value #RELATIVE_LIMIT_MINIMUM_RUNS} runs by more than this fraction, on the regression side, is a
 *                 REGRESSION whatever the model says (see {@link #evaluate}); above 0,
 *                 {@link Double#POSITIVE_INFINITY} for none; not used by {@link Model#RELATIVE}
 * @param traceBoundary the boundary of a statistical model for the metrics taken from the engine's trace
 *                 ({@link HistoryMetrics#fromTrace}), which carry the GPU's noise but not the CI machine's; NaN: the
 *                 {@code boundary} for every metric. Set by default ({@link #DEFAULT_TRACE_PROBABILITY}); a boundary
 *                 given by key or annotation applies to every metric ({@link #withBoundary})
 * @param outlierCutoff the Hampel cut-off of the statistical models, in robust standard deviations: the window's runs
 *                 farther than this many {@code 1.4826 · MAD} from its median are left out of its mean and spread
 *                 ({@link HampelFilter}); {@link Double#POSITIVE_INFINITY}: every run counts. Not used by
 *                 {@link Model#RELATIVE}, the relative floor or the two-sample tests. Default
 *                 {@link #DEFAULT_OUTLIER_CUTOFF}; key {@link ProfiledRolloutKeys#HISTORY_OUTLIER_CUTOFF}
 */
@API(status = API.Status.EXPERIMENTAL)
public record HistoryThreshold(Model model, double boundary, int window, double relativeLimit, double traceBoundary,
        double outlierCutoff) {

    /**
     * The default relative floor: 0.5, a value 1.5× the median of the last 3 runs (latency) or below half of it (throughput) is
     * a REGRESSION. Why: with few runs of history a statistical model's limit is far out (Student's t at 0.9999 over 3
     * runs puts it 82 standard deviations above the mean, over 7 runs 8.6), so a doubling of mean TPOT on a machine
     * with 7 % run-to-run noise passed as NO_CHANGE; 1.5× lies beyond every unchanged run but those that shared the CPU
     * with a build for most of their length (docs/METRICS.md §8), and a doubling clears it with room for that noise.
     */
    public static final double DEFAULT_RELATIVE_LIMIT = 0.5;

    /**
     * How many of the latest earlier runs the relative floor compares with, and the fewest it needs: 3, whose median one
     * outlying run does not move. So few, so that a change made on purpose stops failing after two runs at the new
     * level (the median of the last 3 then is one of them), instead of for half the window.
     */
    public static final int RELATIVE_LIMIT_MINIMUM_RUNS = 3;

    /**
     * The boundary of a statistical model named without one ({@code profiledrollout.history.threshold} or
     * {@code @RegressionCheck(threshold)}) for the client's metrics: 0.9999, one false alarm in 10,000 checks
     * of pure noise per metric when runs vary independently. Chosen from the detection study (bench/README.md,
     * "History: detection study"): on a shared CI-class machine whole runs slow down together, and at 0.99 unchanged
     * reruns were flagged several times more often than at 0.9999.
     */
    public static final double DEFAULT_PROBABILITY = 0.9999;

    /**
     * The default boundary of the statistical models for the metrics taken from the trace
     * ({@link HistoryMetrics#fromTrace}): {@value}. Chosen from the detection study (bench/README.md,
     * "History: detection study", and {@code bench/history-study replay}): kernel times and the engine's step interval
     * do not carry the load of the machine the test runs on, so a nearer boundary catches smaller changes without the
     * false alarms it would raise on client latency.
     */
    public static final double DEFAULT_TRACE_PROBABILITY = 0.999;

    /**
     * The smallest change a statistical model reports: 1 % of the window's mean on the regression side. Below it a
     * REGRESSION of the model is NO_CHANGE (the verdict then names the relative change against that mean). Why: an
     * engine without noise, such as the simulator without GPU noise in the examples, records the same trace figure
     * run after run, and Student's t over a history without spread flags any difference, however small (0.1 % in
     * `bench/history/reruns.sh`); 1 % lies below every change the detection study asks for (5 % and more).
     */
    public static final double MINIMUM_EFFECT = 0.01;

    /**
     * The default {@link #outlierCutoff}: {@value} robust standard deviations ({@code 5 · 1.4826 · MAD} from the
     * window's median). Why: one base run whose prefill fit came out 15 % low (9.6 robust standard deviations from
     * its window's median) widened Student's t's limit to +13.8 % for the next 20 runs, so a +10 % prefill slowdown
     * passed in that history. Chosen by replaying the detection study's 1,040 runs (bench/README.md, "A spread robust
     * to one outlying run"): cut-offs from 3.5 to 6 all caught that history, and Iglewicz and Hoaglin's 3.5
     * ({@link HampelFilter#IGLEWICZ_HOAGLIN_K}) and lower also left out genuine tail runs and raised the false alarms
     * on unchanged runs (at the boundary 0.995: 7 runs of 400 instead of 1), where 5 raised none; on normal noise
     * it keeps Student's t near its nominal rate (0.121 % instead of 0.104 % at 0.999 over 20 runs, 200,000 seeded
     * windows, {@code bench/history/hampel-noise.sh}; 3.5 gives 0.185 %).
     */
    public static final double DEFAULT_OUTLIER_CUTOFF = 5.0;

    /**
     * The boundary that turns the statistical model off for the metrics it applies to, leaving the relative floor
     * alone: 1, a cumulative probability whose limit is infinitely far. The default for the client's metrics (latency
     * and throughput seen by the load generator): the detection study (bench/README.md) found every false alarm of
     * Student's t at 0.9999 on mean TPOT and mean E2E on runs that shared the machine with other work, while the
     * engine-side metrics caught every shifted case those caught; the floor still fails a run 1.5× slower.
     */
    public static final double FLOOR_ONLY = 1.0;

    /**
     * The defaults of the configuration keys: t-test over 20 runs at {@value #DEFAULT_TRACE_PROBABILITY} on the
     * trace's metrics, the relative floor alone ({@link #FLOOR_ONLY}) on the client's, the floor at 0.5 on both.
     */
    public static final HistoryThreshold DEFAULT = new HistoryThreshold(Model.T_TEST, FLOOR_ONLY, 20,
            DEFAULT_RELATIVE_LIMIT, DEFAULT_TRACE_PROBABILITY, DEFAULT_OUTLIER_CUTOFF);

    /** A threshold model by its configuration name. */
    @API(status = API.Status.EXPERIMENTAL)
    public enum Model {
        /** {@link RelativeChange} against the mean of the window. */
        RELATIVE("relative"),
        /** {@link ZScore}. */
        Z_SCORE("z-score"),
        /** {@link StudentT}, a prediction interval from the window's mean and spread. */
        T_TEST("t-test"),
        /**
         * {@link MannWhitney} on raw samples: this run's requests against the previous run's, decoded from its stored
         * histogram. Metrics without per-request samples (throughput, trace figures) use {@link #T_TEST}.
         */
        MANN_WHITNEY("mann-whitney"),
        /** {@link Welch}'s two-sample t on raw samples, like {@link #MANN_WHITNEY}. */
        WELCH("welch");

        private final String key;

        Model(String key) {
            this.key = key;
        }

        /** The name in {@link ProfiledRolloutKeys#HISTORY_THRESHOLD} and in {@code summary.json}. */
        public String key() {
            return key;
        }

        /** Whether the model compares raw samples of two runs rather than one value per run. */
        public boolean twoSample() {
            return this == MANN_WHITNEY || this == WELCH;
        }

        /**
         * @throws IllegalArgumentException naming the key and the accepted names
         */
        public static Model of(String name) {
            String n = name.trim().toLowerCase(Locale.ROOT).replace('_', '-');
            for (Model m : values()) {
                if (m.key.equals(n)) {
                    return m;
                }
            }
            throw new IllegalArgumentException(ProfiledRolloutKeys.HISTORY_THRESHOLD + " is \"" + name
                    + "\": use one of " + Arrays.stream(values()).map(Model::key).toList());
        }
    }

    /** A threshold with the {@link #DEFAULT_OUTLIER_CUTOFF default outlier cut-off}. */
    public HistoryThreshold(Model model, double boundary, int window, double relativeLimit, double traceBoundary) {
        this(model, boundary, window, relativeLimit, traceBoundary, DEFAULT_OUTLIER_CUTOFF);
    }

    /** A threshold with the {@link #DEFAULT_RELATIVE_LIMIT default relative floor}, one boundary for every metric. */
    public HistoryThreshold(Model model, double boundary, int window) {
        this(model, boundary, window, DEFAULT_RELATIVE_LIMIT, Double.NaN);
    }

    /** A threshold with one boundary for every metric ({@code traceBoundary} NaN). */
    public HistoryThreshold(Model model, double boundary, int window, double relativeLimit) {
        this(model, boundary, window, relativeLimit, Double.NaN);
    }

    /**
     * @throws IllegalArgumentException when the window is below 1 or the boundary does not suit the model (a relative
     *                                  boundary must be a fraction {@code > 0}; the others a probability in
     *                                  {@code [0.5, 1)}), naming the configuration key
     */
    public HistoryThreshold {
        Objects.requireNonNull(model, "model");
        if (window < 1) {
            throw new IllegalArgumentException(ProfiledRolloutKeys.HISTORY_WINDOW + " is " + window
                    + ": use the number of earlier runs to compare with, at least 1 (default 20)");
        }
        if (model == Model.RELATIVE ? !(boundary > 0) || Double.isInfinite(boundary)
                : !(boundary >= 0.5 && boundary <= 1)) {
            throw new IllegalArgumentException(ProfiledRolloutKeys.HISTORY_BOUNDARY + " is " + boundary + " for "
                    + model.key() + (model == Model.RELATIVE
                    ? ": use a fraction of the baseline above 0, e.g. 0.10 for 10 %"
                    : ": use a cumulative probability in [0.5, 1), e.g. 0.99 to flag the outer 1 %, or 1 for the relative floor alone"));
        }
        if (!(relativeLimit > 0)) {
            throw new IllegalArgumentException("relativeLimit is " + relativeLimit + ": use a fraction of the median "
                    + "above 0 (default " + DEFAULT_RELATIVE_LIMIT + "), or Infinity for none");
        }
        if (model != Model.RELATIVE && boundary == 1 && Double.isInfinite(relativeLimit)) {
            throw new IllegalArgumentException(ProfiledRolloutKeys.HISTORY_BOUNDARY + " is 1 (the statistical model "
                    + "off) and " + ProfiledRolloutKeys.HISTORY_RELATIVE_LIMIT + " is Infinity (no relative floor): "
                    + "nothing would be checked; use a boundary below 1 or a finite relative floor");
        }
        if (!Double.isNaN(traceBoundary) && !(traceBoundary >= 0.5 && traceBoundary < 1)) {
            throw new IllegalArgumentException("traceBoundary is " + traceBoundary
                    + ": use a cumulative probability in [0.5, 1), or NaN for the boundary of every metric");
        }
        if (!(outlierCutoff > 0)) {
            throw new IllegalArgumentException("outlierCutoff is " + outlierCutoff + ": use a number of robust "
                    + "standard deviations above 0 (default " + DEFAULT_OUTLIER_CUTOFF + "), or Infinity to use every "
                    + "run of the window");
        }
    }

    /**
     * The threshold the configuration keys {@link ProfiledRolloutKeys#HISTORY_THRESHOLD},
     * {@link ProfiledRolloutKeys#HISTORY_BOUNDARY}, {@link ProfiledRolloutKeys#HISTORY_WINDOW},
     * {@link ProfiledRolloutKeys#HISTORY_RELATIVE_LIMIT} and {@link ProfiledRolloutKeys#HISTORY_OUTLIER_CUTOFF} give, each key's
     * default where it is unset. Without a boundary, {@code relative} uses {@link RelativeChange#DEFAULT_FRACTION}.
     *
     * @param lookup a key's value, empty when unset
     * @throws IllegalArgumentException naming the key of an invalid value
     */
    public static HistoryThreshold from(Function<String, Optional<String>> lookup) {
        Model model = lookup.apply(ProfiledRolloutKeys.HISTORY_THRESHOLD).filter(s -> !s.isBlank()).map(Model::of)
                .orElse(DEFAULT.model());
        double boundary = lookup.apply(ProfiledRolloutKeys.HISTORY_BOUNDARY).filter(s -> !s.isBlank())
                .map(s -> number(ProfiledRolloutKeys.HISTORY_BOUNDARY, s))
                .orElse(model == Model.RELATIVE ? RelativeChange.DEFAULT_FRACTION
                        : modelNamed(lookup) ? DEFAULT_PROBABILITY : DEFAULT.boundary());
        int window = lookup.apply(ProfiledRolloutKeys.HISTORY_WINDOW).filter(s -> !s.isBlank())
                .map(s -> (int) number(ProfiledRolloutKeys.HISTORY_WINDOW, s)).orElse(DEFAULT.window());
        double relativeLimit = lookup.apply(ProfiledRolloutKeys.HISTORY_RELATIVE_LIMIT).filter(s -> !s.isBlank())
                .map(s -> number(ProfiledRolloutKeys.HISTORY_RELATIVE_LIMIT, s)).orElse(DEFAULT_RELATIVE_LIMIT);
        if (!(relativeLimit > 0)) {
            throw new IllegalArgumentException(ProfiledRolloutKeys.HISTORY_RELATIVE_LIMIT + " is " + relativeLimit
                    + ": use a fraction of the median above 0 (default " + DEFAULT_RELATIVE_LIMIT + "), or Infinity "
                    + "for none");
        }
        double outlierCutoff = lookup.apply(ProfiledRolloutKeys.HISTORY_OUTLIER_CUTOFF).filter(s -> !s.isBlank())
                .map(s -> number(ProfiledRolloutKeys.HISTORY_OUTLIER_CUTOFF, s)).orElse(DEFAULT_OUTLIER_CUTOFF);
        if (!(outlierCutoff > 0)) {
            throw new IllegalArgumentException(ProfiledRolloutKeys.HISTORY_OUTLIER_CUTOFF + " is " + outlierCutoff
                    + ": use a number of robust standard deviations above 0 (default " + DEFAULT_OUTLIER_CUTOFF
                    + "), or Infinity to use every run of the window");
        }
        boolean boundaryGiven = lookup.apply(ProfiledRolloutKeys.HISTORY_BOUNDARY).filter(s -> !s.isBlank()).isPresent();
        if (!boundaryGiven && boundary == FLOOR_ONLY && Double.isInfinite(relativeLimit)) {
            boundary = DEFAULT_PROBABILITY; // the floor turned off: the client's metrics go back to the model
        }
        return new HistoryThreshold(model, boundary, window, relativeLimit,
                boundaryGiven || model == Model.RELATIVE ? Double.NaN : DEFAULT_TRACE_PROBABILITY, outlierCutoff);
    }

    private static boolean modelNamed(Function<String, Optional<String>> lookup) {
        return lookup.apply(ProfiledRolloutKeys.HISTORY_THRESHOLD).filter(v -> !v.isBlank()).isPresent();
    }

    private static double number(String key, String value) {
        try {
            return Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " is \"" + value + "\", not a number", e);
        }
    }

    /** This threshold with another model, and the boundary that model takes by default when the boundary does not fit it. */
    public HistoryThreshold withModel(Model newModel) {
        boolean fits = newModel == Model.RELATIVE ? boundary > 0 && boundary < 0.5 : boundary >= 0.5 && boundary < 1;
        // a model named explicitly is used: the floor-only default (boundary 1) becomes DEFAULT_PROBABILITY
        double b = fits ? boundary
                : newModel == Model.RELATIVE ? RelativeChange.DEFAULT_FRACTION : DEFAULT_PROBABILITY;
        return new HistoryThreshold(newModel, b, window, relativeLimit,
                newModel == Model.RELATIVE ? Double.NaN : traceBoundary, outlierCutoff);
    }

    /** This threshold with another window. */
    public HistoryThreshold withWindow(int newWindow) {
        return new HistoryThreshold(model, boundary, newWindow, relativeLimit, traceBoundary, outlierCutoff);
    }

    /** This threshold with another boundary, for every metric (trace metrics included: {@code traceBoundary} NaN). */
    public HistoryThreshold withBoundary(double newBoundary) {
        return new HistoryThreshold(model, newBoundary, window, relativeLimit, Double.NaN, outlierCutoff);
    }

    /**
     * This threshold with another outlier cut-off ({@link Double#POSITIVE_INFINITY}: every run of the window counts).
     *
     * @throws IllegalArgumentException when the cut-off is not above 0
     */
    public HistoryThreshold withOutlierCutoff(double newOutlierCutoff) {
        return new HistoryThreshold(model, boundary, window, relativeLimit, traceBoundary, newOutlierCutoff);
    }

    /**
     * This threshold with another relative floor ({@link Double#POSITIVE_INFINITY}: none; a floor-only boundary then
     * becomes {@link #DEFAULT_PROBABILITY}, so that something still checks the client's metrics).
     */
    public HistoryThreshold withRelativeLimit(double newRelativeLimit) {
        // turning the floor off under the floor-only default hands the client's metrics back to the model
        double b = boundary == FLOOR_ONLY && Double.isInfinite(newRelativeLimit) ? DEFAULT_PROBABILITY : boundary;
        return new HistoryThreshold(model, b, window, newRelativeLimit, traceBoundary, outlierCutoff);
    }

    /**
     * The threshold one metric is checked with: this one, with {@link #traceBoundary} as its boundary for a metric
     * taken from the trace ({@link HistoryMetrics#fromTrace}) when that is set and the model is a statistical one.
     */
    public HistoryThreshold forMetric(String metric) {
        if (Double.isNaN(traceBoundary) || model == Model.RELATIVE || !HistoryMetrics.fromTrace(metric)) {
            return this;
        }
        return new HistoryThreshold(model, traceBoundary, window, relativeLimit, traceBoundary, outlierCutoff);
    }

    /**
     * Decides one value against the earlier runs' values: the single-value model ({@link #singleValueModel}); when it
     * does not find a REGRESSION, the relative floor (see {@link #relativeFloor}) may still.
     *
     * @param history the earlier runs' values, oldest first
     */
    public ThresholdResult evaluate(Measure measure, double current, double[] history) {
        if (floorOnly()) {
            return floor(measure, current, history);
        }
        ThresholdResult result = singleValueModel(measure.direction()).evaluate(measure, current, history);
        if (result.regressed()) {
            if (model != Model.RELATIVE) {
                // a change too small to matter is not reported, however certain: an engine without noise (the
                // simulator's exact kernel times) gives a history with no spread, where any difference is t = ∞
                ThresholdResult effect = new RelativeChange(RelativeChange.Baseline.MEAN, window,
                        Boundaries.regressionSide(measure.direction(), MINIMUM_EFFECT))
                        .evaluate(measure, current, history);
                if (!effect.regressed()) {
                    return effect;
                }
            }
            return result;
        }
        return relativeFloor(measure, current, history).orElse(result);
    }

    /**
     * The relative floor's REGRESSION, if the value lies beyond the median of the last
     * {@value #RELATIVE_LIMIT_MINIMUM_RUNS} earlier runs (within the window) by more than {@link #relativeLimit()} on
     * the regression side ({@link RelativeChange} against the median); empty when it does not, when the model is
     * {@link Model#RELATIVE} itself, when the floor is off, or with fewer than {@value #RELATIVE_LIMIT_MINIMUM_RUNS}
     * earlier runs.
     *
     * @param history the earlier runs' values, oldest first
     */
    public Optional<ThresholdResult> relativeFloor(Measure measure, double current, double[] history) {
        if (model == Model.RELATIVE || Double.isInfinite(relativeLimit)
                || Math.min(history.length, window) < RELATIVE_LIMIT_MINIMUM_RUNS) {
            return Optional.empty();
        }
        ThresholdResult floor = floor(measure, current, history);
        return floor.regressed() ? Optional.of(floor) : Optional.empty();
    }

    /**
     * Whether the statistical model is off ({@code boundary} 1) and the {@link #relativeFloor relative floor} alone
     * decides: the default for the client's latency metrics ({@link #DEFAULT}).
     */
    public boolean floorOnly() {
        return model != Model.RELATIVE && boundary == 1;
    }

    private ThresholdResult floor(Measure measure, double current, double[] history) {
        if (floorOnly() && Math.min(history.length, window) < RELATIVE_LIMIT_MINIMUM_RUNS) {
            // the floor needs the median of 3 runs; with fewer it says nothing yet
            return new ThresholdResult(RelativeChange.NAME, measure, Change.INSUFFICIENT_HISTORY, current, Double.NaN,
                    "median", history.length, 1, "change", Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                    RELATIVE_LIMIT_MINIMUM_RUNS);
        }
        return new RelativeChange(RelativeChange.Baseline.MEDIAN, RELATIVE_LIMIT_MINIMUM_RUNS,
                Boundaries.regressionSide(measure.direction(), relativeLimit)).evaluate(measure, current, history);
    }

    /** The boundaries for a measure: only on its regression side. */
    public Boundaries boundaries(Direction direction) {
        return Boundaries.regressionSide(direction, boundary);
    }

    /**
     * The single-value model: this model, or {@link Model#T_TEST} for the two-sample models (used for metrics without
     * raw samples).
     */
    ThresholdModel singleValueModel(Direction direction) {
        Boundaries b = boundaries(direction);
        return switch (model) {
            case RELATIVE -> new RelativeChange(RelativeChange.Baseline.MEAN, window, b);
            case Z_SCORE -> new ZScore(window, b, outlierCutoff);
            case T_TEST, MANN_WHITNEY, WELCH -> new StudentT(window, b, outlierCutoff);
        };
    }

    /** Runs the two-sample model on samples; only for {@link Model#twoSample()} models. */
    ThresholdResult twoSample(Measure measure, double[] current, double[] previous) {
        Boundaries b = boundaries(measure.direction());
        return model == Model.WELCH ? new Welch(b).evaluate(measure, current, previous)
                : new MannWhitney(b).evaluate(measure, current, previous);
    }
}
