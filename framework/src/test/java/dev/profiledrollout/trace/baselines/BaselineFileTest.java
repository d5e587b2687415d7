package dev.profiledrollout.trace.baselines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import dev.profiledrollout.trace.reading.TraceFormatException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A baseline file written and read back, in each of the shapes it may take, and its read errors. */
class BaselineFileTest {

    @TempDir
    Path dir;

    @Test
    void a_written_baseline_of_a_real_trace_reads_back_equal_with_its_step_kinds() throws IOException {
        TraceSummary real = KinetoTraceReader.read(TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz"));
        StageKernels decode = new StageKernels(StepStats.Stage.DECODE, 3, OptionalLong.empty(), OptionalLong.of(24),
                900, List.of(new KernelStats("gemm", 3, 900, -1, -1)));
        StageKernels prefill = new StageKernels(StepStats.Stage.PREFILL, 1, OptionalLong.of(512), OptionalLong.empty(),
                400, List.of(new KernelStats("attn", 1, 400, -1, -1)));
        TraceBaseline base = TraceBaseline.of(real);
        base = new TraceBaseline(base.kernelTotalNs(), base.busyNs(), base.kernels(), List.of(prefill, decode));
        assertThat(base.kernelTotalNs()).isEqualTo(real.kernelTotalNs());
        assertThat(base.busyNs()).isEqualTo(real.busyNs()).isPositive();
        Path file = dir.resolve("b.json");
        base.write(file);
        TraceBaseline back = TraceBaseline.read(file);
        assertThat(back).isEqualTo(base);
        assertThat(Files.readString(file)).contains("\"baselineVersion\"", "\"tokens\" : null", "\"requests\" : 24");
    }

    @Test
    void summary_json_shapes_are_read_with_busy_time_from_the_devices_when_not_given() throws IOException {
        Path traces = dir.resolve("traces.json");
        Files.writeString(traces, """
                {"traces": [
                  {"kernelTotalNs": 100, "devices": [{"busyNs": 30}, {"busyNs": 12}],
                   "kernels": [{"name": "a", "count": 2, "totalNs": 60}, {"name": "b", "count": 1, "totalNs": 40}]},
                  {"kernelTotalNs": 50, "busyNs": 7, "kernels": [{"name": "a", "count": 1, "totalNs": 50}]}
                ]}""");
        TraceBaseline b = TraceBaseline.read(traces);
        assertThat(b.kernelTotalNs()).isEqualTo(150);
        assertThat(b.busyNs()).isEqualTo(49);
        assertThat(b.kernels()).extracting(KernelStats::name, KernelStats::count, KernelStats::totalNs)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("a", 3L, 110L),
                        org.assertj.core.groups.Tuple.tuple("b", 1L, 40L));
        Path ranks = dir.resolve("summary.json");
        Files.writeString(ranks, """
                {"trace": {"ranks": [{"kernelTotalNs": 10, "busyNs": 4, "kernels": [{"name": "k", "count": 1, "totalNs": 10}]}]},
                 "stages": [{"stage": "DECODE", "steps": 2, "tokens": 16, "kernelNs": 10,
                             "kernels": [{"name": "k", "count": 1, "totalNs": 6}, {"name": "k", "count": 1, "totalNs": 4}]}]}""");
        TraceBaseline r = TraceBaseline.read(ranks);
        assertThat(r.kernelTotalNs()).isEqualTo(10);
        assertThat(r.stages()).hasSize(1);
        StageKernels s = r.stages().get(0);
        assertThat(s.steps()).isEqualTo(2);
        assertThat(s.tokens()).hasValue(16);
        assertThat(s.requests()).isEmpty();
        assertThat(s.kernels()).extracting(KernelStats::count, KernelStats::totalNs)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(2L, 10L));
    }

    @Test
    void a_file_of_no_known_shape_or_with_a_bad_stage_is_rejected() throws IOException {
        Path none = dir.resolve("none.json");
        Files.writeString(none, "{\"other\": 1}");
        assertThatThrownBy(() -> TraceBaseline.read(none)).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("not a baseline");
        Path badStage = dir.resolve("bad.json");
        Files.writeString(badStage, "{\"kernels\": [], \"stages\": [{\"stage\": \"WARMUP\", \"steps\": 1}]}");
        assertThatThrownBy(() -> TraceBaseline.read(badStage)).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("baseline stage \"WARMUP\" is none of");
        Path noSteps = dir.resolve("nosteps.json");
        Files.writeString(noSteps, "{\"kernels\": [], \"stages\": [{\"stage\": \"DECODE\", \"steps\": 0}]}");
        assertThatThrownBy(() -> TraceBaseline.read(noSteps)).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("baseline stage DECODE has no steps");
        Path oneStep = dir.resolve("onestep.json");
        Files.writeString(oneStep, "{\"kernels\": [], \"stages\": [{\"stage\": \"DECODE\", \"steps\": 1}]}");
        assertThat(TraceBaseline.read(oneStep).stages()).hasSize(1);
    }
}
