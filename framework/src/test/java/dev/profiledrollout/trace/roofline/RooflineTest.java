package dev.profiledrollout.trace.roofline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.KernelCategories;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Roofline figures on a real trace (HTA's {@code sampled_rank-0}: fp32 GEMMs with {@code record_shapes}) against the
 * independent reference {@code testdata/traces/expected/roofline_reference.py}, plus hand-checked GEMM work.
 */
class RooflineTest {

    private static Map<String, OperatorRoofline> byKey(TraceSummary summary) {
        return summary.details().roofline().stream()
                .collect(Collectors.toMap(r -> r.name() + " " + r.inputDims(), Function.identity()));
    }

    @Test
    void gemmWorkAndKernelTimesEqualTheHandCheckedValues() throws IOException {
        var ops = byKey(KinetoTraceReader.read(TestTraces.traceFilter(0)));

        // aten::mm A[2048,110] · B[110,18030], fp32: 2·M·N·K = 2·2048·18030·110; (MK + KN + MN)·4 bytes
        OperatorRoofline mm = ops.get("aten::mm [[2048, 110], [110, 18030]]");
        assertThat(mm.flops()).isEqualTo(8_123_596_800.0);
        assertThat(mm.gflops()).isCloseTo(8.1235968, within(1e-12));
        assertThat(mm.bytes()).isEqualTo(156_536_080.0);
        assertThat(mm.precision()).isEqualTo("fp32");
        assertThat(mm.calls()).isEqualTo(7);
        assertThat(mm.count()).isEqualTo(7);
        assertThat(mm.kernelNs().median()).isEqualTo(264_000);
        assertThat(mm.kernelNs().min()).isEqualTo(261_000);
        assertThat(mm.kernelNs().max()).isEqualTo(360_000);
        // fastest call: 8.1235968 GFLOP in 261 µs = 31.125 TFLOPS/s
        assertThat(mm.tflops().max()).isCloseTo(8_123_596_800.0 / 261e-6 / 1e12, within(1e-9));
        assertThat(mm.arithmeticIntensity()).isCloseTo(8_123_596_800.0 / 156_536_080.0, within(1e-9));

        // aten::addmm C[3906] + A[2048,512] · B[512,3906]: 2·M·N·K + M·N; bytes add the 1×N bias
        OperatorRoofline addmm = ops.get("aten::addmm [[3906], [2048, 512], [512, 3906], [], []]");
        assertThat(addmm.flops()).isEqualTo(2.0 * 2048 * 3906 * 512 + 2048 * 3906);
        assertThat(addmm.bytes()).isEqualTo((2048 * 512 + 512 * 3906 + 2048 * 3906 + 3906) * 4.0);
        assertThat(addmm.count()).isEqualTo(8);
        assertThat(addmm.kernelNs().mean()).isEqualTo(149_625);

        // aten::bmm [2048,606,160] · [2048,160,20]: B·2·M·N·K
        OperatorRoofline bmm = ops.get("aten::bmm [[2048, 606, 160], [2048, 160, 20]]");
        assertThat(bmm.flops()).isEqualTo(7_942_963_200.0);
        assertThat(bmm.bytes()).isEqualTo(2048.0 * (606 * 160 + 160 * 20 + 606 * 20) * 4);
        assertThat(bmm.kernelNs().mean()).isEqualTo(701_000);
        assertThat(bmm.kernelNs().median()).isEqualTo(666_500);
    }

    @Test
    void everyGroupEqualsTheIndependentReference() throws IOException {
        TraceSummary summary = KinetoTraceReader.read(TestTraces.traceFilter(0));
        var ops = byKey(summary);
        JsonNode expected = new ObjectMapper().readTree(
                TestTraces.root().resolve("expected/sampled_rank-0.roofline.json").toFile()).get("roofline");
        assertThat(expected.size()).isGreaterThan(100);
        assertThat(ops).hasSize(expected.size());
        for (JsonNode e : expected) {
            OperatorRoofline r = ops.get(e.get("name").asText() + " " + e.get("inputDims").asText());
            assertThat(r).as(e.toString()).isNotNull();
            assertThat(r.flops()).as(e.toString()).isEqualTo(e.get("flops").asDouble());
            assertThat(r.bytes()).as(e.toString()).isEqualTo(e.get("bytes").asDouble());
            assertThat(r.calls()).as(e.toString()).isEqualTo(e.get("calls").asLong());
            assertThat(r.count()).as(e.toString()).isEqualTo(e.get("count").asLong());
            if (r.count() > 0) {
                assertThat(r.kernelNs().mean()).as(e.toString()).isCloseTo(e.get("kernelNsMean").asDouble(),
                        within(1e-6));
                assertThat(r.kernelNs().median()).as(e.toString()).isEqualTo(e.get("kernelNsMedian").asDouble());
                assertThat(r.kernelNs().min()).as(e.toString()).isEqualTo(e.get("kernelNsMin").asDouble());
                assertThat(r.kernelNs().max()).as(e.toString()).isEqualTo(e.get("kernelNsMax").asDouble());
            }
        }
    }

    @Test
    void theFastScannerAndTheJacksonPathAgree() throws IOException {
        Path trace = TestTraces.traceFilter(0);
        assertThat(KinetoTraceReader.read(trace, KernelCategories.defaults(), true, true).details().roofline())
                .isEqualTo(KinetoTraceReader.read(trace, KernelCategories.defaults(), false, true).details().roofline());
    }

    @Test
    void deviceNameComesFromDeviceProperties() throws IOException {
        TraceSummary mi300 = KinetoTraceReader.read(
                TestTraces.resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz"));
        assertThat(mi300.details().deviceName()).contains("AMD Instinct MI300X");
        Optional<GpuPeaks.Gpu> gpu = mi300.details().gpu(GpuPeaks.builtIn());
        assertThat(gpu).get().extracting(GpuPeaks.Gpu::id).isEqualTo("MI300X");
        assertThat(gpu.get().peakTflops("bf16")).hasValue(1307.4);
        assertThat(gpu.get().hbmTBps()).isEqualTo(5.3);
        // the decode capture replays CUDA graphs and records no shapes: nothing to model
        assertThat(mi300.details().roofline()).isEmpty();
        assertThat(KinetoTraceReader.read(TestTraces.traceFilter(0)).details().deviceName()).isEmpty();
    }

    @Test
    void peakTableMatchesTheDeviceNamesTracesCarry() {
        GpuPeaks peaks = GpuPeaks.builtIn();
        assertThat(peaks.find("NVIDIA H100 80GB HBM3")).get().extracting(GpuPeaks.Gpu::id).isEqualTo("H100-SXM");
        assertThat(peaks.find("NVIDIA H100 PCIe")).get().extracting(GpuPeaks.Gpu::id).isEqualTo("H100-PCIe");
        assertThat(peaks.find("NVIDIA A100-SXM4-80GB")).get().extracting(GpuPeaks.Gpu::id)
                .isEqualTo("A100-SXM4-80GB");
        assertThat(peaks.find("NVIDIA A100 80GB PCIe")).get().extracting(GpuPeaks.Gpu::id)
                .isEqualTo("A100-PCIe-80GB");
        assertThat(peaks.find("NVIDIA H200")).get().extracting(GpuPeaks.Gpu::id).isEqualTo("H200-SXM");
        assertThat(peaks.find("NVIDIA B200")).get().extracting(GpuPeaks.Gpu::id).isEqualTo("B200");
        assertThat(peaks.find("AMD Instinct MI325X")).get().extracting(GpuPeaks.Gpu::id).isEqualTo("MI325X");
        assertThat(peaks.find("AMD Instinct MI355X")).get().extracting(GpuPeaks.Gpu::id).isEqualTo("MI355X");
        assertThat(peaks.find("Tesla V100-SXM2-32GB")).get().extracting(GpuPeaks.Gpu::id).isEqualTo("V100-SXM2");
        assertThat(peaks.find("Some Future GPU")).isEmpty();
        assertThat(peaks.gpus()).allSatisfy(g -> assertThat(g.source()).isNotBlank());
    }

    @Test
    void aPeaksFileOverridesTheBuiltInTable(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("peaks.json");
        Files.writeString(file, """
                {"gpus": [{"id": "H100-low-clock", "match": ["H100"], "tflops": {"bf16": 500}, "hbmTBps": 3.0,
                           "source": "measured"}]}""");
        GpuPeaks peaks = GpuPeaks.load(file).then(GpuPeaks.builtIn());
        assertThat(peaks.find("NVIDIA H100 80GB HBM3")).get().extracting(GpuPeaks.Gpu::id).isEqualTo("H100-low-clock");
        assertThat(peaks.find("AMD Instinct MI300X")).get().extracting(GpuPeaks.Gpu::id).isEqualTo("MI300X");

        Files.writeString(file, "{\"gpus\": [{\"id\": \"x\", \"match\": [\"x\"], \"tflops\": {}}]}");
        assertThatThrownBy(() -> GpuPeaks.load(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hbmTBps").hasMessageContaining("profiledrollout.gpu.peaks.file");
    }

    @Test
    void peakAndRooflineFractionsUseTheDevicePeaks() throws IOException {
        OperatorRoofline mm = byKey(KinetoTraceReader.read(TestTraces.traceFilter(0)))
                .get("aten::mm [[2048, 110], [110, 18030]]");
        Optional<GpuPeaks.Gpu> v100 = GpuPeaks.builtIn().find("Tesla V100-SXM2-32GB");
        // fp32 peak 15.7 TFLOPS/s
        assertThat(mm.peakFraction(v100)).get().extracting(OperatorRoofline.Distribution::max)
                .satisfies(max -> assertThat(max).isCloseTo(mm.tflops().max() / 15.7, within(1e-12)));
        // intensity ≈ 51.9 FLOP/B × 0.9 TB/s ≈ 46.7 > 15.7: compute-bound, so the roofline is the peak
        assertThat(mm.rooflineFraction(v100)).isEqualTo(mm.peakFraction(v100));
        assertThat(mm.peakFraction(Optional.empty())).isEmpty();
        assertThat(mm.peakFraction(GpuPeaks.builtIn().find("NVIDIA B200"))).isEmpty(); // no fp32 figure
    }

    @Test
    void attentionFlopsFollowTraceLens() {
        // q, k, v [B=2, H=8, N=1024, d=64], bf16, causal: 4·B·H·N²·d / 2
        RooflineModel.Work causal = RooflineModel.work("aten::_scaled_dot_product_flash_attention",
                "[[2, 8, 1024, 64], [2, 8, 1024, 64], [2, 8, 1024, 64], [], [], [], []]",
                "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]",
                "[\"\", \"\", \"\", \"0.\", \"True\", \"False\", \"\"]");
        assertThat(causal.flops()).isEqualTo(4.0 * 2 * 8 * 1024 * 1024 * 64 / 2);
        assertThat(causal.bytes()).isEqualTo(4.0 * 2 * 8 * 1024 * 64 * 2);
        assertThat(causal.precision()).isEqualTo("bf16");
        // flash_attn layout [B, N, H, d], GQA: 32 query heads, 8 KV heads, decode N_Q = 1 against N_KV = 4096
        RooflineModel.Work gqa = RooflineModel.work("flash_attn::_flash_attn_forward",
                "[[4, 1, 32, 128], [4, 4096, 8, 128], [4, 4096, 8, 128]]",
                "[\"c10::Half\", \"c10::Half\", \"c10::Half\"]",
                "[\"\", \"\", \"\", \"0.0\", \"0.088\", \"False\"]");
        assertThat(gqa.flops()).isEqualTo(4.0 * 4 * 32 * 1 * 4096 * 128);
        assertThat(gqa.bytes()).isEqualTo((4.0 * 32 * 128 + 2 * 4.0 * 4096 * 8 * 128 + 4.0 * 32 * 128) * 2);
        // causal with N_Q ≠ N_KV is rejected, as TraceLens does
        assertThat(RooflineModel.work("aten::_scaled_dot_product_flash_attention",
                "[[1, 8, 1, 64], [1, 8, 16, 64], [1, 8, 16, 64]]", "[\"float\", \"float\", \"float\"]",
                "[\"\", \"\", \"\", \"0.\", \"True\"]")).isNull();
        // fp8 scaled_mm writes a 2-byte output
        RooflineModel.Work fp8 = RooflineModel.work("aten::_scaled_mm", "[[64, 4096], [4096, 1024], [], []]",
                "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"float\", \"float\"]", "");
        assertThat(fp8.bytes()).isEqualTo(64 * 4096 + 4096 * 1024 + 64 * 1024 * 2.0);
        assertThat(fp8.precision()).isEqualTo("fp8");
    }

    @Test
    void linearAndMatmulAroundACoveredOpAreNotCountedTwice() throws IOException {
        List<String> names = KinetoTraceReader.read(TestTraces.traceFilter(0)).details().roofline().stream()
                .map(OperatorRoofline::name).distinct().sorted().toList();
        // sampled_rank-0 records aten::linear → aten::addmm and aten::matmul → aten::mm: only the inner ops remain
        assertThat(names).containsExactly("aten::addmm", "aten::bmm", "aten::mm");
    }
}
