package dev.profiledrollout.simulator;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.simulator.KernelCost.CpuOp;
import dev.profiledrollout.simulator.KernelCost.Dim3;
import dev.profiledrollout.simulator.KernelCost.Input;
import dev.profiledrollout.simulator.KernelCost.Kind;

import java.util.ArrayList;
import java.util.List;
import org.apiguardian.api.API;

/**
 * The roofline cost model that gives every simulated scheduler step its kernels and their durations.
 *
 * <h2>Model</h2>
 * For each kernel, on one TP rank:
 * <pre>
 *   time = max(FLOPs / (denseBf16Flops · COMPUTE_EFFICIENCY), bytes / (hbmBytesPerSecond · MEMORY_EFFICIENCY))
 *          + LAUNCH_FLOOR_NS
 *   all-reduce (TP &gt; 1):  time = 2(tp−1)/tp · bytes / interconnectBytesPerSecond + ALL_REDUCE_LATENCY_NS
 * </pre>
 * A step launches, in order: embedding lookup (+ all-reduce when TP &gt; 1, vocab-parallel); per layer: RMSNorm
 * (fused add after the first layer), QKV GEMM, rotary embedding, attention, O GEMM, all-reduce, fused add RMSNorm,
 * gate/up GEMM, SiLU-and-mul, down GEMM, all-reduce; then final norm, LM-head GEMM over one row per request
 * (SGLang computes logits only for the last token of each request), softmax and sampling.
 * Weight bytes and head counts are divided by {@code tp} (Megatron-style column/row parallel layers).
 * GEMMs cost {@code 2·M·N·K} FLOPs and {@code (M·K + K·N + M·N)·bytesPerParam} bytes, so decode (M = batch size)
 * is memory-bound on the weights and prefill (M = tokens) is compute-bound. Attention charges causal
 * {@code 4·heads·headDim·Σ ext·(prefix + ext/2)} FLOPs in prefill and reads each request's whole KV cache in
 * decode. There is no prefix caching and no chunked prefill.
 *
 * <h2>Operators</h2>
 * Every kernel carries the CPU operator that launches it ({@link KernelCost#op()}) with the inputs it was sized by,
 * per rank ({@code T} tokens of the forward, {@code R} requests, {@code H} hidden size, bf16 unless noted):
 * {@code aten::embedding} {@code [V/tp, H]}, {@code [T]} (int64); {@code sgl_kernel::rmsnorm} /
 * {@code sgl_kernel::fused_add_rmsnorm} {@code [T, H]}, {@code [T, H]}, {@code [H]}; every projection an
 * {@code aten::linear} {@code [T, K]}, {@code [N, K]} calling {@code aten::mm} {@code [T, K]}, {@code [K, N]} (the
 * weight's transposed view, strides {@code [1, K]}); the LM head {@code aten::matmul} calling {@code aten::mm}
 * {@code [R, H]}, {@code [H, V/tp]}; rotary {@code [T, heads, headDim]}, {@code [T, kvHeads, headDim]}, positions
 * {@code [T]} (int64); attention the queries {@code [T, heads, headDim]} and the keys and values it reads
 * {@code [kvTokens, kvHeads, headDim]}; {@code sgl_kernel::silu_and_mul} {@code [T, I/tp]}, {@code [T, 2·I/tp]};
 * all-reduce {@code [T, H]}; {@code aten::softmax} and sampling {@code [R, V]} (float). Sources: SGLang's unquantized
 * layers call {@code F.linear(x, layer.weight, bias)} ({@code python/sglang/srt/layers/quantization/unquant.py}) and
 * its logits {@code torch.matmul(hidden_states, lm_head.weight.T)}
 * ({@code python/sglang/srt/layers/logits_processor.py}); the norms are {@code torch.ops.sgl_kernel.rmsnorm} and
 * {@code fused_add_rmsnorm} ({@code sgl-kernel/python/sgl_kernel/elementwise.py}), all in sgl-project/sglang.
 *
 * <h2>Constants and their source</h2>
 * Hardware peaks come from {@link GpuSpec} (H100 SXM: ~989 TFLOP/s dense bf16, ~3.35 TB/s HBM).
 * The efficiencies are the fractions of peak that well-tuned bf16 GEMMs and memory-bound kernels reach on H100;
 * they are chosen so that Llama-3.1-8B at TP 1 takes about 6 ms per decode step at batch 32 and about 23 ms to
 * prefill 1024 tokens, in line with published SGLang numbers for that pair.
 *
 * <p>Instances are immutable and thread-safe.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class CostModel {

    /** Fraction of peak tensor-core throughput a large bf16 GEMM reaches. */
    public static final double COMPUTE_EFFICIENCY = 0.70;
    /** Fraction of peak HBM bandwidth a streaming kernel reaches. */
    public static final double MEMORY_EFFICIENCY = 0.85;
    /** Fixed cost of every kernel: launch and tail, ns. */
    public static final long LAUNCH_FLOOR_NS = 2_500;
    /** Latency term of one all-reduce, ns (custom all-reduce / NCCL LL on NVLink). */
    public static final long ALL_REDUCE_LATENCY_NS = 8_000;
    /** CPU scheduling overhead before each step, during which the GPU is idle, ns. */
    public static final long CPU_OVERHEAD_NS = 200_000;

    static final String EMBEDDING = "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, "
            + "long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, "
            + "at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<long const, "
            + "unsigned int>, int, int, unsigned int, unsigned int, long)";
    static final String RMS_NORM = "void flashinfer::norm::RMSNormKernel<8u, __nv_bfloat16>(__nv_bfloat16*, "
            + "__nv_bfloat16*, __nv_bfloat16*, unsigned int, unsigned int, unsigned int, float, float)";
    static final String FUSED_ADD_RMS_NORM = "void flashinfer::norm::FusedAddRMSNormKernel<8u, __nv_bfloat16>("
            + "__nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, unsigned int, unsigned int, unsigned int, float, float)";
    static final String GEMM_SMALL_M = "nvjet_tst_64x8_64x16_4x1_v_bz_TNT";
    static final String GEMM_LARGE_M = "nvjet_tst_256x128_64x4_2x1_v_bz_coopA_TNN";
    static final String LM_HEAD_GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_"
            + "64x4_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8::Params)";
    static final String ROTARY = "void flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheKernel<true, 128u, 8u, 16u, "
            + "__nv_bfloat16, long>(__nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, float*, long*, "
            + "unsigned int, unsigned int, unsigned int, unsigned int, unsigned long, unsigned long, unsigned long, "
            + "unsigned long, unsigned long, unsigned long, unsigned long, unsigned long)";
    static final String PREFILL_ATTENTION = "void flashinfer::BatchPrefillWithPagedKVCacheKernel<flashinfer::"
            + "KernelTraits<(flashinfer::MaskMode)1, 128u, 1u, 4u, 8u, 8u, 4u, 1u, (flashinfer::PosEncodingMode)0, "
            + "__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, int, flashinfer::DefaultAttention<false, false, "
            + "false, false>>, flashinfer::BatchPrefillPagedParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, "
            + "int>>(flashinfer::BatchPrefillPagedParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>)";
    static final String DECODE_ATTENTION = "void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::"
            + "PosEncodingMode)0, 2u, 2u, 8u, 16u, 1u, 8u, flashinfer::DefaultAttention<false, false, false, false>, "
            + "flashinfer::BatchDecodeParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>>(flashinfer::"
            + "BatchDecodeParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>)";
    static final String SILU_AND_MUL = "void flashinfer::activation::act_and_mul_kernel<__nv_bfloat16, "
            + "&(float silu<float>(float const&))>(__nv_bfloat16*, __nv_bfloat16 const*, int)";
    static final String SOFTMAX = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, "
            + "float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)";
    static final String SAMPLING = "void flashinfer::sampling::TopKTopPSamplingFromProbKernel<1024u, "
            + "(cub::CUB_200200_800_NS::BlockScanAlgorithm)2, (cub::CUB_200200_800_NS::BlockReduceAlgorithm)0, 4u, "
            + "false, float, int>(float*, int*, int*, float*, int*, float*, unsigned long, unsigned long, "
            + "unsigned long, unsigned long)";

    /** An absent optional tensor argument (e.g. a linear layer's bias): PyTorch records empty dims and type. */
    private static final Input NONE = new Input(List.of(), List.of(), "", "");
    /**
     * RMSNorm epsilon as PyTorch prints a double: Llama 3.1's {@code rms_norm_eps} (1e-5, its {@code config.json});
     * {@link ModelSpec} carries no epsilon.
     */
    private static final Input EPS = Input.scalar("1.0000000000000001e-05");
    /** sgl-kernel's {@code enable_pdl} argument (programmatic dependent launch, on for Hopper). */
    private static final Input PDL = Input.scalar("True");

    private final ModelSpec model;
    private final GpuSpec gpu;
    private final int tp;

    /**
     * @param model  the model; not null
     * @param gpu    the GPU of every rank; not null
     * @param tpSize tensor-parallel size, at least 1
     */
    public CostModel(ModelSpec model, GpuSpec gpu, int tpSize) {
        if (model == null || gpu == null || tpSize < 1) {
            throw new IllegalArgumentException("CostModel needs a model, a GPU and tpSize >= 1");
        }
        this.model = model;
        this.gpu = gpu;
        this.tp = tpSize;
    }

    /**
     * Kernels of one prefill (EXTEND) batch on one rank.
     *
     * @param extendTokens new prompt tokens per request; length = batch size, each at least 1
     */
    public List<KernelCost> extendStep(int[] extendTokens) {
        long tokens = 0;
        double pairs = 0;
        for (int e : extendTokens) {
            tokens += e;
            pairs += (double) e * (e + 1) / 2.0;
        }
        int heads = Math.max(1, model.attentionHeads() / tp);
        int kvHeads = Math.max(1, model.kvHeads() / tp);
        double attnFlops = 4.0 * heads * model.headDim() * pairs;
        double attnBytes = (double) tokens * (heads + 2.0 * kvHeads) * model.headDim() * model.bytesPerParam() * 2;
        KernelCost attention = roofline(PREFILL_ATTENTION, Kind.ATTENTION, attnFlops, attnBytes,
                dim(ceilDiv(tokens, 128), heads), dim(128, 1)).withOp(attentionOp(tokens, tokens, heads, kvHeads));
        return step(tokens, extendTokens.length, attention);
    }

    /**
     * Kernels of one decode batch on one rank.
     *
     * @param contextTokens tokens already in each request's KV cache (prompt plus generated); length = batch size
     */
    public List<KernelCost> decodeStep(int[] contextTokens) {
        long kvTokens = 0;
        for (int c : contextTokens) {
            kvTokens += c;
        }
        int bs = contextTokens.length;
        int heads = Math.max(1, model.attentionHeads() / tp);
        int kvHeads = Math.max(1, model.kvHeads() / tp);
        double attnFlops = 4.0 * heads * model.headDim() * kvTokens;
        double attnBytes = (double) kvTokens * 2 * kvHeads * model.headDim() * model.bytesPerParam();
        KernelCost attention = roofline(DECODE_ATTENTION, Kind.ATTENTION, attnFlops, attnBytes,
                dim(bs, kvHeads), dim(16, 8)).withOp(attentionOp(bs, kvTokens, heads, kvHeads));
        return step(bs, bs, attention);
    }

    /** Sum of the kernel durations, ns: the GPU-busy time of a step on one rank. */
    public static long busyNs(List<KernelCost> kernels) {
        long sum = 0;
        for (KernelCost k : kernels) {
            sum += k.durationNs();
        }
        return sum;
    }

    /**
     * A GEMM {@code [m×k]·[k×n]} on one rank, launched by {@code aten::mm} on the activations and the transposed
     * weight, called by {@code aten::linear}.
     *
     * @param m rows (tokens or requests); {@code n}, {@code k} already divided by tp where the layer is sharded
     */
    public KernelCost gemm(String name, long m, long n, long k) {
        double flops = 2.0 * m * n * k;
        double bytes = ((double) m * k + (double) k * n + (double) m * n) * model.bytesPerParam();
        Input activations = Input.tensor(Input.BF16, m, k);
        Input weight = Input.tensor(Input.BF16, n, k);
        CpuOp linear = new CpuOp("aten::linear", List.of(activations, weight, NONE));
        return roofline(name, Kind.GEMM, flops, bytes, dim(ceilDiv(n, 128) * ceilDiv(m, 128), 1), dim(384, 1))
                .withOp(new CpuOp("aten::mm", List.of(activations, weight.transposed()), linear));
    }

    /**
     * A ring all-reduce of {@code bytes} over the TP group: {@code 2(tp−1)/tp · bytes / interconnect + latency}.
     *
     * @throws IllegalStateException when tpSize is 1 (nothing to reduce)
     */
    public KernelCost allReduce(double bytes) {
        if (tp == 1) {
            throw new IllegalStateException("all-reduce needs tpSize > 1");
        }
        double seconds = 2.0 * (tp - 1) / tp * bytes / gpu.interconnectBytesPerSecond();
        long ns = Math.round(seconds * 1e9) + ALL_REDUCE_LATENCY_NS;
        String name = bytes < 512 * 1024
                ? "void sglang::cross_device_reduce_1stage<__nv_bfloat16, " + tp + ">(sglang::RankData*, "
                  + "sglang::RankSignals, sglang::Signal*, __nv_bfloat16*, int, int)"
                : "void sglang::cross_device_reduce_2stage<__nv_bfloat16, " + tp + ">(sglang::RankData*, "
                  + "sglang::RankSignals, sglang::Signal*, __nv_bfloat16*, int, int)";
        return new KernelCost(name, Kind.ALL_REDUCE, bytes / 2, bytes, ns, dim(36, 1), dim(512, 1));
    }

    /** The roofline time of a kernel: max of compute and memory time, plus {@link #LAUNCH_FLOOR_NS}. */
    public KernelCost roofline(String name, Kind kind, double flops, double bytes, Dim3 grid, Dim3 block) {
        double compute = flops / (gpu.denseBf16Flops() * COMPUTE_EFFICIENCY);
        double memory = bytes / (gpu.hbmBytesPerSecond() * MEMORY_EFFICIENCY);
        long ns = Math.round(Math.max(compute, memory) * 1e9) + LAUNCH_FLOOR_NS;
        return new KernelCost(name, kind, flops, bytes, ns, grid, block);
    }

    private CpuOp attentionOp(long queries, long kvTokens, int heads, int kvHeads) {
        Input kv = Input.tensor(Input.BF16, kvTokens, kvHeads, model.headDim());
        return new CpuOp(CpuOp.defaultName(Kind.ATTENTION),
                List.of(Input.tensor(Input.BF16, queries, heads, model.headDim()), kv, kv));
    }

    private List<KernelCost> step(long tokens, int requests, KernelCost attention) {
        int b = model.bytesPerParam();
        long hidden = model.hiddenSize();
        long qkvOut = (long) (model.attentionHeads() + 2 * model.kvHeads()) * model.headDim() / tp;
        long oIn = (long) model.attentionHeads() * model.headDim() / tp;
        long inter = model.intermediateSize() / tp;
        String gemmName = tokens <= 64 ? GEMM_SMALL_M : GEMM_LARGE_M;
        double activationBytes = (double) tokens * hidden * b;
        Dim3 normGrid = dim(tokens, 1);
        List<KernelCost> out = new ArrayList<>(model.layers() * 12 + 8);

        Input act = Input.tensor(Input.BF16, tokens, hidden);
        Input normWeight = Input.tensor(Input.BF16, hidden);
        out.add(roofline(EMBEDDING, Kind.EMBEDDING, 0, 2 * activationBytes, dim(ceilDiv(tokens * hidden, 512), 1),
                dim(128, 4)).withOp(new CpuOp("aten::embedding", List.of(Input.tensor(Input.BF16,
                model.vocabSize() / tp, hidden), Input.tensor(Input.INT64, tokens), Input.scalar("-1"),
                Input.scalar("False"), Input.scalar("False")))));
        KernelCost reduce = tp > 1 ? allReduce(activationBytes).withOp(new CpuOp(CpuOp.defaultName(Kind.ALL_REDUCE),
                List.of(act))) : null;
        if (reduce != null) {
            out.add(reduce);
        }

        // Every layer launches the same kernels, so one instance of each is shared by all layers (a captured step
        // then costs a list of references, not ~300 objects).
        KernelCost firstNorm = roofline(RMS_NORM, Kind.NORM, 4.0 * tokens * hidden, 2 * activationBytes, normGrid,
                dim(512, 1)).withOp(new CpuOp("sgl_kernel::rmsnorm", List.of(act, act, normWeight, EPS, PDL)));
        KernelCost addNorm = roofline(FUSED_ADD_RMS_NORM, Kind.NORM, 4.0 * tokens * hidden, 4 * activationBytes,
                normGrid, dim(512, 1)).withOp(new CpuOp("sgl_kernel::fused_add_rmsnorm",
                List.of(act, act, normWeight, EPS, PDL)));
        KernelCost qkv = gemm(gemmName, tokens, qkvOut, hidden);
        int heads = Math.max(1, model.attentionHeads() / tp);
        int kvHeads = Math.max(1, model.kvHeads() / tp);
        KernelCost rotary = roofline(ROTARY, Kind.ROTARY, 6.0 * tokens * qkvOut, 2.0 * tokens * qkvOut * b,
                dim(ceilDiv(tokens, 4), 1), dim(16, 8)).withOp(new CpuOp(CpuOp.defaultName(Kind.ROTARY), List.of(
                Input.tensor(Input.BF16, tokens, heads, model.headDim()),
                Input.tensor(Input.BF16, tokens, kvHeads, model.headDim()), Input.tensor(Input.INT64, tokens))));
        KernelCost oProj = gemm(gemmName, tokens, hidden, oIn);
        KernelCost gateUp = gemm(gemmName, tokens, 2 * inter, hidden);
        KernelCost silu = roofline(SILU_AND_MUL, Kind.ACTIVATION, 4.0 * tokens * inter, 3.0 * tokens * inter * b,
                dim(tokens, 1), dim(1024, 1)).withOp(new CpuOp(CpuOp.defaultName(Kind.ACTIVATION), List.of(
                Input.tensor(Input.BF16, tokens, inter), Input.tensor(Input.BF16, tokens, 2 * inter), PDL)));
        KernelCost down = gemm(gemmName, tokens, hidden, inter);
        for (int layer = 0; layer < model.layers(); layer++) {
            out.add(layer == 0 ? firstNorm : addNorm);
            out.add(qkv);
            out.add(rotary);
            out.add(attention);
            out.add(oProj);
            if (reduce != null) {
                out.add(reduce);
            }
            out.add(addNorm);
            out.add(gateUp);
            out.add(silu);
            out.add(down);
            if (reduce != null) {
                out.add(reduce);
            }
        }
        out.add(addNorm);
        long vocabShard = model.vocabSize() / tp;
        KernelCost lmHead = gemm(LM_HEAD_GEMM, requests, vocabShard, hidden);
        CpuOp mm = lmHead.op();
        out.add(lmHead.withOp(new CpuOp(mm.name(), mm.inputs(), new CpuOp("aten::matmul", List.of(
                mm.inputs().get(0), mm.inputs().get(1))))));
        double logitsBytes = (double) requests * model.vocabSize() * 4;
        Input logits = Input.tensor("float", requests, model.vocabSize());
        out.add(roofline(SOFTMAX, Kind.SAMPLING, 5.0 * requests * model.vocabSize(), 2 * logitsBytes,
                dim(requests, 1), dim(1024, 1)).withOp(new CpuOp("aten::softmax", List.of(logits,
                Input.scalar("-1"), NONE))));
        out.add(roofline(SAMPLING, Kind.SAMPLING, 2.0 * requests * model.vocabSize(), logitsBytes, dim(requests, 1),
                dim(1024, 1)).withOp(new CpuOp(CpuOp.defaultName(Kind.SAMPLING), List.of(logits))));
        return List.copyOf(out);
    }

    private static Dim3 dim(long x, long y) {
        return new Dim3((int) Math.max(1, Math.min(Integer.MAX_VALUE, x)), (int) Math.max(1, y), 1);
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
