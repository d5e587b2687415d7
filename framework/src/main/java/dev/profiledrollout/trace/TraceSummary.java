package dev.profiledrollout.trace;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.files.RankIdentity;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import org.apiguardian.api.API;

/**
 * Kernel and device totals of one Kineto trace file, as produced by {@link KinetoTraceReader#read(Path)}.
 * All times are ns. Immutable.
 *
 * <p>Definitions ({@code docs/TRACES.md} §7; the reference summaries in {@code testdata/traces/} use the same):
 * GPU events are {@code ph:"X"} events whose {@code cat} is {@code kernel}, {@code gpu_memcpy} or
 * {@code gpu_memset} (case-insensitive; also {@code Memcpy}, {@code Memset}). Kernel statistics use kernel events
 * only; device busy and span use all GPU events.
 *
 * @param file           the file that was read, not null
 * @param rank           the rank from the file name ({@link RankIdentity#fromFileName(String)}: SGLang, then vLLM)
 * @param kernelEvents   number of kernel events
 * @param memoryEvents   number of memcpy and memset events
 * @param distinctKernels number of distinct kernel names
 * @param kernelTotalNs  sum of {@code dur} over all kernel events
 * @param devices        per device ({@code pid}), sorted by id (numerically when both ids are numbers)
 * @param kernels        per kernel name, sorted by {@code totalNs} descending, ties by name
 * @param warnings       repairs and damage met while reading (truncation, skipped events); empty when clean
 * @param details        categories, HTA temporal breakdown, idle gaps, steps, launches and operators
 *                       ({@link TraceDetails}); {@link TraceDetails#none()} for summaries built by hand
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record TraceSummary(Path file, Optional<RankIdentity> rank, long kernelEvents, long memoryEvents,
                           int distinctKernels, long kernelTotalNs, List<DeviceStats> devices,
                           List<KernelStats> kernels, List<String> warnings, TraceDetails details) {

    public TraceSummary {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(rank, "rank");
        devices = List.copyOf(devices);
        kernels = List.copyOf(kernels);
        warnings = List.copyOf(warnings);
        Objects.requireNonNull(details, "details");
    }

    /** A summary without {@link TraceDetails} (for example built by hand in a test). */
    public TraceSummary(Path file, Optional<RankIdentity> rank, long kernelEvents, long memoryEvents,
                        int distinctKernels, long kernelTotalNs, List<DeviceStats> devices, List<KernelStats> kernels,
                        List<String> warnings) {
        this(file, rank, kernelEvents, memoryEvents, distinctKernels, kernelTotalNs, devices, kernels, warnings,
                TraceDetails.none());
    }

    /** A copy with another rank identity (used when splitting merged traces and for {@code distributedInfo}). */
    public TraceSummary withRank(Optional<RankIdentity> newRank) {
        return new TraceSummary(file, newRank, kernelEvents, memoryEvents, distinctKernels, kernelTotalNs, devices,
                kernels, warnings, details);
    }

    /** Σ idle (span − busy) over the devices, ns. */
    public long idleNs() {
        return devices.stream().mapToLong(d -> d.spanNs() - d.busyNs()).sum();
    }

    /**
     * The kernels whose name passes {@code nameFilter}, as a share of this file's kernel time.
     *
     * @param nameFilter for example {@link KernelMatchers#glob(String)}, not null
     */
    public KernelSelection kernels(Predicate<String> nameFilter) {
        return new KernelSelection(kernels.stream().filter(k -> nameFilter.test(k.name())).toList(), kernelTotalNs);
    }

    /** Sum of {@link DeviceStats#busyNs()} over the devices. */
    public long busyNs() {
        return devices.stream().mapToLong(DeviceStats::busyNs).sum();
    }

    /** Largest {@link DeviceStats#spanNs()} over the devices, 0 when there are none. */
    public long spanNs() {
        return devices.stream().mapToLong(DeviceStats::spanNs).max().orElse(0);
    }
}
