package dev.profiledrollout.trace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Predicate;

class KernelMatchersTest {

    private static final String GEMM = "ampere_sgemm_128x64_nn";
    private static final String NCCL = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)";

    @Test
    void should_match_regex_against_the_whole_name_case_insensitively() {
        assertThat(KernelMatchers.matching("gemm")).rejects(GEMM);
        assertThat(KernelMatchers.matching(".*GEMM.*")).accepts(GEMM);
        assertThat(KernelMatchers.matching("nccl.*")).accepts(NCCL).rejects(GEMM);
    }

    @Test
    void should_match_glob_with_star_and_question_mark_and_literal_metacharacters() {
        assertThat(KernelMatchers.glob("*SGEMM*")).accepts(GEMM);
        assertThat(KernelMatchers.glob("ampere_sgemm_???x64_nn")).accepts(GEMM);
        assertThat(KernelMatchers.glob("ampere_sgemm_??x64_nn")).rejects(GEMM);
        assertThat(KernelMatchers.glob("sgemm*")).rejects(GEMM);
        assertThat(KernelMatchers.glob("ncclKernel_*(ncclDevComm*, unsigned long, ncclWork*)")).accepts(NCCL);
        assertThat(KernelMatchers.glob("a.c")).rejects("abc").accepts("a.c");
    }

    @Test
    void should_select_kernels_and_compute_share_of_the_total() {
        List<KernelStats> kernels = List.of(new KernelStats(NCCL, 10, 600, 10, 100), new KernelStats(GEMM, 4, 300, 50, 100),
                new KernelStats("Memset", 1, 100, 100, 100));
        TraceSummary summary = new TraceSummary(java.nio.file.Path.of("t.json"), java.util.Optional.empty(), 15, 0, 3,
                1000, List.of(), kernels, List.of());
        Predicate<String> gemm = KernelMatchers.glob("*gemm*");

        KernelSelection selection = summary.kernels(gemm);

        assertThat(selection.kernels()).extracting(KernelStats::name).containsExactly(GEMM);
        assertThat(selection.count()).isEqualTo(4);
        assertThat(selection.totalNs()).isEqualTo(300);
        assertThat(selection.meanNs()).isEqualTo(75.0);
        assertThat(selection.share()).isEqualTo(0.3);
        assertThat(summary.kernels(name -> false).meanNs()).isZero();
        assertThat(new KernelSelection(List.of(), 0).share()).isZero();
    }
}
