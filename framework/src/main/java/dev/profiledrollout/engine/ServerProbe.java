package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.util.Optional;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.apiguardian.api.API;

/**
 * What kind of server answers at a URL, from the routes only that kind serves ({@code docs/PROTOCOLS.md}): a router's
 * {@code GET /workers} (or the legacy {@code GET /list_workers}), vLLM's {@code GET /version} without SGLang's
 * {@code GET /server_info}, SGLang's {@code GET /server_info} with its server arguments. Each probe is one or two
 * {@code GET}s; an answer other than the telling one (an error status, a network failure, a body that is not the
 * expected JSON) proves nothing and yields empty.
 */
@API(status = INTERNAL, since = "0.1")
public final class ServerProbe {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ServerProbe() {
    }

    /**
     * @param http a client carrying the server's API key, if any
     * @return the route that answered like a router ({@code "GET /workers"} with a {@code workers} array, or
     *         {@code "GET /list_workers"} with {@code urls}), or empty
     */
    public static Optional<String> routerRoute(OkHttpClient http, URI url) {
        if (get(http, url, "/workers").map(w -> w.path("workers").isArray()).orElse(false)) {
            return Optional.of("GET /workers");
        }
        if (get(http, url, "/list_workers").map(w -> w.path("urls").isArray()).orElse(false)) {
            return Optional.of("GET /list_workers");
        }
        return Optional.empty();
    }

    /**
     * @return vLLM's version when the server has no {@code GET /server_info} (404) but answers {@code GET /version}
     *         with one, as vLLM does; else empty
     */
    public static Optional<String> vllmVersion(OkHttpClient http, URI url) {
        if (status(http, url, "/server_info") != 404) {
            return Optional.empty();
        }
        return get(http, url, "/version").map(v -> v.path("version")).filter(JsonNode::isTextual)
                .map(JsonNode::asText);
    }

    /**
     * @return SGLang's {@code GET /server_info} answer when it holds SGLang's server arguments ({@code tp_size} or
     *         {@code model_path}); vLLM serves that route only in its development mode, as
     *         {@code {"vllm_config": …}} (vllm-project/vllm {@code vllm/entrypoints/openai/api_server.py}), which
     *         does not count
     */
    public static Optional<JsonNode> sglangServerInfo(OkHttpClient http, URI url) {
        return get(http, url, "/server_info").filter(JsonNode::isObject).filter(info -> !info.has("vllm_config"))
                .filter(info -> info.has("tp_size") || info.has("model_path"));
    }

    /** @return the JSON of a 200 answer, else empty */
    private static Optional<JsonNode> get(OkHttpClient http, URI url, String path) {
        try (Response response = http.newCall(new Request.Builder().url(EngineHttp.resolve(url, path).toString())
                .get().build()).execute()) {
            if (response.code() != 200 || response.body() == null) {
                return Optional.empty();
            }
            return Optional.of(JSON.readTree(response.body().string()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** @return the status of {@code GET path}, or -1 when there was no answer */
    private static int status(OkHttpClient http, URI url, String path) {
        try (Response response = http.newCall(new Request.Builder().url(EngineHttp.resolve(url, path).toString())
                .get().build()).execute()) {
            return response.code();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
