package dev.profiledrollout.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FaultInjectionTest {

    @TempDir
    Path dir;

    private static long kernelNs(JsonNode trace, String nameContains) {
        return SimClient.events(trace, "kernel").stream()
                .filter(k -> k.get("name").asText().contains(nameContains))
                .mapToLong(k -> SimClient.ns(k.get("dur"))).sum();
    }

    @Test
    void should_slow_the_named_kernel_and_rank_in_the_written_trace() throws Exception {
        // GIVEN rank 1 twice as slow, and the fused norm five times as slow everywhere
        SimulatorConfig config = SimulatorConfig.builder().tpSize(2).profilerDir(dir)
                .slowRank(1, 2.0).slowKernel("FusedAddRMSNorm", 5.0).build();
        try (EngineSimulator sim = EngineSimulator.start(config)) {
            SimClient client = new SimClient(sim);
            // WHEN two decode-only steps are captured
            client.post("/start_profile", "{\"num_steps\":1,\"profile_id\":\"f\"}");
            client.complete(3);
            List<Path> files = SimClient.awaitTraceFiles(dir, 2);
            JsonNode rank0 = SimClient.readTrace(files.get(0));
            JsonNode rank1 = SimClient.readTrace(files.get(1));
            // THEN
            CostModel model = new CostModel(ModelSpec.LLAMA_3_1_8B, GpuSpec.H100_SXM, 2);
            List<KernelCost> expected = model.extendStep(new int[] {8});
            long normNs = expected.stream().filter(k -> k.name().contains("FusedAddRMSNorm"))
                    .mapToLong(KernelCost::durationNs).sum();
            long gemmNs = expected.stream().filter(k -> k.name().contains("nvjet"))
                    .mapToLong(KernelCost::durationNs).sum();
            assertThat(kernelNs(rank0, "FusedAddRMSNorm")).isBetween(5 * normNs - 200, 5 * normNs + 200);
            assertThat(kernelNs(rank0, "nvjet")).isBetween(gemmNs - 200, gemmNs + 200);
            assertThat(kernelNs(rank1, "FusedAddRMSNorm")).isBetween(10 * normNs - 200, 10 * normNs + 200);
            assertThat(kernelNs(rank1, "nvjet")).isBetween(2 * gemmNs - 200, 2 * gemmNs + 200);
        }
    }
}
