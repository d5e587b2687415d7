package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.profiledrollout.simulator.SimulatorConfig;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.apiguardian.api.API;

/**
 * Routes SGLang's HTTP API ({@code docs/PROTOCOLS.md} §1.1, §1.2, §1.5) to the scheduler and profiler. Paths match
 * exactly; anything else is FastAPI's {@code 404 {"detail":"Not Found"}}.
 */
@API(status = INTERNAL, since = "0.1")
public final class HttpApi extends EngineApi {

    /** The version {@code /server_info} reports. */
    public static final String VERSION = "0.1.0-simulator";
    private static final System.Logger LOG = System.getLogger(HttpApi.class.getName());
    private static final long HEALTH_TIMEOUT_SECONDS = 20;

    private final SimulatorConfig config;
    private final Scheduler scheduler;
    private final Profiler profiler;
    private final GenerationHandlers generation;
    private final IntSupplier port;
    private final ApiKeyAuth auth;
    private final long createdEpochSeconds = System.currentTimeMillis() / 1000;

    public HttpApi(SimulatorConfig config, Scheduler scheduler, Profiler profiler, IntSupplier port) {
        this.config = config;
        this.scheduler = scheduler;
        this.profiler = profiler;
        this.port = port;
        this.auth = ApiKeyAuth.sglang(config.apiKey(), config.adminApiKey());
        this.generation = new GenerationHandlers(scheduler, config.servedModelName(), false, config.faults());
    }

    @Override
    protected void route(HttpExchange ex) throws IOException, InterruptedException {
        String path = ex.getRequestURI().getPath();
        String method = ex.getRequestMethod();
        boolean get = method.equals("GET") || method.equals("HEAD");
        if (!auth.admit(ex)) {
            return;
        }
        switch (path) {
            case "/health", "/health_generate" -> {
                if (!get) {
                    Http.detail(ex, 405, "Method Not Allowed");
                } else {
                    health(ex);
                }
            }
            case "/server_info", "/get_server_info" -> {
                if (!get) {
                    Http.detail(ex, 405, "Method Not Allowed");
                } else {
                    Http.json(ex, 200, serverInfo());
                }
            }
            case "/v1/models" -> Http.json(ex, 200, models());
            case "/v1/completions" -> generation.completions(ex);
            case "/generate" -> generation.generate(ex);
            case "/flush_cache" -> flushCache(ex);
            case "/start_profile" -> startProfile(ex);
            case "/stop_profile" -> stopProfile(ex);
            default -> {
                if (path.startsWith("/v1/models/")) {
                    model(ex, path.substring("/v1/models/".length()));
                } else {
                    Http.detail(ex, 404, "Not Found");
                }
            }
        }
    }

