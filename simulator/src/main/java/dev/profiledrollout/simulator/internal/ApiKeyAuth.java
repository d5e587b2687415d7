package dev.profiledrollout.simulator.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * An engine's {@code --api-key} check, with the route scope of each engine:
 *
 * <ul>
 *   <li>SGLang ({@code decide_request_auth} in {@code python/sglang/srt/utils/auth.py}): with only {@code --api-key}
 *       set, every route needs the key except those whose path starts with {@code /health}, {@code /ready} or
 *       {@code /metrics}; the key comes as {@code Authorization: Bearer <key>} (scheme in any case) or as
 *       {@code x-api-key: <key>}. The admin-optional routes ({@code /start_profile}, {@code /stop_profile},
 *       {@code /flush_cache}) need {@code --admin-api-key} when it is set, and then the API key is <em>not</em>
 *       accepted there; every other route keeps needing the API key (the admin key does not open it).</li>
 *   <li>vLLM ({@code AuthenticationMiddleware} in {@code vllm/entrypoints/serve/utils/server_utils.py}): only paths
 *       starting with {@code /v1}, {@code /v2}, {@code /inference} or {@code /cohere} need
 *       {@code Authorization: Bearer <key>}; {@code /health}, {@code /version}, {@code /tokenize} and the profile
 *       routes do not.</li>
 * </ul>
 * Both skip {@code OPTIONS} (CORS preflight) and answer a refused request {@code 401 {"error":"Unauthorized"}}.
 */
final class ApiKeyAuth {

    private static final List<String> SGLANG_OPEN_PREFIXES = List.of("/health", "/ready", "/metrics");
    private static final List<String> VLLM_GUARDED_PREFIXES = List.of("/v1", "/v2", "/inference", "/cohere");

    /** SGLang's {@code AuthLevel.ADMIN_OPTIONAL} routes ({@code python/sglang/srt/entrypoints/http_server.py}). */
    private static final List<String> SGLANG_ADMIN_OPTIONAL = List.of("/start_profile", "/stop_profile",
            "/flush_cache");

    private final byte[] key;
    private final byte[] adminKey;
    private final Predicate<String> guarded;
    private final boolean acceptsXApiKey;

    private ApiKeyAuth(String key, String adminKey, Predicate<String> guarded, boolean acceptsXApiKey) {
        this.key = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
        this.adminKey = adminKey == null ? null : adminKey.getBytes(StandardCharsets.UTF_8);
        this.guarded = guarded;
        this.acceptsXApiKey = acceptsXApiKey;
    }

    /** SGLang's scope; {@code key} null: every request passes. */
    static ApiKeyAuth sglang(String key) {
        return sglang(key, null);
    }

    /** SGLang's scope with both keys; either may be null. */
    static ApiKeyAuth sglang(String key, String adminKey) {
        return new ApiKeyAuth(key, adminKey, path -> SGLANG_OPEN_PREFIXES.stream().noneMatch(path::startsWith),
                true);
    }

    /** vLLM's scope; {@code key} null: every request passes. */
    static ApiKeyAuth vllm(String key) {
        return new ApiKeyAuth(key, null, path -> VLLM_GUARDED_PREFIXES.stream().anyMatch(path::startsWith), false);
    }

    /**
     * Answers 401 and returns false when the exchange needs the key and does not carry it; else returns true and
     * leaves the exchange untouched.
     */
    boolean admit(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        byte[] needed = adminKey != null && SGLANG_ADMIN_OPTIONAL.contains(path) ? adminKey : key;
        if (needed == null || ex.getRequestMethod().equals("OPTIONS") || !guarded.test(path) || carriesKey(ex, needed)) {
            return true;
        }
        Http.body(ex);
        ObjectNode n = Http.MAPPER.createObjectNode();
        n.put("error", "Unauthorized");
        Http.json(ex, 401, n);
        return false;
    }

    private boolean carriesKey(HttpExchange ex, byte[] key) {
        String authorization = ex.getRequestHeaders().getFirst("Authorization");
        if (authorization != null) {
            int space = authorization.indexOf(' ');
            if (space > 0 && authorization.substring(0, space).toLowerCase(Locale.ROOT).equals("bearer")
                    && matches(key, authorization.substring(space + 1))) {
                return true;
            }
        }
        String xApiKey = ex.getRequestHeaders().getFirst("x-api-key");
        return acceptsXApiKey && xApiKey != null && matches(key, xApiKey);
    }

    /** Constant-time, as both engines compare with {@code secrets.compare_digest}. */
    private static boolean matches(byte[] key, String given) {
        return MessageDigest.isEqual(key, given.getBytes(StandardCharsets.UTF_8));
    }
}
