package dev.profiledrollout.trace.analysis;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;
import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.Comparator;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * CPU and attributed GPU time of one CPU operator ({@code cpu_op}, such as {@code aten::mm}) in a trace, grouped by
 * name and input shapes: the torch profiler's {@code key_averages(group_by_input_shape=True)} view. Times in ns.
 *
 * <p>Definitions: {@code cpuNs} = Σ {@code dur} of the op's {@code cpu_op} events (inclusive of children, as the
 * profiler's "CPU total"); a kernel, memcpy or memset event is attributed to the {@code cpu_op} whose
 * {@code args."External id"} equals its own ({@code docs/TRACES.md} §1.4). Kernels replayed by CUDA graphs carry no
 * link and are not attributed (see {@link LaunchStats#kernelNsWithoutCpuOp()}).
 *
 * @param name       the op name, not null
 * @param inputDims  {@code args."Input Dims"} as compact JSON text (for example {@code [[8, 4096], [4096, 4096]]}),
 *                   {@code ""} when shapes were not recorded
 * @param count      number of calls
 * @param cpuNs      Σ CPU duration
 * @param gpuEvents  number of GPU events attributed
 * @param gpuNs      Σ dur of the GPU events attributed
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record OperatorStats(String name, String inputDims, long count, long cpuNs, long gpuEvents, long gpuNs) {

    /** GPU time descending, then CPU time descending, then name. */
    @API(status = INTERNAL, since = "0.2")
    public static final Comparator<OperatorStats> BY_GPU_THEN_CPU = Comparator.comparingLong(OperatorStats::gpuNs).reversed()
            .thenComparing(Comparator.comparingLong(OperatorStats::cpuNs).reversed())
            .thenComparing(OperatorStats::name).thenComparing(OperatorStats::inputDims);

    public OperatorStats {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(inputDims, "inputDims");
    }
}
