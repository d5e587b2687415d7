package dev.profiledrollout.trace.roofline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One operator's figures on hand-built calls: distributions, data moved, intensity, fractions of a made-up GPU. */
class OperatorFiguresTest {

    /** A GPU with 100 TFLOPS/s of fp16 and 1 TB/s of HBM: the ridge is at 100 FLOP/byte. */
    private static final GpuPeaks.Gpu GPU = new GpuPeaks.Gpu("test", List.of("Test GPU"), Map.of("fp16", 100.0), 1.0,
            "made up");

    private static OperatorRoofline op(double flops, double bytes, long... callNs) {
        double[] ns = new double[callNs.length];
        double[] tflops = new double[callNs.length];
        List<Long> calls = new ArrayList<>();
        for (int i = 0; i < callNs.length; i++) {
            ns[i] = callNs[i];
            tflops[i] = flops / callNs[i] / 1e3;
            calls.add(callNs[i]);
        }
        return new OperatorRoofline("aten::mm", "[[8,8],[8,8]]", "", "", "", "fp16", flops, bytes, callNs.length,
                callNs.length, OperatorRoofline.Distribution.of(ns), OperatorRoofline.Distribution.of(tflops),
                OperatorRoofline.Distribution.of(new double[0]), calls);
    }

    @Test
    void distributions_take_the_mean_median_min_and_max_of_the_calls() {
        OperatorRoofline.Distribution odd = OperatorRoofline.Distribution.of(new double[]{3, 1, 2});
        assertThat(odd).isEqualTo(new OperatorRoofline.Distribution(2, 2, 1, 3));
        OperatorRoofline.Distribution even = OperatorRoofline.Distribution.of(new double[]{4, 1, 2, 9});
        assertThat(even).isEqualTo(new OperatorRoofline.Distribution(4, 3, 1, 9));
        assertThat(even.times(2)).isEqualTo(new OperatorRoofline.Distribution(8, 6, 2, 18));
        assertThat(OperatorRoofline.Distribution.of(new double[0]).mean()).isNaN();
    }

    @Test
    void work_figures_and_fractions_of_the_peak_and_of_the_roofline() {
        // 2e9 FLOP over 1e8 bytes: 20 FLOP/byte, memory-bound on this GPU (roof 20 TFLOPS/s); calls of 100 and 50 µs
        OperatorRoofline o = op(2e9, 100 * 1024 * 1024, 100_000, 50_000);
        assertThat(o.gflops()).isEqualTo(2.0);
        assertThat(o.dataMovedMiB()).isEqualTo(100.0);
        assertThat(o.arithmeticIntensity()).isCloseTo(2e9 / (100 * 1024 * 1024), within(1e-9));
        assertThat(o.totalKernelNs()).isEqualTo(150_000.0);
        // 20 and 40 TFLOPS/s: mean 30, of the 100 TFLOPS/s peak 0.3
        assertThat(o.peakFraction(Optional.of(GPU)).orElseThrow().mean()).isCloseTo(0.3, within(1e-12));
        double roof = GPU.attainableTflops("fp16", o.arithmeticIntensity()).getAsDouble();
        assertThat(roof).isLessThan(100);
        assertThat(o.rooflineFraction(Optional.of(GPU)).orElseThrow().max()).isCloseTo(40 / roof, within(1e-12));
        assertThat(o.peakFraction(Optional.empty())).isEmpty();
        assertThat(o.rooflineFraction(Optional.empty())).isEmpty();
        OperatorRoofline none = op(2e9, 0);
        assertThat(none.totalKernelNs()).isZero();
        assertThat(none.arithmeticIntensity()).isNaN();
        assertThat(none.peakFraction(Optional.of(GPU))).isEmpty();
        assertThat(none.rooflineFraction(Optional.of(GPU))).isEmpty();
    }

    @Test
    void operators_sort_by_total_kernel_time_then_name() {
        List<OperatorRoofline> ops = new ArrayList<>(List.of(op(1e9, 1e6, 10), op(1e9, 1e6, 30, 30), op(1e9, 1e6)));
        ops.sort(OperatorRoofline.BY_KERNEL_TIME);
        assertThat(ops).extracting(OperatorRoofline::totalKernelNs).containsExactly(60.0, 10.0, 0.0);
    }
}
