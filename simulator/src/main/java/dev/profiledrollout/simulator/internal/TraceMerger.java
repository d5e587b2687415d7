package dev.profiledrollout.simulator.internal;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * SGLang's {@code merge_profiles} ({@code python/sglang/srt/utils/profile_merger.py}, {@code docs/PROTOCOLS.md} §1.4):
 * merges {@code {profile_id}-TP-{tp}*.trace.json.gz} into {@code merged-{profile_id}.trace.json.gz}, every event's
 * {@code pid} turned into the string {@code "[TPnn] <pid>"}, {@code traceEvents} and {@code deviceProperties}
 * concatenated, other top-level keys from the first file. Streams events one at a time; {@code ts} text is kept
 * exact.
 */
final class TraceMerger {

    private static final System.Logger LOG = System.getLogger(TraceMerger.class.getName());
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN)
            .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));

    private TraceMerger() {
    }

    /** Merges the rank files of {@code profileId} in {@code dir}; logs and returns when none are found. */
    static void merge(Path dir, String profileId, int tpSize) throws IOException {
        List<Path> inputs = new ArrayList<>();
        for (int tp = 0; tp < tpSize; tp++) {
            Path p = dir.resolve(profileId + "-TP-" + tp + ".trace.json.gz");
            if (Files.exists(p)) {
                inputs.add(p);
            }
        }
        if (inputs.isEmpty()) {
            LOG.log(System.Logger.Level.ERROR, "merge_profiles: No trace files found for " + profileId + " in " + dir);
            return;
        }
        List<JsonNode> devices = new ArrayList<>();
        for (Path p : inputs) {
            try (JsonParser parser = open(p)) {
                if (seekField(parser, "deviceProperties")) {
                    JsonNode node = MAPPER.readTree(parser);
                    node.forEach(devices::add);
                }
            }
        }
        Path out = dir.resolve("merged-" + profileId + ".trace.json.gz");
        Path tmp = dir.resolve(".merged-" + profileId + ".trace.json.gz.tmp");
        try (OutputStream os = new GZIPOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp)), 1 << 16);
             JsonGenerator g = MAPPER.getFactory().createGenerator(os, JsonEncoding.UTF8)) {
            g.setCodec(MAPPER);
            g.writeStartObject();
            try (JsonParser first = open(inputs.get(0))) {
                first.nextToken();
                while (first.nextToken() == JsonToken.FIELD_NAME) {
                    String field = first.getCurrentName();
                    first.nextToken();
                    if (field.equals("traceEvents")) {
                        break;
                    }
                    g.writeFieldName(field);
                    if (field.equals("deviceProperties")) {
                        first.skipChildren();
                        g.writeStartArray();
                        for (JsonNode d : devices) {
                            g.writeTree(d);
                        }
                        g.writeEndArray();
                    } else {
                        g.writeTree(MAPPER.readTree(first));
                    }
                }
            }
            g.writeArrayFieldStart("traceEvents");
            for (Path p : inputs) {
                String label = "[TP" + String.format(Locale.ROOT, "%02d", rankOf(p)) + "] ";
                int tp = rankOf(p);
                try (JsonParser parser = open(p)) {
                    if (!seekField(parser, "traceEvents")) {
                        continue;
                    }
                    while (parser.nextToken() == JsonToken.START_OBJECT) {
                        ObjectNode event = MAPPER.readTree(parser);
                        JsonNode pid = event.get("pid");
                        if (pid != null) {
                            if ("process_sort_index".equals(event.path("name").asText()) && pid.isNumber()
                                    && pid.asLong() < 1000) {
                                ((ObjectNode) event.with("args")).put("sort_index", pid.asLong() + tp * 100L);
                            }
                            event.put("pid", label + pid.asText());
                        }
                        g.writeTree(event);
                    }
                }
            }
            g.writeEndArray();
            g.writeStringField("traceName", out.toString());
            g.writeEndObject();
        }
        Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static int rankOf(Path p) {
        String n = p.getFileName().toString();
        int i = n.lastIndexOf("-TP-") + 4;
        int j = i;
        while (j < n.length() && Character.isDigit(n.charAt(j))) {
            j++;
        }
        return Integer.parseInt(n.substring(i, j));
    }

    private static JsonParser open(Path p) throws IOException {
        InputStream in = new GZIPInputStream(new BufferedInputStream(Files.newInputStream(p)), 1 << 16);
        return MAPPER.getFactory().createParser(in);
    }

    /** Advances to the value of a top-level field; false if absent. */
    private static boolean seekField(JsonParser parser, String name) throws IOException {
        if (parser.nextToken() != JsonToken.START_OBJECT) {
            return false;
        }
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.getCurrentName();
            parser.nextToken();
            if (field.equals(name)) {
                return true;
            }
            parser.skipChildren();
        }
        return false;
    }
}
