package dev.profiledrollout.history.stats;

import java.util.Locale;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What a threshold model found. Values are in the measure's unit unless stated.
 *
 * @param model the model's name: {@code "relative change"}, {@code "z-score"}, {@code "t-test"}, {@code "Mann-Whitney U"},
 *     {@code "Welch's t"}
 * @param measure what was compared
 * @param change the verdict
 * @param current the current value (for the two-sample tests the current samples' median or mean)
 * @param baseline the history's figure compared against (mean or median; for the two-sample tests the previous samples' median or mean)
 * @param baselineKind {@code "mean"} or {@code "median"}
 * @param n how many history runs (two-sample tests: previous samples) the model used
 * @param currentCount how many current samples (1 for the single-value models)
 * @param statisticName {@code "change"} (fraction of the baseline), {@code "z"} or {@code "t"}
 * @param statistic the statistic; positive when the current value lies above the baseline; NaN if not computed
 * @param threshold the critical statistic the verdict was decided against (the crossed one, else the regression
 *     side's, else the other); NaN if none was computed
 * @param boundary the boundary behind {@code threshold} (fraction or cumulative probability), NaN if none
 * @param pValue one-sided p-value in the direction of the observed move, NaN for the relative model
 * @param minimum the fewest history runs (two-sample tests: samples per run) the model needs
 */
@API(status = API.Status.EXPERIMENTAL)
public record ThresholdResult(
        String model,
        Measure measure,
        Change change,
        double current,
        double baseline,
        String baselineKind,
        int n,
        int currentCount,
        String statisticName,
        double statistic,
        double threshold,
        double boundary,
        double pValue,
        int minimum) {

    public ThresholdResult {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(measure, "measure");
        Objects.requireNonNull(change, "change");
        Objects.requireNonNull(baselineKind, "baselineKind");
        Objects.requireNonNull(statisticName, "statisticName");
    }

    /** True for {@link Change#REGRESSION}. */
    public boolean regressed() {
        return change == Change.REGRESSION;
    }

    /**
     * One line for logs and reports, e.g.
     * {@code p99 TTFT 312 ms vs mean 250 ms of last 20 runs: z = 3.40 > 2.33 (99 %): REGRESSION}.
     */
    public String describe() {
        boolean samples = currentCount > 1 || model.equals(MannWhitney.NAME) || model.equals(Welch.NAME);
        String unit = measure.unit().isEmpty() ? "" : " " + measure.unit();
        StringBuilder line = new StringBuilder(measure.name()).append(' ');
        if (samples) {
            line.append(baselineKind).append(' ').append(number(current)).append(unit).append(" (").append(currentCount)
                    .append(" samples)");
        } else {
            line.append(number(current)).append(unit);
        }
        if (change == Change.INSUFFICIENT_HISTORY) {
            return line.append(": ").append(n).append(samples ? " previous samples, " : n == 1 ? " run of history, " : " runs of history, ")
                    .append(model).append(" needs >= ").append(minimum).append(": ").append(change).toString();
        }
        line.append(" vs ").append(baselineKind).append(' ').append(number(baseline)).append(unit);
        line.append(samples ? " of the previous run (" + n + " samples)" : " of last " + n + (n == 1 ? " run" : " runs"));
        line.append(": ").append(statisticName).append(" = ").append(statistic(statistic));
        if (!Double.isNaN(threshold)) {
            String comparison = statistic > threshold ? ">" : statistic < threshold ? "<" : "=";
            if (change == Change.NO_CHANGE) {
                comparison = threshold >= 0 ? "<=" : ">=";
            }
            line.append(' ').append(comparison).append(' ').append(statistic(threshold));
            if (!statisticName.equals("change")) {
                line.append(" (").append(percent(boundary)).append(')');
            }
        }
        if (!Double.isNaN(pValue)) {
            line.append(", p = ").append(String.format(Locale.ROOT, "%.3g", pValue));
        }
        return line.append(": ").append(change).toString();
    }

    private String statistic(double value) {
        if (statisticName.equals("change")) {
            return String.format(Locale.ROOT, "%+.1f %%", value * 100);
        }
        return Double.isInfinite(value) ? (value > 0 ? "+inf" : "-inf") : String.format(Locale.ROOT, "%.2f", value);
    }

    private static String percent(double probability) {
        String text = String.format(Locale.ROOT, "%.2f", probability * 100);
        text = text.replaceAll("0+$", "").replaceAll("\\.$", "");
        return text + " %";
    }

    /** Whole numbers from 100 up, else 3 significant digits without trailing zeros (24, 15.5, 0.312). */
    static String number(double value) {
        if (!Double.isFinite(value)) {
            return String.valueOf(value);
        }
        if (Math.abs(value) >= 100) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        return new java.math.BigDecimal(value).round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
    }
}
