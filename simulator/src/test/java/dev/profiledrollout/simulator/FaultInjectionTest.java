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

    @Test
    void should_slow_every_decode_kernel_and_no_prefill_kernel() throws Exception {
        // GIVEN decode twice as slow
        SimulatorConfig config = SimulatorConfig.builder().profilerDir(dir).slowDecode(2.0).build();
        assertThat(config.decodeSlowdown()).isEqualTo(2.0);
        try (EngineSimulator sim = EngineSimulator.start(config)) {
            SimClient client = new SimClient(sim);
            // WHEN the prefill step and the first decode step of one request are captured
            client.post("/start_profile", "{\"num_steps\":2,\"profile_id\":\"d\"}");
            client.complete(3);
            JsonNode trace = SimClient.readTrace(SimClient.awaitTraceFiles(dir, 1).get(0));
            // THEN the LM head, whose cost is the same in both steps (one row per request), takes twice as long in
            // the decode step, which comes second
            CostModel model = new CostModel(ModelSpec.LLAMA_3_1_8B, GpuSpec.H100_SXM, 1);
            long lmHeadNs = model.extendStep(new int[] {8}).stream().filter(k -> k.name().contains("cutlass"))
                    .mapToLong(KernelCost::durationNs).sum();
            List<Long> lmHeads = SimClient.events(trace, "kernel").stream()
                    .filter(k -> k.get("name").asText().contains("cutlass"))
                    .sorted(java.util.Comparator.comparingDouble(k -> k.get("ts").asDouble()))
                    .map(k -> SimClient.ns(k.get("dur"))).toList();
            assertThat(lmHeads).hasSize(2);
            assertThat(lmHeads.get(0)).isBetween(lmHeadNs - 2, lmHeadNs + 2);
            assertThat(lmHeads.get(1)).isBetween(2 * lmHeadNs - 2, 2 * lmHeadNs + 2);
        }
    }

    @Test
    void should_slow_every_prefill_kernel_and_no_decode_kernel() throws Exception {
        // GIVEN prefill 1.5 times as slow
        SimulatorConfig config = SimulatorConfig.builder().profilerDir(dir).slowPrefill(1.5).build();
        assertThat(config.prefillSlowdown()).isEqualTo(1.5);
        assertThat(config.slowdownInjected()).isTrue();
        try (EngineSimulator sim = EngineSimulator.start(config)) {
            SimClient client = new SimClient(sim);
            // WHEN the prefill step and the first decode step of one request are captured
            client.post("/start_profile", "{\"num_steps\":2,\"profile_id\":\"p\"}");
            client.complete(3);
            JsonNode trace = SimClient.readTrace(SimClient.awaitTraceFiles(dir, 1).get(0));
            // THEN the LM head (same cost in both steps) takes 1.5 times as long in the prefill step, which comes
            // first, and its normal time in the decode step
            CostModel model = new CostModel(ModelSpec.LLAMA_3_1_8B, GpuSpec.H100_SXM, 1);
            long lmHeadNs = model.extendStep(new int[] {8}).stream().filter(k -> k.name().contains("cutlass"))
                    .mapToLong(KernelCost::durationNs).sum();
            List<Long> lmHeads = SimClient.events(trace, "kernel").stream()
                    .filter(k -> k.get("name").asText().contains("cutlass"))
                    .sorted(java.util.Comparator.comparingDouble(k -> k.get("ts").asDouble()))
                    .map(k -> SimClient.ns(k.get("dur"))).toList();
            assertThat(lmHeads).hasSize(2);
            assertThat(lmHeads.get(0)).isBetween(Math.round(1.5 * lmHeadNs) - 2, Math.round(1.5 * lmHeadNs) + 2);
            assertThat(lmHeads.get(1)).isBetween(lmHeadNs - 2, lmHeadNs + 2);
        }
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> SimulatorConfig.builder().slowPrefill(-1))
                .withMessageContaining("positive and finite");
    }

    @Test
    void should_reject_a_decode_slowdown_that_is_not_positive() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> SimulatorConfig.builder().slowDecode(0))
                .withMessageContaining("positive and finite");
    }
}
