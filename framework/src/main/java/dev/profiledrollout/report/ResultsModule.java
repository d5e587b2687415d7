package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import dev.profiledrollout.load.ArrivalProcess;
import dev.profiledrollout.metrics.LatencyDistribution;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.QuantileInterval;
import dev.profiledrollout.metrics.ScheduleReport;
import dev.profiledrollout.trace.KernelSpread;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.KernelCategories;
import dev.profiledrollout.trace.analysis.LaunchStats;
import dev.profiledrollout.trace.analysis.StepTimeline;
import dev.profiledrollout.trace.analysis.TemporalBreakdown;
import dev.profiledrollout.trace.baselines.BaselineDiff;
import dev.profiledrollout.trace.baselines.KernelDelta;
import dev.profiledrollout.trace.baselines.StageDelta;
import dev.profiledrollout.trace.files.RankIdentity;
import dev.profiledrollout.trace.roofline.OperatorRoofline;
import dev.profiledrollout.verdict.Verdict;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.apiguardian.api.API;

/**
 * The one JSON mapping of the result records: {@code summary.json} ({@link RunReport}, {@link TestReport}, the
 * extension's baseline comparison), {@code profiled-rollout analyze --format json} and {@link ReportData} all write
 * and read them through this Jackson module, so every record has a single shape wherever it appears. All times are
 * ns unless a name ends in {@code Ms}; field names are a contract: later versions add fields, which is why
 * {@link #newMapper()} ignores unknown fields when reading; a field is renamed, or a second spelling of one value
 * dropped, only while the frozen older files under {@code framework/src/test/resources/compat/} still read.
 *
 * <h2>Shapes</h2>
 * <ul>
 *   <li>{@link LabeledTrace} (a {@link TraceSummary} under a file label): see {@link TraceSummaryJson} and
 *       {@link TraceDetailsJson}; written and read.</li>
 *   <li>{@link KernelStats}: {@code {"name","count","totalNs","minNs","maxNs","meanNs","p50Ns","p99Ns","category"}},
 *       percentiles −1 when unknown, {@code category} by {@link KernelCategories#defaults()}; read back without
 *       {@code meanNs}/{@code category} (derived), missing percentiles as −1.</li>
 *   <li>{@link RankIdentity}: {@code {"label","prefix","profileId","tp","dp","pp","ep","stage"}}, absent parts
 *       null; read back without {@code label} (derived).</li>
 *   <li>{@link TraceSet}: {@code {"kernelTotalNs","busyImbalance","straggler","workerImbalance","rankSets",
 *       "kernels":[KernelStats over all ranks],"ranks":[LabeledTrace labelled with the file name, plus "label"
 *       (TraceSet#rankLabel, e.g. "worker-1/TP-0" or "TP-0") and "worker" ("worker-1", "" with one engine)]}}}:
 *       {@code straggler} the busiest rank's label, null with fewer than two ranks; {@code workerImbalance} max/mean
 *       of per-worker busy time, null with fewer than two workers; {@code rankSets} one object per worker
 *       ({@link TraceSet#rankSets()}) {@code {"worker","url" (no credentials),"ranks":[labels],"busyImbalance",
 *       "straggler"}}, imbalance and straggler null with fewer than two ranks; {@code stepTimeline} one object per
 *       rank set with steps ({@link StepTimeline}) {@code {"worker","ranks":[labels],"matching","matchedSteps",
 *       "clockAlignment":{"alignedOn":"stepBoundaries","offsetsNs":[per rank],"note"},"maxGapNs",
 *       "stragglerSteps":{label: steps},"steps":[{"index","name","busyNs":[per rank],"spanNs":[per rank],
 *       "gapNs":[per rank],"straggler" (label, null with one rank)}]}} (written only).</li>
 *   <li>{@link BaselineDiff}: {@code {"baseKernelTotalNs","kernelTotalNs",
 *       "kernelTimeChange","newKernels","vanishedKernels","kernels":[KernelDelta]}}, the baseline's kernel time
 *       spelled {@code base…} as {@link KernelDelta}'s baseline fields are (files written before 0.1's run model also
 *       carry it as {@code baselineKernelTotalNs}, which nothing reads), {@code kernelTimeChange} =
 *       run / baseline − 1, the kernels largest |Δtime| first; when the run has per-step-kind figures and the
 *       baseline not, {@code "windowTotalsOnly"} (why, see {@link BaselineDiff#windowTotalsOnly()}); when both have
 *       them ({@link BaselineDiff#byStage()}), {@code "mix","mixDiffers","incomparable" (null or why),
 *       "kernelTimeByStageChange","stages":[{"stage","baseSteps","steps","baseTokens","tokens","baseRequests","requests","comparable" ({@link StageDelta#comparable()}),"baseKernelNs",
 *       "kernelNs","unit" ("step" or "token", {@link StageDelta#unit()}),"kernelTimeChange" (per unit; null unless
 *       both sides have the stage),"kernels":[{"name","baseNsPerUnit","nsPerUnit","change"}] (10 largest |Δ per
 *       step|)}]} (written only).</li>
 *   <li>{@link SummaryFile.Baseline} ({@code summary.json}'s {@code baseline}): {@code "file"}, then the
 *       {@link BaselineDiff} fields above, its {@code kernels} cut to the first {@link SummaryFile.Baseline#kernels()}
 *       (written only).</li>
 *   <li>{@link KernelDelta}: {@code {"name","status","baseCount","count","baseTotalNs","totalNs","deltaNs"}}.</li>
 *   <li>{@link KernelSpread}: {@code {"name","spread","minNs","maxNs","meanNs","longestOn"}} ({@code longestOn}:
 *       {@link KernelSpread#maxLabel()}).</li>
 *   <li>{@link LatencyReport}: {@code summary.json}'s {@code latency}, see {@link RunReport}; per metric
 *       ({@link LatencyDistribution}) {@code {"definition","count","meanMs","p50Ms","p90Ms","p99Ms","maxMs","p50CiMs","p90CiMs",
 *       "p99CiMs"}}, the statistics only when {@code count > 0} (written only); {@code pXXCiMs} is the 95 %
 *       {@link QuantileInterval} {@code [low, high]} in ms from the exact samples, an end null where too few samples
 *       bound it, the whole field null when neither end exists.</li>
 *   <li>{@link TemporalBreakdown} without {@code htaCompatible} (the enclosing field says which) and with
 *       {@code overlapPercent} (null without communication); {@link LaunchStats} with {@code graphKernelsMissing}
 *       after {@code graphKernels}; {@link StepStats} without {@code batchSize}/{@code tokens}; {@link OptionalInt}
 *       as a number or null.</li>
 *   <li>{@link ArrivalProcess} (in {@code summary.json}'s {@code load}): its components, then {@code ramp} and
 *       {@code closedLoop}.</li>
 *   <li>{@link Verdict}: its components, then {@code "outcome":"PASS"|"FAIL"|"WARN"} ({@link Verdict#outcome()});
 *       read back ignoring {@code outcome} (derived), and from files written before the other fields existed with
 *       {@code kind} LATENCY for unit {@code ms} else TRACE, {@code scope} and {@code detail} {@code ""},
 *       {@code gap} computed from {@code actual} and {@code budget}, {@code enforced} true.</li>
 *   <li>{@link TestOutcome} ({@code summary.json}'s {@code outcome}): its components.</li>
 *   <li>Every other record ({@code DeviceStats}, {@code CategoryStats}, {@code GpuTimelineBreakdown},
 *       {@code IdleGap}, {@code OperatorStats}, {@code WorkerOutcome}, ...): its components in
 *       declaration order, enums by name.</li>
 * </ul>
 */
