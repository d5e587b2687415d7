package dev.profiledrollout.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The HTA-compatible temporal breakdown and comm/compute overlap against the values HTA @ f4d0062 computes with
 * default settings on the real traces ({@code docs/TRACES.md} §3.3, "Reference values").
 */
class HtaOracleTest {

    @TempDir
    Path dir;

    private static String event(String cat, String name, int ts, int dur, String args) {
        return "{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":\"" + name + "\",\"pid\":0,\"tid\":7,\"ts\":" + ts
                + ",\"dur\":" + dur + ",\"args\":{" + args + "}}";
    }

    @Test
    void hta_counts_cuda_sync_records_on_a_stream_as_gpu_time_and_only_the_compatible_mode_follows() throws IOException {
        String json = "{\"traceEvents\":[" + String.join(",",
                event("cuda_runtime", "cudaLaunchKernel", 0, 1, "\"correlation\":1"),
                event("cuda_runtime", "cudaStreamSynchronize", 2, 28, "\"correlation\":3"),
                event("kernel", "gemm", 0, 10, "\"stream\":7,\"correlation\":1"),
                event("cuda_sync", "Stream Sync", 10, 20, "\"cuda_sync_kind\":\"Stream Sync\",\"stream\":7,\"correlation\":3"),
                event("cuda_sync", "Context Sync", 40, 50, "\"stream\":-1,\"correlation\":4"),
                event("kernel", "gemm", 30, 10, "\"stream\":7,\"correlation\":2")) + "]}";
        TraceSummary s = KinetoTraceReader.read(Files.writeString(dir.resolve("sync.json"), json));

        TemporalBreakdown exact = s.details().exact();
        assertThat(exact.kernelTimeNs()).isEqualTo(40_000);
        assertThat(exact.idleNs()).isEqualTo(20_000);
        // HTA: the Stream Sync on stream 7 fills [10, 30) as an OTHER-type GPU row; Context Sync (stream -1) does not
        TemporalBreakdown hta = s.details().htaCompatible();
        assertThat(hta.kernelTimeNs()).isEqualTo(40_000);
        assertThat(hta.idleNs()).isZero();
        assertThat(hta.computeNs()).isEqualTo(20_000);
        assertThat(hta.nonComputeNs()).isEqualTo(20_000);
        assertThat(s.devices()).hasSize(1);
        assertThat(s.devices().get(0).busyNs()).isEqualTo(20_000);
    }

    static List<Path> everyJsonTrace() {
        return TestTraces.jsonTraces();
    }

    /**
     * Every Kineto JSON trace in the repository against {@code expected/hta_breakdown.json}, which
     * {@code expected/hta_reference.py} computes from HTA's definitions without the project's reader (it reproduces
     * HTA's published values for the HTA traces below); a trace added without a reference value fails here.
     */
    @ParameterizedTest
    @MethodSource("everyJsonTrace")
    void every_json_trace_matches_the_hta_reference(Path trace) throws IOException {
        JsonNode all = new ObjectMapper().readTree(TestTraces.root().resolve("expected/hta_breakdown.json").toFile());
        String key = TestTraces.root().relativize(trace).toString().replace('\\', '/');
        JsonNode want = all.get(key);
        assertThat(want).as("expected/hta_breakdown.json has no entry for %s: run expected/hta_reference.py", key)
                .isNotNull();
        TemporalBreakdown t = hta(trace);
        assertThat(t.kernelTimeNs()).as("kernel_time").isEqualTo(want.get("kernel_time_us").asLong() * 1000);
        assertThat(t.idleNs()).as("idle_time").isEqualTo(want.get("idle_time_us").asLong() * 1000);
        assertThat(t.computeNs()).as("compute_time").isEqualTo(want.get("compute_time_us").asLong() * 1000);
        assertThat(t.nonComputeNs()).as("non_compute_time").isEqualTo(want.get("non_compute_time_us").asLong() * 1000);
        assertThat(t.communicationNs()).as("communication").isEqualTo(want.get("communication_time_us").asLong() * 1000);
        assertThat(t.overlapNs()).as("overlap").isEqualTo(want.get("overlap_us").asLong() * 1000);
    }

    /** HTA's per-stream idle categories on exact ns times against {@code stream_idle} of the same reference file. */
    @ParameterizedTest
    @MethodSource("everyJsonTrace")
    void every_json_trace_splits_stream_idle_time_as_the_reference(Path trace) throws IOException {
        JsonNode all = new ObjectMapper().readTree(TestTraces.root().resolve("expected/hta_breakdown.json").toFile());
        String key = TestTraces.root().relativize(trace).toString().replace('\\', '/');
        List<StreamIdle> want = new java.util.ArrayList<>();
        for (JsonNode r : all.get(key).get("stream_idle")) {
            want.add(new StreamIdle(r.get("device").asText(), r.get("stream").asLong(), r.get("events").asLong(),
                    r.get("host_wait_ns").asLong(), r.get("kernel_wait_ns").asLong(), r.get("other_ns").asLong()));
        }
        assertThat(KinetoTraceReader.read(trace).details().streamIdle()).containsExactlyElementsOf(want);
    }

