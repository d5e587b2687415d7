package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.files.RankIdentity;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The JSON shape of one {@link LabeledTrace}: an element of {@code analyze --format json}'s {@code "traces"} array and
 * of {@code summary.json}'s {@code trace.ranks}, so both tools speak one shape. {@link ResultsModule} writes and reads
 * it with the serializer and deserializer here.
 *
 * <p>{@code {"file", "kernelEvents", "memoryEvents", "distinctKernels", "kernelTotalNs",
 * "devices":[{"id","busyNs","spanNs"}], "kernels":[{"name","count","totalNs","minNs","maxNs","meanNs","p50Ns","p99Ns",
 * "category"}], "rank":{"label","prefix","profileId","tp","dp","pp","ep","stage"} or null, "warnings":[text]}}
 * followed by the {@link TraceDetailsJson} fields {@code distributedRank}, {@code categories}, {@code temporal},
 * {@code gpuTimeline}, {@code idleGaps}, {@code stages}, {@code steps}, {@code launches}, {@code operators}.
 *
 * <p>The field names are a contract: later versions add fields but never rename or remove these.
 * All times are ns; kernels are all of them, sorted by {@code totalNs} descending; per kernel {@code p50Ns} and
 * {@code p99Ns} are −1 when unknown.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class TraceSummaryJson {

    private TraceSummaryJson() {
    }

    /**
     * Writes {@code summary} as an object at the generator's current position, naming it {@code fileLabel}; the same
     * as writing {@code new LabeledTrace(fileLabel, summary)} with a {@link ResultsModule} mapper.
     */
    public static void write(JsonGenerator json, String fileLabel, TraceSummary summary) throws IOException {
        ResultsModule.MAPPER.writeValue(json, new LabeledTrace(fileLabel, summary));
    }

    static final class Serializer extends StdSerializer<LabeledTrace> {
        Serializer() {
            super(LabeledTrace.class);
        }

        @Override
        public void serialize(LabeledTrace labeled, JsonGenerator json, SerializerProvider provider)
                throws IOException {
            TraceSummary summary = labeled.summary();
            json.writeStartObject();
            json.writeStringField("file", labeled.file());
            json.writeNumberField("kernelEvents", summary.kernelEvents());
            json.writeNumberField("memoryEvents", summary.memoryEvents());
            json.writeNumberField("distinctKernels", summary.distinctKernels());
            json.writeNumberField("kernelTotalNs", summary.kernelTotalNs());
            provider.defaultSerializeField("devices", summary.devices(), json);
            provider.defaultSerializeField("kernels", summary.kernels(), json);
            provider.defaultSerializeField("rank", summary.rank().orElse(null), json);
            provider.defaultSerializeField("warnings", summary.warnings(), json);
            TraceDetailsJson.writeFields(summary.details(), json, provider);
            json.writeEndObject();
        }
    }

    static final class Deserializer extends StdDeserializer<LabeledTrace> {
        Deserializer() {
            super(LabeledTrace.class);
        }

        @Override
        public LabeledTrace deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            JsonNode t = context.readTree(parser);
            if (!t.path("file").isTextual()) {
                return (LabeledTrace) context.handleUnexpectedToken(LabeledTrace.class, JsonToken.START_OBJECT, parser,
                        "a trace summary needs a \"file\" string, got fields %s", fieldNames(t));
            }
            String file = t.get("file").asText();
            Path path;
            try {
                path = Path.of(file);
            } catch (InvalidPathException e) {
                return (LabeledTrace) context.handleWeirdStringValue(LabeledTrace.class, file,
                        "the trace summary's \"file\" is not a path here: %s", e.getMessage());
            }
            JsonNode rank = t.path("rank");
            TraceSummary summary = new TraceSummary(path,
                    rank.isObject() ? Optional.of(context.readTreeAsValue(rank, RankIdentity.class)) : Optional.empty(),
                    t.path("kernelEvents").asLong(), t.path("memoryEvents").asLong(),
                    t.path("distinctKernels").asInt(), t.path("kernelTotalNs").asLong(),
                    list(t.path("devices"), DeviceStats.class, context), list(t.path("kernels"), KernelStats.class,
                    context), list(t.path("warnings"), String.class, context),
                    TraceDetailsJson.readFields(t, context));
            return new LabeledTrace(file, summary);
        }
    }

    /** The elements of an array node as {@code type}; empty for a missing or null node. */
    static <T> List<T> list(JsonNode array, Class<T> type, DeserializationContext context) throws IOException {
        if (array.isMissingNode() || array.isNull()) {
            return List.of();
        }
        return context.readTreeAsValue(array, context.getTypeFactory().constructCollectionType(List.class, type));
    }

    private static List<String> fieldNames(JsonNode node) {
        return node.properties().stream().map(java.util.Map.Entry::getKey).toList();
    }
}
