package dev.profiledrollout.assertions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.roofline.OperatorRoofline;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToDoubleBiFunction;
import org.junit.jupiter.api.Test;

/**
 * The per-call figures of {@code operators("aten::mm")} on HTA's sampled_rank-0 (fp32 GEMMs with recorded shapes):
 * each call's FLOPs and bytes over its own kernel time, and the median, mean, min and max over the calls.
 */
class OperatorsSpreadTest {

    private static TraceSet trace() throws Exception {
        return TraceSet.read(List.of(TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz")));
    }

    /** Every timed call of aten::mm, one figure per call, sorted. */
    private static double[] perCall(TraceSet set, ToDoubleBiFunction<OperatorRoofline, Long> figure) {
        List<Double> values = new ArrayList<>();
        for (OperatorRoofline op : set.traces().get(0).details().roofline()) {
            if (op.name().equals("aten::mm")) {
                for (long ns : op.callKernelNs()) {
                    values.add(figure.applyAsDouble(op, ns));
                }
            }
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        return sorted;
    }

    private static double median(double[] s) {
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    private static void pins(NumberBudgetAssert a, double value) {
        a.isGreaterThanOrEqualTo(value).isLessThanOrEqualTo(value);
    }

    @Test
    void each_statistic_is_over_the_calls_own_flops_bytes_and_kernel_time() throws Exception {
        TraceSet set = trace();
        double[] tflops = perCall(set, (op, ns) -> op.flops() / ns / 1e3);
        double[] tbps = perCall(set, (op, ns) -> op.bytes() / ns / 1e3);
        double[] micros = perCall(set, (op, ns) -> ns / 1e3);
        assertThat(tflops.length).isGreaterThan(2);
        assertThat(tflops[0]).isLessThan(tflops[tflops.length - 1]);
        OperatorsAssert mm = new OperatorsAssert(set, "aten::mm");
        pins(mm.achievedTflops().median(), median(tflops));
        pins(mm.achievedTflops().mean(), Arrays.stream(tflops).average().orElseThrow());
        pins(mm.achievedTflops().min(), tflops[0]);
        pins(mm.achievedTflops().max(), tflops[tflops.length - 1]);
        pins(mm.achievedTbps().median(), median(tbps));
        pins(mm.achievedTbps().max(), tbps[tbps.length - 1]);
        pins(mm.kernelTimeUs().median(), median(micros));
        pins(mm.kernelTimeUs().min(), micros[0]);
        mm.achievedTflops().isGreaterThan(median(tflops) - 1e-9).isLessThan(median(tflops) + 1e-9);
        mm.achievedTflops().isLessThan(median(tflops) + 1e-9).isGreaterThan(median(tflops) - 1e-9);
        assertThatThrownBy(() -> mm.kernelTimeUs().max().isLessThan(1))
                .hasMessageContaining("max kernel time of aten::mm per call was " + String.format("%.1f µs", micros[micros.length - 1]))
                .hasMessageContaining("; " + micros.length + " calls");
        assertThatThrownBy(() -> mm.achievedTbps().min().isGreaterThan(1e6))
                .hasMessageContaining("min achieved TB/s of aten::mm per call was " + String.format("%.2f", tbps[0]));
    }

    @Test
    void each_shapes_median_tflops_is_the_median_of_its_calls() throws Exception {
        int checked = 0;
        for (OperatorRoofline op : trace().traces().get(0).details().roofline()) {
            if (op.name().equals("aten::mm") && op.count() >= 2) {
                double[] t = op.callKernelNs().stream().mapToDouble(ns -> op.flops() / ns / 1e3).sorted().toArray();
                assertThat(op.tflops().median()).isCloseTo(median(t), org.assertj.core.data.Offset.offset(1e-9));
                checked++;
            }
        }
        assertThat(checked).isPositive();
    }
}
