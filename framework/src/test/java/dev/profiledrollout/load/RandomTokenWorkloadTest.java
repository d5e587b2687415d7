package dev.profiledrollout.load;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class RandomTokenWorkloadTest {

    @Test
    void should_be_deterministic_for_a_seed_and_index() {
        LoadSpec spec = new LoadSpec(4, 100, 512, 64, 0.5, 2, 7L);
        RandomTokenWorkload a = new RandomTokenWorkload(spec, 32_000);
        RandomTokenWorkload b = new RandomTokenWorkload(spec, 32_000);
        for (int i = -3; i < 50; i++) {
            assertThat(a.request(i)).isEqualTo(b.request(i));
        }
        RandomTokenWorkload other = new RandomTokenWorkload(new LoadSpec(4, 100, 512, 64, 0.5, 2, 8L), 32_000);
        assertThat(other.request(0)).isNotEqualTo(a.request(0));
    }

    @Test
    void should_draw_lengths_within_the_vllm_bounds_and_ids_within_the_vocabulary() {
        // in ~ U[⌊100·0.7⌋, ⌈100·1.3⌉] = [70, 130]; out ~ U[max(1, ⌊3·0.7⌋), ⌈3·1.3⌉] = [2, 4]
        RandomTokenWorkload workload = new RandomTokenWorkload(new LoadSpec(1, 1, 100, 3, 0.3, 0, 1L), 1000);
        Set<Integer> inputLengths = new HashSet<>();
        Set<Integer> outputLengths = new HashSet<>();
        for (int i = 0; i < 2000; i++) {
            CompletionRequest request = workload.request(i);
            inputLengths.add(request.promptTokenIds().length);
            outputLengths.add(request.maxTokens());
            assertThat(request.index()).isEqualTo(i);
            assertThat(java.util.Arrays.stream(request.promptTokenIds()).allMatch(id -> id >= 0 && id < 1000)).isTrue();
        }
        assertThat(inputLengths).allSatisfy(n -> assertThat(n).isBetween(70, 130)).contains(70, 130);
        assertThat(outputLengths).containsOnly(2, 3, 4);
    }

    @Test
    void should_keep_output_at_least_one_token() {
        RandomTokenWorkload workload = new RandomTokenWorkload(new LoadSpec(1, 1, 1, 1, 0.9, 0, 3L), 10);
        for (int i = 0; i < 500; i++) {
            assertThat(workload.request(i).maxTokens()).isBetween(1, 2);
            assertThat(workload.request(i).promptTokenIds().length).isBetween(1, 2);
        }
    }

    @Test
    void should_give_exact_lengths_when_range_ratio_is_zero() {
        RandomTokenWorkload workload = new RandomTokenWorkload(new LoadSpec(1, 1, 256, 32, 0.0, 0, 9L), 32_000);
        for (int i = 0; i < 100; i++) {
            assertThat(workload.request(i).promptTokenIds()).hasSize(256);
            assertThat(workload.request(i).maxTokens()).isEqualTo(32);
        }
    }
}
