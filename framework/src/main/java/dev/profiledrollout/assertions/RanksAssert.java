package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.time.Duration;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions that compare the ranks of one capture: how many there are and how evenly their GPUs were busy. Every check
 * records a RANKS {@link Verdict} in the set's {@link TraceSet#scope() scope}.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class RanksAssert extends AbstractAssert<RanksAssert, TraceSet> {

    RanksAssert(TraceSet actual) {
        super(actual, RanksAssert.class);
    }

    /** Fails unless the capture has exactly {@code expected} trace files; records a RANKS verdict. */
    public RanksAssert hasSize(int expected) {
        int found = actual.traces().size();
        Verdicts.check(Checks.count(Verdict.Kind.RANKS, actual.scope(),
                "rank trace files", "=", found, expected,
                "ranks: " + labels(), found == expected), () -> failure("%s", Formats.scoped(actual.scope())
                + "expected " + expected + " rank trace files but found " + found + ": " + labels()));
        return myself;
    }

    /**
     * Max over ranks of GPU busy time divided by its mean over ranks: 1.0 when perfectly balanced; 1.25 means the
     * busiest rank worked 25% more than the average (a straggler or an uneven split).
     */
    public NumberBudgetAssert busyImbalance() {
        String perRank = actual.traces().stream()
                .map(t -> label(t) + " " + Formats.duration(Duration.ofNanos(t.busyNs())))
                .collect(Collectors.joining(", "));
        return new NumberBudgetAssert(actual.busyImbalance(), Verdict.Kind.RANKS, actual.scope(),
                "busy imbalance (max/mean GPU busy time over ranks)",
                v -> String.format(Locale.ROOT, "%.3f", v), "busy per rank: " + perRank);
    }

    /**
     * The straggler (the rank with the most GPU busy time, {@link TraceSet#straggler()}) against the mean of the other
     * ranks: 1.0 = no straggler. The message names the straggler.
     */
    public NumberBudgetAssert straggler() {
        TraceSummary s = actual.straggler().orElse(null);
        if (s == null || actual.traces().size() < 2) {
            return new NumberBudgetAssert(1.0, Verdict.Kind.RANKS, actual.scope(),
                    "straggler busy time over the other ranks' mean", Formats::plain,
                    actual.traces().size() + " rank(s)");
        }
        double others = actual.traces().stream().filter(t -> t != s).mapToLong(TraceSummary::busyNs).average()
                .orElse(0);
        double ratio = others == 0 ? 1.0 : s.busyNs() / others;
        return new NumberBudgetAssert(ratio, Verdict.Kind.RANKS, actual.scope(),
                "straggler " + label(s) + ": busy time over the other ranks' mean",
                v -> String.format(Locale.ROOT, "%.3f", v), label(s) + " busy "
                + Formats.duration(Duration.ofNanos(s.busyNs())) + " vs mean "
                + Formats.duration(Duration.ofNanos((long) others)));
    }

    /**
     * The largest per-kernel spread across ranks (max / mean of the kernel's per-rank total time,
     * {@link TraceSet#kernelSpread()}) among kernels whose name the filter accepts; the message names the kernel and the
     * rank where it took longest.
     */
    public NumberBudgetAssert kernelSpread(java.util.function.Predicate<String> nameFilter) {
        var worst = actual.kernelSpread().stream().filter(k -> nameFilter.test(k.name())).findFirst().orElse(null);
        if (worst == null) {
            return new NumberBudgetAssert(1.0, Verdict.Kind.RANKS, actual.scope(),
                    "kernel spread across ranks of kernels " + nameFilter, Formats::plain,
                    "no such kernel on two or more ranks");
        }
        return new NumberBudgetAssert(worst.spread(), Verdict.Kind.RANKS, actual.scope(),
                "kernel time spread (max/mean over ranks) of " + worst.name(),
                v -> String.format(Locale.ROOT, "%.3f", v), "longest on " + worst.maxLabel() + ": "
                + Formats.duration(Duration.ofNanos(worst.maxNs())) + " vs mean "
                + Formats.duration(Duration.ofNanos((long) worst.meanNs())) + ", min "
                + Formats.duration(Duration.ofNanos(worst.minNs())));
    }

    /**
     * The largest gap to a step's straggler ({@link dev.profiledrollout.trace.analysis.StepTimeline}): over every engine step
     * matched across the ranks of each {@linkplain TraceSet#rankSets() rank set}, the straggler's GPU busy time minus
     * another rank's. Zero without steps or with one rank per set (the detail says so). The message names the step,
     * the straggler and the rank furthest behind it.
     */
    public DurationBudgetAssert maxStepGap() {
        long worstGap = 0;
        String detail = "no step matched on two or more ranks";
        for (TraceSet set : actual.rankSets().values()) {
            dev.profiledrollout.trace.analysis.StepTimeline timeline = set.stepTimeline();
            var step = timeline.worstStep().orElse(null);
            if (step != null && step.maxGapNs() > worstGap) {
                worstGap = step.maxGapNs();
                int least = step.gapNs().indexOf(step.maxGapNs());
                detail = "step " + step.index() + " (" + step.name() + "): straggler "
                        + timeline.ranks().get(step.straggler()) + " busy "
                        + Formats.duration(Duration.ofNanos(step.busyNs().get(step.straggler()))) + ", "
                        + timeline.ranks().get(least) + " busy "
                        + Formats.duration(Duration.ofNanos(step.busyNs().get(least))) + "; " + timeline.note();
            } else if (worstGap == 0 && !timeline.steps().isEmpty()) {
                detail = timeline.note();
            }
        }
        String context = detail;
        return new DurationBudgetAssert(Duration.ofNanos(worstGap), Verdict.Kind.RANKS, actual.scope(),
                "largest per-step GPU busy gap to the step's straggler", budget -> context);
    }

    private String labels() {
        return actual.traces().stream().map(this::label).collect(Collectors.joining(", ", "[", "]"));
    }

    private String label(TraceSummary t) {
        return actual.rankLabel(t);
    }
}
