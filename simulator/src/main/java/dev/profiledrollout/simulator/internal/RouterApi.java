package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.profiledrollout.simulator.RouterShape;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apiguardian.api.API;

/**
 * The HTTP face of {@code RouterSimulator} ({@code docs/PROTOCOLS.md} §3): the worker registry, {@code GET /workers} in
 * either router's shape, and the proxy. Proxying uses {@link HttpURLConnection} with {@code Connection: close}, so no
 * client thread outlives the request, and copies the response body as it arrives (SSE passes through).
 */
@API(status = INTERNAL, since = "0.1")
public final class RouterApi implements HttpHandler {

    private static final System.Logger LOG = System.getLogger(RouterApi.class.getName());
    private static final Set<String> FIRST_WORKER_GETS = Set.of("/v1/models", "/model_info", "/server_info",
            "/get_server_info");
    private static final Set<String> GENERATION = Set.of("/generate", "/v1/completions", "/v1/chat/completions");

    /**
     * One registry entry.
     *
     * @param url    the engine's base URL, without {@code @dp}
     * @param dpRank the DP rank of a DP-aware entry ({@code url@dpRank}), else -1
     */
    public record Worker(String id, URI url, int dpRank, String type, boolean healthy, String modelId,
                         AtomicInteger load) {
        public Worker(URI url, int dpRank, String type, boolean healthy, String modelId) {
            this(UUID.randomUUID().toString(), url, dpRank, type, healthy, modelId, new AtomicInteger());
        }

        String listedUrl() {
            return url + (dpRank >= 0 ? "@" + dpRank : "");
        }
    }

    /** How often a request is sent to a worker before the router answers {@code 502}. */
    static final int CONNECT_ATTEMPTS = 3;

    private final RouterShape shape;
    private final List<Worker> workers;
    private final AtomicInteger next = new AtomicInteger();

    public RouterApi(RouterShape shape, List<Worker> workers) {
        this.shape = shape;
        this.workers = new CopyOnWriteArrayList<>(workers);
    }

    /** The registry, in order. */
    /** Replaces every registration of {@code url} by one with the given health. */
    public synchronized void setHealthy(URI url, boolean healthy) {
        for (int i = 0; i < workers.size(); i++) {
            Worker w = workers.get(i);
            if (w.url().equals(url)) {
                workers.set(i, new Worker(w.id(), w.url(), w.dpRank(), w.type(), healthy, w.modelId(), w.load()));
            }
        }
    }

