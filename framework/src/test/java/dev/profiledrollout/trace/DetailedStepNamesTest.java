package dev.profiledrollout.trace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * vLLM step spans with extra roofline fields ({@code detailed_trace_annotation} of {@code vllm/config/profiler.py}):
 * still steps, with their stage, batch size and tokens.
 */
class DetailedStepNamesTest {

    @Test
    void a_detailed_span_with_a_leading_token_count_is_a_mixed_step() {
        String name = "execute_24_context_2(sq=24 sqsq=288 sqsk=288 sk=24)_generation_6(sq=6 sk=300)";

        assertThat(StepStats.isStepName(name)).isTrue();
        StepStats step = StepStats.ofName(name);
        assertThat(step.stage()).isEqualTo(StepStats.Stage.MIXED);
        assertThat(step.batchSize()).hasValue(8);
        assertThat(step.tokens()).hasValue(24);
    }

    @Test
    void metrics_after_the_token_counts_of_the_plain_span_keep_it_a_step() {
        StepStats step = StepStats.ofName("execute_context_0(0 sk=0)_generation_4(4 sk=512 sqsk=512)");

        assertThat(step.stage()).isEqualTo(StepStats.Stage.DECODE);
        assertThat(step.batchSize()).hasValue(4);
        assertThat(step.tokens()).hasValue(4);
    }

    @Test
    void other_execute_names_are_not_steps() {
        assertThat(StepStats.isStepName("execute_model")).isFalse();
        assertThat(StepStats.isStepName("execute_context_x(1)_generation_0(0)")).isFalse();
    }
}
