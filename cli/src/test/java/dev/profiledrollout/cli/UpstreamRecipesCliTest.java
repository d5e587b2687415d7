package dev.profiledrollout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.RouterShape;
import dev.profiledrollout.simulator.SimulatedCluster;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * Every profiling recipe of NVIDIA/srt-slurm (copied with its license under framework/src/test/resources/recipes/
 * srt-slurm, see ORIGIN.md there) through {@code profile --recipe} against the simulator: aggregated recipes through
 * one engine, disaggregated ones through a prefill/decode router of simulators. The recipes' production loads (ISL and
 * OSL 1000, sweeps to concurrency 1024) are capped with {@code --max-isl/--max-osl/--max-concurrency}; their steps
 * are kept. torch recipes run and write traces; nsys recipes fail saying how to get the report.
 */
class UpstreamRecipesCliTest {

    private static final Path RECIPES = Path.of("..", "framework", "src", "test", "resources", "recipes", "srt-slurm");

    @TempDir
    Path dir;

    private record Run(int exitCode, String out, String err) {
    }

    private static Run run(List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args.toArray(String[]::new));
        return new Run(code, out.toString(), err.toString());
    }

    static Stream<Arguments> recipes() {
        return Stream.of(
                // path, disaggregated, nsys, sweep, requests
                Arguments.of("recipes/qwen3.5/fp8/agg/profile/agg-dep4-profile.yaml", false, false, true, 6),
                Arguments.of("recipes/qwen3.5/fp8/agg/profile/agg-tep4-profile.yaml", false, false, true, 6),
                Arguments.of("recipes/qwen3.5/fp8/agg/profile/agg-tp4-profile.yaml", false, false, true, 6),
                Arguments.of("recipes/qwen3.5/nvfp4/agg/profile/tp4-profile.yaml", false, false, false, 24),
                Arguments.of("recipes/qwen3.5/fp8/disagg/mooncake/profile/1p1d-tp4-profile.yaml", true, false, true,
                        12),
                Arguments.of("recipes/qwen3.5/fp8/disagg/mooncake/profile/1p1d-tp4-mtp-profile.yaml", true, false,
                        true, 12),
                Arguments.of("recipes/qwen3.5/fp8/disagg/mooncake/profile/1p1d-dep4-nsys-profile.yaml", true, true,
                        false, 4),
                Arguments.of("recipes/qwen3.5/fp8/disagg/mooncake/profile/1p1d-dep4-nsys-profile-slowdown.yaml", true,
                        true, false, 4),
                Arguments.of("examples/enable-profiling.yaml", true, false, false, 56));
    }

    @Test
    void should_cover_every_copied_recipe() throws IOException {
        try (Stream<Path> files = Files.walk(RECIPES)) {
            assertThat(files.filter(p -> p.toString().endsWith(".yaml")).map(p -> RECIPES.relativize(p).toString()))
                    .containsExactlyInAnyOrderElementsOf(recipes().map(a -> (String) a.get()[0]).toList());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void should_run_the_upstream_recipe_or_fail_saying_how(String recipe, boolean disaggregated, boolean nsys,
            boolean sweep, int requests) throws Exception {
        Path capture = dir.resolve("capture");
        List<String> args = new ArrayList<>(List.of("profile", "--recipe", RECIPES.resolve(recipe).toString(),
                "--requests", String.valueOf(requests), "--max-isl", "32", "--max-osl", "8", "--max-concurrency", "4",
                "--output-dir", capture.toString()));
        SimulatorConfig config = SimulatorConfig.builder().profilerDir(dir.resolve("default")).build();
        Run run;
        if (disaggregated) {
            try (SimulatedCluster cluster = SimulatedCluster.prefillDecode(config, RouterShape.SGL_MODEL_GATEWAY)) {
                args.addAll(List.of("--router-url", cluster.router().baseUri().toString()));
                run = run(args);
            }
        } else {
            try (EngineSimulator engine = EngineSimulator.start(config)) {
                args.addAll(List.of("--url", engine.baseUri().toString()));
                run = run(args);
            }
        }

        String all = run.out() + run.err();
        if (nsys) {
            assertThat(run.exitCode()).as(all).isEqualTo(1);
            assertThat(run.out()).contains("FAILED: no nsys report")
                    .contains("nsys profile -t cuda,nvtx --cuda-graph-trace=node -c cudaProfilerApi"
                            + " --capture-range-end stop");
            if (recipe.endsWith("slowdown.yaml")) {
                assertThat(run.out()).contains("WARNING: benchmark.slow_down_sleep_time (30.0) is not applied")
                        .contains("WARNING: benchmark.slow_down_wait_time (120.0) is not applied");
            }
            return;
        }
        assertThat(run.exitCode()).as(all).isZero();
        for (String mode : disaggregated ? List.of("prefill", "decode") : List.of("agg")) {
            assertThat(traces(capture.resolve(mode))).as("%s traces%n%s", mode, all).isNotEmpty();
        }
        if (sweep) {
            assertThat(run.out()).contains("sweep: 3 stage(s) at concurrency [1, 2, 4] (recipe: [1, 2, 4, 8, 16, 32,"
                    + " 64, 128, 256, 512, 1024], capped)")
                    .containsPattern("captured step\\(s\\) fell in \\[stage concurrency \\d+ \\(\\d+\\)");
        }
    }

    /** The window stops the sweep once its traces are in; --full-sweep runs every stage. */
    @Test
    void should_stop_the_sweep_once_the_traces_are_in_unless_full_sweep() throws Exception {
        Path recipe = RECIPES.resolve("recipes/qwen3.5/fp8/agg/profile/agg-tp4-profile.yaml");
        List<String> common = List.of("profile", "--recipe", recipe.toString(), "--requests", "6", "--max-isl", "32",
                "--max-osl", "8", "--max-concurrency", "4");
        try (EngineSimulator engine = EngineSimulator.start(SimulatorConfig.builder().profilerDir(dir).build())) {
            List<String> early = new ArrayList<>(common);
            early.addAll(List.of("--url", engine.baseUri().toString(), "--output-dir", dir.resolve("a").toString()));
            List<String> full = new ArrayList<>(common);
            full.addAll(List.of("--url", engine.baseUri().toString(), "--output-dir", dir.resolve("b").toString(),
                    "--full-sweep"));

            Run stopped = run(early);
            Run everything = run(full);

            assertThat(stopped.exitCode()).as(stopped.out() + stopped.err()).isZero();
            assertThat(stopped.out()).contains("remaining stage(s) would profile nothing and are skipped")
                    .doesNotContain("stage concurrency 4: ");
            assertThat(everything.exitCode()).as(everything.out() + everything.err()).isZero();
            assertThat(everything.out()).contains("stage concurrency 4: 6 completed").doesNotContain("are skipped");
        }
    }

    /** stop_step beyond the steps the sweep produced: the window fails, it does not pass with a short capture. */
    @Test
    void should_fail_a_window_whose_stop_step_the_sweep_never_reached() throws Exception {
        Path recipe = Files.writeString(dir.resolve("late.yaml"), """
                resources: {gpu_type: gb200, agg_nodes: 1, agg_workers: 1}
                backend: {type: sglang}
                benchmark: {type: sa-bench, isl: 32, osl: 4, concurrencies: "1x2", req_rate: inf}
                profiling:
                  type: torch
                  aggregated: {start_step: 2, stop_step: 5000}
                """);
        try (EngineSimulator engine = EngineSimulator.start(SimulatorConfig.builder().profilerDir(dir).build())) {
            Run run = run(List.of("profile", "--recipe", recipe.toString(), "--requests", "3", "--url",
                    engine.baseUri().toString(), "--output-dir", dir.resolve("c").toString()));

            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
            assertThat(run.out()).contains("stage concurrency 2: 3 completed")
                    .contains("stop_step 5000 lies beyond the steps the sweep produced");
        }
    }

    /** The same rule without a sweep: a window whose load produced fewer steps than num_steps fails. */
    @Test
    void should_fail_a_single_load_window_whose_stop_step_its_load_never_reached() throws Exception {
        Path recipe = Files.writeString(dir.resolve("late-one.yaml"), """
                resources: {gpu_type: gb200, agg_nodes: 1, agg_workers: 1}
                benchmark: {type: sa-bench, isl: 32, osl: 4, concurrencies: "2", req_rate: inf}
                profiling:
                  type: torch
                  aggregated: {start_step: 0, stop_step: 5000}
                """);
        try (EngineSimulator engine = EngineSimulator.start(SimulatorConfig.builder().profilerDir(dir).build())) {
            Run run = run(List.of("profile", "--recipe", recipe.toString(), "--requests", "3", "--url",
                    engine.baseUri().toString(), "--output-dir", dir.resolve("d").toString()));

            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
            assertThat(run.out()).contains("stop_step 5000 lies beyond the steps the window's load produced");
        }
    }

    private static List<Path> traces(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(p -> p.toString().endsWith(".trace.json.gz")).toList();
        }
    }
}
