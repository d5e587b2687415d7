package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.ProfiledRolloutKeys;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * Discovers the workers behind an sgl-model-gateway or vllm-router ({@code docs/PROTOCOLS.md} §3). Neither router
 * forwards {@code /start_profile}, so profiling a routed deployment means listing the workers and calling each one
 * ({@link FanOut}).
 *
 * <p>{@link #workers()} reads {@code GET /workers} ({@code {"workers":[{url, worker_type, is_healthy, load, model_id,
 * …}], …}}, both routers' shape); when that route answers 404 it falls back to the legacy
 * {@code GET /list_workers} ({@code {"urls":[…]}}, sgl-router before 2025-10 and vllm-router). DP-aware worker URLs
 * ({@code http://host:port@<dp_rank>}) are stripped of {@code @N} and merged: one server, one profile call.
 *
 * <p>Thread-safe. Does not own the OkHttp client it is given.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class RouterClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern DP_SUFFIX = Pattern.compile("@\\d+$");

    private final URI routerUri;
    private final OkHttpClient http;

    /**
     * @param routerUri the router root, e.g. {@code http://10.0.0.1:30000}; not null
     * @param http      the client to call it with (carries the API key when the router validates one); not null
     */
    public RouterClient(URI routerUri, OkHttpClient http) {
        this.routerUri = Objects.requireNonNull(routerUri, "routerUri");
        this.http = Objects.requireNonNull(http, "http");
    }

    /** @return the router root */
    public URI routerUri() {
        return routerUri;
    }

    /**
     * @return the distinct workers in router order, {@code @N} stripped; may be empty
     * @throws EngineException when neither {@code /workers} nor {@code /list_workers} answers a usable list
     */
    public List<Worker> workers() {
        URI uri = EngineHttp.resolve(routerUri, "/workers");
        JsonNode root = get(uri, true);
        if (root == null) {
            URI legacy = EngineHttp.resolve(routerUri, "/list_workers");
            JsonNode urls = get(legacy, false).path("urls");
            if (!urls.isArray()) {
                throw new EngineException("GET " + legacy + " returned no \"urls\" array; is " + routerUri
                        + " an sgl-model-gateway or vllm-router?", legacy, 200, "", null);
            }
            Map<String, Worker> merged = new LinkedHashMap<>();
            urls.forEach(u -> merge(merged, new Worker(URI.create(strip(u.asText())), "regular", true, 0, null)));
            return List.copyOf(merged.values());
        }
        JsonNode list = root.path("workers");
        if (!list.isArray()) {
            throw new EngineException("GET " + uri + " returned no \"workers\" array; is " + routerUri
                    + " an sgl-model-gateway or vllm-router?", uri, 200, EngineHttp.truncate(root.toString()), null);
        }
        Map<String, Worker> merged = new LinkedHashMap<>();
        for (JsonNode w : list) {
            String url = w.path("url").asText("");
            if (url.isEmpty()) {
                continue;
            }
            merge(merged, new Worker(URI.create(strip(url)),
                    w.path("worker_type").asText("regular").toLowerCase(Locale.ROOT),
                    w.path("is_healthy").asBoolean(true),
                    w.path("load").asLong(0),
                    w.path("model_id").isTextual() ? w.path("model_id").asText() : null));
        }
        return List.copyOf(merged.values());
    }

    /** Strips the DP-aware {@code @<dp_rank>} suffix and trailing slashes: {@code http://h:1@3} → {@code http://h:1}. */
    static String strip(String url) {
        String stripped = DP_SUFFIX.matcher(url.trim()).replaceFirst("");
        while (stripped.endsWith("/")) {
            stripped = stripped.substring(0, stripped.length() - 1);
        }
        return stripped;
    }

    private static void merge(Map<String, Worker> merged, Worker w) {
        merged.merge(w.url().toString(), w, (a, b) -> new Worker(a.url(), a.workerType(),
                a.healthy() && b.healthy(), a.load() + b.load(), a.modelId() != null ? a.modelId() : b.modelId()));
    }

    /** @return the JSON answer, or null on 404 when {@code nullOn404} */
    private JsonNode get(URI uri, boolean nullOn404) {
        try (Response response = http.newCall(new Request.Builder().url(uri.toString()).get().build()).execute()) {
            if (response.code() == 404 && nullOn404) {
                return null;
            }
            if (response.code() != 200) {
                String body = EngineHttp.snippet(response);
                String fix = response.code() == 401
                        ? "the router validates API keys; set " + ProfiledRolloutKeys.API_KEY
                        : "is " + routerUri + " an sgl-model-gateway or vllm-router?";
                throw new EngineException("Router at " + routerUri + " answered " + response.code() + " to GET "
                        + uri.getPath() + ": " + fix + EngineHttp.bodySuffix(body), uri, response.code(), body, null);
            }
            String body = response.body().string();
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new EngineException("GET " + uri + " returned a body that is not JSON", uri, 200,
                        EngineHttp.truncate(body), e);
            }
        } catch (IOException e) {
            throw new EngineException("GET " + uri + " failed: " + e + ". Check " + ProfiledRolloutKeys.ROUTER_URL
                    + " and that the router is running.", uri, -1, "", e);
        }
    }
}
