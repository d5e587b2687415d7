package dev.profiledrollout.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.trace.analysis.KernelCategory;
import dev.profiledrollout.trace.analysis.LaunchStats;
import dev.profiledrollout.trace.analysis.OperatorStats;
import dev.profiledrollout.trace.roofline.GpuPeaks;
import dev.profiledrollout.trace.roofline.OperatorRoofline;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Steps, launches, operators and categories on traces written by the engine simulator (SGLang step spans). */
class SimulatedTraceAnalysisTest {

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> post(URI base, String path, String body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<Path> traces(Path out) throws IOException {
        if (!Files.isDirectory(out)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(out)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".trace.json.gz")
                    && !p.getFileName().toString().startsWith(".")).sorted().toList();
        }
    }

    private List<Path> capture(int tp, int steps) throws Exception {
        return capture(tp, steps, "");
    }

    private List<Path> capture(int tp, int steps, String extraProfileFields) throws Exception {
        Path out = dir.resolve("run");
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().tpSize(tp)
                .profilerDir(dir.resolve("default")).build())) {
            URI base = sim.baseUri();
            assertThat(post(base, "/start_profile", "{\"output_dir\":\"" + out + "\",\"num_steps\":" + steps
                    + ",\"profile_id\":\"sim\"" + extraProfileFields + "}").statusCode()).isEqualTo(200);
            // one request of `steps` tokens: 1 prefill batch + (steps − 1) decode batches
            assertThat(post(base, "/v1/completions", "{\"prompt\":[1,2,3,4,5,6,7,8],\"max_tokens\":" + steps
                    + ",\"ignore_eos\":true}").statusCode()).isEqualTo(200);
            // the next batch (a health check's) begins by writing the capture, on every rank, before it answers
            assertThat(http.send(HttpRequest.newBuilder(base.resolve("/health")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
        }
        List<Path> files = traces(out);
        assertThat(files).hasSize(tp);
        return files;
    }

    @Test
    void roofline_of_the_simulator_gemms_matches_its_cost_model() throws Exception {
        TraceSet set = TraceSet.read(capture(1, 4, ",\"record_shapes\":true"));
        TraceDetails d = set.traces().get(0).details();
        assertThat(d.deviceName()).contains("NVIDIA H100 80GB HBM3");
        GpuPeaks.Gpu h100 = d.gpu(GpuPeaks.builtIn()).orElseThrow();
        List<OperatorRoofline> mm = d.roofline().stream().filter(r -> r.name().equals("aten::mm")).toList();
        assertThat(mm).isNotEmpty();
        // aten::linear wraps each aten::mm and launches nothing: it is not reported beside it
        assertThat(d.roofline()).noneMatch(r -> r.name().equals("aten::linear"));
        for (OperatorRoofline r : mm) {
            assertThat(r.precision()).isEqualTo("bf16");
            assertThat(r.count()).isEqualTo(r.calls());
            // the cost model times a GEMM at a fraction of the roofline, so no call beats the H100's roofline
            assertThat(r.rooflineFraction(Optional.of(h100)).orElseThrow().max()).isLessThanOrEqualTo(1.0);
            assertThat(r.tflops().min()).isPositive();
        }
        // prefill GEMMs (M = 8 tokens) move the same weights as decode ones (M = 1) with 8× the FLOPs
        assertThat(mm.stream().mapToDouble(OperatorRoofline::arithmeticIntensity).max().orElseThrow())
                .isGreaterThan(mm.stream().mapToDouble(OperatorRoofline::arithmeticIntensity).min().orElseThrow()
                        * 4);
    }

    @Test
    void steps_carry_stage_batch_and_all_kernel_time_of_their_gpu_window() throws Exception {
        TraceSet set = TraceSet.read(capture(2, 4));

        assertThat(set.traces()).hasSize(2);
        for (TraceSummary rank : set.traces()) {
            TraceDetails d = rank.details();
            assertThat(d.distributedRank()).hasValue(rank.rank().orElseThrow().tp());
            List<StepStats> steps = d.steps();
            assertThat(steps).extracting(StepStats::stage).containsExactly(StepStats.Stage.PREFILL,
                    StepStats.Stage.DECODE, StepStats.Stage.DECODE, StepStats.Stage.DECODE);
            assertThat(steps.get(0).name()).isEqualTo("step[EXTEND bs=1 toks=8]");
            assertThat(steps.get(0).batchSize()).hasValue(1);
            assertThat(steps.get(0).tokens()).hasValue(8);
            assertThat(steps.get(1).name()).isEqualTo("step[DECODE bs=1]");
            // every kernel falls in exactly one step's GPU window, which is the kernels' back-to-back time + 2 ns
            assertThat(steps.stream().mapToLong(StepStats::kernels).sum()).isEqualTo(rank.kernelEvents());
            assertThat(steps.stream().mapToLong(StepStats::kernelNs).sum()).isEqualTo(rank.kernelTotalNs());
            for (StepStats s : steps) {
                assertThat(s.gpuDurationNs()).as(s.name()).isEqualTo(s.kernelNs() + 2);
                assertThat(s.durationNs()).as(s.name()).isPositive();
            }
            assertThat(d.kernelNsByStage().get(StepStats.Stage.PREFILL)).isEqualTo(steps.get(0).kernelNs());
            assertThat(steps.get(0).kernelNs()).isGreaterThan(steps.get(1).kernelNs());
            // one cudaLaunchKernel per kernel, joined by correlation; every kernel linked to its cpu_op
            LaunchStats launches = d.launches();
            assertThat(launches.launches()).isEqualTo(rank.kernelEvents());
            assertThat(launches.kernelsWithoutLaunch()).isZero();
            assertThat(launches.graphLaunches()).isZero();
            assertThat(launches.graphKernelsMissing()).isFalse();
            assertThat(launches.kernelNsWithoutCpuOp()).isZero();
            assertThat(d.operators().stream().mapToLong(OperatorStats::gpuNs).sum()).isEqualTo(rank.kernelTotalNs());
            // TP = 2: the custom all-reduce is communication
            assertThat(d.category(KernelCategory.COMMUNICATION).count()).isPositive();
            assertThat(d.category(KernelCategory.ATTENTION).count()).isPositive();
            assertThat(d.exact().communicationNs()).isPositive();
        }
    }
}
