package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
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
 * Every check records a {@link Verdict} (TRACE, KERNEL, RANKS, STEPS) in the set's {@link TraceSet#scope() scope}.
 *
 * <pre>{@code
 * assertThat(result.trace()).kernels(matching(".*gemm.*")).share().isLessThan(0.60);
 * assertThat(result.trace()).ranks().busyImbalance().isLessThan(1.10);
 * assertThat(result.trace()).gpuBusyFraction().isGreaterThan(0.5);
 * assertThat(result.trace()).operators("aten::mm").achievedTflops().median().isGreaterThan(500);
 * }</pre>
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class TraceSetAssert extends AbstractAssert<TraceSetAssert, TraceSet> {

    public TraceSetAssert(TraceSet actual) {
        super(actual, TraceSetAssert.class);
    }

    /** The kernels whose name the filter accepts, merged over every rank; shares are of all ranks' kernel time. */
    public KernelSelectionAssert kernels(Predicate<String> nameFilter) {
        requireTraces();
        return new KernelSelectionAssert(actual.kernels(nameFilter), "kernels " + nameFilter, actual.scope(),
                nameFilter, actual.kernels());
    }

    /**
     * Kernel efficiency (roofline figures) of every call of the op {@code name} (e.g. {@code aten::mm}) over every
     * rank and recorded shape; KERNEL verdicts. Needs traces captured with {@code record_shapes}.
     */
    public OperatorsAssert operators(String name) {
        requireTraces();
        return new OperatorsAssert(actual, name);
    }

    /** Per-rank comparisons (RANKS verdicts). */
    public RanksAssert ranks() {
        requireTraces();
        return new RanksAssert(actual);
    }

    /**
     * One TP rank's trace; its verdicts are scoped to the set's scope and the rank's label (e.g.
     * {@code "PREFILL · TP-1"}). A missing rank fails at once (even with soft budgets), naming the ranks there are.
     */
    public TraceSummaryAssert rank(int tp) {
        requireTraces();
        TraceSummary summary = actual.rank(tp).orElse(null);
        String ranks = actual.traces().stream().map(TraceSet::label).collect(Collectors.toList()).toString();
        Verdicts.require(Checks.count(Verdict.Kind.RANKS, actual.scope(), "trace files of TP rank " + tp, "≥",
                summary == null ? 0 : 1, 1, "ranks in the capture: " + ranks, summary != null), false,
                () -> failure("%s", Formats.scoped(actual.scope()) + "no trace of TP rank " + tp
                        + "; the capture has " + ranks));
        return new TraceSummaryAssert(summary, Formats.join(actual.scope(), TraceSet.label(summary)));
    }

    /**
     * Σ GPU busy time over Σ GPU span, over every device of every rank (busy = union of GPU event intervals); a TRACE
     * verdict.
     */
    public NumberBudgetAssert gpuBusyFraction() {
        requireTraces();
        List<DeviceStats> devices = actual.traces().stream().flatMap(t -> t.devices().stream())
                .collect(Collectors.toList());
        return TraceSummaryAssert.busyFraction(devices, actual.scope());
    }

    /** Fails when the capture produced no trace file; records a TRACE verdict {@code "trace files" ≥ 1}. */
    public TraceSetAssert hasTraces() {
        isNotNull();
        Verdicts.check(tracesVerdict(), () -> failure("%s", noTraces()));
        return myself;
    }

    /** Everything else reads the traces: without any, fail at once (even with soft budgets). */
    private void requireTraces() {
        isNotNull();
        Verdicts.require(tracesVerdict(), false, () -> failure("%s", noTraces()));
    }

    private Verdict tracesVerdict() {
        return Checks.count(Verdict.Kind.TRACE, actual.scope(), "trace files", "≥", actual.traces().size(), 1,
                actual.traces().size() + " trace file(s)", !actual.traces().isEmpty());
    }

    private String noTraces() {
        return Formats.scoped(actual.scope())
                + "the capture produced no trace files (activities without CPU/GPU/RPD write none)";
    }
}
