package dev.profiledrollout.cli;

import dev.profiledrollout.simulator.SimulatorConfig;
import java.util.List;
import java.util.Map;

/** The {@code vllm serve} half of {@link EngineShimCommand}: vLLM's flag names onto the simulator's configuration. */
final class VllmShim {

    private VllmShim() {
    }

    static void configure(SimulatorConfig.Builder config, Map<String, String> options, List<String> positional) {
        config.backend("vllm").port(Integer.parseInt(EngineShimCommand.take(options, "8000", "port")));
        config.tpSize(Integer.parseInt(EngineShimCommand.take(options, "1", "tensor-parallel-size", "tp")));
        String model = EngineShimCommand.take(options, positional.isEmpty() ? null : positional.get(0), "model");
        String served = EngineShimCommand.take(options, model, "served-model-name");
        if (served != null) {
            config.servedModelName(served);
        }
        String maxSeqs = EngineShimCommand.take(options, null, "max-num-seqs");
        if (maxSeqs != null) {
            config.maxRunningRequests(Integer.parseInt(maxSeqs));
        }
        String profilerConfig = EngineShimCommand.take(options, null, "profiler-config");
        if (profilerConfig != null) {
            config.profilerConfig(profilerConfig);
        }
    }
}
