package dev.profiledrollout.cli;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apiguardian.api.API;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Unmatched;

/**
 * {@code engine-shim sglang|vllm ARGS…}: starts the engine simulator from the command line a real engine image would
 * be given, so that {@code SglangContainer} and {@code VllmContainer} run our simulator image unchanged.
 *
 * <ul>
 *   <li>{@code sglang}: the arguments of {@code python3 -m sglang.launch_server} ({@code --model-path}, {@code --host},
 *       {@code --port} (default 30000), {@code --tp-size}/{@code --tp}, {@code --max-running-requests},
 *       {@code --served-model-name}) and the environment variable {@code SGLANG_TORCH_PROFILER_DIR}.</li>
 *   <li>{@code vllm}: the arguments of {@code vllm serve} (model as the first positional argument or {@code --model},
 *       {@code --host}, {@code --port} (default 8000), {@code --tensor-parallel-size}/{@code -tp},
 *       {@code --max-num-seqs}, {@code --served-model-name}, {@code --profiler-config} as JSON).</li>
 * </ul>
 * Other flags of the real servers are accepted and ignored (listed on stderr), as the simulator has no use for them.
 * Runs until the process is terminated; a hidden command, meant for the simulator image's launch shims.
 */
@Command(name = "engine-shim", hidden = true,
        description = "Start the simulator from a real engine's command line (sglang launch_server / vllm serve).")
@API(status = INTERNAL, since = "0.1")
public final class EngineShimCommand implements Callable<Integer> {

    @Parameters(index = "0", description = "sglang or vllm")
    String engine;

    /** Everything after the engine name, in order: the real server's flags are not ours to declare. */
    @Unmatched
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        SimulatorConfig config = toConfig(engine, args, System.getenv());
        CountDownLatch stopped = new CountDownLatch(1);
        // not try-with-resources: the shutdown hook closes it too (close is idempotent), before the JVM halts
        EngineSimulator simulator = EngineSimulator.start(config);
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                simulator.close();
                stopped.countDown();
            }, "simulator-shutdown"));
            System.out.println("Engine simulator (" + config.backend() + ", TP " + config.tpSize() + ") serving "
                    + config.servedModelName() + " on " + config.host() + ":" + simulator.port()
                    + "; profiler dir " + config.profilerDir());
            System.out.flush();
            stopped.await();
        } finally {
            simulator.close();
        }
        return 0;
    }

    /** Translates an engine command line into a simulator configuration; throws for an unknown engine. */
    static SimulatorConfig toConfig(String engine, List<String> args, Map<String, String> env) {
        Map<String, String> options = new LinkedHashMap<>();
        List<String> positional = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String token = args.get(i);
            if (!token.startsWith("-")) {
                positional.add(token);
                continue;
            }
            String key = token.replaceFirst("^-+", "");
            String value = "true";
            int eq = key.indexOf('=');
            if (eq >= 0) {
                value = key.substring(eq + 1);
                key = key.substring(0, eq);
            } else if (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
                value = args.get(++i);
            }
            options.put(key.replace('_', '-').toLowerCase(Locale.ROOT), value);
        }
        SimulatorConfig.Builder config = SimulatorConfig.builder().host(take(options, "0.0.0.0", "host"));
        switch (engine) {
            case "sglang" -> {
                config.backend("sglang").port(Integer.parseInt(take(options, "30000", "port")));
                config.tpSize(Integer.parseInt(take(options, "1", "tp-size", "tp", "tensor-parallel-size")));
                String model = take(options, null, "model-path", "model");
                String served = take(options, model, "served-model-name");
                if (served != null) {
                    config.servedModelName(served);
                }
                String maxRunning = take(options, null, "max-running-requests");
                if (maxRunning != null) {
                    config.maxRunningRequests(Integer.parseInt(maxRunning));
                }
                String dir = env.get("SGLANG_TORCH_PROFILER_DIR");
                if (dir != null && !dir.isBlank()) {
                    config.profilerDir(Path.of(dir));
                }
            }
            case "vllm" -> VllmShim.configure(config, options, positional);
            case "trtllm" -> {
                // trtllm-serve MODEL --host H --port P --backend pytorch --tp_size N (tensorrt_llm/commands/serve.py);
                // the capture span and torch trace come from the environment, as the executor reads them
                config.backend("trtllm").port(Integer.parseInt(take(options, "8000", "port")));
                config.tpSize(Integer.parseInt(take(options, "1", "tp-size")));
                take(options, null, "backend");
                String model = positional.isEmpty() ? null : positional.get(0);
                if (model != null) {
                    config.servedModelName(model);
                }
                config.trtllmEnvironment(dev.profiledrollout.simulator.TrtllmEnvironment.of(env));
            }
            default -> throw new IllegalArgumentException("engine-shim: unknown engine '" + engine
                    + "'; allowed: sglang, vllm, trtllm");
        }
        if (!options.isEmpty()) {
            System.err.println("engine-shim: ignoring options the simulator does not model: " + options.keySet());
        }
        return config.build();
    }

    /** Removes and returns the first present option among {@code keys}, else {@code fallback}. */
    static String take(Map<String, String> options, String fallback, String... keys) {
        String found = null;
        for (String key : keys) {
            String value = options.remove(key);
            if (found == null && value != null) {
                found = value;
            }
        }
        return found != null ? found : fallback;
    }
}
