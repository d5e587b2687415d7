package dev.profiledrollout.cli.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.CategoryStats;
import dev.profiledrollout.trace.analysis.KernelCategories;
import dev.profiledrollout.trace.analysis.OperatorStats;
import dev.profiledrollout.trace.analysis.StreamIdle;
import dev.profiledrollout.trace.analysis.StreamQueue;
import dev.profiledrollout.trace.baselines.BaselineDiff;
import dev.profiledrollout.trace.baselines.KernelDelta;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import dev.profiledrollout.trace.roofline.GpuPeaks;
import dev.profiledrollout.trace.roofline.OperatorRoofline;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import org.apiguardian.api.API;

/**
 * The tables {@code analyze} prints, as a header plus rows of cells (all times ns, shares as fractions), so that one
 * definition serves both {@code --format table} (through {@link ViewPrinter#readableTable}, in ms and %) and
 * {@code --format csv}. Categories are listed by share, largest first.
 */
@API(status = INTERNAL, since = "0.1")
public final class AnalysisViews {

    /** {@code --by} choices. */
    public enum By { KERNEL, CATEGORY, OPERATOR, ROOFLINE, STEP, STAGE, IDLE, QUEUE, QUEUE_SERIES }

    /** A header and its rows. */
    public record View(List<String> header, List<List<String>> rows) {
    }

    private AnalysisViews() {
    }

