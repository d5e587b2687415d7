package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.ROUTER_URL;
import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.Backend;
import java.io.IOException;
import java.net.URI;
import java.util.Optional;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.apiguardian.api.API;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * Recognises an attached URL that points at the wrong kind of server, once it answers {@code /health} and before any
 * profile call, so the test fails with the key to change instead of a 404 from {@code /start_profile}:
 * <ul>
 *   <li>a router (sgl-model-gateway or vllm-router) given as an engine: it answers {@code GET /workers} with a
 *       {@code workers} array (or the legacy {@code GET /list_workers} with {@code urls}), which no engine serves;</li>
 *   <li>vLLM where the test says SGLang: no {@code GET /server_info} (404) but a {@code GET /version};</li>
 *   <li>SGLang where the test says vLLM: {@code GET /server_info} answers SGLang's server arguments
 *       ({@code tp_size}, {@code model_path}); vLLM serves that route only in its development mode, and then as
 *       {@code {"vllm_config": …}} (vllm-project/vllm {@code vllm/entrypoints/openai/api_server.py}).</li>
 * </ul>
 * A probe that fails for any other reason (an API key, a network error) proves nothing and is ignored: the usual
 * calls report it.
 */
@API(status = INTERNAL, since = "0.1")
public final class TargetCheck {

    private static final ObjectMapper JSON = new ObjectMapper();

    private TargetCheck() {
    }

    /**
     * @param http   a client of the engine (with its API key)
     * @param url    the URL configured as an engine
     * @param source the key that named it, e.g. {@code profiledrollout.engine.url}
     * @throws ExtensionConfigurationException when {@code url} answers like a router
     */
    public static void notARouter(OkHttpClient http, URI url, String source) {
        Optional<JsonNode> workers = get(http, url, "/workers");
        boolean router = workers.map(w -> w.path("workers").isArray()).orElse(false);
        String route = "GET /workers";
        if (!router) {
            router = get(http, url, "/list_workers").map(w -> w.path("urls").isArray()).orElse(false);
            route = "GET /list_workers";
        }
        if (router) {
            throw new ExtensionConfigurationException(url + " (" + source + ") answers " + route + " like a router"
                    + " (sgl-model-gateway or vllm-router), not like an engine: a router has no /start_profile, and"
                    + " only its workers write traces. Set " + ROUTER_URL + "=" + url + " instead of " + source
                    + ", so that every worker it lists is profiled and the load goes through it");
        }
    }

    /**
     * @param http    a client of the engine (with its API key)
     * @param url     the engine
     * @param source  the key that named it (or the router's {@code GET /workers})
     * @param backend the backend the test declares
     * @throws ExtensionConfigurationException when the engine answers like the other backend
     */
    public static void backendMatches(OkHttpClient http, URI url, String source, Backend backend) {
        if (backend == Backend.SGLANG) {
            if (status(http, url, "/server_info") != 404) {
                return;
            }
            Optional<String> version = get(http, url, "/version").map(v -> v.path("version"))
                    .filter(JsonNode::isTextual).map(JsonNode::asText);
            if (version.isPresent()) {
                throw new ExtensionConfigurationException(url + " (" + source + ") answers like vLLM (GET /version"
                        + " is \"" + version.get() + "\" and there is no GET /server_info), but the test declares"
                        + " @ProfiledRollout(backend = SGLANG). Set backend = VLLM (and configure its capture:"
                        + " profiledrollout.trace.dir, docs/USER-GUIDE.md), or point " + source
                        + " at the SGLang server");
            }
        } else if (backend == Backend.VLLM) {
            Optional<JsonNode> info = get(http, url, "/server_info").filter(JsonNode::isObject);
            if (info.isPresent() && !info.get().has("vllm_config")
                    && (info.get().has("tp_size") || info.get().has("model_path"))) {
                throw new ExtensionConfigurationException(url + " (" + source + ") answers GET /server_info like"
                        + " SGLang (tp_size " + info.get().path("tp_size").asText("?") + ", model_path "
                        + info.get().path("model_path").asText("?") + "), but the test declares"
                        + " @ProfiledRollout(backend = VLLM). Set backend = SGLANG, or point " + source
                        + " at the vLLM server");
            }
        }
    }

    /** @return the JSON of a 200 answer, else empty */
    private static Optional<JsonNode> get(OkHttpClient http, URI url, String path) {
        try (Response response = http.newCall(new Request.Builder().url(resolve(url, path)).get().build())
                .execute()) {
            if (response.code() != 200 || response.body() == null) {
                return Optional.empty();
            }
            return Optional.of(JSON.readTree(response.body().string()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static String resolve(URI base, String path) {
        return base.toString().replaceAll("/+$", "") + path;
    }

    /** @return the status of {@code GET path}, or -1 when there was no answer */
    private static int status(OkHttpClient http, URI url, String path) {
        try (Response response = http.newCall(new Request.Builder().url(resolve(url, path)).get().build())
                .execute()) {
            return response.code();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