    /** HTA's per-stream queue length on exact ns times against {@code stream_queues} of the reference file. */
    @ParameterizedTest
    @MethodSource("everyJsonTrace")
    void every_json_trace_has_the_reference_queue_length_per_stream(Path trace) throws IOException {
        JsonNode all = new ObjectMapper().readTree(TestTraces.root().resolve("expected/hta_breakdown.json").toFile());
        String key = TestTraces.root().relativize(trace).toString().replace('\\', '/');
        List<StreamQueue> got = KinetoTraceReader.read(trace).details().streamQueues();
        JsonNode want = all.get(key).get("stream_queues");
        assertThat(got).hasSize(want.size());
        for (int i = 0; i < got.size(); i++) {
            JsonNode r = want.get(i);
            StreamQueue q = got.get(i);
            assertThat(q.deviceId()).isEqualTo(r.get("device").asText());
            assertThat(q.stream()).isEqualTo(r.get("stream").asLong());
            assertThat(q.points()).isEqualTo(r.get("points").asLong());
            assertThat(q.mean()).isCloseTo(r.get("mean").asDouble(), within(1e-9));
            assertThat(q.p50()).isEqualTo(r.get("p50").asLong());
            assertThat(q.p99()).isEqualTo(r.get("p99").asLong());
            assertThat(q.max()).isEqualTo(r.get("max").asLong());
        }
    }

    @Test
    void queue_length_of_the_ns_resolution_trace_reaches_about_a_thousand_launches() throws IOException {
        List<StreamQueue> q = KinetoTraceReader.read(TestTraces.root()
                .resolve("hta/ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")).details().streamQueues();
        // one stream, 6095 launched GPU events: the host runs far ahead, up to 1022 launches waiting
        assertThat(q).singleElement().satisfies(s -> {
            assertThat(s.stream()).isEqualTo(7);
            assertThat(s.points()).isEqualTo(12_190);
            assertThat(s.max()).isEqualTo(1022);
            assertThat(s.p50()).isEqualTo(1011);
        });
    }

    @Test
    void stream_idle_of_the_sglang_decode_trace_is_mostly_host_wait() throws IOException {
        List<StreamIdle> idle = KinetoTraceReader.read(
                TestTraces.root().resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz")).details()
                .streamIdle();
        // Hand-checked: stream 3 carries the 556 decode kernels; the host launched them after the GPU had drained,
        // so most of its idle time is host wait; gaps under 30 µs between back-to-back launches are kernel wait.
        assertThat(idle).extracting(StreamIdle::stream).containsExactly(2L, 3L);
        StreamIdle decode = idle.get(1);
        assertThat(decode.events()).isEqualTo(556);
        assertThat(decode.hostWaitNs()).isEqualTo(398_640);
        assertThat(decode.kernelWaitNs()).isEqualTo(9_282);
        assertThat(decode.otherNs()).isEqualTo(273_690);
    }

    private static TemporalBreakdown hta(Path file) throws IOException {
        return KinetoTraceReader.read(file).details().htaCompatible();
    }

    @Test
    void trace_filter_rank_0_matches_hta() throws IOException {
        TemporalBreakdown t = hta(TestTraces.traceFilter(0));
        assertThat(t.kernelTimeNs()).isEqualTo(600_058_000L);
        assertThat(t.idleNs()).isEqualTo(321_378_000L);
        assertThat(t.computeNs()).isEqualTo(106_252_000L);
        assertThat(t.nonComputeNs()).isEqualTo(172_428_000L);
        assertThat(t.overlapPercent()).isCloseTo(11.81, within(0.005));
    }

    @Test
    void trace_filter_rank_1_matches_hta() throws IOException {
        TemporalBreakdown t = hta(TestTraces.traceFilter(1));
        assertThat(t.kernelTimeNs()).isEqualTo(600_674_000L);
        assertThat(t.idleNs()).isEqualTo(328_671_000L);
        assertThat(t.computeNs()).isEqualTo(135_548_000L);
        assertThat(t.nonComputeNs()).isEqualTo(136_455_000L);
        assertThat(t.overlapPercent()).isCloseTo(20.05, within(0.005));
    }

    @Test
    void ns_resolution_matches_hta_including_its_float64_microsecond_rounding() throws IOException {
        TraceSummary s = KinetoTraceReader.read(TestTraces.root()
                .resolve("hta/ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"));
        TemporalBreakdown t = s.details().htaCompatible();
        assertThat(t.kernelTimeNs()).isCloseTo(384_634_000L, within(0L));
        assertThat(t.idleNs()).isCloseTo(10_113_000L, within(0L));
        assertThat(t.computeNs()).isCloseTo(372_150_000L, within(0L));
        assertThat(t.nonComputeNs()).isCloseTo(2_371_000L, within(0L));
        assertThat(t.overlapPercent()).isNaN();
        // The exact mode keeps ns and the last step, so it differs from HTA's numbers.
        assertThat(s.details().exact().kernelTimeNs()).isEqualTo(480_029_179L);
        assertThat(s.details().exact().idleNs() + s.devices().get(0).busyNs())
                .isEqualTo(s.details().exact().kernelTimeNs());
    }

    @Test
    void sglang_decode_matches_hta_reference_with_relative_fractional_timestamps() throws IOException {
        TemporalBreakdown t = hta(TestTraces.root().resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz"));
        // No ProfilerStep, so nothing is dropped; ts rounded up and ends down to whole µs (hta_reference.py).
        assertThat(t.kernelTimeNs()).isEqualTo(473_749_000L);
        assertThat(t.idleNs()).isEqualTo(464_534_000L);
        assertThat(t.computeNs()).isEqualTo(9_205_000L);
        assertThat(t.nonComputeNs()).isEqualTo(10_000L);
        assertThat(t.overlapPercent()).isNaN();
    }
}
