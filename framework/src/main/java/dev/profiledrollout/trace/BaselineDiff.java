package dev.profiledrollout.trace;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A run compared with a {@link TraceBaseline}: per-kernel Δcount and Δtime, new and vanished kernels, and the change
 * of total kernel time. Immutable.
 *
 * @param baseline the reference, not null
 * @param run      the run, reduced to the same shape, not null
 * @param kernels  every kernel of either side, largest |Δtime| first
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record BaselineDiff(TraceBaseline baseline, TraceBaseline run, List<KernelDelta> kernels) {

    public BaselineDiff {
        Objects.requireNonNull(baseline, "baseline");
        Objects.requireNonNull(run, "run");
        kernels = List.copyOf(kernels);
    }

    /** Kernels of the run that the baseline lacks. */
    public List<KernelDelta> newKernels() {
        return kernels.stream().filter(k -> k.status() == KernelDelta.Status.NEW).toList();
    }

    /** Kernels of the baseline that the run lacks. */
    public List<KernelDelta> vanishedKernels() {
        return kernels.stream().filter(k -> k.status() == KernelDelta.Status.VANISHED).toList();
    }

    /** {@code run.kernelTotalNs / baseline.kernelTotalNs − 1}; 0 when both are 0, +∞ when only the baseline is. */
    public double kernelTimeChange() {
        if (baseline.kernelTotalNs() == 0) {
            return run.kernelTotalNs() == 0 ? 0 : Double.POSITIVE_INFINITY;
        }
        return (double) run.kernelTotalNs() / baseline.kernelTotalNs() - 1;
    }
}
