package dev.profiledrollout.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.trace.reading.KinetoTraceReader;
import dev.profiledrollout.trace.reading.TraceFormatException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceSetTest {

    @Test
    void should_equal_per_file_results_for_the_two_trace_filter_ranks() throws IOException {
        // GIVEN
        Path rank0 = TestTraces.traceFilter(0);
        Path rank1 = TestTraces.traceFilter(1);
        TraceSummary alone0 = KinetoTraceReader.read(rank0);
        TraceSummary alone1 = KinetoTraceReader.read(rank1);
        // WHEN
        TraceSet set = TraceSet.read(List.of(rank1, rank0));
        // THEN
        assertThat(set.traces()).containsExactly(alone0, alone1);
        assertThat(set.kernelTotalNs()).isEqualTo(606_519_000L + 651_026_000L);

        long max = Math.max(alone0.busyNs(), alone1.busyNs());
        double mean = (alone0.busyNs() + alone1.busyNs()) / 2.0;
        assertThat(set.busyImbalance()).isEqualTo(max / mean);
        assertThat(set.busyImbalance()).isEqualTo(580_050_000 / ((547_656_000 + 580_050_000) / 2.0));

        KernelStats nccl = set.kernels().get(0);
        assertThat(nccl.name()).startsWith("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t");
        assertThat(nccl.count()).isEqualTo(20);
        assertThat(nccl.totalNs()).isEqualTo(396_199_000L + 379_053_000L);
        assertThat(set.kernels()).isSortedAccordingTo(KernelStats.BY_TOTAL_DESCENDING);
        assertThat(set.kernels().stream().mapToLong(KernelStats::totalNs).sum()).isEqualTo(set.kernelTotalNs());
        assertThat(set.kernels(KernelMatchers.glob("nccl*")).share())
                .isEqualTo((396_199_000.0 + 379_053_000.0) / set.kernelTotalNs());
        assertThat(set.rank(0)).as("trace_filter names carry no SGLang rank").isEmpty();
    }

    @Test
    void should_order_sglang_ranks_numerically_and_find_them_by_tp(@TempDir Path dir) throws IOException {
        String event = "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"ts\":0,\"dur\":%d}]";
        Path tp10 = Files.writeString(dir.resolve("1773999986.48-TP-10.trace.json.gz"), event.formatted(4));
        Path tp2 = Files.writeString(dir.resolve("1773999986.48-TP-2.trace.json.gz"), event.formatted(2));

        TraceSet set = TraceSet.read(List.of(tp10, tp2));

        assertThat(set.traces()).extracting(t -> t.rank().orElseThrow().tp()).containsExactly(2, 10);
        assertThat(set.rank(10)).get().extracting(TraceSummary::kernelTotalNs).isEqualTo(4_000L);
        assertThat(set.rank(3)).isEmpty();
        assertThat(set.busyImbalance()).isEqualTo(4_000 / 3_000.0);
        assertThat(set.kernels()).usingRecursiveFieldByFieldElementComparatorIgnoringFields("p50Ns", "p99Ns")
                .containsExactly(new KernelStats("k", 2, 6_000, 2_000, 4_000));
    }

    @Test
    void should_report_balance_for_one_rank_and_fail_on_a_non_trace(@TempDir Path dir) throws IOException {
        assertThat(TraceSet.read(List.of(TestTraces.traceFilter(0))).busyImbalance()).isEqualTo(1.0);
        assertThat(TraceSet.read(List.of()).busyImbalance()).isEqualTo(1.0);

        Path bad = Files.writeString(dir.resolve("bad.json"), "{}");
        assertThatThrownBy(() -> TraceSet.read(List.of(TestTraces.traceFilter(0), bad)))
                .isInstanceOf(TraceFormatException.class).hasMessageContaining("bad.json");
    }

    @Test
    void should_tell_apart_the_same_tp_rank_of_two_workers_and_analyse_each_worker_as_a_rank_set(@TempDir Path dir)
            throws IOException {
        // GIVEN two engines that each wrote TP-0 and TP-1 under the same names, in their own directories
        String event = "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"ts\":0,\"dur\":%d}]";
        Path w1 = Files.createDirectories(dir.resolve("worker-1"));
        Path w2 = Files.createDirectories(dir.resolve("worker-2"));
        List<Path> files = List.of(
                Files.writeString(w2.resolve("1.5-TP-0.trace.json.gz"), event.formatted(6)),
                Files.writeString(w2.resolve("1.5-TP-1.trace.json.gz"), event.formatted(2)),
                Files.writeString(w1.resolve("1.5-TP-0.trace.json.gz"), event.formatted(1)),
                Files.writeString(w1.resolve("1.5-TP-1.trace.json.gz"), event.formatted(3)));
        Map<String, String> urls = new LinkedHashMap<>();
        urls.put("worker-1", "http://a:30000");
        urls.put("worker-2", "http://b:30000");

        // WHEN
        TraceSet set = TraceSet.read(files).withWorkers(f -> f.getParent().getFileName().toString(), urls);

        // THEN every rank has its own label, in worker then rank order
        assertThat(set.traces()).extracting(set::rankLabel)
                .containsExactly("worker-1/TP-0", "worker-1/TP-1", "worker-2/TP-0", "worker-2/TP-1");
        assertThat(set.straggler()).get().extracting(set::rankLabel).isEqualTo("worker-2/TP-0");
        // each worker is a rank set of its own
        Map<String, TraceSet> sets = set.rankSets();
        assertThat(sets).containsOnlyKeys("worker-1", "worker-2");
        assertThat(sets.get("worker-1").busyImbalance()).isEqualTo(3_000 / 2_000.0);
        assertThat(sets.get("worker-1").straggler()).get().extracting(set::rankLabel).isEqualTo("worker-1/TP-1");
        assertThat(sets.get("worker-2").busyImbalance()).isEqualTo(6_000 / 4_000.0);
        // worker busy: 4 µs and 8 µs → max/mean = 8 / 6
        assertThat(set.workerImbalance()).hasValue(8_000 / 6_000.0);
        assertThat(set.kernelSpread()).singleElement().extracting(KernelSpread::maxLabel).isEqualTo("worker-2/TP-0");
        // the workers survive a scope and a merge (which keeps the router's worker order)
        TraceSet decode = set.withScope("DECODE");
        assertThat(decode.rankLabel(decode.traces().get(3))).isEqualTo("worker-2/TP-1");
        TraceSet merged = TraceSet.merge(List.of(sets.get("worker-2"), sets.get("worker-1")));
        assertThat(merged.traces()).extracting(merged::rankLabel)
                .containsExactly("worker-1/TP-0", "worker-1/TP-1", "worker-2/TP-0", "worker-2/TP-1");
        assertThat(merged.workerUrls()).containsEntry("worker-1", "http://a:30000");
    }

    @Test
    void should_name_no_straggler_and_no_worker_imbalance_for_a_single_rank() throws IOException {
        TraceSet one = TraceSet.read(List.of(TestTraces.traceFilter(0)));

        assertThat(one.straggler()).isEmpty();
        assertThat(one.workerImbalance()).isEmpty();
        assertThat(one.rankSets()).containsOnlyKeys("");
        assertThat(one.rankLabel(one.traces().get(0))).isEqualTo(TraceSet.label(one.traces().get(0)));
        assertThat(one.worker(one.traces().get(0))).isEmpty();
    }
}
