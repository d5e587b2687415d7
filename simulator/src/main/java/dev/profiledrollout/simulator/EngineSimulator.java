package dev.profiledrollout.simulator;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.sun.net.httpserver.HttpServer;
import dev.profiledrollout.simulator.internal.EngineApi;
import dev.profiledrollout.simulator.internal.EpochClock;
import dev.profiledrollout.simulator.internal.HandlerThreads;
import dev.profiledrollout.simulator.internal.HttpApi;
import dev.profiledrollout.simulator.internal.HttpContexts;
import dev.profiledrollout.simulator.internal.Profiler;
import dev.profiledrollout.simulator.internal.Scheduler;
import dev.profiledrollout.simulator.internal.SimRequest;
import dev.profiledrollout.simulator.internal.StepHook;
import dev.profiledrollout.simulator.internal.TraceWriter;
import dev.profiledrollout.simulator.internal.TrtllmHttpApi;
import dev.profiledrollout.simulator.internal.TrtllmProfiler;
import dev.profiledrollout.simulator.internal.VllmHttpApi;
import dev.profiledrollout.simulator.internal.VllmProfiler;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apiguardian.api.API;

/**
 * An embedded SGLang or vLLM "engine twin": an HTTP server that speaks the engine's API, a continuous-batching scheduler whose
 * steps take the time the {@link CostModel} gives them, and a profiler that writes Kineto traces with SGLang's file
 * names. Needs no GPU.
 *
 * <pre>{@code
 * try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().tpSize(2).build())) {
 *     URI base = sim.baseUri();   // POST base + "/start_profile", "/v1/completions", …
 * }
 * }</pre>
 *
 * <h2>Endpoints</h2>
 * As {@code docs/PROTOCOLS.md} §1 describes SGLang's ({@code python/sglang/srt/entrypoints/http_server.py}):
 * {@code GET /health}, {@code /health_generate} (one generated token, so one scheduler step; 200 with an empty body,
 * 503 while starting or closing; unlike SGLang it does not wait for its 1 s poll); {@code GET /server_info},
 * {@code /get_server_info} (flat server args plus {@code "engine":"simulator"}); {@code GET /v1/models};
 * {@code POST /v1/completions}; {@code POST /generate}; {@code /flush_cache}; {@code /start_profile} and
 * {@code /stop_profile} (GET or POST) with SGLang's step semantics, status codes and file names (§1.1–1.4).
 *
 * <h2>vLLM mode</h2>
 * With {@code backend("vllm")} the server speaks vLLM's API instead ({@code docs/PROTOCOLS.md} §2): {@code GET /health}
 * (200, empty; runs no step), {@code /version}, {@code /v1/models} ({@code owned_by "vllm"}),
 * {@code POST /v1/completions} with vLLM's SSE and usage rules, {@code /tokenize}, {@code /detokenize}, and
 * {@code POST /start_profile} / {@code /stop_profile} (200, empty body, idempotent; 405 on GET; 404
 * {@code {"detail":"Not Found"}} without {@link SimulatorConfig#vllmProfilerConfig()}). Iteration limits, file names
 * and the frontend trace follow {@code vllm/profiler/wrapper.py} (§2.2–2.4); see {@link VllmProfilerConfig} and
 * {@link VllmNamingEra}. No {@code /server_info}, {@code /metrics} or chat endpoint.
 *
 * <h2>Step counting</h2>
 * {@link #forwardCount()} is SGLang's {@code forward_ct}: it counts every batch since start, including the warm-up
 * request ({@code "The capital city of France is"}, 8 new tokens: one prefill and seven decode steps) that
 * {@link #start} runs before it returns.
 *
 * <h2>Not simulated</h2>
 * The {@code MEM} activity's memory-history pickle and the {@code CUDA_PROFILER} range write no file; {@code RPD}
 * writes one Kineto-layout file of TP rank 0's events per DP replica under SGLang's RPD name; one engine is one DP
 * replica ({@link SimulatorConfig#dpSize()} only names it) unless {@link SimulatorConfig#dpController()} makes it
 * the whole DP group, with one scheduler for every replica; {@code PP}/{@code EP} sizes are 1; no prefix cache, no
 * chunked prefill, no auth unless {@link SimulatorConfig#apiKey()} is set, no {@code /metrics}, no chat endpoint.
 * Faults to inject: {@link SimulatorFaults} and {@link #crash()}. A capture still open at {@link #close()} is dropped
 * unwritten.
 *
 * <h2>Threads</h2>
 * One scheduler thread ({@code simulator-scheduler}) and a pool of HTTP handler threads ({@code simulator-http-N});
 * the JDK's {@code HttpServer} adds its own dispatcher thread, which its {@code stop} joins. {@link #close()} stops
 * and joins all of them. Methods of this class are thread-safe.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class EngineSimulator implements AutoCloseable {

    private static final String WARMUP_PROMPT = "The capital city of France is";
    private static final int WARMUP_NEW_TOKENS = 8;
    /** A vLLM server without {@code --profiler-config}: nothing is ever recorded. */
    private static final StepHook NO_PROFILER = new StepHook() {
        @Override
        public boolean beforeBatch(long batch, boolean extend) {
            return false;
        }

        @Override
        public void afterBatch(dev.profiledrollout.simulator.internal.StepRecord step) {
        }
    };

    private final SimulatorConfig config;
    private final HttpServer server;
    private final HandlerThreads httpThreads;
    private final Scheduler scheduler;
    private final Runnable closeProfiler;
    private final EngineApi api;
    private final BooleanSupplier profiling;
    private final AtomicBoolean closed = new AtomicBoolean();

    private EngineSimulator(SimulatorConfig config, HttpServer server, HandlerThreads httpThreads,
                            Scheduler scheduler, Runnable closeProfiler, EngineApi api, BooleanSupplier profiling) {
        this.config = config;
        this.server = server;
        this.httpThreads = httpThreads;
        this.scheduler = scheduler;
        this.closeProfiler = closeProfiler;
        this.api = api;
        this.profiling = profiling;
    }

    /**
     * Starts the server, runs the warm-up request, and returns once {@code /health} would answer 200.
     *
     * @param config not null
     * @throws IOException if the port cannot be bound or the warm-up fails; nothing is left running then
     */
    public static EngineSimulator start(SimulatorConfig config) throws IOException {
        if (config == null) {
            throw new IllegalArgumentException("config must not be null");
        }
        EpochClock clock = new EpochClock();
        boolean vllm = config.backend().equals("vllm");
        boolean trtllm = config.backend().equals("trtllm");
        TraceWriter writer = new TraceWriter(config);
        Profiler sglangProfiler = vllm || trtllm ? null : new Profiler(config, clock, writer);
        VllmProfiler vllmProfiler = vllm && config.vllmProfilerConfig() != null
                ? new VllmProfiler(config, clock, writer) : null;
        TrtllmProfiler trtllmProfiler = trtllm ? new TrtllmProfiler(config, clock, writer) : null;
        StepHook hook = trtllm ? trtllmProfiler : vllm ? (vllmProfiler != null ? vllmProfiler : NO_PROFILER)
                : sglangProfiler;
        CostModel costModel = new CostModel(config.model(), config.gpu(), config.tpSize());
        Scheduler scheduler = new Scheduler(config, costModel, hook, clock);
        HandlerThreads httpThreads = new HandlerThreads("simulator-http");
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(config.host(), config.port()), 128);
        } catch (IOException e) {
            httpThreads.close();
            throw new IOException("simulator could not bind " + config.host() + ":" + config.port() + ": " + e, e);
        }
        EngineApi api = trtllm ? new TrtllmHttpApi(config, scheduler)
                : vllm ? new VllmHttpApi(config, scheduler, vllmProfiler)
                : new HttpApi(config, scheduler, sglangProfiler, () -> server.getAddress().getPort());
        HttpContexts.serve(server, api);
        Runnable closeProfiler = trtllmProfiler != null ? trtllmProfiler::close
                : vllmProfiler != null ? vllmProfiler::close
                : sglangProfiler != null ? sglangProfiler::close : () -> { };
        BooleanSupplier profiling = trtllmProfiler != null ? trtllmProfiler::profiling
                : vllmProfiler != null ? vllmProfiler::profiling
                : sglangProfiler != null ? sglangProfiler::profiling : () -> false;
        server.setExecutor(httpThreads.executor());
        EngineSimulator sim = new EngineSimulator(config, server, httpThreads, scheduler, closeProfiler, api,
                profiling);
        scheduler.start();
        server.start();
        try {
            SimRequest warmup = scheduler.submit((WARMUP_PROMPT.length() + 3) / 4, WARMUP_NEW_TOKENS, true);
            SimRequest.Event e;
            do {
                e = warmup.events().poll(60, TimeUnit.SECONDS);
            } while (e != null && !e.last());
            if (e == null || e.error() != null) {
                throw new IOException("simulator warm-up request did not finish: " + (e == null ? "timeout" : e.error()));
            }
        } catch (InterruptedException ie) {
            sim.close();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted during simulator warm-up", ie);
        } catch (IOException | RuntimeException ex) {
            sim.close();
            throw ex;
        }
        if (trtllmProfiler != null) {
            trtllmProfiler.arm();
        }
        api.markReady();
        return sim;
    }

    /** Base URI of the HTTP server, e.g. {@code http://127.0.0.1:41234}. */
    public URI baseUri() {
        String host = config.host().contains(":") ? "[" + config.host() + "]" : config.host();
        return URI.create("http://" + host + ":" + port());
    }

    /** The bound port (the ephemeral one when the config asked for 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    public SimulatorConfig config() {
        return config;
    }

    /** Scheduler steps (batches) completed since start, warm-up included: SGLang's {@code forward_ct}. */
    public long forwardCount() {
        return scheduler.forwardCount();
    }

    /** Requests that generated their last token since start, the warm-up included. */
    public long finishedRequests() {
        return scheduler.finishedRequests();
    }

    /**
     * HTTP requests that arrived on {@code path} since start, whatever their method, credentials or answer (the
     * warm-up is no HTTP request), e.g. {@code requestCount("/stop_profile") == 0} proves no stop was ever sent.
     *
     * @param path the request path, without query string; a path never called counts 0
     */
    public long requestCount(String path) {
        return api.received(path);
    }

    /**
     * Whether a capture is open: SGLang between {@code /start_profile} and its stop or auto-stop after
     * {@code num_steps} (a capture armed for a later {@code start_step} counts); vLLM between {@code /start_profile}
     * and {@code /stop_profile}. False after {@link #close()}, which drops an open capture.
     */
    public boolean profiling() {
        return profiling.getAsBoolean();
    }

    /**
     * Fault injection: the engine dies. Every open connection is closed at once (streams in flight end without
     * {@code [DONE]}, later requests are refused), then the simulator shuts down as {@link #close()} does. An
     * open capture is lost, as it would be when the process exits.
     */
    public void crash() {
        if (closed.get()) {
            return;
        }
        api.markClosing();
        server.stop(0);
        close();
    }

    /**
     * Stops the HTTP server, the scheduler (aborting queued and running requests) and any profiler export, and
     * joins every thread this simulator started. An open capture is dropped. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        api.markClosing();
        closeProfiler.run();
        scheduler.close();
        server.stop(0);
        httpThreads.close();
    }

    @Override
    public String toString() {
        return "EngineSimulator{" + baseUri() + ", engine=simulator, backend=" + config.backend() + ", tp="
                + config.tpSize() + (config.dpSize() > 1 ? ", dp=" + config.dpRank() + "/" + config.dpSize() : "") + "}";
    }
}
