package dev.profiledrollout.capacity;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.metrics.LatencyDistribution;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.QuantileInterval;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * One latency SLO on a percentile, e.g. {@code ttft.p99<500ms}: the p-th percentile of a metric (vLLM's TTFT, ITL,
 * TPOT or E2E definitions, {@code docs/METRICS.md}) must stay below a budget. Immutable.
 *
 * <p><b>Verdict on a stage.</b> The percentile's 95 % distribution-free confidence interval
 * ({@link LatencyDistribution#percentileInterval(double)}, {@link QuantileInterval}) decides: the SLO is
 * {@link Outcome#MET} only when the interval's upper end is below the budget, {@link Outcome#MISSED} when its lower end
 * is at or above it, and {@link Outcome#INCONCLUSIVE} otherwise (the interval straddles the budget, or the stage had too
 * few samples for the interval to have an upper end: p99 needs about 370 samples, p90 about 35). A capacity search
 * counts an inconclusive stage as not meeting the SLO, so the figure it reports was shown to hold.
 *
 * @param metric     {@code ttft}, {@code itl}, {@code tpot} or {@code e2e}
 * @param percentile in (0, 100)
 * @param budget     the bound, exclusive, positive
 */
@API(status = EXPERIMENTAL, since = "0.2")
public record SloTarget(String metric, double percentile, Duration budget) {

    private static final Pattern SYNTAX = Pattern.compile(
            "\\s*(ttft|itl|tpot|e2e|e2el)\\.p(\\d+(?:\\.\\d+)?)\\s*<\\s*(\\d+(?:\\.\\d+)?)\\s*(us|µs|ms|s)\\s*",
            Pattern.CASE_INSENSITIVE);

    /** How a stage stood against the SLO. */
    @API(status = EXPERIMENTAL, since = "0.2")
    public enum Outcome {
        /** The interval lies below the budget. */
        MET,
        /** The interval lies at or above the budget. */
        MISSED,
        /** The interval straddles the budget or is unbounded: more samples are needed to tell. */
        INCONCLUSIVE
    }

    /**
     * One SLO's verdict on one stage.
     *
     * @param target   the SLO
     * @param outcome  MET, MISSED or INCONCLUSIVE
     * @param estimate the percentile (nearest rank), or null without samples
     * @param interval the 95 % interval, or null without samples
     * @param text     e.g. {@code "ttft.p99 412.0 ms [380.1, 455.0] < 500 ms: met"}
     */
    @API(status = EXPERIMENTAL, since = "0.2")
    public record Check(SloTarget target, Outcome outcome, Duration estimate, QuantileInterval interval, String text) {
    }

    public SloTarget {
        Objects.requireNonNull(metric, "metric");
        Objects.requireNonNull(budget, "budget");
        if (!(percentile > 0 && percentile < 100)) {
            throw new IllegalArgumentException("percentile must be in (0, 100), was " + percentile);
        }
        if (budget.isNegative() || budget.isZero()) {
            throw new IllegalArgumentException("budget must be positive, was " + budget);
        }
    }

    /**
     * @param text e.g. {@code "ttft.p99<500ms"}, {@code "tpot.p90 < 50 ms"}, {@code "e2e.p50<2s"}
     * @return the SLO
     * @throws IllegalArgumentException naming the text and the accepted form
     */
    public static SloTarget parse(String text) {
        Matcher m = SYNTAX.matcher(Objects.requireNonNull(text, "text"));
        if (!m.matches()) {
            throw new IllegalArgumentException("SLO \"" + text + "\" is not METRIC.pPERCENTILE<VALUE UNIT: use e.g."
                    + " \"ttft.p99<500ms\" or \"tpot.p90<50ms\" (metric ttft, itl, tpot or e2e; unit us, ms or s)");
        }
        String metric = m.group(1).toLowerCase(Locale.ROOT);
        double value = Double.parseDouble(m.group(3));
        String unit = m.group(4).toLowerCase(Locale.ROOT);
        double nanosPer = unit.equals("s") ? 1e9 : unit.equals("ms") ? 1e6 : 1e3;
        double p = Double.parseDouble(m.group(2));
        if (!(p > 0 && p < 100)) {
            throw new IllegalArgumentException("SLO \"" + text + "\": the percentile must be in (0, 100), was " + p);
        }
        return new SloTarget(metric.equals("e2el") ? "e2e" : metric, p, Duration.ofNanos(Math.round(value * nanosPer)));
    }

    /** @return the distribution of this SLO's metric in {@code report} */
    public LatencyDistribution distribution(LatencyReport report) {
        switch (metric) {
            case "ttft": return report.ttft();
            case "itl": return report.itl();
            case "tpot": return report.tpot();
            default: return report.e2e();
        }
    }

    /** @return this SLO's verdict on a stage's report */
    public Check check(LatencyReport report) {
        LatencyDistribution d = distribution(report);
        if (d.count() == 0) {
            return new Check(this, Outcome.INCONCLUSIVE, null, null, this + ": no samples (no request finished)");
        }
        QuantileInterval ci = d.percentileInterval(percentile);
        Duration estimate = d.percentile(percentile);
        Outcome outcome;
        if (ci.low().isPresent() && ci.low().get().compareTo(budget) >= 0) {
            outcome = Outcome.MISSED;
        } else if (ci.high().isPresent() && ci.high().get().compareTo(budget) < 0) {
            outcome = Outcome.MET;
        } else {
            outcome = Outcome.INCONCLUSIVE;
        }
        String text = String.format(Locale.ROOT, "%s.p%s %s [%s, %s] < %s: %s", metric, pText(), ms(estimate),
                ci.low().map(SloTarget::ms).orElse("-∞"), ci.high().map(SloTarget::ms).orElse("+∞"), ms(budget),
                outcome == Outcome.INCONCLUSIVE ? "inconclusive (" + d.count() + " samples; the 95 % interval "
                        + (ci.high().isEmpty() ? "has no upper end" : "straddles the budget") + ")"
                        : outcome.name().toLowerCase(Locale.ROOT));
        return new Check(this, outcome, estimate, ci, text);
    }

    private String pText() {
        return percentile == Math.rint(percentile) ? String.valueOf((long) percentile) : String.valueOf(percentile);
    }

    private static String ms(Duration d) {
        return String.format(Locale.ROOT, "%.1f ms", d.toNanos() / 1e6);
    }

    /** @return the SLO as parsed, e.g. {@code "ttft.p99<500ms"} */
    @Override
    public String toString() {
        double ms = budget.toNanos() / 1e6;
        return metric + ".p" + pText() + "<" + (ms == Math.rint(ms) ? String.valueOf((long) ms)
                : String.format(Locale.ROOT, "%.3f", ms)) + "ms";
    }
}
