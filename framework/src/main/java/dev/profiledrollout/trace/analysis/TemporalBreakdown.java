package dev.profiledrollout.trace.analysis;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/**
 * HTA's temporal breakdown and comm/compute overlap of one trace (all devices of the file together, as HTA does per
 * rank), in ns.
 *
 * <p>Definitions ({@code docs/TRACES.md} §3.3; HTA {@code hta/analyzers/breakdown_analysis.py:get_temporal_breakdown}
 * and {@code comm_overlap_analysis.py:get_comm_comp_overlap}): GPU events are merged into disjoint groups in start
 * order (a new group starts when {@code ts > } the running maximum end); {@code kernelTimeNs} = last merged end − first
 * merged start; {@code idleNs} = {@code kernelTimeNs} − Σ merged; {@code computeNs} = Σ merged intervals of computation
 * kernels only; {@code nonComputeNs} = {@code kernelTimeNs − computeNs − idleNs}; {@code overlapNs} = time during which
 * a communication and a computation kernel both run; {@code communicationNs} = Σ merged communication intervals.
 *
 * <p>Two modes, both computed by {@link dev.profiledrollout.trace.reading.KinetoTraceReader}:
 * <ul>
 *   <li><b>exact</b> ({@code htaCompatible = false}): ns as written, every GPU event (kernel, memcpy, memset), no step
 *       dropped; communication = {@link KernelCategory#COMMUNICATION} kernels (so {@code ncclDevKernel_*}, RCCL and
 *       {@code cross_device_reduce} count), computation = every other kernel except {@link KernelCategory#MEMORY}.</li>
 *   <li><b>HTA-compatible</b> ({@code htaCompatible = true}): HTA @ f4d0062 defaults: {@code ts} rounded up and
 *       {@code ts + dur} rounded down to whole µs (§3.1 step 2), computed in float64 µs as pandas does (at
 *       epoch µs a double resolves 0.25 µs, which moves some ends by 1 µs; HTA's published numbers include that); when the trace has two or more {@code ProfilerStep#N},
 *       only GPU events whose correlated CPU event starts before the last step are kept (§3.1 step 6); types by
 *       HTA's regular expressions ({@code hta/utils/utils.py:get_kernel_type}, §3.2). Values are multiples of 1000 ns.</li>
 * </ul>
 *
 * @param htaCompatible   which mode produced these numbers
 * @param kernelTimeNs    HTA's "kernel_time": span from the first GPU event start to the last end
 * @param idleNs          {@code kernelTimeNs} − union of GPU events
 * @param computeNs       union of computation kernels
 * @param nonComputeNs    the rest of the busy time (communication, memory, other not hidden under computation)
 * @param communicationNs union of communication kernels
 * @param overlapNs       time both a communication and a computation kernel run
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record TemporalBreakdown(boolean htaCompatible, long kernelTimeNs, long idleNs, long computeNs,
                                long nonComputeNs, long communicationNs, long overlapNs) {

    /** An all-zero breakdown (no GPU events). */
    public static TemporalBreakdown empty(boolean htaCompatible) {
        return new TemporalBreakdown(htaCompatible, 0, 0, 0, 0, 0, 0);
    }

    /** {@code idleNs / kernelTimeNs}, 0 when the span is 0. */
    public double idleFraction() {
        return kernelTimeNs == 0 ? 0 : (double) idleNs / kernelTimeNs;
    }

    /** {@code computeNs / kernelTimeNs}, 0 when the span is 0. */
    public double computeFraction() {
        return kernelTimeNs == 0 ? 0 : (double) computeNs / kernelTimeNs;
    }

    /** {@code nonComputeNs / kernelTimeNs}, 0 when the span is 0. */
    public double nonComputeFraction() {
        return kernelTimeNs == 0 ? 0 : (double) nonComputeNs / kernelTimeNs;
    }

    /** HTA's overlap percentage: {@code 100 · overlapNs / communicationNs}; NaN when there is no communication. */
    public double overlapPercent() {
        return communicationNs == 0 ? Double.NaN : 100.0 * overlapNs / communicationNs;
    }
}
