package dev.profiledrollout.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializerProvider;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TraceDetails;
import dev.profiledrollout.trace.analysis.CategoryStats;
import dev.profiledrollout.trace.analysis.GpuTimelineBreakdown;
import dev.profiledrollout.trace.analysis.IdleGap;
import dev.profiledrollout.trace.analysis.LaunchStats;
import dev.profiledrollout.trace.analysis.OperatorStats;
import dev.profiledrollout.trace.analysis.StreamIdle;
import dev.profiledrollout.trace.analysis.StreamQueue;
import dev.profiledrollout.trace.analysis.TemporalBreakdown;
import dev.profiledrollout.trace.roofline.OperatorRoofline;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The {@link TraceDetails} of a trace as fields of the enclosing {@link TraceSummaryJson} object (all times ns),
 * written and read by {@link ResultsModule}:
 * <ul>
 *   <li>{@code distributedRank}: number or null;</li>
 *   <li>{@code categories}: {@code [{"category","count","totalNs","share"}]};</li>
 *   <li>{@code temporal}: {@code {"exact":{…},"htaCompatible":{…}}}, each {@code {"kernelTimeNs","idleNs","computeNs",
 *       "nonComputeNs","communicationNs","overlapNs","overlapPercent"}} (overlapPercent null without communication);</li>
 *   <li>{@code gpuTimeline}: TraceLens' rows, the {@link GpuTimelineBreakdown} components;</li>
 *   <li>{@code idleGaps}: {@code [{"deviceId","startNs","durationNs","cpuContext"}]};</li>
 *   <li>{@code streamIdle}: per device and stream, HTA's idle categories {@code [{"deviceId","stream","events",
 *       "hostWaitNs","kernelWaitNs","otherNs"}]} ({@link StreamIdle});</li>
 *   <li>{@code streamQueues}: per device and stream, HTA's queue length summary {@code [{"deviceId","stream","points",
 *       "mean","std","min","p25","p50","p75","max"}]} ({@link StreamQueue}; {@code std} is null for one point);</li>
 *   <li>{@code stages}: per stage {@code {"stage","steps","kernelNs","durationP50Ns","durationP99Ns","durationMaxNs"}}
 *       (derived from the steps; not read back);</li>
 *   <li>{@code steps}: the first {@value #MAX_STEPS} steps {@code {"name","stage","startNs","durationNs",
 *       "gpuDurationNs","kernels","kernelNs"}};</li>
 *   <li>{@code launches}: the {@link LaunchStats} components plus {@code graphKernelsMissing};</li>
 *   <li>{@code operators}: the first {@value #MAX_OPERATORS} {@code {"name","inputDims","count","cpuNs","gpuEvents","gpuNs"}};</li>
 *   <li>{@code deviceName}: {@code deviceProperties[0].name} or null;</li>
 *   <li>{@code roofline}: the first {@value #MAX_ROOFLINE} {@link dev.profiledrollout.trace.roofline.OperatorRoofline}s
 *       {@code {"name","inputDims","inputTypes","inputStrides","concreteInputs","precision","flops","bytes","calls",
 *       "count","kernelNs","tflops","tbps"}}, the last three {@code {"mean","median","min","max"}} ("NaN" when
 *       undefined); per-call times are not written, so read back they are empty.</li>
 * </ul>
 * Read back, a missing field is an empty list or zero row (files written before the field existed).
 */
final class TraceDetailsJson {

    /** Steps written at most. */
    public static final int MAX_STEPS = 10_000;
    /** Operators written at most (most GPU time first). */
    public static final int MAX_OPERATORS = 200;
    /** Roofline rows written at most (most kernel time first). */
    public static final int MAX_ROOFLINE = 200;

    private TraceDetailsJson() {
    }

    /** Writes the fields at the generator's current position (inside an object). */
    public static void write(JsonGenerator json, TraceDetails d) throws IOException {
        writeFields(d, json, ResultsModule.MAPPER.getSerializerProviderInstance());
    }

    /** One stage's steps, as written to {@code stages}. */
    private record Stage(String stage, int steps, long kernelNs, long durationP50Ns, long durationP99Ns,
                         long durationMaxNs) {
    }

    static void writeFields(TraceDetails d, JsonGenerator json, SerializerProvider provider) throws IOException {
        provider.defaultSerializeField("distributedRank", d.distributedRank(), json);
        provider.defaultSerializeField("categories", d.categories(), json);
        json.writeObjectFieldStart("temporal");
        provider.defaultSerializeField("exact", d.exact(), json);
        provider.defaultSerializeField("htaCompatible", d.htaCompatible(), json);
        json.writeEndObject();
        provider.defaultSerializeField("gpuTimeline", d.gpuTimeline(), json);
        provider.defaultSerializeField("idleGaps", d.idleGaps(), json);
        provider.defaultSerializeField("streamIdle", d.streamIdle(), json);
        provider.defaultSerializeField("streamQueues", d.streamQueues(), json);
        List<Stage> stages = new ArrayList<>();
        for (StepStats.Stage stage : StepStats.Stage.values()) {
            List<StepStats> steps = d.steps(stage);
            if (!steps.isEmpty()) {
                List<Long> durations = steps.stream().map(StepStats::durationNs).sorted().toList();
                stages.add(new Stage(stage.name(), steps.size(), steps.stream().mapToLong(StepStats::kernelNs).sum(),
                        nearestRank(durations, 50), nearestRank(durations, 99), durations.get(durations.size() - 1)));
            }
        }
        provider.defaultSerializeField("stages", stages, json);
        provider.defaultSerializeField("steps", d.steps().subList(0, Math.min(MAX_STEPS, d.steps().size())), json);
        provider.defaultSerializeField("launches", d.launches(), json);
        provider.defaultSerializeField("operators",
                d.operators().subList(0, Math.min(MAX_OPERATORS, d.operators().size())), json);
        writeRoofline(d, json, provider);
    }

    private static void writeRoofline(TraceDetails d, JsonGenerator json, SerializerProvider provider)
            throws IOException {
        provider.defaultSerializeField("deviceName", d.deviceName().orElse(null), json);
        provider.defaultSerializeField("roofline",
                d.roofline().subList(0, Math.min(MAX_ROOFLINE, d.roofline().size())), json);
    }

    static TraceDetails readFields(JsonNode trace, DeserializationContext context) throws IOException {
        JsonNode rank = trace.path("distributedRank");
        JsonNode temporal = trace.path("temporal");
        return new TraceDetails(rank.isInt() ? OptionalInt.of(rank.asInt()) : OptionalInt.empty(),
                OptionalLong.empty(),
                TraceSummaryJson.list(trace.path("categories"), CategoryStats.class, context),
                temporal(temporal.path("exact"), false, context),
                temporal(temporal.path("htaCompatible"), true, context),
                TraceSummaryJson.list(trace.path("idleGaps"), IdleGap.class, context),
                TraceSummaryJson.list(trace.path("steps"), StepStats.class, context),
                trace.path("launches").isObject() ? context.readTreeAsValue(trace.get("launches"), LaunchStats.class)
                        : LaunchStats.empty(),
                TraceSummaryJson.list(trace.path("operators"), OperatorStats.class, context),
                trace.path("gpuTimeline").isObject()
                        ? context.readTreeAsValue(trace.get("gpuTimeline"), GpuTimelineBreakdown.class)
                        : GpuTimelineBreakdown.empty(),
                trace.path("deviceName").isTextual() ? Optional.of(trace.get("deviceName").asText())
                        : Optional.empty(),
                TraceSummaryJson.list(trace.path("roofline"), OperatorRoofline.class, context), List.of(),
                TraceSummaryJson.list(trace.path("streamIdle"), StreamIdle.class, context),
                TraceSummaryJson.list(trace.path("streamQueues"), StreamQueue.class, context));
    }

    /** The JSON leaves out which mode a breakdown is in: the field it sits in says so. */
    private static TemporalBreakdown temporal(JsonNode node, boolean htaCompatible, DeserializationContext context)
            throws IOException {
        if (!node.isObject()) {
            return TemporalBreakdown.empty(htaCompatible);
        }
        TemporalBreakdown t = context.readTreeAsValue(node, TemporalBreakdown.class);
        return new TemporalBreakdown(htaCompatible, t.kernelTimeNs(), t.idleNs(), t.computeNs(), t.nonComputeNs(),
                t.communicationNs(), t.overlapNs());
    }

    /** Nearest-rank percentile of sorted values. */
    static long nearestRank(List<Long> sorted, double p) {
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
