package dev.profiledrollout.cli;

import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code simulate}: runs the embedded engine simulator as a standalone server until interrupted (Ctrl-C), so that
 * {@code profiledrollout.engine=attach} tests, curl or SGLang's own scripts can talk to it.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Run the engine simulator (SGLang HTTP API, Llama-3.1-8B on H100 cost model) until Ctrl-C.")
public final class SimulateCommand implements Callable<Integer> {

    @Option(names = "--backend", defaultValue = "sglang", description = "Wire protocol to serve: sglang (default).")
    String backend;

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

    @Override
    public Integer call() throws Exception {
        SimulatorConfig.Builder config = SimulatorConfig.builder().backend(backend).host(host).port(port).tpSize(tp)
                .maxRunningRequests(maxRunningRequests);
        if (servedModelName != null) {
            config.servedModelName(servedModelName);
        }
        if (profilerDir != null) {
            config.profilerDir(profilerDir);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        try (EngineSimulator simulator = EngineSimulator.start(config.build())) {
            Thread hook = new Thread(() -> {
                simulator.close();
                stopped.countDown();
            }, "simulator-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            System.out.println("Engine simulator (" + backend + ", TP " + tp + ") listening on "
                    + simulator.baseUri() + " — profiler dir " + simulator.config().profilerDir()
                    + "; Ctrl-C to stop");
            System.out.flush();
            stopped.await();
        }
        return 0;
    }
}
