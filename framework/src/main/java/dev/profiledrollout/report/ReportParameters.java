package dev.profiledrollout.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.engine.SafeUrls;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The run parameters a report shows, read from {@code summary.json}: backend, engine kind and URL (without user info
 * or query), model, TP/DP/PP/EP sizes, ISL/OSL, concurrency or request rate, requests, numSteps (when a profile
 * request was sent), activities and phase.
 * The same map becomes the Allure test's parameters and the "Run" table of {@code report.html}.
 */
final class ReportParameters {

    private ReportParameters() {
    }

    /** @return display name → value, in display order; keys whose value is unknown are left out */
    public static Map<String, String> of(JsonNode summary) {
        Map<String, String> p = new LinkedHashMap<>();
        JsonNode engine = summary.path("engine");
        put(p, "backend", engine.path("backend"));
        put(p, "engine kind", engine.path("kind"));
        if (engine.hasNonNull("url")) {
            p.put("engine URL", safeUrl(engine.get("url").asText()));
        }
        put(p, "model", engine.path("model"));
        if (engine.has("tpSize")) {
            p.put("ranks", String.format(Locale.ROOT, "TP %d, DP %d, PP %d, EP %d", engine.path("tpSize").asInt(),
                    engine.path("dpSize").asInt(), engine.path("ppSize").asInt(), engine.path("epSize").asInt()));
        }
        JsonNode load = summary.path("load");
        if (load.has("inputTokens")) {
            p.put("ISL/OSL (tokens)", load.path("inputTokens").asInt() + "/" + load.path("outputTokens").asInt());
        }
        double rate = load.path("arrival").path("requestRate").asDouble(Double.POSITIVE_INFINITY);
        if (load.has("concurrency")) {
            p.put(Double.isFinite(rate) && rate > 0 ? "request rate (req/s), max concurrency" : "concurrency",
                    Double.isFinite(rate) && rate > 0 ? rate + ", " + load.path("concurrency").asInt()
                            : load.path("concurrency").asText());
        }
        put(p, "requests", load.path("requests"));
        JsonNode profile = summary.path("profileRequest");
        if (profile.isObject()) {
            p.put("numSteps", profile.hasNonNull("num_steps") ? profile.get("num_steps").asText()
                    : "until stop_profile");
        }
        if (profile.path("activities").isArray()) {
            StringBuilder a = new StringBuilder();
            profile.get("activities").forEach(x -> a.append(a.length() == 0 ? "" : ", ").append(x.asText()));
            p.put("activities", a.toString());
        }
        put(p, "phase", summary.path("phase"));
        return p;
    }

    /** @see SafeUrls#of(String) */
    static String safeUrl(String url) {
        return SafeUrls.of(url);
    }

    private static void put(Map<String, String> p, String key, JsonNode value) {
        if (!value.isMissingNode() && !value.isNull()) {
            p.put(key, value.asText());
        }
    }
}
