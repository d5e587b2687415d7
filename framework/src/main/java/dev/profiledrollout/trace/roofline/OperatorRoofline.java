package dev.profiledrollout.trace.roofline;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import org.apiguardian.api.API;

/**
 * Kernel efficiency of one GEMM-like or attention op with one set of recorded arguments: the work each call does
 * (FLOPs, bytes moved), the GPU time of the kernels it launched, and what that achieves against the device.
 *
 * <h2>Definitions (TraceLens' performance model, {@code docs/METRICS.md} §Roofline)</h2>
 * <ul>
 *   <li>Work per call from {@code Input Dims} and {@code Input type}: GEMM {@code 2·M·N·K} (+ {@code M·N} with a
 *       bias), bytes {@code (M·K + K·N + M·N [+ N]) × bytes per element}, × batch for bmm/baddbmm; attention
 *       {@code 4·B·H_Q·N_Q·N_KV·d} (halved when causal), bytes Q + K + V + O.</li>
 *   <li>Kernel time of a call: the busy time (union of {@code [ts, ts + dur)}) of the GPU events whose
 *       {@code args."External id"} equals the call's; calls without such events (CUDA-graph replays) are counted in
 *       {@link #calls()} but not in {@link #count()} or the time figures.</li>
 *   <li>Achieved TFLOPS/s of a call {@code = FLOPs / kernel time}; TB/s {@code = bytes / kernel time}.</li>
 * </ul>
 *
 * @param name           the op, e.g. {@code aten::mm}
 * @param inputDims      {@code Input Dims} as compact JSON
 * @param inputTypes     {@code Input type} as compact JSON, {@code ""} when not recorded
 * @param inputStrides   {@code Input Strides} as compact JSON, {@code ""} when not recorded
 * @param concreteInputs {@code Concrete Inputs} as compact JSON, {@code ""} when not recorded
 * @param precision      compute precision from the first operand's type: {@code fp64, fp32, fp16, bf16, fp8, fp4,
 *                       int8}, or {@code ""} when the type is not known
 * @param flops          FLOPs of one call
 * @param bytes          bytes moved by one call; NaN when the element size is not known
 * @param calls          calls recorded
 * @param count          calls with at least one attributed GPU event
 * @param kernelNs       per-call kernel time, ns
 * @param tflops         per-call achieved TFLOPS/s (10¹² FLOP/s)
 * @param tbps           per-call achieved TB/s (10¹² B/s); NaN figures when {@code bytes} is NaN
 * @param callKernelNs   the kernel time of each timed call, ns, ascending ({@link #count()} values)
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record OperatorRoofline(String name, String inputDims, String inputTypes, String inputStrides,
                               String concreteInputs, String precision, double flops, double bytes, long calls,
                               long count, Distribution kernelNs, Distribution tflops, Distribution tbps,
                               List<Long> callKernelNs) {

    /**
     * Mean, median, min and max of a per-call figure over the {@link #count()} timed calls; all NaN when none.
     * The median of an even number of values is the mean of the two middle ones.
     */
    @API(status = EXPERIMENTAL, since = "0.1")
    public record Distribution(double mean, double median, double min, double max) {
        static final Distribution NONE = new Distribution(Double.NaN, Double.NaN, Double.NaN, Double.NaN);

        /** Over {@code values} (sorted in place). */
        static Distribution of(double[] values) {
            if (values.length == 0) {
                return NONE;
            }
            Arrays.sort(values);
            double sum = 0;
            for (double v : values) {
                sum += v;
            }
            int n = values.length;
            double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
            return new Distribution(sum / n, median, values[0], values[n - 1]);
        }

        /** Each figure times {@code factor}. */
        public Distribution times(double factor) {
            return new Distribution(mean * factor, median * factor, min * factor, max * factor);
        }
    }

    /** Most total kernel time first, then name and dims. */
    static final Comparator<OperatorRoofline> BY_KERNEL_TIME = Comparator
            .comparingDouble((OperatorRoofline r) -> r.count == 0 ? 0 : r.kernelNs.mean() * r.count).reversed()
            .thenComparing(OperatorRoofline::name).thenComparing(OperatorRoofline::inputDims);

    public OperatorRoofline {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(inputDims, "inputDims");
        Objects.requireNonNull(inputTypes, "inputTypes");
        Objects.requireNonNull(inputStrides, "inputStrides");
        Objects.requireNonNull(concreteInputs, "concreteInputs");
        Objects.requireNonNull(precision, "precision");
        Objects.requireNonNull(kernelNs, "kernelNs");
        Objects.requireNonNull(tflops, "tflops");
        Objects.requireNonNull(tbps, "tbps");
        callKernelNs = callKernelNs == null ? List.of() : List.copyOf(callKernelNs);
    }

    /** FLOPs of one call / 10⁹ (TraceLens' {@code GFLOPS} column). */
    public double gflops() {
        return flops / 1e9;
    }

    /** Bytes moved by one call / 2²⁰ (TraceLens' {@code Data Moved (MB)} column); NaN when unknown. */
    public double dataMovedMiB() {
        return bytes / (1024.0 * 1024.0);
    }

    /** FLOPs per byte moved (TraceLens' {@code FLOPS/Byte}); NaN when bytes are unknown or zero. */
    public double arithmeticIntensity() {
        return bytes > 0 ? flops / bytes : Double.NaN;
    }

    /** Σ kernel time over the timed calls, ns. */
    public double totalKernelNs() {
        return count == 0 ? 0 : kernelNs.mean() * count;
    }

    /**
     * Per-call achieved TFLOPS/s as a fraction of the device's dense peak for {@link #precision()}; empty when the
     * device or that precision has no peak.
     */
    public Optional<Distribution> peakFraction(Optional<GpuPeaks.Gpu> gpu) {
        OptionalDouble peak = gpu.map(g -> g.peakTflops(precision)).orElse(OptionalDouble.empty());
        return peak.isPresent() && count > 0 ? Optional.of(tflops.times(1 / peak.getAsDouble())) : Optional.empty();
    }

    /**
     * Per-call achieved TFLOPS/s as a fraction of the roofline at this op's arithmetic intensity,
     * {@code min(peak, intensity × HBM TB/s)} (TraceLens' {@code Pct Roofline} / 100); empty when there is no peak or
     * the bytes are unknown.
     */
    public Optional<Distribution> rooflineFraction(Optional<GpuPeaks.Gpu> gpu) {
        OptionalDouble roof = gpu.map(g -> g.attainableTflops(precision, arithmeticIntensity()))
                .orElse(OptionalDouble.empty());
        return roof.isPresent() && count > 0 ? Optional.of(tflops.times(1 / roof.getAsDouble())) : Optional.empty();
    }
}
