package dev.profiledrollout.trace.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Steps × ranks: per-step GPU busy time, span, gap to the straggler and clock alignment. */
class StepTimelineTest {

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void a_slow_simulated_rank_is_the_straggler_of_every_step_by_its_extra_busy_time() throws Exception {
        TraceSet set = TraceSet.read(simulate(2, 4, SimulatorConfig.builder().slowRank(1, 1.5)));

        StepTimeline timeline = set.stepTimeline();

        assertThat(timeline.ranks()).containsExactly("TP-0", "TP-1");
        assertThat(timeline.matching()).isEqualTo("order");
        assertThat(timeline.steps()).hasSize(4);
        List<StepStats> tp0 = set.traces().get(0).details().steps();
        List<StepStats> tp1 = set.traces().get(1).details().steps();
        for (StepTimeline.Step step : timeline.steps()) {
            StepStats a = tp0.get(step.index());
            StepStats b = tp1.get(step.index());
            // the simulator runs a step's kernels back to back on one stream: busy is their summed time
            assertThat(step.busyNs()).containsExactly(a.kernelNs(), b.kernelNs());
            assertThat(step.spanNs()).containsExactly(a.gpuDurationNs(), b.gpuDurationNs());
            assertThat(step.straggler()).isEqualTo(1);
            assertThat(step.gapNs()).containsExactly(b.kernelNs() - a.kernelNs(), 0L);
            assertThat(step.gapNs().get(0)).isPositive();
        }
        assertThat(timeline.stragglerCounts()).containsExactly(Map.entry("TP-0", 0), Map.entry("TP-1", 4));
        assertThat(timeline.maxGapNs()).isEqualTo(timeline.steps().stream()
                .mapToLong(s -> s.gapNs().get(0)).max().orElseThrow());
        assertThat(timeline.note()).startsWith("4 steps matched across 2 ranks by order")
                .contains("aligned on their own step boundaries");
    }

    @Test
    void equally_busy_simulated_ranks_and_a_single_rank_have_no_straggler() throws Exception {
        TraceSet set = TraceSet.read(simulate(2, 3, SimulatorConfig.builder()));
        TraceSet one = TraceSet.of(List.of(set.traces().get(0)));

        StepTimeline single = one.stepTimeline();

        assertThat(single.ranks()).containsExactly("TP-0");
        assertThat(single.steps()).hasSize(3).allSatisfy(s -> {
            assertThat(s.straggler()).isEqualTo(-1);
            assertThat(s.gapNs()).containsExactly(0L);
        });
        assertThat(single.stragglerCounts()).isEmpty();
        // the simulator's ranks run the same kernels for the same time: no step has a straggler
        assertThat(set.stepTimeline().steps()).hasSize(3).allSatisfy(s -> {
            assertThat(s.gapNs()).containsExactly(0L, 0L);
            assertThat(s.straggler()).isEqualTo(-1);
        });
        assertThat(set.stepTimeline().stragglerCounts()).containsExactly(Map.entry("TP-0", 0), Map.entry("TP-1", 0));
    }

    @Test
    void real_hta_ranks_match_on_profiler_step_numbers_with_busy_within_span_and_kernel_time() throws IOException {
        TraceSet set = TraceSet.read(List.of(TestTraces.traceFilter(0), TestTraces.traceFilter(1)));

        StepTimeline timeline = set.stepTimeline();

        assertThat(timeline.ranks()).hasSize(2);
        assertThat(timeline.matching()).isEqualTo("profilerStepNumber");
        assertThat(timeline.steps()).isNotEmpty();
        for (int r = 0; r < 2; r++) {
            Map<String, StepStats> byName = new java.util.HashMap<>();
            set.traces().get(r).details().steps().forEach(s -> byName.putIfAbsent(s.name(), s));
            for (StepTimeline.Step step : timeline.steps()) {
                StepStats own = byName.get(step.name());
                assertThat(own).as("rank %d has %s", r, step.name()).isNotNull();
                assertThat(step.busyNs().get(r)).isEqualTo(own.gpuBusyNs()).isPositive()
                        .isLessThanOrEqualTo(own.gpuSpanNs()).isLessThanOrEqualTo(own.kernelNs());
            }
        }
        assertThat(timeline.steps()).allSatisfy(s -> assertThat(s.gapNs().get(s.straggler())).isZero());
        assertThat(timeline.stragglerCounts().values().stream().mapToInt(Integer::intValue).sum())
                .isEqualTo(timeline.steps().size());
    }

    @Test
    void overlapping_kernels_count_once_and_a_kernel_past_the_gpu_window_is_cut() throws IOException {
        // GPU window [100, 200) µs; kernels [100, 140) and [120, 160) on two streams overlap → 60 µs; [190, 230)
        // starts inside and is cut to 10 µs. Busy 70 µs of a 100 µs span, kernel time 120 µs.
        Path file = gz("TP-0.trace.json.gz", trace(
                x("user_annotation", "step[DECODE bs=4]", 1, 7, "90", "150"),
                x("gpu_user_annotation", "step[DECODE bs=4]", 0, 7, "100", "100"),
                x("kernel", "a", 0, 7, "100", "40"),
                x("kernel", "b", 0, 8, "120", "40"),
                x("kernel", "c", 0, 7, "190", "40")));

        StepStats step = KinetoTraceReader.read(file).details().steps().get(0);

        assertThat(step.gpuStartNs()).isEqualTo(100_000);
        assertThat(step.gpuSpanNs()).isEqualTo(100_000);
        assertThat(step.gpuBusyNs()).isEqualTo(70_000);
        assertThat(step.kernelNs()).isEqualTo(120_000);
    }