    /** The queue-length series of a Kineto JSON trace (read again); none for other trace formats. */
    private static List<StreamQueue.Point> queueSeries(TraceSummary s) {
        String name = String.valueOf(s.file().getFileName());
        if (!name.endsWith(".json") && !name.endsWith(".json.gz")) {
            return List.of();
        }
        try {
            return KinetoTraceReader.queueLengthSeries(s.file());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** One trace's view by {@code by}. */
    public static View of(By by, TraceSummary s) {
        List<List<String>> rows = new ArrayList<>();
        return switch (by) {
            case KERNEL -> {
                for (KernelStats k : s.kernels()) {
                    rows.add(List.of(k.name(), KernelCategories.defaults().categoryOf(k.name()).name(), n(k.count()),
                            n(k.totalNs()), d(k.meanNs()), n(k.minNs()), n(k.maxNs()), n(k.p50Ns()), n(k.p99Ns()),
                            share(k.totalNs(), s.kernelTotalNs())));
                }
                yield new View(List.of("kernel", "category", "count", "totalNs", "meanNs", "minNs", "maxNs", "p50Ns",
                        "p99Ns", "share"), rows);
            }
            case CATEGORY -> {
                for (CategoryStats c : byShare(s.details().categories())) {
                    rows.add(List.of(c.category().name(), n(c.count()), n(c.totalNs()), d(c.share())));
                }
                yield new View(List.of("category", "count", "totalNs", "share"), rows);
            }
            case OPERATOR -> {
                for (OperatorStats o : s.details().operators()) {
                    rows.add(List.of(o.name(), o.inputDims(), n(o.count()), n(o.cpuNs()), n(o.gpuEvents()),
                            n(o.gpuNs())));
                }
                yield new View(List.of("operator", "inputDims", "count", "cpuNs", "gpuEvents", "gpuNs"), rows);
            }
            case ROOFLINE -> roofline(s, GpuPeaks.defaults());
            case QUEUE -> {
                // HTA's queue length per stream (StreamQueue): launched GPU operations not yet started
                for (StreamQueue q : s.details().streamQueues()) {
                    rows.add(List.of(q.deviceId(), n(q.stream()), n(q.points()), d(q.mean()), d(q.std()), n(q.min()),
                            d(q.p25()), d(q.p50()), d(q.p75()), n(q.max())));
                }
                yield new View(List.of("device", "stream", "points", "meanQueueLength", "stdQueueLength",
                        "minQueueLength", "p25QueueLength", "p50QueueLength", "p75QueueLength", "maxQueueLength"),
                        rows);
            }
            case QUEUE_SERIES -> {
                // HTA's queue length over time (get_queue_length_time_series): a point at each change, per stream
                for (StreamQueue.Point p : queueSeries(s)) {
                    rows.add(List.of(p.deviceId(), n(p.stream()), n(p.tsNs()), n(p.length())));
                }
                yield new View(List.of("device", "stream", "tsNs", "queueLength"), rows);
            }
            case IDLE -> {
                // HTA's idle categories per stream (StreamIdle); shares of that stream's idle time
                for (StreamIdle i : s.details().streamIdle()) {
                    long idle = i.idleNs();
                    rows.add(List.of(i.deviceId(), n(i.stream()), n(i.events()), n(idle), n(i.hostWaitNs()),
                            n(i.kernelWaitNs()), n(i.otherNs()), share(i.hostWaitNs(), idle),
                            share(i.kernelWaitNs(), idle), share(i.otherNs(), idle)));
                }
                yield new View(List.of("device", "stream", "events", "idleNs", "hostWaitNs", "kernelWaitNs",
                        "otherNs", "hostWaitShare", "kernelWaitShare", "otherShare"), rows);
            }
            case STEP -> {
                for (StepStats st : s.details().steps()) {
                    rows.add(List.of(st.name(), st.stage().name(), n(st.startNs()), n(st.durationNs()),
                            n(st.gpuDurationNs()), n(st.kernels()), n(st.kernelNs())));
                }
                yield new View(List.of("step", "stage", "startNs", "durationNs", "gpuDurationNs", "kernels",
                        "kernelNs"), rows);
            }
            case STAGE -> {
                for (StepStats.Stage stage : StepStats.Stage.values()) {
                    List<Long> durations = s.details().steps(stage).stream().map(StepStats::durationNs).sorted().toList();
                    if (durations.isEmpty()) {
                        continue;
                    }
                    long kernelNs = s.details().steps(stage).stream().mapToLong(StepStats::kernelNs).sum();
                    rows.add(List.of(stage.name(), n(durations.size()), n(kernelNs), n(rank(durations, 50)),
                            n(rank(durations, 99)), n(durations.get(durations.size() - 1))));
                }
                if (rows.isEmpty()) {
                    String stage = s.rank().flatMap(r -> r.stage()).orElse("UNKNOWN");
                    rows.add(List.of("file:" + stage, "0", n(s.kernelTotalNs()), "", "", ""));
                }
                yield new View(List.of("stage", "steps", "kernelNs", "durationP50Ns", "durationP99Ns",
                        "durationMaxNs"), rows);
            }
        };
    }

    /**
     * Kernel efficiency of GEMM-like and attention ops by name and recorded arguments
     * ({@link OperatorRoofline}), most kernel time first: per-call work, kernel time in µs, achieved TFLOPS/s and
     * TB/s, and, when {@code peaks} knows the trace's device, the fractions of its peak and of the roofline (medians
     * over calls). Empty cells where a figure is not defined.
     */
    public static View roofline(TraceSummary s, GpuPeaks peaks) {
        List<List<String>> rows = new ArrayList<>();
        Optional<GpuPeaks.Gpu> gpu = s.details().gpu(peaks);
        for (OperatorRoofline r : s.details().roofline()) {
            OptionalDouble peak = gpu.map(g -> g.peakTflops(r.precision())).orElse(OptionalDouble.empty());
            rows.add(List.of(r.name(), r.inputDims(), r.inputTypes(), r.precision(), n(r.calls()), n(r.count()),
                    f(r.gflops(), 4), f(r.dataMovedMiB(), 3), f(r.arithmeticIntensity(), 2),
                    f(r.kernelNs().mean() / 1e3, 3), f(r.kernelNs().median() / 1e3, 3), f(r.kernelNs().min() / 1e3, 3),
                    f(r.kernelNs().max() / 1e3, 3), f(r.tflops().mean(), 3), f(r.tflops().median(), 3),
                    f(r.tbps().median(), 4), peak.isPresent() ? f(peak.getAsDouble(), 1) : "",
                    r.peakFraction(gpu).map(d -> f(d.median(), 4)).orElse(""),
                    r.rooflineFraction(gpu).map(d -> f(d.median(), 4)).orElse(""),
                    gpu.map(GpuPeaks.Gpu::id).orElse("")));
        }
        return new View(List.of("operator", "inputDims", "inputTypes", "precision", "calls", "count", "gflops",
                "dataMovedMiB", "flopsPerByte", "kernelMeanUs", "kernelMedianUs", "kernelMinUs", "kernelMaxUs",
                "tflopsMean", "tflopsMedian", "tbpsMedian", "peakTflops", "peakFraction", "rooflineFraction",
                "gpu"), rows);
    }

    /** A fixed-point number, {@code ""} when it is not finite. */
    private static String f(double v, int decimals) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%." + decimals + "f", v) : "";
    }

    /**
     * One row per trace of the set: the cross-rank table. Rows are labelled {@link TraceSet#rankLabel} (with the
     * directory when the traces come from several); {@code busyOverMean} and {@code straggler} are per
     * {@linkplain TraceSet#rankSets() rank set}, and a rank set of one rank has no straggler.
     */
    public static View ranks(TraceSet set) {
        List<List<String>> rows = new ArrayList<>();
        for (TraceSet ranks : set.rankSets().values()) {
            double meanBusy = ranks.traces().stream().mapToLong(TraceSummary::busyNs).average().orElse(0);
            TraceSummary straggler = ranks.straggler().orElse(null);
            for (TraceSummary t : ranks.traces()) {
                long span = t.spanNs();
                rows.add(List.of(set.rankLabel(t), String.valueOf(t.file().getFileName()), n(t.kernelEvents()),
                        n(t.kernelTotalNs()), n(t.busyNs()), n(span), d(span == 0 ? 0 : 1 - (double) t.busyNs() / span),
                        d(meanBusy == 0 ? 1 : t.busyNs() / meanBusy), t == straggler ? "yes" : ""));
            }
        }
        return new View(List.of("rank", "file", "kernelEvents", "kernelTotalNs", "busyNs", "spanNs", "idleFraction",
                "busyOverMean", "straggler"), rows);
    }

    /** The per-kernel spread across ranks, largest first. */
    public static View spread(TraceSet set, int limit) {
        List<List<String>> rows = new ArrayList<>();
        set.kernelSpread().stream().limit(limit).forEach(k -> rows.add(List.of(k.name(), d(k.spread()),
                n(k.minNs()), n(k.maxNs()), d(k.meanNs()), k.maxLabel())));
        return new View(List.of("kernel", "spread", "minNs", "maxNs", "meanNs", "longestOn"), rows);
    }

    /** A baseline comparison, largest |Δtime| first. */
    public static View diff(BaselineDiff diff) {
        List<List<String>> rows = new ArrayList<>();
        for (KernelDelta k : diff.kernels()) {
            rows.add(List.of(k.name(), k.status().name(), n(k.baseCount()), n(k.count()), n(k.deltaCount()),
                    n(k.baseTotalNs()), n(k.totalNs()), n(k.deltaNs()),
                    Double.isInfinite(k.relativeChange()) ? "inf" : d(k.relativeChange())));
        }
        return new View(List.of("kernel", "status", "baseCount", "count", "deltaCount", "baseTotalNs", "totalNs",
                "deltaNs", "relativeChange"), rows);
    }

    /**
     * Categories by share of GPU time, largest first; equal shares keep {@link KernelCategories}' enum order (the
     * order {@link dev.profiledrollout.trace.TraceDetails#categories()} has).
     */
    public static List<CategoryStats> byShare(List<CategoryStats> categories) {
        return categories.stream().sorted(Comparator.comparingLong(CategoryStats::totalNs).reversed()).toList();
    }

    private static long rank(List<Long> sorted, double p) {
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    private static String n(long v) {
        return Long.toString(v);
    }

    private static String d(double v) {
        return String.format(Locale.ROOT, "%.6g", v);
    }

    private static String share(long part, long whole) {
        return d(whole == 0 ? 0 : (double) part / whole);
    }
}
