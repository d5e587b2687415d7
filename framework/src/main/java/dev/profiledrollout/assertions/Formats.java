package dev.profiledrollout.assertions;

import dev.profiledrollout.metrics.QuantileInterval;
import java.time.Duration;
import java.util.Locale;

/** Number formats shared by the failure messages, so every message reads the same way. */
final class Formats {

    private Formats() {
    }

    /** {@code 1.234 s}, {@code 12.3 ms}, {@code 456 µs}, {@code 789 ns}: three significant digits. */
    static String duration(Duration d) {
        long ns = d.toNanos();
        double abs = Math.abs((double) ns);
        if (abs >= 1e9) {
            return significant(ns / 1e9) + " s";
        }
        if (abs >= 1e6) {
            return significant(ns / 1e6) + " ms";
        }
        if (abs >= 1e3) {
            return significant(ns / 1e3) + " µs";
        }
        return ns + " ns";
    }

    /**
     * {@code 95% CI 290–340 ms}; with an end that too few samples leave open, {@code 95% CI ≥ 290 ms, too few samples
     * to bound it above}, {@code 95% CI ≤ 340 ms, too few samples to bound it below} or {@code 95% CI unbounded, too
     * few samples}.
     */
    static String interval(QuantileInterval ci) {
        String level = significant(Math.round(ci.confidence() * 1000) / 10.0) + "% CI ";
        if (ci.bounded()) {
            String low = duration(ci.low().orElseThrow());
            String high = duration(ci.high().orElseThrow());
            String unit = high.substring(high.indexOf(' '));
            if (low.endsWith(unit)) {
                low = low.substring(0, low.length() - unit.length());
            }
            return level + low + "–" + high;
        }
        if (ci.low().isPresent()) {
            return level + "≥ " + duration(ci.low().get()) + ", too few samples to bound it above";
        }
        if (ci.high().isPresent()) {
            return level + "≤ " + duration(ci.high().get()) + ", too few samples to bound it below";
        }
        return level + "unbounded, too few samples";
    }

    static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * fraction);
    }

    static String plain(double value) {
        return significant(value);
    }

    /** The relative gap to a budget, signed: {@code +25%}, {@code -3.1%}; {@code n/a} for a zero budget. */
    static String gap(double actual, double budget) {
        if (budget == 0) {
            return "n/a";
        }
        double g = 100 * (actual - budget) / Math.abs(budget);
        return String.format(Locale.ROOT, "%+.1f%%", g);
    }

    /** {@code "[PREFILL] "} for a scope, {@code ""} for the whole run: the prefix of a scoped failure message. */
    static String scoped(String scope) {
        return scope == null || scope.isEmpty() ? "" : "[" + scope + "] ";
    }

    /** Joins a report's scope and a rank label as {@link dev.profiledrollout.verdict.Verdict#scope()} does. */
    static String join(String scope, String rank) {
        if (scope == null || scope.isEmpty()) {
            return rank;
        }
        return rank == null || rank.isEmpty() ? scope : scope + " · " + rank;
    }

    private static String significant(double v) {
        double abs = Math.abs(v);
        if (abs >= 100 || v == Math.rint(v) && abs < 1e15) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (abs >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (abs >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }
}
