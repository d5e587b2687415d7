package dev.profiledrollout.simulator.internal;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
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
 * merges {@code {profile_id}*.trace.json.gz} into {@code merged-{profile_id}.trace.json.gz}, every event's
 * {@code pid} turned into the string {@code "[TPnn] <pid>"} ({@code "[TPnn-DPmm] <pid>"} with a DP part),
 * {@code traceEvents} and {@code deviceProperties}
 * concatenated, other top-level keys from the first file. Streams events one at a time; {@code ts} text is kept
 * exact.
 */
final class TraceMerger {

    private static final System.Logger LOG = System.getLogger(TraceMerger.class.getName());
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES).build();

    private TraceMerger() {
    }

    /**
     * Merges the rank files of {@code profileId} in {@code dir} ({@code {profileId}*.trace.json.gz} with a
     * {@code TP-} part, other than the merged file), ordered by DP, PP, TP; logs and returns when none are found.
     */
    static void merge(Path dir, String profileId) throws IOException {
        List<Path> inputs = new ArrayList<>();
        String merged = "merged-" + profileId + ".trace.json.gz";
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            files.filter(p -> {
                String n = p.getFileName().toString();
                return n.startsWith(profileId) && n.endsWith(".trace.json.gz") && n.contains("TP-")
                        && !n.equals(merged);
            }).forEach(inputs::add);
        }
        inputs.sort(java.util.Comparator.comparingInt((Path p) -> rankOf(p, "DP")).thenComparingInt(p -> rankOf(p, "PP"))
                .thenComparingInt(p -> rankOf(p, "TP")));
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
                    String field = first.currentName();
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
                int tp = rankOf(p, "TP");
                int dp = rankOf(p, "DP");
                String label = "[TP" + String.format(Locale.ROOT, "%02d", tp)
                        + (dp >= 0 ? String.format(Locale.ROOT, "-DP%02d", dp) : "") + "] ";
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
                                event.withObjectProperty("args").put("sort_index",
                                        pid.asLong() + tp * 100L + Math.max(dp, 0) * 100_000_000L);
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

    /** The number after {@code -<kind>-} in the file name, or -1 when the name has none. */
    private static int rankOf(Path p, String kind) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?:^|-)" + kind + "-(\\d+)")
                .matcher(p.getFileName().toString());
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
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
            String field = parser.currentName();
            parser.nextToken();
            if (field.equals(name)) {
                return true;
            }
            parser.skipChildren();
        }
        return false;
    }
}
