package dev.profiledrollout.trace.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The HTA-compatible temporal breakdown, idle time per stream and queue length per stream against HTA's own output
 * (HTA @ f4d0062 run on every Kineto JSON trace of the repository, {@code expected/hta_real.json}), and the
 * comm/compute overlap against the values HTA computes with default settings ({@code docs/TRACES.md} §3.3).
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

    /** HTA's own output for a repository trace, from {@code expected/hta_real.json} (see its {@code calls}). */
    private static JsonNode realHta(Path trace) throws IOException {
        JsonNode all = new ObjectMapper().readTree(TestTraces.root().resolve("expected/hta_real.json").toFile());
        String key = TestTraces.root().relativize(trace).toString().replace('\\', '/');
        JsonNode want = all.get("traces").get(key);
        assertThat(want).as("expected/hta_real.json has no entry for %s: run HTA on it (see the file's calls)", key)
                .isNotNull();
        return want;
    }

    /** The compatible temporal breakdown of every Kineto JSON trace here equals real HTA's (µs, as HTA prints). */
    @ParameterizedTest
    @MethodSource("everyJsonTrace")
    void every_json_trace_has_htas_own_temporal_breakdown(Path trace) throws IOException {
        JsonNode want = realHta(trace).get("temporal_breakdown");
        TemporalBreakdown t = hta(trace);
        assertThat(t.kernelTimeNs()).as("kernel_time").isEqualTo(want.get("kernel_us").asLong() * 1000);
        assertThat(t.idleNs()).as("idle_time").isEqualTo(want.get("idle_us").asLong() * 1000);
        assertThat(t.computeNs()).as("compute_time").isEqualTo(want.get("compute_us").asLong() * 1000);
        assertThat(t.nonComputeNs()).as("non_compute_time").isEqualTo(want.get("non_compute_us").asLong() * 1000);
    }

    /** Compute/communication overlap equals real HTA's {@code get_comm_comp_overlap} (a percentage, 2 decimals). */
    @ParameterizedTest
    @MethodSource("everyJsonTrace")
    void every_json_trace_has_htas_own_comm_comp_overlap(Path trace) throws IOException {
        JsonNode want = realHta(trace).get("comp_comm_overlap_pctg");
        TemporalBreakdown t = hta(trace);
        if (want.isNull()) { // HTA: no communication kernels
            assertThat(t.communicationNs()).isZero();
            assertThat(t.overlapPercent()).isNaN();
        } else {
            assertThat(t.overlapPercent()).isCloseTo(want.asDouble(), within(0.005));
        }
    }

    /** Idle time per stream and category equals real HTA's {@code get_idle_time_breakdown} on every trace here. */
    @ParameterizedTest
    @MethodSource("everyJsonTrace")
    void every_json_trace_has_htas_own_idle_time_breakdown(Path trace) throws IOException {
        java.util.Map<Long, long[]> want = new java.util.TreeMap<>(); // stream → host, kernel, other (ns)
        for (JsonNode r : realHta(trace).get("idle_time_breakdown")) {
            long[] v = want.computeIfAbsent(r.get("stream").asLong(), k -> new long[3]);
            int at = switch (r.get("category").asText()) {
                case "host_wait" -> 0;
                case "kernel_wait" -> 1;
                default -> 2;
            };
            v[at] = Math.round(r.get("idle_us").asDouble() * 1000);
        }
        java.util.Map<Long, long[]> got = new java.util.TreeMap<>();
        for (StreamIdle i : KinetoTraceReader.read(trace).details().streamIdle()) {
            got.put(i.stream(), new long[] {i.hostWaitNs(), i.kernelWaitNs(), i.otherNs()});
        }
        assertThat(got.keySet()).as("streams").containsExactlyElementsOf(want.keySet());
        want.forEach((stream, v) -> assertThat(got.get(stream)).as("stream %d", stream).containsExactly(v));
    }

    /** Queue length per stream equals real HTA's {@code get_queue_length_summary} on every trace here. */
    @ParameterizedTest
    @MethodSource("everyJsonTrace")
    void every_json_trace_has_htas_own_queue_length_summary(Path trace) throws IOException {
        JsonNode want = realHta(trace).get("queue_length_summary");
        List<StreamQueue> got = KinetoTraceReader.read(trace).details().streamQueues();
        assertThat(got).extracting(StreamQueue::stream)
                .containsExactlyElementsOf(want.findValues("stream").stream().map(JsonNode::asLong).toList());
        for (int i = 0; i < got.size(); i++) {
            JsonNode r = want.get(i);
            StreamQueue q = got.get(i);
            String as = "stream " + q.stream();
            assertThat(q.points()).as(as).isEqualTo(r.get("count").asLong());
            assertThat(q.min()).as(as).isEqualTo(r.get("min").asLong());
            assertThat(q.max()).as(as).isEqualTo(r.get("max").asLong());
            // HTA orders the rises and falls with pandas' default (unstable) sort: where a launch and a GPU start
            // share a rounded µs, HTA's order between them is arbitrary and ours is the rise first. Each tie taken the
            // other way moves the sum of the points by 2: on the two traces with many ties (ns_resolution,
            // negative_queue_length) the mean moves by up to 2e-5 of itself, or by 2 / points on a short stream.
            double mean = r.get("mean").asDouble();
            assertThat(q.mean()).as(as).isCloseTo(mean, within(Math.max(2e-5 * mean, 2.0 / q.points()) + 1e-9));
            assertThat(q.std()).as(as).isCloseTo(r.get("std").asDouble(), within(0.01 * r.get("std").asDouble() + 1e-9));
            assertThat(q.p25()).as(as).isCloseTo(r.get("p25").asDouble(), within(1.0));
            assertThat(q.p50()).as(as).isCloseTo(r.get("p50").asDouble(), within(1.0));
            assertThat(q.p75()).as(as).isCloseTo(r.get("p75").asDouble(), within(1.0));
        }
    }

    @Test
    void queue_length_of_the_ns_resolution_trace_reaches_about_a_thousand_launches() throws IOException {
        List<StreamQueue> q = KinetoTraceReader.read(TestTraces.root()
                .resolve("hta/ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")).details().streamQueues();
        // one stream; 4876 launched GPU events before the last ProfilerStep: the host runs far ahead, up to 1022
        // launches waiting (HTA's own summary: count 9752, median 973, max 1022)
        assertThat(q).singleElement().satisfies(s -> {
            assertThat(s.stream()).isEqualTo(7);
            assertThat(s.points()).isEqualTo(9_752);
            assertThat(s.max()).isEqualTo(1022);
            assertThat(s.p50()).isEqualTo(973.0);
        });
    }

    @Test
    void queue_length_series_of_the_ns_resolution_trace_starts_as_htas_does() throws IOException {
        List<StreamQueue.Point> series = KinetoTraceReader.queueLengthSeries(TestTraces.root()
                .resolve("hta/ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"));
        // HTA's get_queue_length_time_series on this trace (ts relative to the trace's first event, µs):
        // (3449, 1), (3488, 0), (3666, 1), (3678, 0), (4035, 1), … 9752 points in all
        assertThat(series).hasSize(9_752).allSatisfy(p -> assertThat(p.stream()).isEqualTo(7));
        assertThat(series.subList(0, 5)).extracting(StreamQueue.Point::length).containsExactly(1L, 0L, 1L, 0L, 1L);
        long first = series.get(0).tsNs();
        assertThat(series.subList(0, 5)).extracting(p -> (p.tsNs() - first) / 1000)
                .containsExactly(0L, 39L, 217L, 229L, 586L);
        assertThat(series).allSatisfy(p -> assertThat(p.tsNs() % 1000).isZero());
    }

    @Test
    void stream_idle_of_the_sglang_decode_trace_is_mostly_host_wait() throws IOException {
        List<StreamIdle> idle = KinetoTraceReader.read(
                TestTraces.root().resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz")).details()
                .streamIdle();
        // Stream 3 carries the 556 decode kernels; the host launched them after the GPU had drained, so most of its
        // idle time is host wait. HTA's whole-µs rounding (ceil of the start, floor of the end) widens each of the
        // many sub-µs gaps between back-to-back kernels to about a µs: 558 µs of kernel wait (HTA's own figures).
        assertThat(idle).extracting(StreamIdle::stream).containsExactly(2L, 3L);
        StreamIdle decode = idle.get(1);
        assertThat(decode.events()).isEqualTo(556);
        assertThat(decode.hostWaitNs()).isEqualTo(405_000);
        assertThat(decode.kernelWaitNs()).isEqualTo(558_000);
        assertThat(decode.otherNs()).isEqualTo(275_000);
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
        // No ProfilerStep, so nothing is dropped; ts rounded up and ends down to whole µs (HTA: hta_real.json).
        assertThat(t.kernelTimeNs()).isEqualTo(473_749_000L);
        assertThat(t.idleNs()).isEqualTo(464_534_000L);
        assertThat(t.computeNs()).isEqualTo(9_205_000L);
        assertThat(t.nonComputeNs()).isEqualTo(10_000L);
        assertThat(t.overlapPercent()).isNaN();
    }
}
