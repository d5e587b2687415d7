package dev.profiledrollout.trace.analysis;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/**
 * What a GPU kernel does, as decided by a {@link KernelCategories} rule list from its name.
 *
 * <p>The first ten are this project's categories (their default rules are in {@link KernelCategories#defaults()});
 * HTA's coarser classification ({@code hta/utils/utils.py:get_kernel_type}, {@code docs/TRACES.md} §3.2) is a separate
 * thing, used only by the HTA-compatible {@link TemporalBreakdown}.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public enum KernelCategory {
    /** Matrix multiplication: cuBLAS/cutlass/nvjet/hipBLASLt (Tensile {@code Cijk_…}), Triton matmul. */
    GEMM,
    /** Attention: flash/flashinfer/paged attention, MLA, softmax-of-attention kernels. */
    ATTENTION,
    /** Collectives and peer copies: NCCL/RCCL, custom all-reduce ({@code cross_device_reduce}), DeepEP, all-to-all. */
    COMMUNICATION,
    /** Memory copies and sets: {@code gpu_memcpy}/{@code gpu_memset} events and copy/fill kernels. */
    MEMORY,
    /** RMSNorm/LayerNorm and batch norm. */
    NORMALIZATION,
    /** Activation functions: SiLU/GELU and-mul, ReLU. */
    ACTIVATION,
    /** Mixture of experts: routing, top-k gating, grouped expert GEMMs, token permutation. */
    MOE,
    /** Sampling: top-k/top-p, argmax, multinomial, softmax over logits, sorting. */
    SAMPLING,
    /** Element-wise and reduction kernels: PyTorch {@code elementwise_kernel}, {@code reduce_kernel}, rotary. */
    ELEMENTWISE,
    /** Everything no rule matched. */
    OTHER
}
