package dev.profiledrollout.assertions;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.matching;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.trace.KernelMatchers;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A budget over a kernel selection that matched nothing fails, whatever the budget, and names the kernels nearest to
 * the pattern; on the real SGLang decode trace (MI300X: {@code Cijk_…} GEMMs, {@code paged_attention_ll4mi_…}).
 */
class EmptySelectionTest {

    private static TraceSummary decode;

    @BeforeAll
    static void read() throws IOException {
        decode = KinetoTraceReader.read(TestTraces.resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz"));
    }

    @Test
    void a_share_budget_over_a_typo_fails_and_names_the_nearest_kernels() {
        assertThatThrownBy(() -> assertThat(decode).kernels(matching(".*paged_atention.*")).share().isLessThan(0.5))
                .hasMessageContaining("GPU kernel-time share of kernels matching /.*paged_atention.*/ in "
                        + "sglang_Qwen3-8B_decode.json.gz has no data, so budget < 50.0% cannot be checked")
                .hasMessageContaining("has no data")
                .hasMessageContaining("no kernel matched")
                .hasMessageContaining("nearest of the trace's 27 kernel names: void paged_attention_ll4mi_QKV")
                .hasMessageContaining("paged_attention_ll4mi_reduce_kernel")
                .hasMessageContaining("isEmpty() or mayBeEmpty()");
    }

    @Test
    void every_budget_of_an_empty_selection_fails_whatever_its_relation() {
        var empty = assertThat(decode).kernels(matching(".*rmsnrom.*"));
        // Each of these would pass on the empty selection's zeros.
        assertThatThrownBy(() -> empty.share().isLessThan(1)).hasMessageContaining("add_rmsnorm_quant_kernel");
        assertThatThrownBy(() -> empty.count().isLessThanOrEqualTo(5)).hasMessageContaining("no kernel matched");
        assertThatThrownBy(() -> empty.totalTime().isLessThan(Duration.ofSeconds(1)))
                .hasMessageContaining("total time of kernels matching /.*rmsnrom.*/ in sglang_Qwen3-8B_decode.json.gz has no data");
        assertThatThrownBy(() -> empty.meanTime().isLessThan(Duration.ofSeconds(1)))
                .hasMessageContaining("mean time of kernels matching /.*rmsnrom.*/ in sglang_Qwen3-8B_decode.json.gz has no data");
    }

    @Test
    void an_explicit_opt_out_judges_the_empty_selection_by_its_numbers() {
        assertThat(decode).kernels(matching(".*nccl.*")).isEmpty();
        assertThat(decode).kernels(matching(".*nccl.*")).mayBeEmpty().share().isLessThan(0.01);
        assertThatThrownBy(() -> assertThat(decode).kernels(matching(".*paged_attention.*")).isEmpty())
                .hasMessageContaining("2 distinct kernel(s) matched kernels matching /.*paged_attention.*/");
    }

    @Test
    void a_selection_that_matched_keeps_its_budgets() {
        assertThat(decode).kernels(matching(".*paged_attention.*")).share().isBetween(0.2, 0.25);
        assertThatThrownBy(() -> assertThat(decode).kernels(matching(".*paged_attention.*")).share().isLessThan(0.1))
                .hasMessageContaining("was 21.8%");
    }

    @Test
    void the_verdict_of_a_budget_over_nothing_is_a_failure_without_a_number() {
        List<Verdict> recorded;
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            assertThat(decode).kernels(matching(".*gemmm.*")).share().isLessThan(0.5);
            recorded = recording.verdicts();
            Assertions.assertThat(recording.failures()).hasSize(1);
        }
        Assertions.assertThat(recorded).singleElement().satisfies(v -> {
            Assertions.assertThat(v.passed()).isFalse();
            Assertions.assertThat(v.actualText()).isEqualTo("no data");
            Assertions.assertThat(v.detail()).contains("no kernel matched");
        });
    }

    @Test
    void a_rank_set_names_the_nearest_kernels_of_every_rank() throws IOException {
        TraceSet set = TraceSet.read(List.of(TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz"),
                TestTraces.resolve("hta/trace_filter/sampled_rank-1.json.gz")));
        assertThatThrownBy(() -> assertThat(set).kernels(KernelMatchers.glob("*split_embeding*")).count()
                .isGreaterThan(0)).hasMessageContaining("launch count of kernels matching glob '*split_embeding*' has no data")
                .hasMessageContaining("split_embedding");
    }

    @Test
    void an_invalid_regex_is_a_configuration_error_with_its_position() {
        assertThatThrownBy(() -> matching(".*(gemm"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kernel pattern matching(\".*(gemm\")")
                .hasMessageContaining("is not a valid regular expression: Unclosed group at index 7")
                .hasMessageContaining("\n  .*(gemm\n         ^\n")
                .hasMessageContaining("KernelMatchers.glob");
    }

    @Test
    void nearest_names_rank_one_edit_above_two_and_keep_the_given_order_among_equals() {
        Assertions.assertThat(NearestNames.substringDistance("gemmm", "sm90_gemm_kernel")).isEqualTo(1);
        Assertions.assertThat(NearestNames.substringDistance("gemm", "sm90_gemm_kernel")).isZero();
        Assertions.assertThat(NearestNames.substringDistance("xyz", "ab")).isEqualTo(3);
        Assertions.assertThat(NearestNames.words("^.*\\dflash_?attn(fwd|bwd).*$"))
                .containsExactly("flash", "attn", "fwd", "bwd");
        Assertions.assertThat(NearestNames.nearest(".*gemmm.*", List.of("rmsnorm", "b_gemm", "a_gemm", "gem"), 3))
                .containsExactly("b_gemm", "a_gemm", "gem");
    }
}
