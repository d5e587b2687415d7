package dev.profiledrollout.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.trace.reading.KinetoTraceReader;
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

    /**
     * TraceLens' patched SGLang writes the detailed span beside SGLang's own {@code step[…]} spans (this real decode
     * capture has both): only SGLang's count, so no step is counted twice.
     */
    @Test
    void beside_sglangs_own_spans_the_detailed_span_is_not_a_second_step() throws Exception {
        TraceSummary trace = KinetoTraceReader.read(TestTraces.resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz"));

        assertThat(trace.details().steps()).isNotEmpty()
                .allSatisfy(step -> assertThat(step.name()).startsWith("step["));
        assertThat(StepStats.priority("execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk32785sqsq32sqsk32785)"))
                .isLessThan(StepStats.priority("step[DECODE bs=32]")).isGreaterThan(StepStats.priority("ProfilerStep#3"));
    }

    @Test
    void other_execute_names_are_not_steps() {
        assertThat(StepStats.isStepName("execute_model")).isFalse();
        assertThat(StepStats.isStepName("execute_context_x(1)_generation_0(0)")).isFalse();
    }
}
