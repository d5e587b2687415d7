package dev.profiledrollout.trace.analysis;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * GPU time of one {@link KernelCategory} in a trace.
 *
 * <p>Definition: kernel events are assigned by {@link KernelCategories#categoryOf(String)} on their name;
 * {@code gpu_memcpy}/{@code gpu_memset} events always count as {@link KernelCategory#MEMORY}. The share's denominator
 * is Σ{@code dur} of all GPU events (kernels, memcpy, memset) of the trace, so the shares of all categories add up to 1.
 *
 * @param category the category, not null
 * @param count    number of GPU events in it
 * @param totalNs  Σ {@code dur} of those events, ns
 * @param share    {@code totalNs} / Σ{@code dur} of all GPU events, in [0, 1]; 0 when there are none
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record CategoryStats(KernelCategory category, long count, long totalNs, double share) {

    public CategoryStats {
        Objects.requireNonNull(category, "category");
    }
}
