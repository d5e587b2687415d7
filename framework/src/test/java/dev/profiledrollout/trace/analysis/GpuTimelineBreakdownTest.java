package dev.profiledrollout.trace.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TraceLens' GPU timeline rows ({@code docs/TRACES.md} §4). */
class GpuTimelineBreakdownTest {

    @TempDir
    Path dir;

    private static String x(String cat, String name, String ts, String dur, int correlation) {
        return "{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":\"" + name + "\",\"pid\":0,\"tid\":7,\"ts\":" + ts
                + ",\"dur\":" + dur + ",\"args\":{\"correlation\":" + correlation + "}}";
    }

    private static String launch(int correlation) {
        return "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":0,"
                + "\"dur\":1,\"args\":{\"correlation\":" + correlation + "}}";
    }

    @Test
    void rows_are_unions_and_differences_of_linked_events_by_tracelens_class() throws IOException {
        String json = "{\"traceEvents\":[" + String.join(",",
                launch(1), launch(2), launch(3), launch(4), launch(6),
                x("kernel", "gemm", "0", "10", 1),                              // computation [0, 10)
                x("kernel", "ncclDevKernel_AllReduce_Sum_bf16", "5", "15", 2),  // communication [5, 20)
                x("gpu_memcpy", "Memcpy DtoD", "18", "12", 3),                  // memcpy [18, 30)
                x("gpu_memset", "Memset (Device)", "40", "5", 4),               // memset counts as computation
                x("kernel", "orphan_gemm", "50", "10", 5),                      // no launch with correlation 5: dropped
                x("kernel", "void sglang::cross_device_reduce_1stage<bf16>", "41", "1", 6)) // communication
                + "]}";
        TraceSummary s = KinetoTraceReader.read(Files.writeString(dir.resolve("t.json"), json));

        GpuTimelineBreakdown t = s.details().gpuTimeline();
        assertThat(t.computationNs()).isEqualTo(15_000);      // [0, 10) ∪ [40, 45)
        assertThat(t.communicationNs()).isEqualTo(16_000);    // [5, 20) ∪ [41, 42)
        assertThat(t.memcpyNs()).isEqualTo(12_000);
        assertThat(t.exposedCommNs()).isEqualTo(10_000);      // [10, 20); [41, 42) is under the memset
        assertThat(t.exposedMemcpyNs()).isEqualTo(10_000);    // [20, 30)
        assertThat(t.busyNs()).isEqualTo(35_000);             // [0, 30) ∪ [40, 45)
        assertThat(t.totalNs()).isEqualTo(45_000);            // the orphan at [50, 60) is not counted
        assertThat(t.idleNs()).isEqualTo(10_000);
        assertThat(t.unlinkedEvents()).isEqualTo(1);
        // the device view still counts every GPU event, the orphan included
        assertThat(s.devices().get(0).spanNs()).isEqualTo(60_000);
    }

    @Test
    void the_shared_sglang_decode_trace_gives_tracelens_reference_rows_up_to_its_float64_rounding() throws IOException {
        TraceSummary s = KinetoTraceReader.read(
                TestTraces.root().resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz"));
        GpuTimelineBreakdown t = s.details().gpuTimeline();

        // exact ns, recomputed independently from the decimal text (Python, Decimal µs × 1000, same classes and
        // union): computation 9759749, busy 9772926, total 473749943 over 558 linked GPU events
        assertThat(t.computationNs()).isEqualTo(9_759_749);
        assertThat(t.communicationNs()).isZero();
        assertThat(t.exposedMemcpyNs()).isEqualTo(13_177);
        assertThat(t.busyNs()).isEqualTo(9_772_926);
        assertThat(t.totalNs()).isEqualTo(473_749_943);
        assertThat(t.idleNs()).isEqualTo(463_977_017);
        assertThat(t.unlinkedEvents()).isZero();

        // TraceLens' own gpu_timeline.csv for this trace (docs/TRACES.md §4), in ms: computation 9.759752, exposed
        // memcpy 0.013177, busy 9.772929, idle 463.977015, total 473.749943. It adds ts + dur in float64 µs, which at
        // these epoch timestamps (4.9e12 µs) resolves about 1 ns, so its rows differ from the exact ones by a few ns
        // (the same Python union in float64 gives 9759.751953 µs).
        assertThat(t.computationNs()).isCloseTo(9_759_752, within(4L));
        assertThat(t.exposedMemcpyNs()).isCloseTo(13_177, within(4L));
        assertThat(t.busyNs()).isCloseTo(9_772_929, within(4L));
        assertThat(t.idleNs()).isCloseTo(463_977_015, within(4L));
        assertThat(t.totalNs()).isCloseTo(473_749_943, within(4L));
    }
}
