package dev.profiledrollout.simulator;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/**
 * One GPU kernel of a simulated step, with the work the {@link CostModel} charged it and the time that work takes
 * on one TP rank before fault injection.
 *
 * @param name       CUDA kernel name as it appears in a Kineto trace, e.g.
 *                   {@code "void flashinfer::norm::FusedAddRMSNormKernel<8u, __nv_bfloat16>(…)"}
 * @param kind       what the kernel does
 * @param flops      floating-point operations on one rank
 * @param bytes      device-memory (or, for all-reduce, interconnect) bytes moved on one rank
 * @param durationNs roofline time plus launch floor, ns; at least 1
 * @param grid       CUDA grid, {@code [x, y, z]}
 * @param block      CUDA block, {@code [x, y, z]}
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record KernelCost(String name, Kind kind, double flops, double bytes, long durationNs, Dim3 grid, Dim3 block) {

    /** The kernel categories a transformer step launches. */
    public enum Kind { EMBEDDING, NORM, GEMM, ROTARY, ATTENTION, ACTIVATION, ALL_REDUCE, SAMPLING }

    /** A CUDA launch dimension. */
    public record Dim3(int x, int y, int z) {
    }

    /** This kernel with another duration (used for fault injection). */
    public KernelCost withDurationNs(long newDurationNs) {
        return new KernelCost(name, kind, flops, bytes, Math.max(1, newDurationNs), grid, block);
    }
}
