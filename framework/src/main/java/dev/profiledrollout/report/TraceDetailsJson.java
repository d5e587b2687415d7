package dev.profiledrollout.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.profiledrollout.trace.CategoryStats;
import dev.profiledrollout.trace.GpuTimelineBreakdown;
import dev.profiledrollout.trace.IdleGap;
import dev.profiledrollout.trace.LaunchStats;
import dev.profiledrollout.trace.OperatorStats;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TemporalBreakdown;
import dev.profiledrollout.trace.TraceDetails;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the {@link TraceDetails} of a trace as fields of the enclosing {@link TraceSummaryJson} object (all times
 * ns):
 * <ul>
 *   <li>{@code distributedRank}: number or null;</li>
 *   <li>{@code categories}: {@code [{"category","count","totalNs","share"}]};</li>
 *   <li>{@code temporal}: {@code {"exact":{…},"htaCompatible":{…}}}, each {@code {"kernelTimeNs","idleNs","computeNs",
 *       "nonComputeNs","communicationNs","overlapNs","overlapPercent"}} (overlapPercent null without communication);</li>
 *   <li>{@code gpuTimeline}: TraceLens' rows, the {@link GpuTimelineBreakdown} components;</li>
 *   <li>{@code idleGaps}: {@code [{"deviceId","startNs","durationNs","cpuContext"}]};</li>
 *   <li>{@code stages}: per stage {@code {"stage","steps","kernelNs","durationP50Ns","durationP99Ns","durationMaxNs"}};</li>
 *   <li>{@code steps}: the first {@value #MAX_STEPS} steps {@code {"name","stage","startNs","durationNs",
 *       "gpuDurationNs","kernels","kernelNs"}};</li>
 *   <li>{@code launches}: the {@link LaunchStats} components plus {@code graphKernelsMissing};</li>
 *   <li>{@code operators}: the first {@value #MAX_OPERATORS} {@code {"name","inputDims","count","cpuNs","gpuEvents","gpuNs"}}.</li>
 * </ul>
 */
public final class TraceDetailsJson {

    /** Steps written at most. */
    public static final int MAX_STEPS = 10_000;
    /** Operators written at most (most GPU time first). */
    public static final int MAX_OPERATORS = 200;

    private TraceDetailsJson() {
    }

    /** Writes the fields at the generator's current position (inside an object). */
    public static void write(JsonGenerator json, TraceDetails d) throws IOException {
        json.writeFieldName("distributedRank");
        if (d.distributedRank().isPresent()) {
            json.writeNumber(d.distributedRank().getAsInt());
        } else {
            json.writeNull();
        }
        json.writeArrayFieldStart("categories");
        for (CategoryStats c : d.categories()) {
            json.writeStartObject();
            json.writeStringField("category", c.category().name());
            json.writeNumberField("count", c.count());
            json.writeNumberField("totalNs", c.totalNs());
            json.writeNumberField("share", c.share());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeObjectFieldStart("temporal");
        temporal(json, "exact", d.exact());
        temporal(json, "htaCompatible", d.htaCompatible());
        json.writeEndObject();
        GpuTimelineBreakdown t = d.gpuTimeline();
        json.writeObjectFieldStart("gpuTimeline");
        json.writeNumberField("computationNs", t.computationNs());
        json.writeNumberField("communicationNs", t.communicationNs());
        json.writeNumberField("memcpyNs", t.memcpyNs());
        json.writeNumberField("exposedCommNs", t.exposedCommNs());
        json.writeNumberField("exposedMemcpyNs", t.exposedMemcpyNs());
        json.writeNumberField("busyNs", t.busyNs());
        json.writeNumberField("totalNs", t.totalNs());
        json.writeNumberField("idleNs", t.idleNs());
        json.writeNumberField("unlinkedEvents", t.unlinkedEvents());
        json.writeEndObject();
        json.writeArrayFieldStart("idleGaps");
        for (IdleGap g : d.idleGaps()) {
            json.writeStartObject();
            json.writeStringField("deviceId", g.deviceId());
            json.writeNumberField("startNs", g.startNs());
            json.writeNumberField("durationNs", g.durationNs());
            json.writeStringField("cpuContext", g.cpuContext());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeArrayFieldStart("stages");
        for (StepStats.Stage stage : StepStats.Stage.values()) {
            List<StepStats> steps = d.steps(stage);
            if (steps.isEmpty()) {
                continue;
            }
            List<Long> durations = new ArrayList<>(steps.stream().map(StepStats::durationNs).sorted().toList());
            json.writeStartObject();
            json.writeStringField("stage", stage.name());
            json.writeNumberField("steps", steps.size());
            json.writeNumberField("kernelNs", steps.stream().mapToLong(StepStats::kernelNs).sum());
            json.writeNumberField("durationP50Ns", nearestRank(durations, 50));
            json.writeNumberField("durationP99Ns", nearestRank(durations, 99));
            json.writeNumberField("durationMaxNs", durations.get(durations.size() - 1));
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeArrayFieldStart("steps");
        for (StepStats s : d.steps().subList(0, Math.min(MAX_STEPS, d.steps().size()))) {
            json.writeStartObject();
            json.writeStringField("name", s.name());
            json.writeStringField("stage", s.stage().name());
            json.writeNumberField("startNs", s.startNs());
            json.writeNumberField("durationNs", s.durationNs());
            json.writeNumberField("gpuDurationNs", s.gpuDurationNs());
            json.writeNumberField("kernels", s.kernels());
            json.writeNumberField("kernelNs", s.kernelNs());
            json.writeEndObject();
        }
        json.writeEndArray();
        LaunchStats l = d.launches();
        json.writeObjectFieldStart("launches");
        json.writeNumberField("launches", l.launches());
        json.writeNumberField("launchP50Ns", l.launchP50Ns());
        json.writeNumberField("launchP99Ns", l.launchP99Ns());
        json.writeNumberField("delayP50Ns", l.delayP50Ns());
        json.writeNumberField("delayP99Ns", l.delayP99Ns());
        json.writeNumberField("graphLaunches", l.graphLaunches());
        json.writeNumberField("graphLaunchesWithoutKernels", l.graphLaunchesWithoutKernels());
        json.writeNumberField("graphKernels", l.graphKernels());
        json.writeBooleanField("graphKernelsMissing", l.graphKernelsMissing());
        json.writeNumberField("kernelsWithoutLaunch", l.kernelsWithoutLaunch());
        json.writeNumberField("kernelNsWithoutCpuOp", l.kernelNsWithoutCpuOp());
        json.writeEndObject();
        json.writeArrayFieldStart("operators");
        for (OperatorStats o : d.operators().subList(0, Math.min(MAX_OPERATORS, d.operators().size()))) {
            json.writeStartObject();
            json.writeStringField("name", o.name());
            json.writeStringField("inputDims", o.inputDims());
            json.writeNumberField("count", o.count());
            json.writeNumberField("cpuNs", o.cpuNs());
            json.writeNumberField("gpuEvents", o.gpuEvents());
            json.writeNumberField("gpuNs", o.gpuNs());
            json.writeEndObject();
        }
        json.writeEndArray();
    }

    /** Nearest-rank percentile of sorted values. */
    static long nearestRank(List<Long> sorted, double p) {
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    private static void temporal(JsonGenerator json, String field, TemporalBreakdown t) throws IOException {
        json.writeObjectFieldStart(field);
        json.writeNumberField("kernelTimeNs", t.kernelTimeNs());
        json.writeNumberField("idleNs", t.idleNs());
        json.writeNumberField("computeNs", t.computeNs());
        json.writeNumberField("nonComputeNs", t.nonComputeNs());
        json.writeNumberField("communicationNs", t.communicationNs());
        json.writeNumberField("overlapNs", t.overlapNs());
        json.writeFieldName("overlapPercent");
        if (Double.isNaN(t.overlapPercent())) {
            json.writeNull();
        } else {
            json.writeNumber(t.overlapPercent());
        }
        json.writeEndObject();
    }
}
