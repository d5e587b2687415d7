package dev.profiledrollout.simulator;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class CostModelTest {

    private static long decodeNs(int bs, int ctx, int tp) {
        int[] contexts = new int[bs];
        Arrays.fill(contexts, ctx);
        return CostModel.busyNs(new CostModel(ModelSpec.LLAMA_3_1_8B, GpuSpec.H100_SXM, tp).decodeStep(contexts));
    }

    private static long prefillNs(int tokens, int tp) {
        return CostModel.busyNs(new CostModel(ModelSpec.LLAMA_3_1_8B, GpuSpec.H100_SXM, tp)
                .extendStep(new int[] {tokens}));
    }

    @Test
    void should_match_published_llama_8b_h100_magnitudes() {
        assertThat(ModelSpec.LLAMA_3_1_8B.totalParams()).isBetween(8_000_000_000L, 8_100_000_000L);
        assertThat(decodeNs(32, 512, 1) / 1e6).isBetween(5.0, 7.0);
        assertThat(prefillNs(1024, 1) / 1e6).isBetween(20.0, 25.0);
    }

    @Test
    void should_grow_decode_time_with_batch_size_and_context() {
        assertThat(decodeNs(64, 1024, 1)).isGreaterThan(decodeNs(8, 1024, 1));
        assertThat(decodeNs(8, 1024, 1)).isGreaterThan(decodeNs(1, 1024, 1));
        assertThat(decodeNs(32, 4096, 1)).isGreaterThan(decodeNs(32, 256, 1));
        // memory-bound: 64x the requests costs far less than 64x the time
        assertThat((double) decodeNs(64, 256, 1) / decodeNs(1, 256, 1)).isLessThan(2.0);
    }

    @Test
    void should_shrink_step_time_with_tensor_parallelism() {
        assertThat(decodeNs(32, 1024, 2)).isLessThan(decodeNs(32, 1024, 1));
        assertThat(decodeNs(32, 1024, 4)).isLessThan(decodeNs(32, 1024, 2));
        assertThat(prefillNs(4096, 2)).isLessThan(prefillNs(4096, 1));
    }

    @Test
    void should_scale_prefill_linearly_when_compute_bound() {
        double ratio = (double) prefillNs(4096, 1) / prefillNs(2048, 1);
        assertThat(ratio).isCloseTo(2.0, within(0.25));
    }

    @Test
    void should_only_add_all_reduce_with_tensor_parallelism() {
        CostModel tp1 = new CostModel(ModelSpec.LLAMA_3_1_8B, GpuSpec.H100_SXM, 1);
        CostModel tp2 = new CostModel(ModelSpec.LLAMA_3_1_8B, GpuSpec.H100_SXM, 2);
        assertThat(tp1.decodeStep(new int[] {100})).noneMatch(k -> k.kind() == KernelCost.Kind.ALL_REDUCE);
        // one after the embedding, two per layer
        assertThat(tp2.decodeStep(new int[] {100})).filteredOn(k -> k.kind() == KernelCost.Kind.ALL_REDUCE)
                .hasSize(1 + 2 * 32);
        KernelCost ar = tp2.allReduce(1 << 20);
        assertThat(ar.durationNs()).isEqualTo(Math.round(2.0 * 1 / 2 * (1 << 20) / 450e9 * 1e9)
                + CostModel.ALL_REDUCE_LATENCY_NS);
    }
}
