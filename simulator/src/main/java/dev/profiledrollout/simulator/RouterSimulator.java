package dev.profiledrollout.simulator;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.sun.net.httpserver.HttpServer;
import dev.profiledrollout.simulator.internal.HandlerThreads;
import dev.profiledrollout.simulator.internal.HttpContexts;
import dev.profiledrollout.simulator.internal.RouterApi;
import dev.profiledrollout.simulator.internal.RouterApi.Worker;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apiguardian.api.API;

/**
 * A simulated request router (sgl-model-gateway or vllm-router, {@code docs/PROTOCOLS.md} §3) in front of N workers:
 * either {@link EngineSimulator}s it starts itself from a worker configuration, or engines given by URL.
 *
 * <pre>{@code
 * try (RouterSimulator router = RouterSimulator.builder()
 *         .workers(4).workerConfig(SimulatorConfig.builder().tpSize(2).profilerDir(dir).build())
 *         .unhealthy(2).failStartProfile(3, 500)
 *         .start()) {
 *     URI base = router.baseUri();          // GET base + "/workers", POST base + "/v1/completions"
 * }
 * }</pre>
 *
 * <h2>Endpoints</h2>
 * As {@code sgl-model-gateway/src/server.rs}: {@code GET /health} (200 {@code OK}); {@code GET /workers} in the
 * {@link RouterShape} chosen; {@code POST /workers} ({@code {url, worker_type?, model_id?}} → 202, {@code Location});
 * {@code GET|DELETE /workers/{id}} (the vllm-router shape also accepts the URL as id); {@code /v1/models},
 * {@code /model_info}, {@code /server_info}, {@code /get_server_info} proxied as GET to the first worker;
 * {@code /generate}, {@code /v1/completions}, {@code /v1/chat/completions} proxied byte for byte, streaming
 * included, to the next healthy worker in round robin (decode and regular workers; prefill workers only when no
 * other is healthy: the simulator does no prefill/decode handoff). Everything else, {@code /start_profile} and
 * {@code /stop_profile} included, is {@code 404} with an empty body: routers never broadcast profiling.
 *
 * <h2>Health</h2>
 * Health is what the builder says ({@link Builder#unhealthy(int)}), not probed: an unhealthy worker is listed with
 * {@code is_healthy false} and never routed to, though it still runs and answers if called directly.
 *
 * <h2>Workers started by the router</h2>
 * Worker {@code i} runs the template configuration on an ephemeral port, with its own trace directory
 * ({@code profilerDir/worker-i}, and {@code torch_profiler_dir/worker-i} for vLLM) as separate hosts would have.
 *
 * <h2>Threads</h2>
 * A pool of handler threads ({@code router-http-N}) and the JDK server's dispatcher; {@link #close()} joins them and
 * closes the workers it started (not given ones). Thread-safe.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class RouterSimulator implements AutoCloseable {

    private final HttpServer server;
    private final HandlerThreads threads;
    private final RouterApi api;
    private final List<EngineSimulator> engines;
    private final String host;
    private final AtomicBoolean closed = new AtomicBoolean();

    private RouterSimulator(HttpServer server, HandlerThreads threads, RouterApi api, List<EngineSimulator> engines,
                            String host) {
        this.server = server;
        this.threads = threads;
        this.api = api;
        this.engines = engines;
        this.host = host;
    }

    /** A builder: no workers, sgl-model-gateway shape, 127.0.0.1, ephemeral port. */
    public static Builder builder() {
        return new Builder();
    }

    /** Base URI of the router, e.g. {@code http://127.0.0.1:41234}. */
    public URI baseUri() {
        return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port());
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** The workers this router started, in worker order; empty when it was given URLs only. */
    public List<EngineSimulator> engines() {
        return List.copyOf(engines);
    }

    /** The base URLs of every worker now registered (without {@code @dp} suffixes, de-duplicated), in order. */
    public List<URI> workerUrls() {
        List<URI> out = new ArrayList<>();
        for (Worker w : api.workers()) {
            if (!out.contains(w.url())) {
                out.add(w.url());
            }
        }
        return out;
    }

    /**
     * Fault injection: marks every registration of worker {@code index} (in registration order of distinct URLs,
     * see {@link #workerUrls()}) healthy or not from now on; an unhealthy worker is listed with {@code is_healthy
     * false} and no longer routed to, as a router does after its health checks fail mid-run.
     *
     * @throws IllegalArgumentException if no worker has that index
     */
    public void setHealthy(int index, boolean healthy) {
        List<URI> urls = workerUrls();
        if (index < 0 || index >= urls.size()) {
            throw new IllegalArgumentException("worker index " + index + " is outside 0.." + (urls.size() - 1));
        }
        api.setHealthy(urls.get(index), healthy);
    }

    /** Stops the router, joins its threads, then closes the engines it started. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        server.stop(0);
        threads.close();
        engines.forEach(EngineSimulator::close);
    }

    @Override
    public String toString() {
        return "RouterSimulator{" + baseUri() + ", workers=" + api.workers().size() + "}";
    }

    /** Fluent builder for {@link RouterSimulator}; setters validate at once. Not thread-safe. */
    public static final class Builder {
        private static final Set<String> TYPES = Set.of("regular", "prefill", "decode");
        private String host = "127.0.0.1";
        private int port = 0;
        private RouterShape shape = RouterShape.SGL_MODEL_GATEWAY;
        private int workers = 0;
        private SimulatorConfig workerConfig = SimulatorConfig.builder().build();
        private final Set<Integer> unhealthy = new HashSet<>();
        private final Map<Integer, Integer> failStart = new HashMap<>();
        private final Map<Integer, String> types = new HashMap<>();
        private final Map<URI, String> givenUrls = new LinkedHashMap<>();
        private int dpAware = 0;

        private Builder() {
        }

        /** @param host bind address, not blank */
        public Builder host(String host) {
            Require.notBlank(host, "host");
            this.host = host;
            return this;
        }

        /** @param port 0..65535; 0 = ephemeral */
        public Builder port(int port) {
            Require.port(port);
            this.port = port;
            return this;
        }

        /** @param shape the {@code GET /workers} body, not null */
        public Builder shape(RouterShape shape) {
            Require.notNull(shape, "shape");
            this.shape = shape;
            return this;
        }

        /** @param count workers to start, at least 0; they run {@link #workerConfig} */
        public Builder workers(int count) {
            Require.atLeast(count, 0, "workers");
            this.workers = count;
            return this;
        }

        /** @param template the configuration of every started worker (backend, TP, trace directory…), not null */
        public Builder workerConfig(SimulatorConfig template) {
            Require.notNull(template, "workerConfig");
            this.workerConfig = template;
            return this;
        }

        /** Reports started worker {@code index} (0-based) as {@code is_healthy false} and routes nothing to it. */
        public Builder unhealthy(int index) {
            unhealthy.add(checkIndex(index));
            return this;
        }

        /** Started worker {@code index} answers {@code /start_profile} with {@code status}, see {@link SimulatorConfig.Builder#failStartProfile}. */
        public Builder failStartProfile(int index, int status) {
            SimulatorConfig.builder().failStartProfile(status);
            failStart.put(checkIndex(index), status);
            return this;
        }

        /** @param type {@code regular} (default), {@code prefill} or {@code decode} for started worker {@code index} */
        public Builder workerType(int index, String type) {
            types.put(checkIndex(index), checkType(type));
            return this;
        }

        /** Registers an engine the router does not own, listed after the started workers. */
        public Builder workerUrl(URI url, String type) {
            Require.notNull(url, "workerUrl");
            givenUrls.put(URI.create(url.toString().replaceAll("/+$", "")), checkType(type));
            return this;
        }

        /**
         * DP-aware routing: every worker is listed {@code dpSize} times, its url suffixed {@code @0…@dpSize-1}
         * (sgl-model-gateway {@code --dp-aware}). 0 or 1 turns it off.
         */
        public Builder dpAware(int dpSize) {
            Require.atLeast(dpSize, 0, "dpAware size");
            this.dpAware = dpSize;
            return this;
        }

        /**
         * Starts the workers, then the router.
         *
         * @throws IOException if a port cannot be bound or a worker fails to start; nothing is left running then
         * @throws IllegalArgumentException if a per-worker setting names an index not below {@link #workers(int)}
         */
        public RouterSimulator start() throws IOException {
            for (Set<Integer> keys : List.of(unhealthy, failStart.keySet(), types.keySet())) {
                for (int i : keys) {
                    if (i >= workers) {
                        throw new IllegalArgumentException("worker index " + i + " is outside workers(" + workers
                                + ")");
                    }
                }
            }
            List<EngineSimulator> started = new ArrayList<>();
            List<Worker> list = new ArrayList<>();
            try {
                for (int i = 0; i < workers; i++) {
                    EngineSimulator sim = EngineSimulator.start(workerConfig(i));
                    started.add(sim);
                    addWorker(list, sim.baseUri(), types.getOrDefault(i, "regular"), !unhealthy.contains(i),
                            sim.config().servedModelName());
                }
                givenUrls.forEach((url, type) -> addWorker(list, url, type, true, workerConfig.servedModelName()));
                HandlerThreads threads = new HandlerThreads("router-http");
                HttpServer server;
                try {
                    server = HttpServer.create(new InetSocketAddress(host, port), 128);
                } catch (IOException e) {
                    threads.close();
                    throw new IOException("router could not bind " + host + ":" + port + ": " + e, e);
                }
                RouterApi api = new RouterApi(shape, list);
                HttpContexts.serve(server, api);
                server.setExecutor(threads.executor());
                server.start();
                return new RouterSimulator(server, threads, api, started, host);
            } catch (IOException | RuntimeException e) {
                started.forEach(EngineSimulator::close);
                throw e;
            }
        }

        private void addWorker(List<Worker> list, URI url, String type, boolean healthy, String model) {
            if (dpAware > 1) {
                for (int r = 0; r < dpAware; r++) {
                    list.add(new Worker(url, r, type, healthy, model));
                }
            } else {
                list.add(new Worker(url, -1, type, healthy, model));
            }
        }

        private SimulatorConfig workerConfig(int i) {
            SimulatorConfig.Builder b = workerConfig.toBuilder().port(0)
                    .profilerDir(workerConfig.profilerDir().resolve("worker-" + i))
                    .failStartProfile(failStart.getOrDefault(i, workerConfig.failStartProfileStatus()));
            VllmProfilerConfig pc = workerConfig.vllmProfilerConfig();
            if (pc != null && pc.torch()) {
                b.vllmProfilerConfig(pc.withTorchProfilerDir(pc.torchProfilerDir().resolve("worker-" + i)));
            }
            return b.seed(workerConfig.seed() + i).build();
        }

        private static int checkIndex(int index) {
            Require.atLeast(index, 0, "worker index");
            return index;
        }

        private static String checkType(String type) {
            if (!TYPES.contains(type)) {
                throw new IllegalArgumentException("worker_type must be one of " + TYPES + ", was " + type);
            }
            return type;
        }
    }
}