    @Test
    void without_gpu_windows_the_span_runs_from_the_first_kernel_start_to_the_last_end() throws IOException {
        Path file = gz("t.json.gz", trace(
                x("user_annotation", "ProfilerStep#5", 1, 7, "0", "50"),
                x("kernel", "a", 0, 7, "10", "5"),
                x("kernel", "b", 0, 7, "30", "30")));

        StepStats step = KinetoTraceReader.read(file).details().steps().get(0);

        assertThat(step.profilerStepNumber()).hasValue(5);
        assertThat(step.gpuStartNs()).isEqualTo(10_000);
        assertThat(step.gpuSpanNs()).isEqualTo(50_000);
        assertThat(step.gpuBusyNs()).isEqualTo(35_000);
    }

    @Test
    void ranks_with_shifted_clocks_are_aligned_on_step_boundaries_and_the_offset_is_reported() throws IOException {
        // rank 1's clock runs 5 ms ahead; its steps are otherwise the same but for a slower second step
        Path r0 = gz("x-TP-0.trace.json.gz", trace(
                x("user_annotation", "step[DECODE bs=1]", 1, 7, "0", "100"),
                x("kernel", "k", 0, 7, "10", "50"),
                x("user_annotation", "step[DECODE bs=1]", 1, 7, "200", "100"),
                x("kernel", "k", 0, 7, "210", "50")));
        Path r1 = gz("x-TP-1.trace.json.gz", trace(
                x("user_annotation", "step[DECODE bs=1]", 1, 7, "5000", "100"),
                x("kernel", "k", 0, 7, "5010", "50"),
                x("user_annotation", "step[DECODE bs=1]", 1, 7, "5200", "100"),
                x("kernel", "k", 0, 7, "5210", "80")));

        StepTimeline timeline = TraceSet.read(List.of(r0, r1)).stepTimeline();

        assertThat(timeline.clockOffsetsNs()).containsExactly(0L, 5_000_000L);
        assertThat(timeline.note()).contains("step starts differ by up to 5.000 ms, TP-1 vs TP-0");
        assertThat(timeline.steps().get(0).gapNs()).containsExactly(0L, 0L);
        assertThat(timeline.steps().get(1).straggler()).isEqualTo(1);
        assertThat(timeline.steps().get(1).gapNs()).containsExactly(30_000L, 0L);
        assertThat(timeline.worstStep()).hasValueSatisfying(s -> assertThat(s.index()).isEqualTo(1));
    }

    @Test
    void the_same_rank_from_another_window_is_not_a_peer() throws Exception {
        TraceSet first = TraceSet.read(simulate(1, 2, SimulatorConfig.builder()));
        Path again = dir.resolve("again");
        Files.createDirectories(again);
        Path copy = Files.copy(first.traces().get(0).file(), again.resolve(first.traces().get(0).file().getFileName()));
        TraceSet phases = TraceSet.merge(List.of(first, TraceSet.read(List.of(copy))));

        StepTimeline timeline = phases.stepTimeline();

        assertThat(phases.traces()).hasSize(2);
        assertThat(timeline.ranks()).containsExactly("TP-0");
        assertThat(timeline.note()).contains("1 trace repeats a rank of another capture window and is left out");
    }

    @Test
    void traces_without_steps_give_an_empty_timeline_that_says_why() throws IOException {
        Path file = gz("t.json.gz", trace(x("kernel", "a", 0, 7, "10", "5")));

        StepTimeline timeline = TraceSet.read(List.of(file)).stepTimeline();

        assertThat(timeline.ranks()).isEmpty();
        assertThat(timeline.steps()).isEmpty();
        assertThat(timeline.note()).startsWith("no step annotations");
    }

    private List<Path> simulate(int tp, int steps, SimulatorConfig.Builder config) throws Exception {
        Path out = dir.resolve("run");
        try (EngineSimulator sim = EngineSimulator.start(config.tpSize(tp).profilerDir(dir.resolve("default"))
                .build())) {
            URI base = sim.baseUri();
            assertThat(post(base, "/start_profile", "{\"output_dir\":\"" + out + "\",\"num_steps\":" + steps
                    + ",\"profile_id\":\"sim\"}").statusCode()).isEqualTo(200);
            assertThat(post(base, "/v1/completions", "{\"prompt\":[1,2,3,4,5,6,7,8],\"max_tokens\":" + steps
                    + ",\"ignore_eos\":true}").statusCode()).isEqualTo(200);
            // the next batch writes the capture on every rank before it answers
            assertThat(http.send(HttpRequest.newBuilder(base.resolve("/health")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
        }
        try (Stream<Path> s = Files.list(out)) {
            List<Path> files = s.filter(p -> p.getFileName().toString().endsWith(".trace.json.gz")
                    && !p.getFileName().toString().startsWith(".")).sorted().toList();
            assertThat(files).hasSize(tp);
            return files;
        }
    }

    private HttpResponse<String> post(URI base, String path, String body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private Path gz(String name, String json) throws IOException {
        Path file = dir.resolve(name);
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(json.getBytes(StandardCharsets.UTF_8));
        }
        return file;
    }

    private static String x(String cat, String name, int pid, int tid, String ts, String dur) {
        return "{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":\"" + name + "\",\"pid\":" + pid + ",\"tid\":" + tid
                + ",\"ts\":" + ts + ",\"dur\":" + dur + "}";
    }

    private static String trace(String... events) {
        return "{\"schemaVersion\":1,\"traceEvents\":[" + String.join(",", events) + "]}";
    }
}
