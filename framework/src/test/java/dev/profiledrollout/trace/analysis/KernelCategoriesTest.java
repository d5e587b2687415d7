package dev.profiledrollout.trace.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceDetails;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KernelCategoriesTest {

    private static final KernelCategories RULES = KernelCategories.defaults();

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            // CUDA names, several from the simulator's cost model
            "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)|COMMUNICATION",
            "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)|COMMUNICATION",
            "void sglang::cross_device_reduce_1stage<__nv_bfloat16, 2>(sglang::RankData*)|COMMUNICATION",
            "void vllm::cross_device_reduce_2stage<half, 8>(vllm::RankData*)|COMMUNICATION",
            "void deep_ep::internode_ll::dispatch<false>(void*)|COMMUNICATION",
            "void rcclGenericKernel<1, false>(ncclDevComm*, unsigned long, ncclWork*)|COMMUNICATION",
            "nvjet_tst_256x128_64x4_2x1_v_bz_coopA_TNN|GEMM",
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>(Params)|GEMM",
            "volta_sgemm_64x64_nt|GEMM",
            "void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0>(Params)|ATTENTION",
            "void flashinfer::BatchPrefillWithPagedKVCacheKernel<flashinfer::KernelTraits>(Params)|ATTENTION",
            "void flashinfer::norm::FusedAddRMSNormKernel<8u, __nv_bfloat16>(__nv_bfloat16*)|NORMALIZATION",
            "void flashinfer::activation::act_and_mul_kernel<__nv_bfloat16, &silu>(__nv_bfloat16*)|ACTIVATION",
            "void flashinfer::sampling::TopKTopPSamplingFromProbKernel<1024u>(float*)|SAMPLING",
            "void moe_align_block_size_kernel<int>(int*)|MOE",
            "fused_moe_kernel|MOE",
            "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long>(TensorInfo)|ELEMENTWISE",
            "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >(int)|ELEMENTWISE",
            "void flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheKernel<true, 128u>(float)|ELEMENTWISE",
            // ROCm names from the TraceLens SGLang MI300X decode trace
            "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64_MI16x16x1_SN_LDSB1|GEMM",
            "void paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16>(int)|ATTENTION",
            "_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi16ELb1ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib|NORMALIZATION",
            "_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_EEEEvPS3_PS4_i|ACTIVATION",
            "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float> > >(int)|SAMPLING",
            "void at::native::elementwise_kernel_manual_unroll<128, 8, direct_copy_kernel_cuda>(int)|MEMORY",
            "Memcpy DtoH (Device -> Pinned)|MEMORY",
            "some_custom_thing|OTHER"})
    void default_rules_classify_cuda_and_rocm_names(String name, KernelCategory expected) {
        assertThat(RULES.categoryOf(name)).isEqualTo(expected);
    }

    @Test
    void a_rule_added_first_wins_over_the_defaults() {
        KernelCategories rules = RULES.withFirst(KernelCategory.OTHER, "nvjet");
        assertThat(rules.categoryOf("nvjet_tst_64x8_64x16_4x1_v_bz_TNT")).isEqualTo(KernelCategory.OTHER);
        assertThat(RULES.categoryOf("nvjet_tst_64x8_64x16_4x1_v_bz_TNT")).isEqualTo(KernelCategory.GEMM);
        assertThat(KernelCategories.of(List.of()).categoryOf("anything")).isEqualTo(KernelCategory.OTHER);
    }

    @Test
    void the_sglang_decode_trace_splits_into_gemm_attention_norm_activation_categories() throws IOException {
        Path file = TestTraces.root().resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz");
        TraceSummary s = KinetoTraceReader.read(file);
        TraceDetails d = s.details();
        long cijk = s.kernels().stream().filter(k -> k.name().startsWith("Cijk_")).mapToLong(KernelStats::totalNs).sum();
        long paged = s.kernels().stream().filter(k -> k.name().contains("paged_attention")
                || k.name().contains("store_kvcache")).mapToLong(KernelStats::totalNs).sum();
        long norm = s.kernels().stream().filter(k -> k.name().contains("rmsnorm")).mapToLong(KernelStats::totalNs).sum();

        assertThat(d.category(KernelCategory.GEMM).totalNs()).isEqualTo(cijk).isEqualTo(5_782_257L);
        assertThat(d.category(KernelCategory.GEMM).count()).isEqualTo(36 * 4 + 1);
        assertThat(d.category(KernelCategory.ATTENTION).totalNs()).isEqualTo(paged);
        assertThat(d.category(KernelCategory.NORMALIZATION).totalNs()).isEqualTo(norm);
        assertThat(d.category(KernelCategory.ACTIVATION).count()).isEqualTo(36);
        assertThat(d.category(KernelCategory.COMMUNICATION).count()).isZero();
        assertThat(d.categories().get(0).category()).isEqualTo(KernelCategory.GEMM);
        long all = d.categories().stream().mapToLong(CategoryStats::totalNs).sum();
        assertThat(d.categories().stream().mapToDouble(CategoryStats::share).sum()).isCloseTo(1.0, within(1e-9));
        assertThat(d.category(KernelCategory.GEMM).share()).isCloseTo((double) cijk / all, within(1e-12))
                .isBetween(0.55, 0.65);
        // a single-GPU decode trace: no step 0, percentiles from the histogram lie within min and max
        KernelStats top = s.kernels().get(0);
        assertThat(top.p50Ns()).isBetween(top.minNs(), (long) (top.maxNs() * 1.01));
        assertThat(top.p99Ns()).isBetween(top.p50Ns(), (long) (top.maxNs() * 1.01));
    }
}
