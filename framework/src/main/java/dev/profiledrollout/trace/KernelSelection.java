package dev.profiledrollout.trace;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.List;
import org.apiguardian.api.API;

/**
 * A chosen subset of kernels together with the kernel time it is a share of.
 *
 * <pre>{@code
 * KernelSelection attention = summary.kernels(KernelMatchers.glob("*paged_attention*"));
 * assertThat(attention.share()).isLessThan(0.30);
 * }</pre>
 *
 * @param kernels       the selected kernels, sorted by {@code totalNs} descending (ties by name); not null
 * @param kernelTotalNs kernel time of everything the selection was taken from (the denominator of
 *                      {@link #share()})
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record KernelSelection(List<KernelStats> kernels, long kernelTotalNs) {

    public KernelSelection {
        kernels = List.copyOf(kernels);
    }

    /** Number of kernel events in the selection. */
    public long count() {
        return kernels.stream().mapToLong(KernelStats::count).sum();
    }

    /** Summed duration of the selected kernel events, ns. */
    public long totalNs() {
        return kernels.stream().mapToLong(KernelStats::totalNs).sum();
    }

    /** Mean duration of one selected kernel event, ns; 0 when nothing is selected. */
    public double meanNs() {
        long count = count();
        return count == 0 ? 0 : (double) totalNs() / count;
    }

    /** {@code totalNs() / kernelTotalNs}, in [0, 1]; 0 when {@code kernelTotalNs} is 0. */
    public double share() {
        return kernelTotalNs == 0 ? 0 : (double) totalNs() / kernelTotalNs;
    }
}