    private void health(HttpExchange ex) throws IOException, InterruptedException {
        if (!serving()) {
            Http.empty(ex, 503);
            return;
        }
        SimRequest r;
        try {
            r = scheduler.submit(1, 1, true);
        } catch (IllegalStateException e) {
            Http.empty(ex, 503);
            return;
        }
        SimRequest.Event e = r.events().poll(HEALTH_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Http.empty(ex, e != null && e.error() == null ? 200 : 503);
    }

    private ObjectNode serverInfo() {
        ObjectNode n = Http.MAPPER.createObjectNode();
        n.put("model_path", config.servedModelName());
        n.put("tokenizer_path", config.servedModelName());
        n.put("served_model_name", config.servedModelName());
        n.put("host", config.host());
        n.put("port", port.getAsInt());
        n.put("tp_size", config.tpSize());
        n.put("dp_size", config.dpSize());
        if (!config.dpController()) {
            n.put("dp_rank", config.dpRank());
        }
        n.put("pp_size", 1);
        n.put("ep_size", 1);
        n.put("enable_dp_attention", false);
        n.put("base_gpu_id", 0);
        n.put("max_running_requests", config.maxRunningRequests());
        n.put("max_prefill_tokens", Scheduler.MAX_PREFILL_TOKENS);
        n.put("context_length", 131072);
        n.put("dtype", "bfloat16");
        n.put("attention_backend", "flashinfer");
        n.put("random_seed", config.seed());
        n.put("version", VERSION);
        n.put("engine", "simulator");
        n.put("simulated_gpu", config.gpu().name());
        SimulatedPerformance.write(n, config, scheduler.clockFactor());
        ObjectNode state = n.putArray("internal_states").addObject();
        state.put("last_gen_throughput", scheduler.lastGenThroughput());
        state.put("forward_ct", scheduler.forwardCount());
        // the queue as SGLang builds that report it name it (Scheduler.get_internal_state); a client tells an idle
        // engine from these two, and from forward_ct whether a step-bounded capture can still be reached
        state.put("waiting_queue_size", scheduler.waitingCount());
        state.put("running_batch_size", scheduler.runningCount());
        state.putObject("memory_usage").put("weight", config.model().totalParams()
                * config.model().bytesPerParam() / (double) config.tpSize() / (1L << 30));
        return n;
    }

    private ObjectNode models() {
        ObjectNode n = Http.MAPPER.createObjectNode();
        n.put("object", "list");
        modelCard(n.putArray("data").addObject());
        return n;
    }

    private void modelCard(ObjectNode m) {
        m.put("id", config.servedModelName());
        m.put("object", "model");
        m.put("created", createdEpochSeconds);
        m.put("owned_by", "sglang");
        m.put("root", config.servedModelName());
        m.putNull("parent");
        m.put("max_model_len", 131072);
    }

    private void model(HttpExchange ex, String name) throws IOException {
        if (name.equals(config.servedModelName())) {
            ObjectNode m = Http.MAPPER.createObjectNode();
            modelCard(m);
            Http.json(ex, 200, m);
        } else {
            Http.openAiError(ex, 404, "model_not_found", "The model '" + name + "' does not exist");
        }
    }

    private void flushCache(HttpExchange ex) throws IOException {
        if (scheduler.idle()) {
            Http.text(ex, 200, "Cache flushed.\nPlease check backend logs for more details. (When there are running "
                    + "or waiting requests, the operation will not be performed.)\n");
        } else {
            Http.text(ex, 400, "Cache not flushed. Please check backend logs for more details. (When there are "
                    + "running or waiting requests, the operation will not be performed.)\n");
        }
    }

    private synchronized void startProfile(HttpExchange ex) throws IOException {
        if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("POST")) {
            Http.detail(ex, 405, "Method Not Allowed");
            return;
        }
        if (config.failStartProfileStatus() != 0) {
            Http.body(ex);
            Http.detail(ex, config.failStartProfileStatus(), "simulated fault: start_profile fails with "
                    + config.failStartProfileStatus());
            return;
        }
        ProfileRequest req;
        try {
            req = ProfileRequest.parse(Http.body(ex), Http.MAPPER);
        } catch (ProfileRequest.BadRequest e) {
            Http.openAiError(ex, 400, "Bad Request", e.getMessage());
            return;
        }
        if (config.faults().profilerFailsOnDpRank().orElse(-1) == 0 && req.startsAnything()) {
            // DP rank 0's result is the one SGLang reports
            LOG.log(System.Logger.Level.WARNING, "start_profile failed on DP rank 0 (simulated fault)");
            Http.text(ex, 500, "Internal Server Error");
            return;
        }
        String refusal = profiler.start(req);
        if (refusal != null) {
            LOG.log(System.Logger.Level.WARNING, "start_profile refused: " + refusal);
            Http.text(ex, 500, "Internal Server Error");
        } else {
            Http.text(ex, 200, "Start profiling.\n");
        }
    }

    private synchronized void stopProfile(HttpExchange ex) throws IOException, InterruptedException {
        if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("POST")) {
            Http.detail(ex, 405, "Method Not Allowed");
            return;
        }
        Http.body(ex);
        java.time.Duration delay = config.faults().stopProfileDelay();
        if (!delay.isZero()) {
            Thread.sleep(delay.toMillis()); // fault: a slow stop (interrupted by close())
        }
        String refusal;
        try {
            refusal = profiler.stop();
        } catch (IOException e) {
            refusal = "trace export failed: " + e;
        }
        if (refusal != null) {
            // "not in progress" is the answer to a stop after SGLang's own num_steps auto-stop: expected, not a fault.
            LOG.log(refusal.contains("not in progress") ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING,
                    "stop_profile refused: " + refusal);
            Http.text(ex, 500, "Internal Server Error");
        } else {
            Http.text(ex, 200, "Stop profiling. This will take some time.\n");
        }
    }
}
