package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.CategoryStats;
import dev.profiledrollout.trace.analysis.KernelCategory;
import dev.profiledrollout.trace.analysis.TemporalBreakdown;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on one trace file (one rank): its kernels and its GPU busy time. Every check records a
 * {@link Verdict} scoped to the rank: its label ({@link TraceSet#label(TraceSummary)}), after the set's scope when
 * reached through {@link TraceSetAssert#rank(int)} (e.g. {@code "PREFILL · TP-1"}).
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class TraceSummaryAssert extends AbstractAssert<TraceSummaryAssert, TraceSummary> {

    private final String scope;

    /** @param actual one trace; verdicts are scoped to its rank label, if the file has one */
    public TraceSummaryAssert(TraceSummary actual) {
        this(actual, rankScope(actual));
    }

    TraceSummaryAssert(TraceSummary actual, String scope) {
        super(actual, TraceSummaryAssert.class);
        this.scope = scope;
    }

    /** The kernels of this file whose name the filter accepts; shares are of this file's kernel time. */
    public KernelSelectionAssert kernels(Predicate<String> nameFilter) {
        isNotNull();
        return new KernelSelectionAssert(actual.kernels(nameFilter),
                "kernels " + nameFilter + " in " + actual.file().getFileName(), scope, nameFilter, actual.kernels());
    }

    /** Σ busy over Σ span of this file's devices (a TRACE verdict). */
    public NumberBudgetAssert gpuBusyFraction() {
        isNotNull();
        return busyFraction(actual.devices(), scope);
    }

    /** Fails when the file has no kernel events; records a TRACE verdict {@code "kernel events" ≥ 1}. */
    public TraceSummaryAssert hasKernels() {
        isNotNull();
        String warnings = actual.warnings().isEmpty() ? "" : " Reader warnings: " + actual.warnings();
        Verdicts.check(Checks.count(Verdict.Kind.TRACE, scope, "kernel events of " + actual.file().getFileName(), "≥",
                actual.kernelEvents(), 1, actual.kernelEvents() == 0 ? "was GPU among the activities?" + warnings : "",
                actual.kernelEvents() > 0), () -> failure("%s", Formats.scoped(scope) + actual.file().getFileName()
                + " has no kernel events; was GPU among the activities?" + warnings));
        return myself;
    }

    /**
     * Share of GPU event time in one {@link KernelCategory} ({@link dev.profiledrollout.trace.analysis.CategoryStats}: kernels by
     * the default rules, memcpy/memset as MEMORY; of all GPU event time).
     */
    public NumberBudgetAssert category(KernelCategory category) {
        isNotNull();
        CategoryStats c = actual.details().category(category);
        return new NumberBudgetAssert(c.share(), Verdict.Kind.TRACE, scope,
                "GPU time share of category " + category + " in "
                + actual.file().getFileName(), Formats::percent, Formats.duration(Duration.ofNanos(c.totalNs()))
                + " in " + c.count() + " events; categories: " + actual.details().categories().stream()
                .map(x -> x.category() + " " + Formats.percent(x.share())).collect(Collectors.joining(", ")));
    }

    /**
     * GPU idle fraction of this file: idle / span of the exact {@link TemporalBreakdown} (HTA's temporal breakdown
     * definition, in ns, over all GPU events). The message names the largest idle gaps and what the CPU was in.
     */
    public NumberBudgetAssert idleFraction() {
        isNotNull();
        TemporalBreakdown t = actual.details().exact();
        String gaps = actual.details().idleGaps().stream().limit(3)
                .map(g -> Formats.duration(Duration.ofNanos(g.durationNs())) + " on device " + g.deviceId()
                        + (g.cpuContext().isEmpty() ? "" : " during " + g.cpuContext()))
                .collect(Collectors.joining(", "));
        String graphs = actual.details().launches().graphKernelsMissing()
                ? "; warning: graph kernels missing from the trace, idle is overstated" : "";
        return new NumberBudgetAssert(t.idleFraction(), Verdict.Kind.TRACE, scope,
                "GPU idle fraction of " + actual.file().getFileName(),
                Formats::percent, "idle " + Formats.duration(Duration.ofNanos(t.idleNs())) + " of "
                + Formats.duration(Duration.ofNanos(t.kernelTimeNs())) + " span; largest gaps: " + gaps + graphs);
    }

    /** The engine steps of this file (all stages). */
    public StepsAssert steps() {
        isNotNull();
        return new StepsAssert(actual.details().steps(), "steps of " + actual.file().getFileName(), scope);
    }

    /** The engine steps of one stage (prefill = SGLang EXTEND / vLLM context, decode). */
    public StepsAssert steps(StepStats.Stage stage) {
        isNotNull();
        return new StepsAssert(actual.details().steps(stage), stage + " steps of " + actual.file().getFileName(),
                scope);
    }

    /**
     * Fails when most CUDA/HIP graph launches have no GPU events in the trace ({@code LaunchStats#graphKernelsMissing});
     * records a TRACE verdict on the number of graph launches without kernels.
     */
    public TraceSummaryAssert hasNoMissingGraphKernels() {
        isNotNull();
        var l = actual.details().launches();
        String detail = l.graphLaunchesWithoutKernels() + " of " + l.graphLaunches() + " graph launches have no GPU "
                + "events in the trace, budget: at most half";
        Verdicts.check(Checks.count(Verdict.Kind.TRACE, scope, "graph launches without kernels in "
                + actual.file().getFileName(), "≤", l.graphLaunchesWithoutKernels(), l.graphLaunches() / 2, detail,
                !l.graphKernelsMissing()), () -> failure("%s", Formats.scoped(scope) + actual.file().getFileName()
                + ": " + detail + "; record graph kernels (nsys --cuda-graph-trace=node, or a profiler that records "
                + "replayed kernels)"));
        return myself;
    }

    /** The rank label; {@code ""} when there is only the file name, which the measures already name. */
    private static String rankScope(TraceSummary trace) {
        if (trace == null) {
            return "";
        }
        String label = TraceSet.label(trace);
        return label.equals(String.valueOf(trace.file().getFileName())) ? "" : label;
    }

    static NumberBudgetAssert busyFraction(List<DeviceStats> devices, String scope) {
        long busy = devices.stream().mapToLong(DeviceStats::busyNs).sum();
        long span = devices.stream().mapToLong(DeviceStats::spanNs).sum();
        double fraction = DeviceStats.busyFraction(devices);
        return new NumberBudgetAssert(fraction, Verdict.Kind.TRACE, scope, "GPU busy fraction", Formats::percent,
                "busy " + Formats.duration(Duration.ofNanos(busy)) + " of " + Formats.duration(Duration.ofNanos(span))
                        + " GPU span over " + devices.size() + " device(s)");
    }
}
