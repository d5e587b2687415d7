package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apiguardian.api.API;

/**
 * A parsed {@code /start_profile} body, validated the way SGLang's pydantic {@code ProfileReq} does
 * ({@code docs/PROTOCOLS.md} §1.1): absent body = defaults, unknown keys ignored, numeric strings coerced to int,
 * {@code null} means "not given", any other type mismatch is a {@link BadRequest}. The fields are those of current
 * SGLang's {@code ProfileReq} ({@code python/sglang/srt/managers/io_struct.py}).
 *
 * @param activities    upper-case, unknown values dropped; default {@code [CPU, GPU]}
 * @param profileStages {@code profile_stages}, or null; only SGLang's profiler V2 ({@code SGLANG_PROFILE_V2=1})
 *                      reads it, so the simulator, which models V1, checks its type and ignores it
 * @param shapeDiscovery {@code shape_discovery}: Triton / FlashInfer kernel metadata with {@code record_shapes};
 *                      type-checked and ignored (the simulator's kernels carry no such metadata)
 */
@API(status = INTERNAL, since = "0.1")
public record ProfileRequest(String outputDir, Long startStep, Long numSteps, Set<String> activities,
                             boolean profileByStage, boolean withStack, boolean recordShapes, String profileId,
                             boolean mergeProfiles, String profilePrefix, List<String> profileStages,
                             boolean shapeDiscovery) {

    /** Activities SGLang recognises; others are silently dropped ({@code docs/PROTOCOLS.md} §1.3). */
    public static final Set<String> KNOWN_ACTIVITIES = Set.of("CPU", "GPU", "XPU", "MEM", "CUDA_PROFILER", "RPD");

    /** A body field of the wrong type; answered with 400. */
    public static final class BadRequest extends Exception {
        public BadRequest(String message) {
            super(message);
        }
    }

    /** True when the activities start a torch or RPD trace, which writes {@code .trace.json.gz} files. */
    public boolean writesTrace() {
        return activities.contains("CPU") || activities.contains("GPU") || activities.contains("XPU")
                || activities.contains("RPD");
    }

    /** True when the activities start anything at all (a trace, MEM history or the CUDA profiler range). */
    public boolean startsAnything() {
        return writesTrace() || activities.contains("MEM") || activities.contains("CUDA_PROFILER");
    }

    /**
     * Parses a request body.
     *
     * @param body raw bytes, possibly empty
     * @throws BadRequest on malformed JSON, a non-object body or a mistyped field
     */
    public static ProfileRequest parse(byte[] body, ObjectMapper mapper) throws BadRequest {
        JsonNode root;
        if (body == null || new String(body, java.nio.charset.StandardCharsets.UTF_8).isBlank()) {
            root = mapper.createObjectNode();
        } else {
            try {
                root = mapper.readTree(body);
            } catch (IOException e) {
                throw new BadRequest("Invalid JSON body: " + e.getMessage());
            }
            if (root == null || root.isNull()) {
                root = mapper.createObjectNode();
            }
            if (!root.isObject()) {
                throw new BadRequest("Input should be a valid dictionary or object to extract fields from");
            }
        }
        List<String> activities = stringList(root, "activities");
        Set<String> acts = new LinkedHashSet<>();
        for (String a : activities == null ? List.of("CPU", "GPU") : activities) {
            String up = a.toUpperCase(Locale.ROOT);
            if (KNOWN_ACTIVITIES.contains(up)) {
                acts.add(up);
            }
        }
        Boolean withStack = bool(root, "with_stack");
        Boolean recordShapes = bool(root, "record_shapes");
        Boolean byStage = bool(root, "profile_by_stage");
        Boolean merge = bool(root, "merge_profiles");
        List<String> stages = stringList(root, "profile_stages");
        Boolean shapeDiscovery = bool(root, "shape_discovery");
        return new ProfileRequest(string(root, "output_dir"), integer(root, "start_step"), integer(root, "num_steps"),
                Set.copyOf(acts), Boolean.TRUE.equals(byStage), withStack == null || withStack,
                recordShapes == null || recordShapes, string(root, "profile_id"), Boolean.TRUE.equals(merge),
                string(root, "profile_prefix"), stages == null ? null : List.copyOf(stages),
                Boolean.TRUE.equals(shapeDiscovery));
    }

    private static String string(JsonNode root, String field) throws BadRequest {
        JsonNode n = root.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isTextual()) {
            throw new BadRequest(field + ": Input should be a valid string");
        }
        return n.asText();
    }

    private static Long integer(JsonNode root, String field) throws BadRequest {
        JsonNode n = root.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (n.isIntegralNumber()) {
            return n.asLong();
        }
        if (n.isFloatingPointNumber() && n.asDouble() == Math.rint(n.asDouble())) {
            return (long) n.asDouble();
        }
        if (n.isTextual()) {
            try {
                return Long.parseLong(n.asText().trim());
            } catch (NumberFormatException e) {
                throw new BadRequest(field + ": Input should be a valid integer, unable to parse string as an integer");
            }
        }
        throw new BadRequest(field + ": Input should be a valid integer");
    }

    private static Boolean bool(JsonNode root, String field) throws BadRequest {
        JsonNode n = root.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (n.isBoolean()) {
            return n.asBoolean();
        }
        if (n.isIntegralNumber() && (n.asLong() == 0 || n.asLong() == 1)) {
            return n.asLong() == 1;
        }
        if (n.isTextual()) {
            switch (n.asText().trim().toLowerCase(Locale.ROOT)) {
                case "true", "1", "yes", "on", "t", "y":
                    return true;
                case "false", "0", "no", "off", "f", "n":
                    return false;
                default:
                    break;
            }
        }
        throw new BadRequest(field + ": Input should be a valid boolean");
    }

    private static List<String> stringList(JsonNode root, String field) throws BadRequest {
        JsonNode n = root.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isArray()) {
            throw new BadRequest(field + ": Input should be a valid list");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode e : n) {
            if (!e.isTextual()) {
                throw new BadRequest(field + ": Input should be a valid string");
            }
            out.add(e.asText());
        }
        return out;
    }
}
