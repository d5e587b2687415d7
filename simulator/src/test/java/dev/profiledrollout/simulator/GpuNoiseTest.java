package dev.profiledrollout.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulator's GPU noise (kernel jitter, per-run clock factor) and its host-time slowdown. */
class GpuNoiseTest {

    @TempDir
    Path dir;

    private static List<Long> kernelDurations(JsonNode trace, String nameContains) {
        return SimClient.events(trace, "kernel").stream().filter(k -> k.get("name").asText().contains(nameContains))
                .map(k -> SimClient.ns(k.get("dur"))).toList();
    }

    private JsonNode captureOneRequest(SimulatorConfig config, int steps) throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(config)) {
            SimClient client = new SimClient(sim);
            client.post("/start_profile", "{\"num_steps\":" + steps + ",\"profile_id\":\"n\"}");
            client.complete(steps + 1);
            return SimClient.readTrace(SimClient.awaitTraceFiles(dir, 1).get(0));
        }
    }

    @Test
    void jitter_spreads_launches_of_one_kernel_log_normally_with_the_configured_sigma() throws Exception {
        // GIVEN jitter 0.03 and no clock factor
        SimulatorConfig config = SimulatorConfig.builder().profilerDir(dir).kernelJitter(0.03).noiseSeed(7).build();
        // WHEN one prefill step is captured: 64 launches of the fused add RMSNorm, all the same shape
        List<Long> norms = kernelDurations(captureOneRequest(config, 1), "FusedAddRMSNorm");
        // THEN their ln(duration) spread is near 0.03 (the sample SD of 64 normal draws is within ±13 % of sigma
        // with probability ~0.998; the bounds are ±33 %) and the median is the cost-model duration
        CostModel model = new CostModel(ModelSpec.LLAMA_3_1_8B, GpuSpec.H100_SXM, 1);
        long exact = model.extendStep(new int[] {8}).stream().filter(k -> k.name().contains("FusedAddRMSNorm"))
                .mapToLong(KernelCost::durationNs).findFirst().orElseThrow();
        double[] logs = norms.stream().mapToDouble(d -> Math.log((double) d / exact)).toArray();
        double mean = java.util.Arrays.stream(logs).average().orElseThrow();
        double sd = Math.sqrt(java.util.Arrays.stream(logs).map(l -> (l - mean) * (l - mean)).sum() / (logs.length - 1));
        assertThat(norms).hasSizeGreaterThan(60);
        assertThat(sd).isBetween(0.02, 0.04);
        assertThat(Math.abs(mean)).isLessThan(0.015);
    }

    @Test
    void the_clock_factor_scales_every_kernel_of_a_run_and_depends_on_the_noise_seed() throws Exception {
        SimulatorConfig a = SimulatorConfig.builder().profilerDir(dir).clockSpread(0.03).noiseSeed(1).build();
        SimulatorConfig b = a.toBuilder().noiseSeed(2).build();
        double fa;
        double fb;
        double fa2;
        try (EngineSimulator s1 = EngineSimulator.start(a); EngineSimulator s2 = EngineSimulator.start(b);
                EngineSimulator s3 = EngineSimulator.start(a)) {
            fa = clockFactor(s1);
            fb = clockFactor(s2);
            fa2 = clockFactor(s3);
        }
        assertThat(fa).isEqualTo(fa2).isNotEqualTo(fb).isBetween(0.85, 1.15);
        // and every kernel of the run carries it: no jitter, so a captured norm is exactly the cost model's × factor
        JsonNode trace = captureOneRequest(a, 1);
        CostModel model = new CostModel(ModelSpec.LLAMA_3_1_8B, GpuSpec.H100_SXM, 1);
        long exact = model.extendStep(new int[] {8}).stream().filter(k -> k.name().contains("FusedAddRMSNorm"))
                .mapToLong(KernelCost::durationNs).findFirst().orElseThrow();
        assertThat(kernelDurations(trace, "FusedAddRMSNorm")).allSatisfy(d ->
                assertThat(d).isBetween(Math.round(exact * fa) - 2, Math.round(exact * fa) + 2));
    }

    private static double clockFactor(EngineSimulator sim) throws Exception {
        JsonNode info = SimClient.EXACT.readTree(new SimClient(sim).get("/server_info").body());
        assertThat(info.path("simulated_faults").path("injected").asBoolean(true)).isFalse();
        return info.path("simulated_gpu_noise").path("clock_factor").asDouble();
    }

    @Test
    void slow_host_doubles_each_step_span_and_leaves_the_kernels_alone() throws Exception {
        // GIVEN every step twice as long through host time
        SimulatorConfig config = SimulatorConfig.builder().profilerDir(dir).slowHost(2.0).build();
        try (EngineSimulator sim = EngineSimulator.start(config)) {
            JsonNode info = SimClient.EXACT.readTree(new SimClient(sim).get("/server_info").body());
            assertThat(info.path("simulated_faults").path("injected").asBoolean()).isTrue();
            assertThat(info.path("simulated_faults").path("slow_host").asDouble()).isEqualTo(2.0);
        }
        // WHEN the prefill and one decode step of one request are captured
        JsonNode trace = captureOneRequest(config, 2);
        // THEN each step's CPU span is twice (host overhead + its kernels), and the kernels are the cost model's
        CostModel model = new CostModel(ModelSpec.LLAMA_3_1_8B, GpuSpec.H100_SXM, 1);
        long prefillBusy = CostModel.busyNs(model.extendStep(new int[] {8}));
        long decodeBusy = CostModel.busyNs(model.decodeStep(new int[] {9}));
        List<JsonNode> spans = SimClient.events(trace, "user_annotation").stream()
                .filter(e -> e.get("name").asText().startsWith("step[")).toList();
        assertThat(spans).hasSize(2);
        assertThat(SimClient.ns(spans.get(0).get("dur")))
                .isBetween(2 * (CostModel.CPU_OVERHEAD_NS + prefillBusy) - 5, 2 * (CostModel.CPU_OVERHEAD_NS + prefillBusy) + 5);
        assertThat(SimClient.ns(spans.get(1).get("dur")))
                .isBetween(2 * (CostModel.CPU_OVERHEAD_NS + decodeBusy) - 5, 2 * (CostModel.CPU_OVERHEAD_NS + decodeBusy) + 5);
        long kernels = SimClient.events(trace, "kernel").stream().mapToLong(k -> SimClient.ns(k.get("dur"))).sum();
        assertThat(kernels).isBetween(prefillBusy + decodeBusy - 1000, prefillBusy + decodeBusy + 1000);
    }

    @Test
    void invalid_noise_and_host_factors_are_rejected_with_their_name() {
        assertThatIllegalArgumentException().isThrownBy(() -> SimulatorConfig.builder().kernelJitter(-0.1))
                .withMessageContaining("kernelJitter");
        assertThatIllegalArgumentException().isThrownBy(() -> SimulatorConfig.builder().clockSpread(2))
                .withMessageContaining("clockSpread");
        assertThatIllegalArgumentException().isThrownBy(() -> SimulatorConfig.builder().slowHost(0.5))
                .withMessageContaining("slowHost");
    }
}
