package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.IOException;
import org.apiguardian.api.API;

/**
 * Routes {@code trtllm-serve}'s OpenAI-compatible API (NVIDIA/TensorRT-LLM {@code tensorrt_llm/serve/openai_server.py},
 * {@code register_routes}; {@code docs/PROTOCOLS.md} §6): {@code GET /health}, {@code /health_generate},
 * {@code /version}, {@code /v1/models}, {@code /metrics} (iteration statistics as a JSON list) and
 * {@code POST /v1/completions}. There is no profile route: like every unknown path, {@code /start_profile} answers
 * FastAPI's {@code 404 {"detail":"Not Found"}}; the capture is the launch-time range of {@link TrtllmProfiler}.
 */
@API(status = INTERNAL, since = "0.9")
public final class TrtllmHttpApi extends EngineApi {

    /** The version {@code /version} reports. */
    public static final String VERSION = "1.2.0+simulator";

    private final SimulatorConfig config;
    private final GenerationHandlers generation;
    private final long createdEpochSeconds = System.currentTimeMillis() / 1000;

    public TrtllmHttpApi(SimulatorConfig config, Scheduler scheduler) {
        this.config = config;
        this.generation = new GenerationHandlers(scheduler, config.servedModelName(), true, config.faults());
    }

    @Override
    protected void route(HttpExchange ex) throws IOException, InterruptedException {
        String path = ex.getRequestURI().getPath();
        String method = ex.getRequestMethod();
        boolean get = method.equals("GET") || method.equals("HEAD");
        switch (path) {
            case "/health", "/health_generate" -> {
                if (!get) {
                    Http.detail(ex, 405, "Method Not Allowed");
                } else {
                    Http.empty(ex, serving() ? 200 : 503);
                }
            }
            case "/version" -> Http.json(ex, 200, Http.MAPPER.createObjectNode().put("version", VERSION));
            case "/v1/models" -> Http.json(ex, 200, models());
            case "/metrics" -> Http.json(ex, 200, Http.MAPPER.createArrayNode());
            case "/v1/completions" -> generation.completions(ex);
            default -> Http.detail(ex, 404, "Not Found");
        }
    }

    private ObjectNode models() {
        ObjectNode n = Http.MAPPER.createObjectNode();
        n.put("object", "list");
        ObjectNode m = n.putArray("data").addObject();
        m.put("id", config.servedModelName());
        m.put("object", "model");
        m.put("created", createdEpochSeconds);
        m.put("owned_by", "tensorrt_llm");
        return n;
    }
}
