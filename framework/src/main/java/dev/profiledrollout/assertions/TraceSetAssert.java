package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on the analysed traces of one capture, all ranks together; {@link #rank(int)} narrows to one TP rank.
 *
 * <pre>{@code
 * assertThat(result.trace()).kernels(matching(".*gemm.*")).share().isLessThan(0.60);
 * assertThat(result.trace()).ranks().busyImbalance().isLessThan(1.10);
 * assertThat(result.trace()).gpuBusyFraction().isGreaterThan(0.5);
 * }</pre>
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class TraceSetAssert extends AbstractAssert<TraceSetAssert, TraceSet> {

    public TraceSetAssert(TraceSet actual) {
        super(actual, TraceSetAssert.class);
    }

    /** The kernels whose name the filter accepts, merged over every rank; shares are of all ranks' kernel time. */
    public KernelSelectionAssert kernels(Predicate<String> nameFilter) {
        hasTraces();
        return new KernelSelectionAssert(actual.kernels(nameFilter), "kernels " + nameFilter);
    }

    /** Per-rank comparisons. */
    public RanksAssert ranks() {
        hasTraces();
        return new RanksAssert(actual);
    }

    /** One TP rank's trace. */
    public TraceSummaryAssert rank(int tp) {
        hasTraces();
        TraceSummary summary = actual.rank(tp).orElse(null);
        if (summary == null) {
            failWithMessage("%s", "no trace of TP rank " + tp + "; the capture has "
                    + actual.traces().stream().map(t -> t.rank().map(r -> r.label())
                            .orElse(t.file().getFileName().toString())).collect(Collectors.toList()));
        }
        return new TraceSummaryAssert(summary);
    }

    /** Σ GPU busy time over Σ GPU span, over every device of every rank (busy = union of GPU event intervals). */
    public NumberBudgetAssert gpuBusyFraction() {
        hasTraces();
        List<DeviceStats> devices = actual.traces().stream().flatMap(t -> t.devices().stream())
                .collect(Collectors.toList());
        return TraceSummaryAssert.busyFraction(devices);
    }

    /** Fails when the capture produced no trace file. */
    public TraceSetAssert hasTraces() {
        isNotNull();
        if (actual.traces().isEmpty()) {
            failWithMessage("%s", "the capture produced no trace files (activities without CPU/GPU/RPD write none)");
        }
        return myself;
    }
}
