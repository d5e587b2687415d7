package dev.profiledrollout.cli;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.RouterShape;
import dev.profiledrollout.simulator.RouterSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.simulator.TrtllmEnvironment;
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

    @Option(names = "--backend", defaultValue = "sglang", description = "Wire protocol to serve: sglang (default), vllm or trtllm (whose capture span and torch"
            + " trace come from TLLM_PROFILE_START_STOP / TLLM_TORCH_PROFILE_TRACE in the environment, as trtllm-serve's do).")
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

    @Option(names = "--admin-api-key", description = "SGLang's --admin-api-key: /start_profile, /stop_profile and"
            + " /flush_cache then accept only this key, generation routes only --api-key.")
    String adminApiKey;

    @Option(names = "--api-key", description = "Demand this key as 'Authorization: Bearer <key>' where the engine does:"
            + " SGLang every route but /health*, /ready*, /metrics*; vLLM routes under /v1 (401 otherwise).")
    String apiKey;

    @Option(names = {"--dp", "--dp-size"}, defaultValue = "1", description = "SGLang data-parallel size: one server"
            + " runs every DP replica behind its DP controller and writes -DP-{d} trace files (default ${DEFAULT-VALUE}).")
    int dpSize;

    @Option(names = "--slow-kernel", paramLabel = "REGEX", description = "Fault: kernels whose name contains a match of"
            + " REGEX run --slow-kernel-factor times longer (e.g. '.*' for all, 'BatchDecode' for decode attention).")
    String slowKernel;

    @Option(names = "--slow-kernel-factor", paramLabel = "F", defaultValue = "2.0",
            description = "Factor for --slow-kernel (default ${DEFAULT-VALUE}).")
    double slowKernelFactor;

    @Option(names = "--slow-decode", paramLabel = "F", defaultValue = "1.0", description = "Fault: every decode step's"
            + " kernels run F times longer, prefill unchanged (default ${DEFAULT-VALUE}: none).")
    double slowDecode;

    @Option(names = "--slow-host", paramLabel = "F", defaultValue = "1.0", description = "Fault: every step takes F times"
            + " its wall time through host time before its kernels; kernel times unchanged (default ${DEFAULT-VALUE}: none).")
    double slowHost;

    @Option(names = "--kernel-jitter", paramLabel = "SIGMA", arity = "0..1", fallbackValue = "0.03",
            defaultValue = "0", description = "GPU noise: log-normal sigma of each kernel launch's duration; the flag"
            + " alone means 0.03, measured on real traces (docs/TRACES.md §8). Default 0.")
    double kernelJitter;

    @Option(names = "--clock-spread", paramLabel = "SIGMA", arity = "0..1", fallbackValue = "0.01",
            defaultValue = "0", description = "GPU noise: log-normal sigma of the per-start clock factor applied to every"
            + " kernel; the flag alone means 0.01, one GPU against itself (0.08: runs landing on different GPUs;"
            + " docs/TRACES.md §8). Default 0.")
    double clockSpread;

    @Option(names = "--noise-seed", paramLabel = "N", description = "Seed of the GPU noise (default: a fresh one per"
            + " start, printed and reported in /server_info).")
    Long noiseSeed;

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
        // trtllm-serve reads its capture span and torch trace path from its environment at launch; so does this
        TrtllmEnvironment launchEnv = TrtllmEnvironment.of(System.getenv());
        if (!launchEnv.equals(TrtllmEnvironment.NONE)) {
            config.trtllmEnvironment(launchEnv);
        }
        if (servedModelName != null) {
            config.servedModelName(servedModelName);
        }
        if (profilerDir != null) {
            config.profilerDir(profilerDir);
        }
        if (adminApiKey != null) {
            config.adminApiKey(adminApiKey);
        }
        if (apiKey != null) {
            config.apiKey(apiKey);
        }
        if (dpSize != 1) {
            // SimulatorConfig refuses a DP controller on any backend but SGLang's, naming it
            config.dpSize(dpSize).dpController(true);
            try {
                config.build();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--dp-size " + dpSize + " cannot be simulated: " + e.getMessage()
                        + "; drop it, or start one simulator per DP rank", e);
            }
        }
        if (slowKernel != null) {
            requireFactor("--slow-kernel-factor", slowKernelFactor);
            config.slowKernel(slowKernel, slowKernelFactor);
        }
        requireFactor("--slow-decode", slowDecode);
        requireFactor("--slow-host", slowHost);
        if (!(kernelJitter >= 0 && kernelJitter <= 1) || !(clockSpread >= 0 && clockSpread <= 1)) {
            throw new IllegalArgumentException("--kernel-jitter and --clock-spread are log-normal sigmas in [0, 1], were "
                    + kernelJitter + " and " + clockSpread);
        }
        long seed = noiseSeed != null ? noiseSeed : System.nanoTime();
        config.slowDecode(slowDecode).slowHost(slowHost).kernelJitter(kernelJitter).clockSpread(clockSpread)
                .noiseSeed(seed);
        String auth = (apiKey != null ? ", API key required" : "") + (adminApiKey != null ? ", admin key required on"
                + " the profile routes" : "") + injected(seed);
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

    private static void requireFactor(String option, double factor) {
        if (!(factor >= 1) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException(option + " must be a finite factor of at least 1, was " + factor);
        }
    }

    /** What the banner says about injected faults and noise, so nobody mistakes a slowed server for a normal one. */
    private String injected(long seed) {
        StringBuilder b = new StringBuilder();
        if (slowKernel != null) {
            b.append(", FAULT: kernels /").append(slowKernel).append("/ x").append(slowKernelFactor);
        }
        if (slowDecode != 1.0) {
            b.append(", FAULT: decode x").append(slowDecode);
        }
        if (slowHost != 1.0) {
            b.append(", FAULT: host time x").append(slowHost);
        }
        if (kernelJitter != 0 || clockSpread != 0) {
            b.append(", GPU noise: jitter ").append(kernelJitter).append(", clock spread ").append(clockSpread)
                    .append(", noise seed ").append(seed);
        }
        return b.toString();
    }

    private static Path profilerDirOf(SimulatorConfig c) {
        if (c.trtllmEnvironment().torchTrace()) {
            return c.trtllmEnvironment().torchProfileTrace().toAbsolutePath().getParent();
        }
        return c.vllmProfilerConfig() != null && c.vllmProfilerConfig().torch()
                ? c.vllmProfilerConfig().torchProfilerDir() : c.profilerDir();
    }
}
