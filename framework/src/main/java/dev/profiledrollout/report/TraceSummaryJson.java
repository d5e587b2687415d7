package dev.profiledrollout.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.KernelCategories;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.RankIdentity;
import dev.profiledrollout.trace.TraceSummary;

import java.io.IOException;
import java.util.OptionalInt;

/**
 * Writes one {@link TraceSummary} as JSON: an element of {@code analyze --format json}'s {@code "traces"} array and
 * of {@code summary.json}'s {@code trace.ranks}, so both tools speak one shape.
 *
 * <p>The field names are a contract: later versions add fields but never rename or remove these.
 * All times are ns; kernels are all of them, sorted by {@code totalNs} descending.
 *
 * <p>Added fields (issue 5): per kernel {@code p50Ns}, {@code p99Ns} (−1 when unknown) and {@code category}; then
 * the {@link TraceDetailsJson} fields {@code distributedRank}, {@code categories}, {@code temporal},
 * {@code idleGaps}, {@code stages}, {@code steps}, {@code launches}, {@code operators}.
 */
public final class TraceSummaryJson {

    private TraceSummaryJson() {
    }

    /** Writes {@code summary} as an object at the generator's current position, naming it {@code fileLabel}. */
    public static void write(JsonGenerator json, String fileLabel, TraceSummary summary) throws IOException {
        json.writeStartObject();
        json.writeStringField("file", fileLabel);
        json.writeNumberField("kernelEvents", summary.kernelEvents());
        json.writeNumberField("memoryEvents", summary.memoryEvents());
        json.writeNumberField("distinctKernels", summary.distinctKernels());
        json.writeNumberField("kernelTotalNs", summary.kernelTotalNs());
        json.writeArrayFieldStart("devices");
        for (DeviceStats device : summary.devices()) {
            json.writeStartObject();
            json.writeStringField("id", device.id());
            json.writeNumberField("busyNs", device.busyNs());
            json.writeNumberField("spanNs", device.spanNs());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeArrayFieldStart("kernels");
        for (KernelStats kernel : summary.kernels()) {
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
        json.writeEndArray();
        json.writeFieldName("rank");
        if (summary.rank().isPresent()) {
            writeRank(json, summary.rank().get());
        } else {
            json.writeNull();
        }
        json.writeArrayFieldStart("warnings");
        for (String warning : summary.warnings()) {
            json.writeString(warning);
        }
        json.writeEndArray();
        TraceDetailsJson.write(json, summary.details());
        json.writeEndObject();
    }

    private static void writeRank(JsonGenerator json, RankIdentity rank) throws IOException {
        json.writeStartObject();
        json.writeStringField("label", rank.label());
        json.writeStringField("prefix", rank.prefix());
        json.writeStringField("profileId", rank.profileId());
        json.writeNumberField("tp", rank.tp());
        writeOptional(json, "dp", rank.dp());
        writeOptional(json, "pp", rank.pp());
        writeOptional(json, "ep", rank.ep());
        json.writeStringField("stage", rank.stage().orElse(null));
        json.writeEndObject();
    }

    private static void writeOptional(JsonGenerator json, String field, OptionalInt value) throws IOException {
        json.writeFieldName(field);
        if (value.isPresent()) {
            json.writeNumber(value.getAsInt());
        } else {
            json.writeNull();
        }
    }
}
