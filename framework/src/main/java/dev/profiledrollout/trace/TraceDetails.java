package dev.profiledrollout.trace;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.analysis.CategoryStats;
import dev.profiledrollout.trace.analysis.GpuTimelineBreakdown;
import dev.profiledrollout.trace.analysis.IdleGap;
import dev.profiledrollout.trace.analysis.KernelCategory;
import dev.profiledrollout.trace.analysis.LaunchStats;
import dev.profiledrollout.trace.analysis.OperatorStats;
import dev.profiledrollout.trace.analysis.StreamIdle;
import dev.profiledrollout.trace.analysis.StreamQueue;
import dev.profiledrollout.trace.analysis.TemporalBreakdown;
import dev.profiledrollout.trace.baselines.StageKernels;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import dev.profiledrollout.trace.roofline.GpuPeaks;
import dev.profiledrollout.trace.roofline.OperatorRoofline;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.apiguardian.api.API;

/**
 * The analyses of one trace file beyond kernel and device totals, computed by {@link KinetoTraceReader} in the same
 * streaming pass. Immutable. Each part documents its definition and source.
 *
 * @param distributedRank    {@code distributedInfo.rank} from the file's metadata, when present
 * @param baseTimeNs         {@code baseTimeNanoseconds} (timestamps are relative to it), when present
 * @param categories         per {@link KernelCategory}, in enum order, only categories with events
 * @param exact              {@link TemporalBreakdown} in exact mode
 * @param htaCompatible      {@link TemporalBreakdown} in HTA-compatible mode
 * @param idleGaps           the largest GPU idle gaps over all devices, longest first, then by start (at most
 *                           {@link #MAX_IDLE_GAPS}; among equally long gaps the earliest are kept)
 * @param steps              engine steps in start order ({@link StepStats})
 * @param launches           launch overhead and CUDA-graph coverage ({@link LaunchStats})
 * @param operators          CPU ops by name and input shapes, most GPU time first ({@link OperatorStats})
 * @param gpuTimeline        TraceLens' GPU timeline: computation, exposed communication and memcpy, busy, idle
 *                           ({@link GpuTimelineBreakdown})
 * @param deviceName         {@code deviceProperties[0].name} (the GPU model, such as {@code NVIDIA H100 80GB HBM3}),
 *                           when the trace lists devices
 * @param roofline           kernel efficiency of GEMM-like and attention ops by name and recorded arguments, most
 *                           kernel time first ({@link OperatorRoofline}); empty without {@code record_shapes}
 * @param stageKernels       per step kind, the kernels attributed to steps of that kind ({@link StageKernels}), in
 *                           {@link StepStats.Stage} order; empty without step annotations
 * @param streamIdle         per device and stream, idle time in HTA's categories (host wait, kernel wait, other;
 *                           {@link StreamIdle}), sorted by device then stream; empty for readers without streams
 * @param streamQueues       per device and stream with launched GPU events, HTA's queue length statistics
 *                           ({@link StreamQueue}), sorted by device then stream
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record TraceDetails(OptionalInt distributedRank, OptionalLong baseTimeNs, List<CategoryStats> categories,
                           TemporalBreakdown exact, TemporalBreakdown htaCompatible, List<IdleGap> idleGaps,
                           List<StepStats> steps, LaunchStats launches, List<OperatorStats> operators,
                           GpuTimelineBreakdown gpuTimeline, Optional<String> deviceName,
                           List<OperatorRoofline> roofline, List<StageKernels> stageKernels,
                           List<StreamIdle> streamIdle, List<StreamQueue> streamQueues) {

    /** How many idle gaps are kept. */
    public static final int MAX_IDLE_GAPS = 20;

    public TraceDetails {
        Objects.requireNonNull(distributedRank, "distributedRank");
        Objects.requireNonNull(baseTimeNs, "baseTimeNs");
        categories = List.copyOf(categories);
        Objects.requireNonNull(exact, "exact");
        Objects.requireNonNull(htaCompatible, "htaCompatible");
        idleGaps = List.copyOf(idleGaps);
        steps = List.copyOf(steps);
        Objects.requireNonNull(launches, "launches");
        operators = List.copyOf(operators);
        Objects.requireNonNull(gpuTimeline, "gpuTimeline");
        Objects.requireNonNull(deviceName, "deviceName");
        roofline = List.copyOf(roofline);
        stageKernels = List.copyOf(stageKernels);
        streamIdle = List.copyOf(streamIdle);
        streamQueues = List.copyOf(streamQueues);
    }

    /** Details without per-stream idle time and queue length. */
    public TraceDetails(OptionalInt distributedRank, OptionalLong baseTimeNs, List<CategoryStats> categories,
                        TemporalBreakdown exact, TemporalBreakdown htaCompatible, List<IdleGap> idleGaps,
                        List<StepStats> steps, LaunchStats launches, List<OperatorStats> operators,
                        GpuTimelineBreakdown gpuTimeline, Optional<String> deviceName,
                        List<OperatorRoofline> roofline, List<StageKernels> stageKernels) {
        this(distributedRank, baseTimeNs, categories, exact, htaCompatible, idleGaps, steps, launches, operators,
                gpuTimeline, deviceName, roofline, stageKernels, List.of(), List.of());
    }

    /** Details without a device name, roofline figures or per-stage kernel attribution (readers without a timeline, JSON read back). */
    public TraceDetails(OptionalInt distributedRank, OptionalLong baseTimeNs, List<CategoryStats> categories,
                        TemporalBreakdown exact, TemporalBreakdown htaCompatible, List<IdleGap> idleGaps,
                        List<StepStats> steps, LaunchStats launches, List<OperatorStats> operators,
                        GpuTimelineBreakdown gpuTimeline) {
        this(distributedRank, baseTimeNs, categories, exact, htaCompatible, idleGaps, steps, launches, operators,
                gpuTimeline, Optional.empty(), List.of(), List.of(), List.of(), List.of());
    }

    /** This trace's GPU in {@code peaks}, by {@link #deviceName()}. */
    public Optional<GpuPeaks.Gpu> gpu(GpuPeaks peaks) {
        return deviceName.flatMap(peaks::find);
    }

    /** Details of a trace that has no events (used by summaries built by hand and by non-Kineto readers). */
    public static TraceDetails none() {
        return new TraceDetails(OptionalInt.empty(), OptionalLong.empty(), List.of(), TemporalBreakdown.empty(false),
                TemporalBreakdown.empty(true), List.of(), List.of(), LaunchStats.empty(), List.of(),
                GpuTimelineBreakdown.empty());
    }

    /** The category's stats, or a zero row when the trace has no event of it. */
    public CategoryStats category(KernelCategory category) {
        return categories.stream().filter(c -> c.category() == category).findFirst()
                .orElse(new CategoryStats(category, 0, 0, 0));
    }

    /** Steps of one stage, in start order. */
    public List<StepStats> steps(StepStats.Stage stage) {
        return steps.stream().filter(s -> s.stage() == stage).toList();
    }

    /** Σ kernel ns attributed to steps, per stage (stages without steps are absent). */
    public Map<StepStats.Stage, Long> kernelNsByStage() {
        Map<StepStats.Stage, Long> byStage = new EnumMap<>(StepStats.Stage.class);
        for (StepStats s : steps) {
            byStage.merge(s.stage(), s.kernelNs(), Long::sum);
        }
        return byStage;
    }
}
