package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.util.Map;
import org.apiguardian.api.API;

/**
 * The simulator's own {@code /server_info} fields (no SGLang or vLLM server reports them) that say which performance
 * faults and GPU noise a run carries, so a report of a run against the simulator can say that it was slowed on
 * purpose:
 * <pre>
 * "simulated_faults": {"injected": true, "slow_kernels": {"regex": factor}, "slow_ranks": {"tp": factor},
 *                      "slow_decode": f, "slow_host": f},
 * "simulated_gpu_noise": {"kernel_jitter": sigma, "clock_spread": sigma, "noise_seed": n, "clock_factor": f}
 * </pre>
 * {@code slow_decode} and {@code slow_host} appear only when not 1; {@code simulated_gpu_noise} only when noise is on.
 */
@API(status = INTERNAL, since = "0.1")
public final class SimulatedPerformance {

    private SimulatedPerformance() {
    }

    /** Adds the fields to a {@code /server_info} answer. */
    public static void write(ObjectNode serverInfo, SimulatorConfig config, double clockFactor) {
        ObjectNode faults = serverInfo.putObject("simulated_faults");
        faults.put("injected", config.slowdownInjected());
        ObjectNode kernels = faults.putObject("slow_kernels");
        for (Map.Entry<String, Double> e : config.kernelSlowdowns().entrySet()) {
            kernels.put(e.getKey(), e.getValue());
        }
        ObjectNode ranks = faults.putObject("slow_ranks");
        for (Map.Entry<Integer, Double> e : config.rankSlowdowns().entrySet()) {
            ranks.put(String.valueOf(e.getKey()), e.getValue());
        }
        if (config.decodeSlowdown() != 1.0) {
            faults.put("slow_decode", config.decodeSlowdown());
        }
        if (config.prefillSlowdown() != 1.0) {
            faults.put("slow_prefill", config.prefillSlowdown());
        }
        if (config.hostSlowdown() != 1.0) {
            faults.put("slow_host", config.hostSlowdown());
        }
        if (config.kernelJitter() != 0 || config.clockSpread() != 0) {
            ObjectNode noise = serverInfo.putObject("simulated_gpu_noise");
            noise.put("kernel_jitter", config.kernelJitter());
            noise.put("clock_spread", config.clockSpread());
            noise.put("noise_seed", config.noiseSeed());
            noise.put("clock_factor", clockFactor);
        }
    }
}
