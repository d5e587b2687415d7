package dev.profiledrollout.trace;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;
import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.Comparator;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Aggregate of all GPU kernel events ({@code cat} {@code kernel}) sharing one name in a trace or a set of
 * traces. Durations are ns.
 *
 * @param name    the kernel name exactly as in the trace, not null
 * @param count   number of kernel events with this name
 * @param totalNs sum of their {@code dur}
 * @param minNs   shortest {@code dur}
 * @param maxNs   longest {@code dur}
 * @param p50Ns   median {@code dur} from an HdrHistogram with 2 significant digits (within 1 %), or −1 when not
 *                known (stats built with the 5-argument constructor). Merged over ranks ({@link TraceSet}): the
 *                largest rank's value, an upper bound.
 * @param p99Ns   99th percentile {@code dur}, same precision and merging rule as {@code p50Ns}
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record KernelStats(String name, long count, long totalNs, long minNs, long maxNs, long p50Ns, long p99Ns) {

    /** {@code totalNs} descending, ties by name: the order of every kernel list in this package. */
    @API(status = INTERNAL, since = "0.2")
    public static final Comparator<KernelStats> BY_TOTAL_DESCENDING =
            Comparator.comparingLong(KernelStats::totalNs).reversed().thenComparing(KernelStats::name);

    public KernelStats {
        Objects.requireNonNull(name, "name");
    }

    /** Stats without percentiles ({@code p50Ns = p99Ns = −1}). */
    public KernelStats(String name, long count, long totalNs, long minNs, long maxNs) {
        this(name, count, totalNs, minNs, maxNs, -1, -1);
    }

    /** Mean duration in ns ({@code totalNs / count}), 0 when {@code count} is 0. */
    public double meanNs() {
        return count == 0 ? 0 : (double) totalNs / count;
    }

    /** Combines two aggregates of the same kernel name (for example from two ranks). */
    KernelStats plus(KernelStats other) {
        return new KernelStats(name, count + other.count, totalNs + other.totalNs,
                Math.min(minNs, other.minNs), Math.max(maxNs, other.maxNs),
                Math.max(p50Ns, other.p50Ns), Math.max(p99Ns, other.p99Ns));
    }
}
