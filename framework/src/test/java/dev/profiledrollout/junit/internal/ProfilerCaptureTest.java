package dev.profiledrollout.junit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.Profiler;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.SimulatedEngine;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.files.RankIdentity;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The capture kinds on their own, without the extension: which kind a window gets, where each engine writes, and a
 * whole start, load, stop, collect and analyse against the simulator.
 */
class ProfilerCaptureTest {

    @TempDir
    Path output;

    @TempDir
    Path serverDir;

    private static Settings settings(Map<String, String> parameters) {
        return new Settings(key -> Optional.ofNullable(parameters.get(key)), Map.of());
    }

    private static WindowSpec spec(Class<?> test) {
        return WindowSpec.of(test.getAnnotation(ProfiledRollout.class), test.getAnnotation(RolloutLoad.class));
    }

    private static List<Worker> workers(int count) {
        return java.util.stream.IntStream.range(0, count)
                .mapToObj(i -> new Worker(URI.create("http://worker-" + i + ":30000"), "regular", true, 0, null))
                .toList();
    }

    @ProfiledRollout
    static class Torch {
    }

    @ProfiledRollout(activities = Activity.RPD)
    static class Rpd {
    }

    @ProfiledRollout(backend = Backend.VLLM)
    static class Vllm {
    }

    @ProfiledRollout(profiler = Profiler.NSYS, activities = Activity.CUDA_PROFILER)
    static class CudaProfilerApi {
    }

    @ProfiledRollout(profiler = Profiler.NSYS)
    static class NsysSession {
    }

    @Test
    void each_profiler_and_backend_gets_its_own_capture_kind() throws Exception {
        Settings settings = settings(Map.of(ProfiledRolloutKeys.TRACE_DIR, serverDir.toString()));
        try (EngineHandle engine = EngineHandle.open(settings(Map.of()), Optional.empty(), Backend.SGLANG)) {
            Map<Class<?>, Class<?>> kinds = Map.of(Torch.class, SglangCapture.class, Rpd.class, SglangCapture.class,
                    Vllm.class, FixedDirectoryCapture.class, CudaProfilerApi.class, CudaProfilerCapture.class,
                    NsysSession.class, NsysSessionCapture.class);
            kinds.forEach((test, kind) -> {
                WindowSpec spec = spec(test);
                TraceLocation traces = TraceLocation.resolve(spec, settings, output, Optional.empty());
                try (ProfilerCapture capture = ProfilerCapture.of(engine, workers(1), spec, settings, traces)) {
                    assertThat(capture).as(test.getSimpleName()).isInstanceOf(kind);
                }
            });
        }
    }

    @Test
    void several_sglang_engines_each_write_into_their_own_directory_while_vllm_engines_share_the_servers()
            throws Exception {
        Settings settings = settings(Map.of(ProfiledRolloutKeys.TRACE_DIR, serverDir.toString()));
        try (EngineHandle engine = EngineHandle.open(settings(Map.of()), Optional.empty(), Backend.SGLANG)) {
            WindowSpec sglang = spec(Torch.class);
            ProfilerCapture perEngine = ProfilerCapture.of(engine, workers(2), sglang, settings,
                    TraceLocation.resolve(sglang, settings(Map.of()), output, Optional.empty()));
            WindowSpec vllm = spec(Vllm.class);
            ProfilerCapture shared = ProfilerCapture.of(engine, workers(2), vllm, settings,
                    TraceLocation.resolve(vllm, settings, output, Optional.empty()));
            WindowSpec nsys = spec(NsysSession.class);
            ProfilerCapture session = ProfilerCapture.of(engine, workers(2), nsys, settings(Map.of()),
                    TraceLocation.resolve(nsys, settings(Map.of()), output, Optional.empty()));

            assertThat(perEngine.request(0).outputDir()).isEqualTo(output.resolve("traces/worker-1").toString());
            assertThat(perEngine.request(1).outputDir()).isEqualTo(output.resolve("traces/worker-2").toString());
            assertThat(shared.request(0).outputDir()).isEqualTo(shared.request(1).outputDir())
                    .isEqualTo(serverDir.toAbsolutePath().toString());
            assertThat(session.request(0).outputDir()).as("the body summary.json shows, though no engine gets it")
                    .isEqualTo(perEngine.request(0).outputDir());
            assertThat(session.outcomes()).isEmpty();
        }
    }

    @SimulatedEngine(tpSize = 2)
    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 6, inputTokens = 16, outputTokens = 8, warmupRequests = 1)
    static class TwoRanks {
    }

    @Test
    void an_sglang_capture_collects_and_reads_one_trace_per_rank_of_the_simulator() throws Exception {
        Settings settings = settings(Map.of());
        WindowSpec spec = spec(TwoRanks.class);
        try (EngineHandle engine = EngineHandle.open(settings,
                Optional.of(TwoRanks.class.getAnnotation(SimulatedEngine.class)), Backend.SGLANG);
             WindowLoad load = new WindowLoad(engine, spec, settings)) {
            TraceLocation traces = TraceLocation.resolve(spec, settings, output, engine.embeddedTraceDir());
            traces.prepare(spec.backend(), output);
            try (ProfilerCapture capture = ProfilerCapture.of(engine, engine.workers(), spec, settings, traces)) {
                load.warmUp();
                capture.start();
                load.start();
                List<RequestRecord> records = load.await(reason -> {
                    throw new AssertionError(reason);
                }, output);
                StopOutcome stopped = capture.stop();
                ProfilerCapture.Collected files = capture.collect();
                TraceSet trace = capture.analyse(files);

                assertThat(records).hasSize(6).allMatch(RequestRecord::succeeded);
                assertThat(stopped).isEqualTo(StopOutcome.STOPPED);
                assertThat(capture.outcomes()).singleElement()
                        .satisfies(o -> assertThat(o.state()).isEqualTo(WorkerOutcome.State.PROFILED));
                assertThat(capture.untrusted()).isEmpty();
                assertThat(files.rankFiles()).hasSize(2).allMatch(p -> p.startsWith(output.resolve("traces")))
                        .allMatch(Files::isRegularFile);
                assertThat(files.frontendFiles()).isEmpty();
                assertThat(trace.traces()).extracting(t -> t.rank().map(RankIdentity::tp).orElse(-1))
                        .containsExactly(0, 1);
                assertThat(trace.kernelTotalNs()).isPositive();
            }
        }
    }

    @Test
    void a_capture_whose_engine_refuses_to_start_says_so_per_engine() throws Exception {
        Settings settings = settings(Map.of());
        WindowSpec spec = spec(Torch.class);
        try (EngineHandle engine = EngineHandle.open(settings, Optional.empty(), Backend.SGLANG)) {
            List<Worker> unreachable = List.of(new Worker(URI.create("http://127.0.0.1:1"), "regular", true, 0, null),
                    new Worker(URI.create("http://127.0.0.1:1"), "decode", false, 0, null));
            try (ProfilerCapture capture = ProfilerCapture.of(engine, unreachable, spec, settings,
                    TraceLocation.resolve(spec, settings, output, Optional.empty()))) {
                assertThatThrownBy(capture::start).isInstanceOf(ProfilerCapture.NotStarted.class)
                        .hasMessageStartingWith("No engine started profiling; per engine: ")
                        .hasMessageContaining("SKIPPED_UNHEALTHY");
                assertThat(capture.outcomes()).extracting(WorkerOutcome::state).containsExactly(
                        WorkerOutcome.State.START_FAILED, WorkerOutcome.State.SKIPPED_UNHEALTHY);
            }
        }
    }
}
