package dev.profiledrollout.trace;

import org.junit.jupiter.api.Test;

import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;

/** Which annotation names are engine steps, and what their names say (stage, batch, tokens). */
class StepNamesTest {

    @Test
    void only_profiler_sglang_and_vllm_step_names_are_steps() {
        assertThat(StepStats.isStepName("ProfilerStep#12")).isTrue();
        assertThat(StepStats.isStepName("step[DECODE bs=8]")).isTrue();
        assertThat(StepStats.isStepName("step[EXTEND bs=2 toks=1024]")).isTrue();
        assertThat(StepStats.isStepName("execute_context_1(512)_generation_3(3)")).isTrue();
        assertThat(StepStats.isStepName("execute_new_2_cached_5")).isTrue();
        for (String other : new String[]{"aten::mm", "step", "step[DECODE]", "ProfilerStep", "execute_model",
                "execute_new_2_cached_", "execute_context_1_generation_3", "## forward ##", ""}) {
            assertThat(StepStats.isStepName(other)).as(other).isFalse();
        }
    }

    @Test
    void sglang_steps_give_stage_batch_and_tokens() {
        StepStats extend = StepStats.parse("step[EXTEND bs=2 toks=1024]", 10, 20);
        assertThat(extend.stage()).isEqualTo(StepStats.Stage.PREFILL);
        assertThat(extend.batchSize()).isEqualTo(OptionalInt.of(2));
        assertThat(extend.tokens()).isEqualTo(OptionalInt.of(1024));
        assertThat(extend.startNs()).isEqualTo(10);
        assertThat(extend.durationNs()).isEqualTo(20);
        assertThat(extend.gpuDurationNs()).isEqualTo(-1);
        StepStats decode = StepStats.parse("step[DECODE bs=8]", 0, 1);
        assertThat(decode.stage()).isEqualTo(StepStats.Stage.DECODE);
        assertThat(decode.batchSize()).isEqualTo(OptionalInt.of(8));
        assertThat(decode.tokens()).isEmpty();
        assertThat(StepStats.parse("step[PREFILL bs=1]", 0, 1).stage()).isEqualTo(StepStats.Stage.PREFILL);
        assertThat(StepStats.parse("step[MIXED bs=3]", 0, 1).stage()).isEqualTo(StepStats.Stage.MIXED);
        assertThat(StepStats.parse("step[IDLE bs=0]", 0, 1).stage()).isEqualTo(StepStats.Stage.UNKNOWN);
        assertThat(StepStats.parse("step[DECODE bs=99999999999]", 0, 1).batchSize()).isEmpty();
    }

    @Test
    void vllm_steps_sum_requests_and_tokens_of_context_and_generation() {
        StepStats mixed = StepStats.parse("execute_context_2(700)_generation_5(5)", 0, 1);
        assertThat(mixed.stage()).isEqualTo(StepStats.Stage.MIXED);
        assertThat(mixed.batchSize()).isEqualTo(OptionalInt.of(7));
        assertThat(mixed.tokens()).isEqualTo(OptionalInt.of(705));
        StepStats prefill = StepStats.parse("execute_context_3(300)_generation_0(0)", 0, 1);
        assertThat(prefill.stage()).isEqualTo(StepStats.Stage.PREFILL);
        assertThat(prefill.batchSize()).isEqualTo(OptionalInt.of(3));
        assertThat(prefill.tokens()).isEqualTo(OptionalInt.of(300));
        StepStats decode = StepStats.parse("execute_context_0(0)_generation_4(4)", 0, 1);
        assertThat(decode.stage()).isEqualTo(StepStats.Stage.DECODE);
        assertThat(decode.batchSize()).isEqualTo(OptionalInt.of(4));
        assertThat(decode.tokens()).isEqualTo(OptionalInt.of(4));
        assertThat(StepStats.parse("execute_context_0(0)_generation_0(0)", 0, 1).stage())
                .isEqualTo(StepStats.Stage.UNKNOWN);
    }

    @Test
    void old_vllm_steps_count_new_requests_as_context_and_cached_ones_as_generation() {
        StepStats mixed = StepStats.parse("execute_new_2_cached_5", 0, 1);
        assertThat(mixed.stage()).isEqualTo(StepStats.Stage.MIXED);
        assertThat(mixed.batchSize()).isEqualTo(OptionalInt.of(7));
        assertThat(mixed.tokens()).isEmpty();
        assertThat(StepStats.parse("execute_new_2_cached_0", 0, 1).stage()).isEqualTo(StepStats.Stage.PREFILL);
        assertThat(StepStats.parse("execute_new_0_cached_6", 0, 1).stage()).isEqualTo(StepStats.Stage.DECODE);
        assertThat(StepStats.parse("execute_new_0_cached_6", 0, 1).batchSize()).isEqualTo(OptionalInt.of(6));
        assertThat(StepStats.parse("execute_new_0_cached_0", 0, 1).stage()).isEqualTo(StepStats.Stage.UNKNOWN);
    }

    @Test
    void only_profiler_steps_have_a_step_number() {
        assertThat(StepStats.parse("ProfilerStep#55", 0, 1).profilerStepNumber()).isEqualTo(OptionalInt.of(55));
        assertThat(StepStats.parse("ProfilerStep#55", 0, 1).stage()).isEqualTo(StepStats.Stage.UNKNOWN);
        assertThat(StepStats.parse("step[DECODE bs=8]", 0, 1).profilerStepNumber()).isEmpty();
    }

    @Test
    void gpu_figures_are_added_without_touching_the_name_figures() {
        StepStats s = StepStats.parse("step[DECODE bs=8]", 5, 9).withGpu(7, 3, 6).withGpuSpan(11, 7, 5);
        assertThat(s).isEqualTo(new StepStats("step[DECODE bs=8]", StepStats.Stage.DECODE, OptionalInt.of(8),
                OptionalInt.empty(), 5, 9, 7, 3, 6, 11, 7, 5));
    }
}
