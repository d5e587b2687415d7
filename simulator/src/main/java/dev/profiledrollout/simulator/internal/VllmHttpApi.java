package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.profiledrollout.simulator.SimulatorConfig;

import java.io.IOException;
import org.apiguardian.api.API;

/**
 * Routes vLLM's OpenAI-compatible server API ({@code docs/PROTOCOLS.md} §2.1, §2.5;
 * {@code vllm/entrypoints/openai/api_server.py}, {@code vllm/entrypoints/serve/profile/api_router.py}) to the scheduler
 * and the {@link VllmProfiler}. The profile routes exist only with a profiler config; otherwise, like every unknown
 * path, they answer {@code 404 {"detail":"Not Found"}}.
 */
@API(status = INTERNAL, since = "0.1")
public final class VllmHttpApi extends EngineApi {

    /** The version {@code /version} reports. */
    public static final String VERSION = "0.16.0+simulator";
    private static final System.Logger LOG = System.getLogger(VllmHttpApi.class.getName());
    private static final int MAX_MODEL_LEN = 131072;

    private final SimulatorConfig config;
    private final VllmProfiler profiler;
    private final GenerationHandlers generation;
    private final ApiKeyAuth auth;
    private final long createdEpochSeconds = System.currentTimeMillis() / 1000;

    /** @param profiler null when the server runs without {@code --profiler-config} */
    public VllmHttpApi(SimulatorConfig config, Scheduler scheduler, VllmProfiler profiler) {
        this.config = config;
        this.profiler = profiler;
        this.generation = new GenerationHandlers(scheduler, config.servedModelName(), true, config.faults());
        this.auth = ApiKeyAuth.vllm(config.apiKey());
    }

    @Override
    protected void route(HttpExchange ex) throws IOException, InterruptedException {
        String path = ex.getRequestURI().getPath();
        String method = ex.getRequestMethod();
        boolean get = method.equals("GET") || method.equals("HEAD");
        boolean post = method.equals("POST");
        if (!auth.admit(ex)) {
            return;
        }
        switch (path) {
            case "/health" -> {
                if (!get) {
                    Http.detail(ex, 405, "Method Not Allowed");
                } else {
                    // vLLM's /health checks the engine without running a step: an idle server does not step.
                    Http.empty(ex, serving() ? 200 : 503);
                }
            }
            case "/version" -> Http.json(ex, 200, Http.MAPPER.createObjectNode().put("version", VERSION));
            case "/v1/models" -> Http.json(ex, 200, models());
            case "/v1/completions" -> generation.completions(ex);
            case "/tokenize" -> onlyPost(ex, post, this::tokenize);
            case "/detokenize" -> onlyPost(ex, post, this::detokenize);
            case "/start_profile", "/stop_profile" -> {
                if (profiler == null) {
                    Http.detail(ex, 404, "Not Found");
                } else if (!post) {
                    Http.detail(ex, 405, "Method Not Allowed");
                } else if (path.equals("/start_profile")) {
                    startProfile(ex);
                } else {
                    stopProfile(ex);
                }
            }
            default -> Http.detail(ex, 404, "Not Found");
        }
    }

    private interface Handler {
        void handle(HttpExchange ex) throws IOException, InterruptedException;
    }

    private static void onlyPost(HttpExchange ex, boolean post, Handler h) throws IOException, InterruptedException {
        if (!post) {
            Http.detail(ex, 405, "Method Not Allowed");
        } else {
            h.handle(ex);
        }
    }

    private void startProfile(HttpExchange ex) throws IOException {
        Http.body(ex);
        if (config.failStartProfileStatus() != 0) {
            Http.detail(ex, config.failStartProfileStatus(), "simulated fault: start_profile fails with "
                    + config.failStartProfileStatus());
            return;
        }
        profiler.start();
        Http.empty(ex, 200);
    }

    private void stopProfile(HttpExchange ex) throws IOException, InterruptedException {
        Http.body(ex);
        try {
            profiler.stop();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.ERROR, "stop_profile export failed", e);
            Http.vllmError(ex, 500, "InternalServerError", "trace export failed: " + e);
            return;
        }
        Http.empty(ex, 200);
    }

    private ObjectNode models() {
        ObjectNode n = Http.MAPPER.createObjectNode();
        n.put("object", "list");
        ObjectNode m = n.putArray("data").addObject();
        m.put("id", config.servedModelName());
        m.put("object", "model");
        m.put("created", createdEpochSeconds);
        m.put("owned_by", "vllm");
        m.put("root", config.servedModelName());
        m.putNull("parent");
        m.put("max_model_len", MAX_MODEL_LEN);
        ObjectNode p = m.putArray("permission").addObject();
        p.put("id", "modelperm-" + Long.toHexString(config.seed() * 0x9E3779B97F4A7C15L + 1));
        p.put("object", "model_permission");
        p.put("created", createdEpochSeconds);
        p.put("allow_create_engine", false);
        p.put("allow_sampling", true);
        p.put("allow_logprobs", true);
        p.put("allow_search_indices", false);
        p.put("allow_view", true);
        p.put("allow_fine_tuning", false);
        p.put("organization", "*");
        p.putNull("group");
        p.put("is_blocking", false);
        return n;
    }

    /** {@code {"prompt"}} → {@code {"count","max_model_len","tokens","token_strs":null}}; 4 characters per token. */
    private void tokenize(HttpExchange ex) throws IOException {
        JsonNode req = readJson(ex);
        if (req == null) {
            return;
        }
        int count;
        if (req.hasNonNull("prompt") && req.get("prompt").isTextual()) {
            count = Math.max(1, (req.get("prompt").asText().length() + 3) / 4);
        } else if (req.has("messages") && req.get("messages").isArray()) {
            count = 0;
            for (JsonNode msg : req.get("messages")) {
                count += 4 + (msg.path("content").asText("").length() + 3) / 4;
            }
        } else {
            Http.vllmError(ex, 400, "BadRequestError", "either prompt (a string) or messages is required");
            return;
        }
        ObjectNode n = Http.MAPPER.createObjectNode();
        n.put("count", count);
        n.put("max_model_len", MAX_MODEL_LEN);
        ArrayNode tokens = n.putArray("tokens");
        for (int i = 0; i < count; i++) {
            tokens.add(100 + i);
        }
        n.putNull("token_strs");
        Http.json(ex, 200, n);
    }

    /** {@code {"tokens":[…]}} → {@code {"prompt"}}, the same words the completions stream uses. */
    private void detokenize(HttpExchange ex) throws IOException {
        JsonNode req = readJson(ex);
        if (req == null) {
            return;
        }
        if (!req.path("tokens").isArray()) {
            Http.vllmError(ex, 400, "BadRequestError", "tokens must be a list of token ids");
            return;
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode t : req.get("tokens")) {
            text.append(GenerationHandlers.tokenText(t.asInt()));
        }
        Http.json(ex, 200, Http.MAPPER.createObjectNode().put("prompt", text.toString()));
    }

    private static JsonNode readJson(HttpExchange ex) throws IOException {
        try {
            JsonNode n = Http.MAPPER.readTree(Http.body(ex));
            if (n != null && n.isObject()) {
                return n;
            }
        } catch (IOException e) {
            // answered below
        }
        Http.vllmError(ex, 400, "BadRequestError", "the body must be a JSON object");
        return null;
    }
}