@API(status = EXPERIMENTAL, since = "0.1.0")
public final class ResultsModule extends SimpleModule {

    private static final long serialVersionUID = 1L;
    private static final double[] PERCENTILES = {50, 90, 99};

    /** A {@link #newMapper()} shared by this package's writers and readers (configured once, never changed). */
    static final ObjectMapper MAPPER = newMapper();

    public ResultsModule() {
        super("profiled-rollout-results");
        addSerializer(OptionalInt.class, new OptionalIntSerializer());
        addDeserializer(OptionalInt.class, new OptionalIntDeserializer());
        addSerializer(KernelStats.class, new KernelStatsSerializer());
        addDeserializer(KernelStats.class, new KernelStatsDeserializer());
        addSerializer(RankIdentity.class, new RankIdentitySerializer());
        addDeserializer(RankIdentity.class, new RankIdentityDeserializer());
        addSerializer(LabeledTrace.class, new TraceSummaryJson.Serializer());
        addDeserializer(LabeledTrace.class, new TraceSummaryJson.Deserializer());
        addSerializer(TraceSet.class, new TraceSetSerializer());
        addSerializer(BaselineDiff.class, new BaselineDiffSerializer());
        addSerializer(SummaryFile.Baseline.class, new SummaryBaselineSerializer());
        addSerializer(LatencyReport.class, new LatencyReportSerializer());
        addSerializer(LatencyDistribution.class, new LatencyDistributionSerializer());
        setMixInAnnotation(TemporalBreakdown.class, TemporalBreakdownMixin.class);
        setMixInAnnotation(LaunchStats.class, LaunchStatsMixin.class);
        setMixInAnnotation(StepStats.class, StepStatsMixin.class);
        setMixInAnnotation(OperatorRoofline.class, OperatorRooflineMixin.class);
        setMixInAnnotation(KernelDelta.class, KernelDeltaMixin.class);
        setMixInAnnotation(KernelSpread.class, KernelSpreadMixin.class);
        setMixInAnnotation(ArrivalProcess.class, ArrivalProcessMixin.class);
        setMixInAnnotation(Verdict.class, VerdictMixin.class);
        addDeserializer(Verdict.class, new VerdictDeserializer());
    }

