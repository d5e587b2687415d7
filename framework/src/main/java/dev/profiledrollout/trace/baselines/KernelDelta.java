package dev.profiledrollout.trace.baselines;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Comparator;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One kernel name compared between a baseline and a run ({@link TraceBaseline#diff}). Times in ns.
 *
 * @param name         kernel name, not null
 * @param baseCount    events in the baseline (0 = new kernel)
 * @param count        events in the run (0 = vanished kernel)
 * @param baseTotalNs  Σ dur in the baseline
 * @param totalNs      Σ dur in the run
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record KernelDelta(String name, long baseCount, long count, long baseTotalNs, long totalNs) {

    /** Largest |Δtime| first, then by name. */
    static final Comparator<KernelDelta> BY_ABSOLUTE_CHANGE = Comparator
            .comparingLong((KernelDelta d) -> Math.abs(d.deltaNs())).reversed().thenComparing(KernelDelta::name);

    /** Whether the kernel is in the baseline, the run, or both. */
    public enum Status { NEW, VANISHED, PRESENT }

    public KernelDelta {
        Objects.requireNonNull(name, "name");
    }

    public Status status() {
        return baseCount == 0 ? Status.NEW : count == 0 ? Status.VANISHED : Status.PRESENT;
    }

    /** {@code totalNs − baseTotalNs}. */
    public long deltaNs() {
        return totalNs - baseTotalNs;
    }

    /** {@code count − baseCount}. */
    public long deltaCount() {
        return count - baseCount;
    }

    /** {@code deltaNs / baseTotalNs}; +∞ for a new kernel with time, 0 when both are 0. */
    public double relativeChange() {
        if (baseTotalNs == 0) {
            return totalNs == 0 ? 0 : Double.POSITIVE_INFINITY;
        }
        return (double) deltaNs() / baseTotalNs;
    }
}
