package dev.profiledrollout.cli;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.RouterShape;
import dev.profiledrollout.simulator.RouterSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apiguardian.api.API;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code simulate}: runs the embedded engine simulator as a standalone server until interrupted (Ctrl-C), so that
 * {@code profiledrollout.engine=attach} tests, curl or the engines' own scripts can talk to it.
 *
 * <p>{@code simulate --backend sglang|vllm [--profiler-config JSON] [--router --workers N [--router-shape sgl|vllm]]
 * --port P --tp T [--dp-size D] [--api-key KEY]}. With {@code --router}, a {@link RouterSimulator} listens on
 * {@code --port} and its {@code N} workers on ephemeral ports; every URL is printed. {@code --api-key} is the engines'
 * own flag ({@code sglang.launch_server --api-key}, {@code vllm serve --api-key}) with each engine's route scope (see
 * {@link SimulatorConfig#apiKey()}); with {@code --router} every worker demands it and the router passes the
 * client's {@code Authorization} header through.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Run the engine simulator (SGLang or vLLM HTTP API, Llama-3.1-8B on H100 cost model), "
                + "optionally behind a simulated router, until Ctrl-C.")
@API(status = INTERNAL, since = "0.1")
public final class SimulateCommand implements Callable<Integer> {

    @Option(names = "--backend", defaultValue = "sglang", description = "Wire protocol to serve: sglang (default) or vllm.")
    String backend;

    @Option(names = "--profiler-config", description = "vLLM --profiler-config JSON, e.g. "
            + "'{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/tmp/vllm-traces\"}'. Without it a vLLM server "
            + "answers 404 to /start_profile.")
    String profilerConfig;

    @Option(names = "--router", description = "Start a router on --port in front of --workers simulated workers.")
    boolean router;

    @Option(names = "--workers", defaultValue = "2", description = "Workers behind --router (default ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--router-shape", defaultValue = "sgl",
            description = "GET /workers shape: sgl (sgl-model-gateway, default) or vllm (vllm-router).")
    String routerShape;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to bind (default ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", defaultValue = "30000", description = "Port (default ${DEFAULT-VALUE}; 0 = any free port).")
    int port;

    @Option(names = {"--tp", "--tp-size"}, defaultValue = "1", description = "Tensor-parallel size (default ${DEFAULT-VALUE}).")
    int tp;

    @Option(names = "--max-running-requests", defaultValue = "64", description = "Largest decode batch (default ${DEFAULT-VALUE}).")
    int maxRunningRequests;

    @Option(names = "--served-model-name", description = "Model name reported by /v1/models.")
    String servedModelName;

    @Option(names = "--profiler-dir", description = "Default profiler output_dir (else $SGLANG_TORCH_PROFILER_DIR or the temp dir).")
    Path profilerDir;

    @Option(names = "--api-key", description = "Demand this key as 'Authorization: Bearer <key>' where the engine does:"
            + " SGLang every route but /health*, /ready*, /metrics*; vLLM routes under /v1 (401 otherwise).")
    String apiKey;

    @Option(names = {"--dp", "--dp-size"}, defaultValue = "1", description = "SGLang data-parallel size: one server"
            + " runs every DP replica behind its DP controller and writes -DP-{d} trace files (default ${DEFAULT-VALUE}).")
    int dpSize;

    @Override
    public Integer call() throws Exception {
        CountDownLatch stopped = new CountDownLatch(1);
        // not try-with-resources: the shutdown hook closes them too (close is idempotent), before the JVM halts
        AutoCloseable servers = start(System.out);
        try {
            Thread hook = new Thread(() -> {
                try {
                    servers.close();
                } catch (Exception ignored) {
                    // shutting down anyway
                }
                stopped.countDown();
            }, "simulator-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            System.out.println("Ctrl-C to stop");
            System.out.flush();
            stopped.await();
        } finally {
            servers.close();
        }
        return 0;
    }

    /**
     * Starts what the options describe and prints its URLs to {@code out}; does not block.
     *
     * @return the running engine or router (which owns its workers); closing it stops everything
     * @throws IllegalArgumentException on an invalid option, with a message naming it
     * @throws IOException if a port cannot be bound
     */
    AutoCloseable start(PrintStream out) throws IOException {
        SimulatorConfig.Builder config = SimulatorConfig.builder().backend(backend).host(host).tpSize(tp)
                .maxRunningRequests(maxRunningRequests);
        if (profilerConfig != null) {
            config.profilerConfig(profilerConfig);
        }
        if (servedModelName != null) {
            config.servedModelName(servedModelName);
        }
        if (profilerDir != null) {
            config.profilerDir(profilerDir);
        }
        if (apiKey != null) {
            config.apiKey(apiKey);
        }
        if (dpSize != 1) {
            if (!backend.equals("sglang")) {
                throw new IllegalArgumentException("--dp-size is modelled for --backend sglang only (its DP controller);"
                        + " drop it, or start one vLLM simulator per DP rank");
            }
            config.dpSize(dpSize).dpController(true);
        }
        String auth = apiKey != null ? ", API key required" : "";
        if (!router) {
            EngineSimulator simulator = EngineSimulator.start(config.port(port).build());
            out.println("Engine simulator (" + backend + ", TP " + tp + (dpSize > 1 ? ", DP " + dpSize : "") + auth
                    + ") listening on " + simulator.baseUri() + " — profiler dir " + profilerDirOf(simulator.config()));
            out.flush();
            return simulator;
        }
        RouterShape shape = switch (routerShape) {
            case "sgl" -> RouterShape.SGL_MODEL_GATEWAY;
            case "vllm" -> RouterShape.VLLM_ROUTER;
            default -> throw new IllegalArgumentException("--router-shape must be sgl or vllm, was " + routerShape);
        };
        if (workers < 1) {
            throw new IllegalArgumentException("--workers must be at least 1, was " + workers);
        }
        RouterSimulator rs = RouterSimulator.builder().host(host).port(port).shape(shape).workers(workers)
                .workerConfig(config.port(0).build()).start();
        out.println("Router simulator (" + routerShape + " shape) listening on " + rs.baseUri() + " — GET "
                + rs.baseUri() + "/workers");
        for (int i = 0; i < rs.engines().size(); i++) {
            EngineSimulator e = rs.engines().get(i);
            out.println("  worker " + i + " (" + backend + ", TP " + tp + (dpSize > 1 ? ", DP " + dpSize : "") + auth
                    + "): " + e.baseUri() + " — profiler dir " + profilerDirOf(e.config()));
        }
        out.flush();
        return rs;
    }

    private static Path profilerDirOf(SimulatorConfig c) {
        return c.vllmProfilerConfig() != null && c.vllmProfilerConfig().torch()
                ? c.vllmProfilerConfig().torchProfilerDir() : c.profilerDir();
    }
}
