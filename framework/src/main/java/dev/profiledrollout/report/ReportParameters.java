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

    /** @return display name → value of a parsed {@code summary.json}, as {@link #of(RunHeader)} */
    public static Map<String, String> of(JsonNode summary) {
        return of(RunHeader.of(summary));
    }

    /** @return display name → value, in display order; keys whose value is unknown are left out */
    public static Map<String, String> of(RunHeader head) {
        Map<String, String> p = new LinkedHashMap<>();
        RunHeader.Engine engine = head.engine();
        if (engine != null) {
            put(p, "backend", engine.backend());
            put(p, "engine kind", engine.kind());
            if (engine.url() != null) {
                p.put("engine URL", safeUrl(engine.url()));
            }
            put(p, "model", engine.model());
            if (engine.tpSize() != null) {
                p.put("ranks", String.format(Locale.ROOT, "TP %d, DP %d, PP %d, EP %d", engine.tpSize(),
                        orZero(engine.dpSize()), orZero(engine.ppSize()), orZero(engine.epSize())));
            }
        }
        RunHeader.Load load = head.load();
        if (load != null) {
            if (load.inputTokens() != null) {
                p.put("ISL/OSL (tokens)", load.inputTokens() + "/" + orZero(load.outputTokens()));
            }
            Double requestRate = load.arrival() == null ? null : load.arrival().requestRate();
            double rate = requestRate == null ? Double.POSITIVE_INFINITY : requestRate;
            if (load.concurrency() != null) {
                boolean open = Double.isFinite(rate) && rate > 0;
                p.put(open ? "request rate (req/s), max concurrency" : "concurrency",
                        open ? rate + ", " + load.concurrency() : String.valueOf(load.concurrency()));
            }
            put(p, "requests", load.requests());
        }
        RunHeader.ProfileRequest profile = head.profileRequest();
        if (profile != null) {
            p.put("numSteps", profile.numSteps() != null ? String.valueOf(profile.numSteps()) : "until stop_profile");
            if (profile.activities() != null) {
                p.put("activities", String.join(", ", profile.activities()));
            }
        }
        put(p, "phase", head.phase());
        return p;
    }

    private static int orZero(Integer value) {
        return value == null ? 0 : value;
    }

    /** @see SafeUrls#of(String) */
    static String safeUrl(String url) {
        return SafeUrls.of(url);
    }

    private static void put(Map<String, String> p, String key, Object value) {
        if (value != null) {
            p.put(key, String.valueOf(value));
        }
    }
}
