package dev.profiledrollout.trace;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Comparator;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * How one kernel's total time differs across the ranks of a {@link TraceSet}, in ns.
 *
 * <p>Definition: per rank, Σ{@code dur} of the kernel's events (0 on a rank that lacks it); {@code spread} =
 * max / mean over all ranks of the set (1.0 = even). The same max/mean form as {@link TraceSet#busyImbalance()}.
 *
 * @param name     kernel name, not null
 * @param minNs    smallest per-rank total
 * @param maxNs    largest per-rank total
 * @param meanNs   mean per-rank total over all ranks
 * @param maxRank  index in {@link TraceSet#traces()} of the rank with the largest total
 * @param maxLabel that rank's label ({@link TraceSet#rankLabel(TraceSummary)})
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record KernelSpread(String name, long minNs, long maxNs, double meanNs, int maxRank, String maxLabel) {

    /** Largest spread first, then by name. */
    static final Comparator<KernelSpread> BY_SPREAD = Comparator.comparingDouble(KernelSpread::spread).reversed()
            .thenComparing(KernelSpread::name);

    public KernelSpread {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(maxLabel, "maxLabel");
    }

    /** {@code maxNs / meanNs}; 1.0 when the mean is 0. */
    public double spread() {
        return meanNs == 0 ? 1.0 : maxNs / meanNs;
    }
}
