package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.roofline.GpuPeaks;
import dev.profiledrollout.trace.roofline.OperatorRoofline;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.DoubleFunction;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Kernel efficiency of every call of one op (all recorded shapes, all ranks) in a capture: the roofline figures of
 * {@link OperatorRoofline}, per call. Each figure is a {@link Spread} whose {@code mean/median/min/max} is compared
 * with a budget as a KERNEL verdict.
 *
 * <pre>{@code
 * assertThat(result.trace()).operators("aten::mm").achievedTflops().median().isGreaterThan(500);
 * assertThat(result.trace()).operators("aten::mm").peakFraction().isGreaterThan(0.6);   // median
 * assertThat(result.trace()).operators("aten::mm").rooflineFraction().median().isGreaterThan(0.6);
 * }</pre>
 *
 * Without {@code record_shapes} or without calls of the op that launched kernels, every figure fails at once, even
 * with soft budgets, saying so. {@link #peakFraction()} reads the device of each trace's {@code deviceProperties} in
 * {@link GpuPeaks#defaults()}; a device or precision without a peak fails at once, naming the device and the key
 * {@code profiledrollout.gpu.peaks.file}.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class OperatorsAssert extends AbstractAssert<OperatorsAssert, TraceSet> {

    private final String name;
    private final GpuPeaks peaks;

    public OperatorsAssert(TraceSet actual, String name) {
        this(actual, name, GpuPeaks.defaults());
    }

    /** @param peaks the peak table {@link #peakFraction()} reads */
    public OperatorsAssert(TraceSet actual, String name, GpuPeaks peaks) {
        super(actual, OperatorsAssert.class);
        this.name = name;
        this.peaks = peaks;
    }

    /** Per-call achieved TFLOPS/s (FLOPs / kernel busy time / 10¹²). */
    public Spread achievedTflops() {
        return new Spread(perCall(Figure.TFLOPS), "achieved TFLOPS/s of " + name, v -> String.format("%.1f", v));
    }

    /** Per-call achieved TB/s (bytes moved / kernel busy time / 10¹²). */
    public Spread achievedTbps() {
        return new Spread(perCall(Figure.TBPS), "achieved TB/s of " + name, v -> String.format("%.2f", v));
    }

    /** Per-call kernel busy time, µs. */
    public Spread kernelTimeUs() {
        return new Spread(perCall(Figure.MICROS), "kernel time of " + name, v -> String.format("%.1f µs", v));
    }

    /** Per-call achieved TFLOPS/s over the device's dense peak for the op's precision (0.6 = 60 %). */
    public Spread peakFraction() {
        return new Spread(perCall(Figure.PEAK), "fraction of peak TFLOPS/s of " + name,
                v -> String.format("%.1f%%", v * 100));
    }

    /**
     * Per-call achieved TFLOPS/s over the roofline at the op's arithmetic intensity,
     * {@code min(peak, FLOP/byte × HBM TB/s)}: how close a memory-bound call (a decode GEMM) comes to what the HBM
     * allows, and a compute-bound one to the peak.
     */
    public Spread rooflineFraction() {
        return new Spread(perCall(Figure.ROOFLINE), "fraction of the roofline of " + name,
                v -> String.format("%.1f%%", v * 100));
    }

    private enum Figure { TFLOPS, TBPS, MICROS, PEAK, ROOFLINE }

    private double[] perCall(Figure figure) {
        isNotNull();
        List<Double> values = new ArrayList<>();
        Set<String> missingPeaks = new LinkedHashSet<>();
        boolean shapes = false;
        for (TraceSummary trace : actual.traces()) {
            Optional<GpuPeaks.Gpu> gpu = trace.details().gpu(peaks);
            for (OperatorRoofline op : trace.details().roofline()) {
                shapes = true;
                if (!op.name().equals(name)) {
                    continue;
                }
                double peak = Double.NaN;
                if (figure == Figure.PEAK || figure == Figure.ROOFLINE) {
                    var p = gpu.map(g -> figure == Figure.PEAK ? g.peakTflops(op.precision())
                            : g.attainableTflops(op.precision(), op.arithmeticIntensity()));
                    if (p.isEmpty() || p.get().isEmpty()) {
                        missingPeaks.add(trace.details().deviceName().orElse("(no deviceProperties)") + " "
                                + (op.precision().isEmpty() ? "(unknown precision)" : op.precision()));
                        continue;
                    }
                    peak = p.get().getAsDouble();
                }
                for (long ns : op.callKernelNs()) {
                    double tflops = op.flops() / ns / 1e3;
                    values.add(switch (figure) {
                        case TFLOPS -> tflops;
                        case TBPS -> op.bytes() / ns / 1e3;
                        case MICROS -> ns / 1e3;
                        case PEAK, ROOFLINE -> tflops / peak;
                    });
                }
            }
        }
        if (!missingPeaks.isEmpty()) {
            Verdicts.require(Checks.count(Verdict.Kind.KERNEL, actual.scope(), "GPU peaks for " + name, "≥", 0, 1,
                    "no peak for " + missingPeaks, false), false, () -> failure("%s", Formats.scoped(actual.scope())
                    + "no peak TFLOPS/s for " + missingPeaks + " in the GPU peak table; add the device to a table "
                    + "named by the system property profiledrollout.gpu.peaks.file"));
        }
        if (values.isEmpty()) {
            String why = shapes ? "no call of " + name + " launched a GPU kernel the trace links to it"
                    : "the traces carry no GEMM/attention op with recorded shapes: profile with record_shapes=True";
            Verdicts.require(Checks.count(Verdict.Kind.KERNEL, actual.scope(), "timed calls of " + name, "≥", 0, 1,
                    why, false), false, () -> failure("%s", Formats.scoped(actual.scope()) + why));
        }
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** One per-call figure over the selected calls. */
    @API(status = EXPERIMENTAL, since = "0.1")
    public final class Spread {
        private final double[] sorted;
        private final String measure;
        private final DoubleFunction<String> format;

        Spread(double[] values, String measure, DoubleFunction<String> format) {
            this.sorted = values.clone();
            Arrays.sort(sorted);
            this.measure = measure;
            this.format = format;
        }

        /** The median over calls (the mean of the two middle values for an even count). */
        public NumberBudgetAssert median() {
            int n = sorted.length;
            double m = n == 0 ? Double.NaN : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
            return budget(m, "median");
        }

        public NumberBudgetAssert mean() {
            return budget(Arrays.stream(sorted).average().orElse(Double.NaN), "mean");
        }

        public NumberBudgetAssert min() {
            return budget(sorted.length == 0 ? Double.NaN : sorted[0], "min");
        }

        public NumberBudgetAssert max() {
            return budget(sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1], "max");
        }

        /** Shorthand for {@code median().isGreaterThan(floor)}. */
        public NumberBudgetAssert isGreaterThan(double floor) {
            return median().isGreaterThan(floor);
        }

        /** Shorthand for {@code median().isLessThan(budget)}. */
        public NumberBudgetAssert isLessThan(double budget) {
            return median().isLessThan(budget);
        }

        private NumberBudgetAssert budget(double value, String statistic) {
            return new NumberBudgetAssert(value, Verdict.Kind.KERNEL, actual.scope(),
                    statistic + " " + measure + " per call", format, sorted.length + " calls");
        }
    }
}
