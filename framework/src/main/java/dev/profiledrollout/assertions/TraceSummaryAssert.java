package dev.profiledrollout.assertions;

import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.TraceSummary;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.assertj.core.api.AbstractAssert;

/** Assertions on one trace file (one rank): its kernels and its GPU busy time. */
public final class TraceSummaryAssert extends AbstractAssert<TraceSummaryAssert, TraceSummary> {

    public TraceSummaryAssert(TraceSummary actual) {
        super(actual, TraceSummaryAssert.class);
    }

    /** The kernels of this file whose name the filter accepts; shares are of this file's kernel time. */
    public KernelSelectionAssert kernels(Predicate<String> nameFilter) {
        isNotNull();
        return new KernelSelectionAssert(actual.kernels(nameFilter),
                "kernels " + nameFilter + " in " + actual.file().getFileName());
    }

    /** Σ busy over Σ span of this file's devices. */
    public NumberBudgetAssert gpuBusyFraction() {
        isNotNull();
        return busyFraction(actual.devices());
    }

    /** Fails when the file has no kernel events. */
    public TraceSummaryAssert hasKernels() {
        isNotNull();
        if (actual.kernelEvents() == 0) {
            failWithMessage("%s", actual.file().getFileName() + " has no kernel events; was GPU among the "
                    + "activities?" + (actual.warnings().isEmpty() ? "" : " Reader warnings: " + actual.warnings()));
        }
        return myself;
    }

    static NumberBudgetAssert busyFraction(List<DeviceStats> devices) {
        long busy = devices.stream().mapToLong(DeviceStats::busyNs).sum();
        long span = devices.stream().mapToLong(DeviceStats::spanNs).sum();
        double fraction = span == 0 ? 0 : (double) busy / span;
        return new NumberBudgetAssert(fraction, "GPU busy fraction", Formats::percent,
                "busy " + Formats.duration(Duration.ofNanos(busy)) + " of " + Formats.duration(Duration.ofNanos(span))
                        + " GPU span over " + devices.size() + " device(s)");
    }
}
