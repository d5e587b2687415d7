package dev.profiledrollout.assertions;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** operators(name) budgets on HTA's sampled_rank-0 (fp32 GEMMs with recorded shapes, no deviceProperties). */
class OperatorsAssertTest {

    private static TraceSet trace() throws Exception {
        return TraceSet.read(List.of(TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz")));
    }

    @Test
    void achievedTflopsAndKernelTimeAreComparedOverEveryCall() throws Exception {
        TraceSet trace = trace();
        // 8.1236 GFLOP in 261 µs (the fastest call of the busiest mm shape) is 31.1 TFLOPS/s
        ProfiledRolloutAssertions.assertThat(trace).operators("aten::mm").achievedTflops().max().isGreaterThan(31.0);
        ProfiledRolloutAssertions.assertThat(trace).operators("aten::mm").kernelTimeUs().min().isGreaterThan(0);
        assertThatThrownBy(() -> ProfiledRolloutAssertions.assertThat(trace).operators("aten::mm").achievedTflops()
                .median().isGreaterThan(500))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("median achieved TFLOPS/s of aten::mm per call was")
                .hasMessageContaining("budget > 500");
    }

    @Test
    void peakFractionNamesTheMissingPeakAndTheKey() throws Exception {
        assertThatThrownBy(() -> ProfiledRolloutAssertions.assertThat(trace()).operators("aten::mm").peakFraction()
                .median().isGreaterThan(0.6))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("(no deviceProperties) fp32")
                .hasMessageContaining("profiledrollout.gpu.peaks.file");
    }

    @Test
    void anOpWithoutTimedCallsFailsSayingWhy() throws Exception {
        assertThatThrownBy(() -> ProfiledRolloutAssertions.assertThat(trace())
                .operators("aten::_scaled_dot_product_flash_attention").achievedTflops().median().isGreaterThan(1))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("no call of aten::_scaled_dot_product_flash_attention launched a GPU kernel");
        TraceSet noShapes = TraceSet.read(List.of(
                TestTraces.resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz")));
        assertThatThrownBy(() -> ProfiledRolloutAssertions.assertThat(noShapes).operators("aten::mm")
                .achievedTflops().median().isGreaterThan(1))
                .isInstanceOf(AssertionError.class).hasMessageContaining("record_shapes=True");
    }
}
