package dev.profiledrollout.history;

import dev.profiledrollout.history.stats.Change;
import dev.profiledrollout.history.stats.Direction;
import dev.profiledrollout.history.stats.ThresholdResult;
import dev.profiledrollout.verdict.Verdict;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One metric of the current run checked against its history: the threshold model's result and the runs it was
 * compared with.
 *
 * @param metric  the metric name ({@link HistoryMetrics})
 * @param result  what the threshold model found ({@link ThresholdResult#describe()} says what changed, by how much and
 *                with what confidence)
 * @param against the earlier runs compared with, oldest first (for the two-sample models: the previous run)
 */
@API(status = API.Status.EXPERIMENTAL)
public record HistoryVerdict(String metric, ThresholdResult result, List<RunRef> against) {

    /**
     * An earlier run a verdict compared with.
     *
     * @param runId     the store's id
     * @param startedAt when it started
     * @param commit    its git commit, or null
     */
    @API(status = API.Status.EXPERIMENTAL)
    public record RunRef(long runId, Instant startedAt, String commit) {
    }

    public HistoryVerdict {
        Objects.requireNonNull(metric, "metric");
        Objects.requireNonNull(result, "result");
        against = List.copyOf(against);
    }

    /** The verdict: REGRESSION, IMPROVEMENT, NO_CHANGE or INSUFFICIENT_HISTORY. */
    public Change change() {
        return result.change();
    }

    /**
     * Which runs were compared with, e.g. {@code "runs #3..#22, commits 1a2b3c4..9f8e7d6"}, {@code "run #7"} or
     * {@code "no earlier runs"}.
     */
    public String againstText() {
        if (against.isEmpty()) {
            return "no earlier runs";
        }
        RunRef first = against.get(0);
        RunRef last = against.get(against.size() - 1);
        String runs = against.size() == 1 ? "run #" + first.runId() : "runs #" + first.runId() + "..#" + last.runId();
        String commits = first.commit() == null && last.commit() == null ? ""
                : against.size() == 1 || Objects.equals(first.commit(), last.commit()) ? ", commit " + shortCommit(first.commit())
                : ", commits " + shortCommit(first.commit()) + ".." + shortCommit(last.commit());
        return runs + commits;
    }

    private static String shortCommit(String commit) {
        return commit == null ? "?" : commit.length() > 7 ? commit.substring(0, 7) : commit;
    }

    /** {@link ThresholdResult#describe()} and the runs compared with. */
    public String describe() {
        return result.describe() + " (" + metric + " against " + againstText() + ")";
    }

    /**
     * This verdict for the test's report: kind {@link Verdict.Kind#HISTORY}, measure {@code "<label> vs history"}, the
     * baseline as budget with relation {@code ±}, the relative gap to the baseline, {@link #describe()} as detail;
     * passed unless a REGRESSION; INSUFFICIENT_HISTORY is a warning (not passed, not enforced).
     *
     * @param scope {@code ""} for the whole run, else the phase
     */
    public Verdict toVerdict(String scope) {
        String unit = result.measure().unit();
        String suffix = unit.isEmpty() ? "" : " " + unit;
        boolean insufficient = change() == Change.INSUFFICIENT_HISTORY;
        double baseline = result.baseline();
        return new Verdict(Verdict.Kind.HISTORY, scope, result.measure().name() + " vs history", "±", result.current(),
                baseline, unit, format(result.current()) + suffix,
                Double.isFinite(baseline) ? result.baselineKind() + " " + format(baseline) + suffix : "no baseline",
                insufficient ? null : Verdict.relativeGap(result.current(), baseline), describe(),
                change() != Change.REGRESSION && !insufficient, !insufficient);
    }

    /** The failure message of a REGRESSION, naming the metric, the change, the baseline and the runs. */
    public String failureMessage() {
        Direction direction = result.measure().direction();
        return metric + " regressed (" + (direction == Direction.LOWER_IS_BETTER ? "higher" : "lower")
                + " is worse): " + describe();
    }

    private static String format(double value) {
        if (!Double.isFinite(value)) {
            return String.valueOf(value);
        }
        if (Math.abs(value) >= 100) {
            return String.format(java.util.Locale.ROOT, "%.0f", value);
        }
        return new java.math.BigDecimal(value).round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
    }
}