    /**
     * @return a new mapper with this module that writes indented JSON, leaves the streams it is given open and
     *         ignores unknown fields when reading (files of later versions carry added fields)
     */
    public static ObjectMapper newMapper() {
        return JsonMapper.builder()
                .addModule(new ResultsModule())
                .enable(SerializationFeature.INDENT_OUTPUT)
                .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .build();
    }

    private static final class OptionalIntSerializer extends StdSerializer<OptionalInt> {
        OptionalIntSerializer() {
            super(OptionalInt.class);
        }

        @Override
        public void serialize(OptionalInt value, JsonGenerator json, SerializerProvider provider) throws IOException {
            if (value.isPresent()) {
                json.writeNumber(value.getAsInt());
            } else {
                json.writeNull();
            }
        }
    }

    private static final class OptionalIntDeserializer extends StdDeserializer<OptionalInt> {
        OptionalIntDeserializer() {
            super(OptionalInt.class);
        }

        @Override
        public OptionalInt deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            return OptionalInt.of(parser.getValueAsInt());
        }

        @Override
        public OptionalInt getNullValue(DeserializationContext context) {
            return OptionalInt.empty();
        }
    }

    private static final class KernelStatsSerializer extends StdSerializer<KernelStats> {
        KernelStatsSerializer() {
            super(KernelStats.class);
        }

        @Override
        public void serialize(KernelStats kernel, JsonGenerator json, SerializerProvider provider) throws IOException {
            json.writeStartObject();
            json.writeStringField("name", kernel.name());
            json.writeNumberField("count", kernel.count());
            json.writeNumberField("totalNs", kernel.totalNs());
            json.writeNumberField("minNs", kernel.minNs());
            json.writeNumberField("maxNs", kernel.maxNs());
            json.writeNumberField("meanNs", kernel.meanNs());
            json.writeNumberField("p50Ns", kernel.p50Ns());
            json.writeNumberField("p99Ns", kernel.p99Ns());
            json.writeStringField("category", KernelCategories.defaults().categoryOf(kernel.name()).name());
            json.writeEndObject();
        }
    }

    private static final class KernelStatsDeserializer extends StdDeserializer<KernelStats> {
        KernelStatsDeserializer() {
            super(KernelStats.class);
        }

        @Override
        public KernelStats deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            JsonNode k = context.readTree(parser);
            if (!k.path("name").isTextual()) {
                return (KernelStats) context.handleUnexpectedToken(KernelStats.class, JsonToken.START_OBJECT, parser,
                        "a kernel needs a \"name\" string, got %s", k);
            }
            return new KernelStats(k.get("name").asText(), k.path("count").asLong(), k.path("totalNs").asLong(),
                    k.path("minNs").asLong(), k.path("maxNs").asLong(), k.path("p50Ns").asLong(-1),
                    k.path("p99Ns").asLong(-1));
        }
    }

    private static final class RankIdentitySerializer extends StdSerializer<RankIdentity> {
        RankIdentitySerializer() {
            super(RankIdentity.class);
        }

        @Override
        public void serialize(RankIdentity rank, JsonGenerator json, SerializerProvider provider) throws IOException {
            json.writeStartObject();
            json.writeStringField("label", rank.label());
            json.writeStringField("prefix", rank.prefix());
            json.writeStringField("profileId", rank.profileId());
            json.writeNumberField("tp", rank.tp());
            provider.defaultSerializeField("dp", rank.dp(), json);
            provider.defaultSerializeField("pp", rank.pp(), json);
            provider.defaultSerializeField("ep", rank.ep(), json);
            json.writeStringField("stage", rank.stage().orElse(null));
            json.writeEndObject();
        }
    }

    private static final class RankIdentityDeserializer extends StdDeserializer<RankIdentity> {
        RankIdentityDeserializer() {
            super(RankIdentity.class);
        }

        @Override
        public RankIdentity deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            JsonNode r = context.readTree(parser);
            if (!r.path("profileId").isTextual() || !r.path("tp").isInt()) {
                return (RankIdentity) context.handleUnexpectedToken(RankIdentity.class, JsonToken.START_OBJECT, parser,
                        "a rank needs \"profileId\" (string) and \"tp\" (number), got %s", r);
            }
            return new RankIdentity(r.path("prefix").textValue(), r.get("profileId").asText(), r.get("tp").asInt(),
                    optionalInt(r.path("dp")), optionalInt(r.path("pp")), optionalInt(r.path("ep")),
                    Optional.ofNullable(r.path("stage").textValue()));
        }

        private static OptionalInt optionalInt(JsonNode n) {
            return n.isInt() ? OptionalInt.of(n.asInt()) : OptionalInt.empty();
        }
    }

    private static final class TraceSetSerializer extends StdSerializer<TraceSet> {
        TraceSetSerializer() {
            super(TraceSet.class);
        }

        @Override
        public void serialize(TraceSet trace, JsonGenerator json, SerializerProvider provider) throws IOException {
            json.writeStartObject();
            json.writeNumberField("kernelTotalNs", trace.kernelTotalNs());
            json.writeNumberField("busyImbalance", trace.busyImbalance());
            writeStraggler(json, "straggler", trace);
            if (trace.workerImbalance().isPresent()) {
                json.writeNumberField("workerImbalance", trace.workerImbalance().getAsDouble());
            } else {
                json.writeNullField("workerImbalance");
            }
            json.writeArrayFieldStart("rankSets");
            for (Map.Entry<String, TraceSet> set : trace.rankSets().entrySet()) {
                TraceSet ranks = set.getValue();
                json.writeStartObject();
                json.writeStringField("worker", set.getKey());
                json.writeStringField("url",
                        ReportParameters.safeUrl(trace.workerUrls().getOrDefault(set.getKey(), "")));
                json.writeArrayFieldStart("ranks");
                for (TraceSummary t : ranks.traces()) {
                    json.writeString(trace.rankLabel(t));
                }
                json.writeEndArray();
                if (ranks.traces().size() < 2) {
                    json.writeNullField("busyImbalance");
                } else {
                    json.writeNumberField("busyImbalance", ranks.busyImbalance());
                }
                writeStraggler(json, "straggler", ranks);
                json.writeEndObject();
            }
            json.writeEndArray();
            writeStepTimelines(json, trace);
            provider.defaultSerializeField("kernels", trace.kernels(), json);
            json.writeArrayFieldStart("ranks");
            for (TraceSummary t : trace.traces()) {
                ObjectNode rank =
                        MAPPER.valueToTree(new LabeledTrace(t.file().getFileName().toString(), t));
                rank.put("label", trace.rankLabel(t));
                rank.put("worker", trace.worker(t));
                json.writeTree(rank);
            }
            json.writeEndArray();
            json.writeEndObject();
        }

        /** {@code stepTimeline}: one {@link StepTimeline} per rank set that has steps. */
        private static void writeStepTimelines(JsonGenerator json, TraceSet trace) throws IOException {
            json.writeArrayFieldStart("stepTimeline");
            for (Map.Entry<String, TraceSet> set : trace.rankSets().entrySet()) {
                StepTimeline timeline = set.getValue().stepTimeline();
                if (timeline.steps().isEmpty()) {
                    continue;
                }
                json.writeStartObject();
                json.writeStringField("worker", set.getKey());
                json.writeArrayFieldStart("ranks");
                for (String rank : timeline.ranks()) {
                    json.writeString(rank);
                }
                json.writeEndArray();
                json.writeStringField("matching", timeline.matching());
                json.writeNumberField("matchedSteps", timeline.matchedSteps());
                json.writeObjectFieldStart("clockAlignment");
                json.writeStringField("alignedOn", "stepBoundaries");
                json.writeArrayFieldStart("offsetsNs");
                for (long offset : timeline.clockOffsetsNs()) {
                    json.writeNumber(offset);
                }
                json.writeEndArray();
                json.writeStringField("note", timeline.note());
                json.writeEndObject();
                json.writeNumberField("maxGapNs", timeline.maxGapNs());
                json.writeObjectFieldStart("stragglerSteps");
                for (Map.Entry<String, Integer> e : timeline.stragglerCounts().entrySet()) {
                    json.writeNumberField(e.getKey(), e.getValue());
                }
                json.writeEndObject();
                json.writeArrayFieldStart("steps");
                for (StepTimeline.Step step : timeline.steps()) {
                    json.writeStartObject();
                    json.writeNumberField("index", step.index());
                    json.writeStringField("name", step.name());
                    writeLongs(json, "busyNs", step.busyNs());
                    writeLongs(json, "spanNs", step.spanNs());
                    writeLongs(json, "gapNs", step.gapNs());
                    if (step.straggler() < 0) {
                        json.writeNullField("straggler");
                    } else {
                        json.writeStringField("straggler", timeline.ranks().get(step.straggler()));
                    }
                    json.writeEndObject();
                }
                json.writeEndArray();
                json.writeEndObject();
            }
            json.writeEndArray();
        }

        private static void writeLongs(JsonGenerator json, String field, java.util.List<Long> values)
                throws IOException {
            json.writeArrayFieldStart(field);
            for (long v : values) {
                json.writeNumber(v);
            }
            json.writeEndArray();
        }

        /** The straggler's {@link TraceSet#rankLabel label}, null with fewer than two ranks. */
        private static void writeStraggler(JsonGenerator json, String field, TraceSet set) throws IOException {
            Optional<TraceSummary> straggler = set.straggler();
            if (straggler.isPresent()) {
                json.writeStringField(field, set.rankLabel(straggler.get()));
            } else {
                json.writeNullField(field);
            }
        }
    }

    /** {@code summary.json}'s {@code baseline}: {@code file}, then the comparison's fields with its kernels cut. */
    private static final class SummaryBaselineSerializer extends StdSerializer<SummaryFile.Baseline> {
        SummaryBaselineSerializer() {
            super(SummaryFile.Baseline.class);
        }

        @Override
        public void serialize(SummaryFile.Baseline b, JsonGenerator json, SerializerProvider provider)
                throws IOException {
            json.writeStartObject();
            json.writeStringField("file", b.file());
            BaselineDiffSerializer.writeFields(b.diff(), b.kernels(), json, provider);
            json.writeEndObject();
        }
    }

    private static final class BaselineDiffSerializer extends StdSerializer<BaselineDiff> {
        /** Kernels listed per step kind, largest |Δ time per step| first. */
        private static final int STAGE_KERNELS = 10;

        BaselineDiffSerializer() {
            super(BaselineDiff.class);
        }

        @Override
        public void serialize(BaselineDiff diff, JsonGenerator json, SerializerProvider provider) throws IOException {
            json.writeStartObject();
            writeFields(diff, diff.kernels().size(), json, provider);
            json.writeEndObject();
        }

        /** The comparison's fields, its first {@code kernels} kernels listed. */
        static void writeFields(BaselineDiff diff, int kernels, JsonGenerator json, SerializerProvider provider)
                throws IOException {
            json.writeNumberField("baseKernelTotalNs", diff.baseline().kernelTotalNs());
            json.writeNumberField("kernelTotalNs", diff.run().kernelTotalNs());
            json.writeNumberField("kernelTimeChange", diff.kernelTimeChange());
            json.writeNumberField("newKernels", diff.newKernels().size());
            json.writeNumberField("vanishedKernels", diff.vanishedKernels().size());
            provider.defaultSerializeField("kernels", diff.kernels().subList(0, Math.min(kernels,
                    diff.kernels().size())), json);
            if (diff.windowTotalsOnly().isPresent()) {
                json.writeStringField("windowTotalsOnly", diff.windowTotalsOnly().get());
            }
            if (diff.byStage()) {
                json.writeStringField("mix", diff.mix());
                json.writeBooleanField("mixDiffers", diff.mixDiffers());
                json.writeStringField("incomparable", diff.incomparable().orElse(null));
                json.writeNumberField("kernelTimeByStageChange", diff.kernelTimeByStageChange());
                json.writeArrayFieldStart("stages");
                for (StageDelta stage : diff.stages()) {
                    writeStage(stage, json);
                }
                json.writeEndArray();
            }
        }

        private static void writeStage(StageDelta stage, JsonGenerator json) throws IOException {
            boolean both = stage.presence() == StageDelta.Presence.BOTH;
            boolean comparable = stage.comparable();
            json.writeStartObject();
            json.writeStringField("stage", stage.stage().name());
            json.writeNumberField("baseSteps", stage.baseSteps());
            json.writeNumberField("steps", stage.steps());
            writeOptional(json, "baseTokens", stage.baseTokens());
            writeOptional(json, "tokens", stage.tokens());
            writeOptional(json, "baseRequests", stage.baseRequests());
            writeOptional(json, "requests", stage.requests());
            json.writeBooleanField("comparable", comparable);
            json.writeNumberField("baseKernelNs", stage.baseKernelNs());
            json.writeNumberField("kernelNs", stage.kernelNs());
            json.writeStringField("unit", stage.unit());
            if (both) {
                writeChange(json, "kernelTimeChange", stage.kernelTimeChange());
            } else {
                json.writeNullField("kernelTimeChange");
            }
            json.writeArrayFieldStart("kernels");
            for (KernelDelta k : stage.kernels().subList(0, Math.min(STAGE_KERNELS, stage.kernels().size()))) {
                json.writeStartObject();
                json.writeStringField("name", k.name());
                json.writeNumberField("baseNsPerUnit", stage.baseNsPerUnit(k));
                json.writeNumberField("nsPerUnit", stage.nsPerUnit(k));
                if (both) {
                    writeChange(json, "change", stage.change(k));
                } else {
                    json.writeNullField("change");
                }
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        }

        private static void writeOptional(JsonGenerator json, String field, java.util.OptionalLong value)
                throws IOException {
            if (value.isPresent()) {
                json.writeNumberField(field, value.getAsLong());
            } else {
                json.writeNullField(field);
            }
        }

        /** JSON has no infinity: a kernel new in a stage has no finite change (null). */
        private static void writeChange(JsonGenerator json, String field, double change) throws IOException {
            if (Double.isFinite(change)) {
                json.writeNumberField(field, change);
            } else {
                json.writeNullField(field);
            }
        }
    }

    private static final class LatencyReportSerializer extends StdSerializer<LatencyReport> {
        LatencyReportSerializer() {
            super(LatencyReport.class);
        }

        @Override
        public void serialize(LatencyReport latency, JsonGenerator json, SerializerProvider provider)
                throws IOException {
            json.writeStartObject();
            json.writeNumberField("completed", latency.completed());
            json.writeNumberField("failed", latency.failed());
            json.writeNumberField("durationMs", latency.duration().toNanos() / 1e6);
            json.writeNumberField("requestThroughput", latency.requestThroughput());
            json.writeNumberField("outputTokenThroughput", latency.outputTokenThroughput());
            json.writeNumberField("totalTokenThroughput", latency.totalTokenThroughput());
            json.writeNumberField("inputTokens", latency.inputTokens());
            json.writeNumberField("outputTokens", latency.outputTokens());
            if (!latency.slo().isEmpty()) {
                json.writeNumberField("requestGoodput", latency.requestGoodput());
                json.writeNumberField("goodRequests", latency.goodRequests());
                provider.defaultSerializeField("goodput", latency.slo().toPairs(), json);
            }
            json.writeObjectFieldStart("errors");
            for (var error : latency.errors().entrySet()) {
                json.writeNumberField(error.getKey().name(), error.getValue());
            }
            json.writeEndObject();
            provider.defaultSerializeField("ttft", latency.ttft(), json);
            provider.defaultSerializeField("itl", latency.itl(), json);
            provider.defaultSerializeField("tpot", latency.tpot(), json);
            provider.defaultSerializeField("e2e", latency.e2e(), json);
            ScheduleReport schedule = ScheduleReport.of(latency.records());
            provider.defaultSerializeField("scheduleLag", schedule.lag(), json);
            provider.defaultSerializeField("correctedTtft", schedule.correctedTtft(), json);
            provider.defaultSerializeField("correctedE2e", schedule.correctedE2e(), json);
            json.writeBooleanField("clientFellBehind", schedule.clientFellBehind());
            json.writeEndObject();
        }
    }

    private static final class LatencyDistributionSerializer extends StdSerializer<LatencyDistribution> {
        LatencyDistributionSerializer() {
            super(LatencyDistribution.class);
        }

        @Override
        public void serialize(LatencyDistribution d, JsonGenerator json, SerializerProvider provider)
                throws IOException {
            json.writeStartObject();
            json.writeStringField("definition", d.definition());
            json.writeNumberField("count", d.count());
            if (d.count() > 0) {
                json.writeNumberField("meanMs", d.mean().toNanos() / 1e6);
                for (double p : PERCENTILES) {
                    json.writeNumberField("p" + (int) p + "Ms", d.percentile(p).toNanos() / 1e6);
                }
                json.writeNumberField("maxMs", d.max().toNanos() / 1e6);
                for (double p : PERCENTILES) {
                    QuantileInterval ci = d.percentileInterval(p);
                    json.writeFieldName("p" + (int) p + "CiMs");
                    if (ci.low().isEmpty() && ci.high().isEmpty()) {
                        json.writeNull();
                        continue;
                    }
                    json.writeStartArray();
                    writeMsOrNull(json, ci.low());
                    writeMsOrNull(json, ci.high());
                    json.writeEndArray();
                }
            }
            json.writeEndObject();
        }
    }

    private static void writeMsOrNull(JsonGenerator json, Optional<Duration> value)
            throws IOException {
        if (value.isPresent()) {
            json.writeNumber(value.get().toNanos() / 1e6);
        } else {
            json.writeNull();
        }
    }

    /** {@code NaN} (a ratio with a zero denominator) as null. */
    static final class NanAsNull extends StdSerializer<Double> {
        NanAsNull() {
            super(Double.class);
        }

        @Override
        public void serialize(Double value, JsonGenerator json, SerializerProvider provider) throws IOException {
            if (value.isNaN()) {
                json.writeNull();
            } else {
                json.writeNumber(value);
            }
        }
    }

    @JsonPropertyOrder({"kernelTimeNs", "idleNs", "computeNs", "nonComputeNs", "communicationNs", "overlapNs",
            "overlapPercent"})
    private abstract static class TemporalBreakdownMixin {
        @JsonIgnore
        abstract boolean htaCompatible();

        @JsonProperty(value = "overlapPercent", access = JsonProperty.Access.READ_ONLY)
        @JsonSerialize(using = NanAsNull.class)
        abstract double overlapPercent();
    }

    @JsonPropertyOrder({"launches", "launchP50Ns", "launchP99Ns", "delayP50Ns", "delayP99Ns", "graphLaunches",
            "graphLaunchesWithoutKernels", "graphKernels", "graphKernelsMissing", "kernelsWithoutLaunch",
            "kernelNsWithoutCpuOp"})
    private abstract static class LaunchStatsMixin {
        @JsonProperty(value = "graphKernelsMissing", access = JsonProperty.Access.READ_ONLY)
        abstract boolean graphKernelsMissing();
    }

    private abstract static class OperatorRooflineMixin {
        @JsonIgnore
        abstract List<Long> callKernelNs();
    }

    private abstract static class StepStatsMixin {
        @JsonIgnore
        abstract OptionalInt batchSize();

        @JsonIgnore
        abstract OptionalInt tokens();
    }

    @JsonPropertyOrder({"name", "status", "baseCount", "count", "baseTotalNs", "totalNs", "deltaNs"})
    private abstract static class KernelDeltaMixin {
        @JsonProperty(value = "status", access = JsonProperty.Access.READ_ONLY)
        abstract KernelDelta.Status status();

        @JsonProperty(value = "deltaNs", access = JsonProperty.Access.READ_ONLY)
        abstract long deltaNs();
    }

    /** Its getters {@code isRamp}/{@code isClosedLoop} would otherwise come in the JVM's method order, which varies. */
    @JsonPropertyOrder({"requestRate", "burstiness", "rampEndRate", "rampShape", "ramp", "closedLoop"})
    private abstract static class ArrivalProcessMixin {
    }

    @JsonPropertyOrder({"name", "spread", "minNs", "maxNs", "meanNs", "longestOn"})
    private abstract static class KernelSpreadMixin {
        @JsonProperty(value = "spread", access = JsonProperty.Access.READ_ONLY)
        abstract double spread();

        @JsonIgnore
        abstract int maxRank();

        @JsonProperty("longestOn")
        abstract String maxLabel();
    }

    private abstract static class VerdictMixin {
        @JsonProperty(value = "outcome", access = JsonProperty.Access.READ_ONLY)
        abstract Verdict.Outcome outcome();
    }

    /** Fills the fields that older {@code summary.json} files lack with the defaults documented above. */
    private static final class VerdictDeserializer extends StdDeserializer<Verdict> {
        VerdictDeserializer() {
            super(Verdict.class);
        }

        @Override
        public Verdict deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            JsonNode node = parser.readValueAsTree();
            String unit = node.path("unit").asText("");
            double actual = node.path("actual").asDouble(Double.NaN);
            double budget = node.path("budget").asDouble(Double.NaN);
            Verdict.Kind kind;
            String kindName = node.path("kind").asText("");
            try {
                kind = kindName.isEmpty() ? ("ms".equals(unit) ? Verdict.Kind.LATENCY : Verdict.Kind.TRACE)
                        : Verdict.Kind.valueOf(kindName);
            } catch (IllegalArgumentException e) {
                return context.reportInputMismatch(Verdict.class, "unknown verdict kind '%s'; known: %s", kindName,
                        java.util.Arrays.toString(Verdict.Kind.values()));
            }
            JsonNode gap = node.get("gap");
            Double gapValue = gap == null ? Verdict.relativeGap(actual, budget) : gap.isNumber() ? gap.asDouble() : null;
            return new Verdict(kind, node.path("scope").asText(""), node.path("measure").asText(""),
                    node.path("relation").asText(""), actual, budget, unit, node.path("actualText").asText(""),
                    node.path("budgetText").asText(""), gapValue, node.path("detail").asText(""),
                    node.path("passed").asBoolean(false), node.path("enforced").asBoolean(true));
        }
    }
}