    public List<Worker> workers() {
        return List.copyOf(workers);
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        try {
            route(ex);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "router connection failed", e);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "router handler failed", e);
            try {
                error(ex, 500, "INTERNAL_SERVER_ERROR", e.toString());
            } catch (IOException | RuntimeException ignored) {
                // the response may already have started
            }
        } finally {
            ex.close();
        }
    }

    private void route(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        String method = ex.getRequestMethod();
        if (path.equals("/health") && method.equals("GET")) {
            Http.text(ex, 200, "OK");
        } else if (path.equals("/workers") && method.equals("GET")) {
            Http.json(ex, 200, list());
        } else if (path.equals("/workers") && method.equals("POST")) {
            add(ex);
        } else if (path.startsWith("/workers/") && (method.equals("GET") || method.equals("DELETE"))) {
            one(ex, URLDecoder.decode(path.substring("/workers/".length()), StandardCharsets.UTF_8), method);
        } else if (FIRST_WORKER_GETS.contains(path) && method.equals("GET") && !workers.isEmpty()) {
            proxy(ex, workers.get(0));
        } else if (GENERATION.contains(path) && method.equals("POST")) {
            Worker w = pick();
            if (w == null) {
                error(ex, 503, "SERVICE_UNAVAILABLE", "No healthy workers available");
            } else {
                w.load().incrementAndGet();
                try {
                    Worker prefill = w.type().equals("decode") ? pickPrefill() : null;
                    if (prefill != null) {
                        byte[] body = Http.body(ex);
                        String failed = prefill(ex, prefill, body);
                        if (failed != null) {
                            error(ex, 502, "INTERNAL_SERVER_ERROR", failed);
                            return;
                        }
                        proxy(ex, w, body);
                        return;
                    }
                    proxy(ex, w);
                } finally {
                    w.load().decrementAndGet();
                }
            }
        } else {
            Http.body(ex);
            Http.empty(ex, 404);
        }
    }

    private Worker pick() {
        List<Worker> healthy = new ArrayList<>();
        for (Worker w : workers) {
            if (w.healthy() && !w.type().equals("prefill")) {
                healthy.add(w);
            }
        }
        if (healthy.isEmpty()) {
            workers.stream().filter(Worker::healthy).forEach(healthy::add);
        }
        return healthy.isEmpty() ? null : healthy.get(Math.floorMod(next.getAndIncrement(), healthy.size()));
    }

    private ObjectNode list() {
        ObjectNode n = Http.MAPPER.createObjectNode();
        ArrayNode arr = n.putArray("workers");
        int prefill = 0;
        int decode = 0;
        int regular = 0;
        for (Worker w : workers) {
            arr.add(json(w));
            switch (w.type()) {
                case "prefill" -> prefill++;
                case "decode" -> decode++;
                default -> regular++;
            }
        }
        n.put("total", workers.size());
        n.putObject("stats").put("prefill_count", prefill).put("decode_count", decode).put("regular_count", regular);
        return n;
    }

    private ObjectNode json(Worker w) {
        ObjectNode o = Http.MAPPER.createObjectNode();
        if (shape == RouterShape.SGL_MODEL_GATEWAY) {
            o.put("id", w.id()).put("url", w.listedUrl()).put("model_id", w.modelId()).put("priority", 50)
                    .put("cost", 1.0).put("worker_type", w.type()).put("is_healthy", w.healthy())
                    .put("load", w.load().get()).put("connection_mode", "HTTP").put("disable_health_check", false);
        } else {
            o.put("url", w.listedUrl()).put("model_id", "unknown").put("worker_type", w.type())
                    .put("is_healthy", w.healthy()).put("load", w.load().get()).put("connection_mode", "Http")
                    .put("priority", 50).put("cost", 1.0);
        }
        return o;
    }

    private void add(HttpExchange ex) throws IOException {
        JsonNode req;
        try {
            req = Http.MAPPER.readTree(Http.body(ex));
        } catch (IOException e) {
            req = null;
        }
        String url = req == null ? null : req.path("url").asText(null);
        String type = req == null ? "regular" : req.path("worker_type").asText("regular");
        if (url == null || !url.startsWith("http") || !Set.of("regular", "prefill", "decode").contains(type)) {
            error(ex, 400, "BAD_REQUEST", "url (http…) is required; worker_type is regular, prefill or decode");
            return;
        }
        Worker w = new Worker(URI.create(url.replaceAll("/+$", "")), -1, type, true,
                req.path("model_id").asText(workers.isEmpty() ? "unknown" : workers.get(0).modelId()));
        workers.add(w);
        String location = "/workers/" + w.id();
        ObjectNode body = Http.MAPPER.createObjectNode();
        body.put("status", "accepted").put("worker_id", w.id()).put("location", location)
                .put("message", "Worker addition queued for background processing");
        ex.getResponseHeaders().set("Location", location);
        Http.json(ex, 202, body);
    }

    private void one(HttpExchange ex, String id, String method) throws IOException {
        Worker found = null;
        for (Worker w : workers) {
            if (w.id().equals(id) || (shape == RouterShape.VLLM_ROUTER && w.listedUrl().equals(id))) {
                found = w;
                break;
            }
        }
        if (found == null) {
            error(ex, 404, "WORKER_NOT_FOUND", "Worker " + id + " not found");
        } else if (method.equals("GET")) {
            Http.json(ex, 200, json(found));
        } else {
            workers.remove(found);
            ObjectNode body = Http.MAPPER.createObjectNode();
            body.put("status", "accepted").put("worker_id", found.id())
                    .put("message", "Worker removal queued for background processing");
            Http.json(ex, 202, body);
        }
    }

    private static void error(HttpExchange ex, int status, String code, String message) throws IOException {
        ObjectNode n = Http.MAPPER.createObjectNode();
        n.put("error", message).put("code", code);
        Http.json(ex, status, n);
    }

    /**
     * Sends the request to {@code w} and copies the response back as it arrives. A request whose connection fails
     * before any response byte arrived is sent again on a new connection, at most {@link #CONNECT_ATTEMPTS} times in
     * all, as the gateways do for a pooled connection the worker had closed (hyperium/hyper-util
     * {@code src/client/legacy/client.rs}, {@code retry_canceled_requests}; lightseekorg/smg
     * {@code docs/concepts/reliability/retries.md}); only then is it a {@code 502}.
     */
    private void proxy(HttpExchange ex, Worker w) throws IOException {
        proxy(ex, w, Http.body(ex));
    }

    /**
     * The prefill half of a prefill/decode-disaggregated request. SGLang's gateway sends each generation request to a
     * prefill worker and a decode worker of a pair; the prefill worker runs the prompt's EXTEND batch and hands the
     * KV cache to the decode worker, which streams the tokens (sgl-project/sglang {@code docs/advanced_features/
     * pd_disaggregation.md}, {@code sgl-model-gateway/src/routers/http/pd_router.rs}). Here the prefill worker gets
     * the same request with one output token and no stream, and the decode worker the request itself once that
     * returned: the prefill worker's steps and kernels are real prefill work, and TTFT includes the prefill. The
     * decode worker then prefills the prompt again (it has no KV transfer), which a real decode worker does not do.
     *
     * @return null when the prefill answered 2xx, else why it failed
     */
    private String prefill(HttpExchange ex, Worker w, byte[] body) throws IOException {
        JsonNode request;
        try {
            request = Http.MAPPER.readTree(body);
        } catch (IOException e) {
            return null; // not JSON: the decode worker answers the client's mistake itself
        }
        if (!(request instanceof ObjectNode o)) {
            return null;
        }
        ObjectNode copy = o.deepCopy();
        copy.put("stream", false);
        if (copy.has("sampling_params") || ex.getRequestURI().getPath().equals("/generate")) {
            ObjectNode sampling = copy.has("sampling_params") && copy.get("sampling_params").isObject()
                    ? (ObjectNode) copy.get("sampling_params") : copy.putObject("sampling_params");
            sampling.put("max_new_tokens", 1);
        } else {
            copy.put("max_tokens", 1);
            copy.remove("max_completion_tokens");
            copy.remove("stream_options");
        }
        byte[] prefillBody = Http.MAPPER.writeValueAsBytes(copy);
        URI target = URI.create(w.url() + ex.getRequestURI().getRawPath());
        w.load().incrementAndGet();
        HttpURLConnection conn = (HttpURLConnection) target.toURL().openConnection();
        try {
            int status = send(ex, conn, prefillBody);
            InputStream in = status >= 400 ? conn.getErrorStream() : conn.getInputStream();
            if (in != null) {
                try (InputStream drained = in) {
                    drained.readAllBytes();
                }
            }
            return status / 100 == 2 ? null : "prefill worker " + w.url() + " answered HTTP " + status;
        } catch (IOException e) {
            return "prefill worker " + w.url() + " failed: " + e.getMessage();
        } finally {
            conn.disconnect();
            w.load().decrementAndGet();
        }
    }

    /** A healthy prefill worker, round robin; null when there is none. */
    private Worker pickPrefill() {
        List<Worker> prefill = workers.stream().filter(w -> w.healthy() && w.type().equals("prefill")).toList();
        return prefill.isEmpty() ? null : prefill.get(Math.floorMod(next.getAndIncrement(), prefill.size()));
    }

    private void proxy(HttpExchange ex, Worker w, byte[] body) throws IOException {
        String query = ex.getRequestURI().getRawQuery();
        URI target = URI.create(w.url() + ex.getRequestURI().getRawPath() + (query != null ? "?" + query : ""));
        IOException failure = null;
        for (int attempt = 1; attempt <= CONNECT_ATTEMPTS; attempt++) {
            HttpURLConnection conn = (HttpURLConnection) target.toURL().openConnection();
            try {
                int status;
                try {
                    status = send(ex, conn, body);
                } catch (IOException e) {
                    failure = e;
                    LOG.log(System.Logger.Level.DEBUG, "attempt " + attempt + " to " + target + " failed", e);
                    continue;
                }
                relay(ex, conn, status);
                return;
            } finally {
                conn.disconnect();
            }
        }
        error(ex, 502, "INTERNAL_SERVER_ERROR", "worker " + w.url() + " failed: " + failure.getMessage());
    }

    /** Writes the request and reads the status line: nothing has reached the client when this throws. */
    private static int send(HttpExchange ex, HttpURLConnection conn, byte[] body) throws IOException {
        conn.setRequestMethod(ex.getRequestMethod());
        conn.setRequestProperty("Connection", "close");
        conn.setConnectTimeout(10_000);
        for (Map.Entry<String, List<String>> h : ex.getRequestHeaders().entrySet()) {
            String name = h.getKey();
            if (name.equalsIgnoreCase("Content-Type") || name.equalsIgnoreCase("Authorization")
                    || name.equalsIgnoreCase("Accept")) {
                conn.setRequestProperty(name, h.getValue().get(0));
            }
        }
        if (ex.getRequestMethod().equals("POST")) {
            conn.setDoOutput(true);
            conn.setFixedLengthStreamingMode(body.length);
            try (OutputStream out = conn.getOutputStream()) {
                out.write(body);
            }
        }
        return conn.getResponseCode();
    }

    private static void relay(HttpExchange ex, HttpURLConnection conn, int status) throws IOException {
        InputStream in = status >= 400 ? conn.getErrorStream() : conn.getInputStream();
        String ct = conn.getContentType();
        if (ct != null) {
            ex.getResponseHeaders().set("Content-Type", ct);
        }
        if (in == null || conn.getContentLengthLong() == 0) {
            Http.empty(ex, status);
            return;
        }
        ex.sendResponseHeaders(status, 0);
        try (InputStream src = in; OutputStream out = ex.getResponseBody()) {
            byte[] buf = new byte[8192];
            int n;
            while ((n = src.read(buf)) > 0) {
                out.write(buf, 0, n);
                out.flush();
            }
        }
    }
}
