package dev.profiledrollout.trace.reading;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSummary;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every real JSON trace in testdata/traces against its independently computed expected/*.summary.json. */
class KinetoTraceReaderExpectedTest {

    static List<Path> traces() {
        return TestTraces.jsonTraces();
    }

    @Test
    void should_find_all_nine_shared_json_traces() {
        assertThat(traces()).extracting(p -> p.getFileName().toString()).containsExactlyInAnyOrder(
                "sampled_rank-0.json.gz", "sampled_rank-1.json.gz",
                "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", "sglang_Qwen3-8B_decode.json.gz",
                "mi250_minitoy_train_ROCm6_2_kineto.json.gz", "event_sync_trace.json.gz",
                "benchmark_result_2869224_1695835535_trace.json.gz", "rank0.json.gz", "triton_example.json.gz");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("traces")
    void should_match_expected_summary_exactly(Path trace) throws IOException {
        // GIVEN
        JsonNode expected = TestTraces.expectedFor(trace);
        // WHEN
        TraceSummary summary = KinetoTraceReader.read(trace);
        // THEN
        assertThat(summary.warnings()).as("warnings").isEmpty();
        assertThat(summary.kernelEvents()).as("kernel_events").isEqualTo(expected.get("kernel_events").asLong());
        assertThat(summary.memoryEvents()).as("memory_events").isEqualTo(expected.get("memory_events").asLong());
        assertThat(summary.distinctKernels()).as("distinct_kernels").isEqualTo(expected.get("distinct_kernels").asInt());
        assertThat(summary.kernels()).hasSize(summary.distinctKernels());
        assertThat(summary.kernelTotalNs()).as("kernel_total_ns").isEqualTo(expected.get("kernel_total_ns").asLong());

        Map<String, List<Long>> expectedDevices = new TreeMap<>();
        expected.get("devices").properties().forEach(e -> expectedDevices.put(e.getKey(),
                List.of(e.getValue().get("busy_ns").asLong(), e.getValue().get("span_ns").asLong())));
        Map<String, List<Long>> actualDevices = new TreeMap<>();
        summary.devices().forEach(d -> actualDevices.put(d.id(), List.of(d.busyNs(), d.spanNs())));
        assertThat(actualDevices).as("devices {id: [busy_ns, span_ns]}").isEqualTo(expectedDevices);

        List<Tuple> expectedTop = new ArrayList<>();
        expected.get("top_kernels").forEach(k ->
                expectedTop.add(tuple(k.get("name").asText(), k.get("count").asLong(), k.get("total_ns").asLong())));
        assertThat(summary.kernels().subList(0, expectedTop.size()))
                .as("top kernels (name, count, total_ns)")
                .extracting(KernelStats::name, KernelStats::count, KernelStats::totalNs)
                .containsExactlyElementsOf(expectedTop);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("traces")
    void should_keep_per_kernel_statistics_consistent(Path trace) throws IOException {
        TraceSummary summary = KinetoTraceReader.read(trace);

        assertThat(summary.kernels()).isSortedAccordingTo(KernelStats.BY_TOTAL_DESCENDING);
        assertThat(summary.kernels().stream().mapToLong(KernelStats::count).sum()).isEqualTo(summary.kernelEvents());
        assertThat(summary.kernels().stream().mapToLong(KernelStats::totalNs).sum()).isEqualTo(summary.kernelTotalNs());
        assertThat(summary.kernels()).allSatisfy(k -> {
            assertThat(k.minNs()).isLessThanOrEqualTo(k.maxNs());
            assertThat(k.meanNs()).isBetween((double) k.minNs(), (double) k.maxNs());
        });
        assertThat(summary.devices()).allSatisfy(d -> assertThat(d.busyNs()).isBetween(0L, d.spanNs()));
        assertThat(summary.kernels(name -> true).share()).isEqualTo(1.0);
    }
}
