package dev.profiledrollout.assertions;

import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import java.time.Duration;
import java.util.Locale;
import java.util.stream.Collectors;
import org.assertj.core.api.AbstractAssert;

/** Assertions that compare the ranks of one capture: how many there are and how evenly their GPUs were busy. */
public final class RanksAssert extends AbstractAssert<RanksAssert, TraceSet> {

    RanksAssert(TraceSet actual) {
        super(actual, RanksAssert.class);
    }

    /** Fails unless the capture has exactly {@code expected} trace files. */
    public RanksAssert hasSize(int expected) {
        if (actual.traces().size() != expected) {
            failWithMessage("%s", "expected " + expected + " rank trace files but found " + actual.traces().size()
                    + ": " + labels());
        }
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
        return new NumberBudgetAssert(actual.busyImbalance(), "busy imbalance (max/mean GPU busy time over ranks)",
                v -> String.format(Locale.ROOT, "%.3f", v), "busy per rank: " + perRank);
    }

    private String labels() {
        return actual.traces().stream().map(RanksAssert::label).collect(Collectors.joining(", ", "[", "]"));
    }

    private static String label(TraceSummary t) {
        return t.rank().map(r -> r.label()).orElse(t.file().getFileName().toString());
    }
}
