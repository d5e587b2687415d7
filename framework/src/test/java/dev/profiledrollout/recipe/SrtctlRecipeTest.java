package dev.profiledrollout.recipe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.profiledrollout.Backend;
import dev.profiledrollout.Phase;
import dev.profiledrollout.Profiler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Reading srtctl recipes of each schema generation, and the errors for what a window cannot run. */
class SrtctlRecipeTest {

    @TempDir
    Path dir;

    @Test
    void should_read_a_whole_disaggregated_recipe_with_per_phase_load() {
        // GIVEN the test resource, a full job file with slurm, backend flags and environment
        SrtctlRecipe recipe = SrtctlRecipe.read(SrtctlRecipeTest.class.getResourceAsStream("/recipes/disagg-torch.yaml"),
                "/recipes/disagg-torch.yaml");

        // THEN
        assertThat(recipe.name()).isEqualTo("sim-disagg-torch");
        assertThat(recipe.backend()).isEqualTo(Backend.SGLANG);
        assertThat(recipe.profiler()).isEqualTo(Profiler.TORCH);
        assertThat(recipe.model()).isEqualTo(new SrtctlRecipe.Model("sim-model", "sglang-sim.sqsh", "bf16"));
        assertThat(recipe.resources()).isEqualTo(new SrtctlRecipe.Resources(1, 1, null));
        assertThat(recipe.windows()).containsExactly(
                new SrtctlRecipe.Window(Phase.PREFILL, 0, 3, 512, 1, 4, Double.POSITIVE_INFINITY),
                new SrtctlRecipe.Window(Phase.DECODE, 0, 8, 32, 24, 2, Double.POSITIVE_INFINITY));
        assertThat(recipe.windows()).extracting(SrtctlRecipe.Window::numSteps).containsExactly(3, 8);
        assertThat(recipe.windows()).extracting(SrtctlRecipe.Window::profileStartStep).containsOnlyNulls();
    }

    @Test
    void should_take_the_load_from_the_profiling_section_as_the_schema_of_early_2026_did() {
        SrtctlRecipe recipe = SrtctlRecipe.parse("""
                resources: {gpu_type: gb200, prefill_nodes: 1, decode_nodes: 2, prefill_workers: 1, decode_workers: 2}
                benchmark: {type: manual}
                profiling:
                  type: torch
                  isl: 1024
                  osl: 128
                  concurrency: 24
                  prefill: {start_step: 10, stop_step: 30}
                  decode: {start_step: 0, stop_step: 50}
                """, "early-2026.yaml");

        assertThat(recipe.windows()).containsExactly(
                new SrtctlRecipe.Window(Phase.PREFILL, 10, 30, 1024, 128, 24, Double.POSITIVE_INFINITY),
                new SrtctlRecipe.Window(Phase.DECODE, 0, 50, 1024, 128, 24, Double.POSITIVE_INFINITY));
        assertThat(recipe.windows().get(0).numSteps()).isEqualTo(20);
        assertThat(recipe.windows().get(0).profileStartStep()).isEqualTo(10);
        assertThat(recipe.resources()).isEqualTo(new SrtctlRecipe.Resources(1, 2, null));
    }

    @Test
    void should_take_the_load_from_the_benchmark_as_the_current_schema_does_with_srtctl_default_steps() {
        SrtctlRecipe recipe = SrtctlRecipe.parse("""
                backend: {type: vllm}
                resources: {gpu_type: h100, agg_nodes: 1, agg_workers: 1}
                benchmark: {type: sa-bench, isl: 8192, osl: 1024, concurrencies: "64", req_rate: 12.5}
                profiling:
                  type: torch
                  aggregated: {}
                """, "current.yaml");

        assertThat(recipe.backend()).isEqualTo(Backend.VLLM);
        assertThat(recipe.windows()).singleElement().satisfies(w -> {
            assertThat(w.aggregated()).isTrue();
            assertThat(w.mode()).isEqualTo("agg");
            assertThat(w).isEqualTo(new SrtctlRecipe.Window(null, 0, 50, 8192, 1024, 64, 12.5));
        });
    }

    @Test
    void should_give_the_unified_schema_one_window_per_phase_of_a_disaggregated_deployment() {
        String profiling = """
                profiling: {type: nsys, isl: 256, osl: 16, concurrency: 8, start_step: 5, stop_step: 9}
                """;

        SrtctlRecipe disaggregated = SrtctlRecipe.parse(
                "resources: {gpu_type: h100, prefill_nodes: 1, decode_nodes: 1}\n" + profiling, "unified.yaml");
        SrtctlRecipe unspecified = SrtctlRecipe.parse(profiling, "unified.yaml");

        assertThat(disaggregated.profiler()).isEqualTo(Profiler.NSYS);
        assertThat(disaggregated.windows()).extracting(SrtctlRecipe.Window::phase)
                .containsExactly(Phase.PREFILL, Phase.DECODE);
        assertThat(disaggregated.windows()).allSatisfy(w -> assertThat(w.numSteps()).isEqualTo(4));
        assertThat(unspecified.windows()).singleElement().extracting(SrtctlRecipe.Window::aggregated).isEqualTo(true);
    }

    /**
     * srtctl launches TensorRT-LLM workers with {@code TLLM_PROFILE_START_STOP=<start_step>-<stop_step>} under
     * {@code nsys -c cudaProfilerApi} (src/srtctl/core/schema.py, {@code get_env_vars}); the window is that span.
     */
    @Test
    void should_read_a_trtllm_nsys_recipe_as_the_span_its_workers_are_launched_with() {
        SrtctlRecipe recipe = SrtctlRecipe.parse(
                "backend: {type: trtllm}\nprofiling:\n  type: nsys\n  isl: 128\n  osl: 16\n  concurrency: 4\n"
                        + "  aggregated: {start_step: 10, stop_step: 20}\n", "trtllm.yaml");

        assertThat(recipe.backend()).isEqualTo(Backend.TRTLLM);
        assertThat(recipe.profiler()).isEqualTo(Profiler.NSYS);
        assertThat(recipe.windows()).singleElement().satisfies(w -> {
            assertThat(w.startStep()).isEqualTo(10);
            assertThat(w.numSteps()).isEqualTo(10);
        });
    }

    /** srtctl's {@code BenchmarkConfig.get_concurrency_list}: "AxB" strings and lists; several make a sweep. */
    @Test
    void should_read_several_benchmark_concurrencies_as_a_sweep_and_name_unapplied_fields() {
        SrtctlRecipe strings = SrtctlRecipe.parse("resources: {agg_nodes: 1, agg_workers: 1}\n"
                + "benchmark: {type: sa-bench, isl: 16, osl: 4, concurrencies: 1x2x4, req_rate: inf,"
                + " slow_down_sleep_time: 30.0, num_prompts_mult: 1}\n"
                + "profiling:\n  type: torch\n  aggregated: {start_step: 10, stop_step: 20}\n", "s.yaml");
        SrtctlRecipe list = SrtctlRecipe.parse("benchmark: {type: sa-bench, isl: 16, osl: 4, concurrencies: [8, 2]}\n"
                + "profiling:\n  type: torch\n  aggregated: {start_step: 10, stop_step: 20}\n", "l.yaml");
        SrtctlRecipe one = SrtctlRecipe.parse("benchmark: {type: sa-bench, isl: 16, osl: 4, concurrencies: \"64\"}\n"
                + "profiling:\n  type: torch\n  aggregated: {start_step: 10, stop_step: 20}\n", "o.yaml");

        assertThat(strings.sweep()).containsExactly(1, 2, 4);
        assertThat(strings.windows()).singleElement().extracting(SrtctlRecipe.Window::concurrency).isEqualTo(1);
        assertThat(strings.warnings()).satisfiesExactly(
                w -> assertThat(w).startsWith("benchmark.slow_down_sleep_time (30.0) is not applied")
                        .contains("/slow_down"),
                w -> assertThat(w).startsWith("benchmark.num_prompts_mult (1) is not applied"));
        assertThat(list.sweep()).containsExactly(8, 2);
        assertThat(list.isSweep()).isTrue();
        assertThat(one.isSweep()).isFalse();
        assertThat(one.warnings()).isEmpty();
    }

    /** srtctl gives vLLM's nsys capture as --profiler-config cuda with delay/max iterations (backends/vllm.py). */
    @Test
    void should_accept_a_vllm_nsys_recipe_whose_start_step_is_the_servers_delay_iterations() {
        SrtctlRecipe recipe = SrtctlRecipe.parse("backend: {type: vllm}\nresources: {agg_nodes: 1, agg_workers: 1}\n"
                + "benchmark: {type: sa-bench, isl: 16, osl: 4, concurrencies: 2}\n"
                + "profiling:\n  type: nsys\n  aggregated: {start_step: 3, stop_step: 9}\n", "v.yaml");

        assertThat(recipe.profiler()).isEqualTo(Profiler.NSYS);
        assertThat(recipe.windows()).singleElement().satisfies(w -> assertThat(w.numSteps()).isEqualTo(6));
        assertThat(dev.profiledrollout.backend.BackendSupport.of(Backend.VLLM).recipeNsysServerConfig(3, 6))
                .contains("{\"profiler\":\"cuda\",\"delay_iterations\":3,\"max_iterations\":6}");
    }

    @Test
    void should_read_a_file_and_name_the_absolute_path_of_a_missing_one() throws Exception {
        Path file = Files.writeString(dir.resolve("r.yaml"), "profiling: {type: torch, isl: 1, osl: 1, concurrency: 1}");

        assertThat(SrtctlRecipe.read(file).source()).isEqualTo(file.toString());
        RecipeException missing = catchThrowableOfType(RecipeException.class,
                () -> SrtctlRecipe.read(dir.resolve("absent.yaml")));
        assertThat(missing.field()).isNull();
        assertThat(missing).hasMessageContaining("no such file").hasMessageContaining(dir.resolve("absent.yaml")
                .toAbsolutePath().toString());
    }

    static Stream<Arguments> invalid() {
        String load = "  isl: 16\n  osl: 4\n  concurrency: 2\n";
        return Stream.of(
                Arguments.of("profiling:\n  isl: 16\n", "profiling.type", "srtctl's default \"none\""),
                Arguments.of("profiling:\n  type: none\n" + load, "profiling.type", "set type: torch"),
                Arguments.of("profiling:\n  type: Torch\n" + load, "profiling.type", "use torch or nsys"),
                Arguments.of("profiling:\n  type: nsys-time\n  delay_secs: 5\n", "profiling.type",
                        "nsys --delay/--duration"),
                Arguments.of("backend: {type: mocker}\nprofiling:\n  type: torch\n" + load, "backend.type",
                        "runs no engine"),
                Arguments.of("backend: {type: TRTLLM}\nprofiling:\n  type: nsys\n" + load, "backend.type",
                        "not an srtctl backend"),
                Arguments.of("backend: {type: vllm}\nprofiling:\n  type: torch\n" + load
                        + "  aggregated: {start_step: 3, stop_step: 9}\n", "profiling.aggregated.start_step",
                        "\"delay_iterations\":3"),
                Arguments.of("profiling:\n  type: torch\n" + load + "  prefill: {stop_step: 5}\n" + "  decode: {start_step: 20, stop_step: 20}\n",
                        "profiling.decode.stop_step", "must be greater than start_step"),
                Arguments.of("profiling:\n  type: torch\n" + load + "  prefill: {stop_step: 5}\n" + "  decode: {start_step: 60}\n",
                        "profiling.decode.stop_step", "50 (srtctl's default)"),
                Arguments.of("profiling:\n  type: torch\n" + load + "  prefill: {stop_step: 5}\n" + "  decode: {start_step: 0, stop_stpe: 9}\n",
                        "profiling.decode.stop_stpe", "concurrency, isl, osl, start_step, stop_step"),
                Arguments.of("profiling:\n  type: torch\n  isl: lots\n  osl: 4\n  concurrency: 2\n", "profiling.isl",
                        "must be a whole number, was \"lots\""),
                Arguments.of("profiling:\n  type: torch\n  isl: 16.5\n  osl: 4\n  concurrency: 2\n", "profiling.isl",
                        "must be a whole number"),
                Arguments.of("profiling:\n  type: torch\n  prefill: {isl: 3, osl: 4, concurrency: 2}\n  decode: {osl: 4, concurrency: 2,"
                        + " stop_step: 9}\n",
                        "profiling.decode.isl", "or in benchmark.isl"),
                Arguments.of("profiling:\n  type: torch\n  isl: 16\n  osl: 0\n  concurrency: 2\n", "profiling.osl",
                        "at least 1"),
                Arguments.of("benchmark: {type: sa-bench, isl: 16, osl: 4, concurrencies: 4x0x16}\n"
                        + "profiling:\n  type: torch\n", "benchmark.concurrencies", "lists 0 in [4, 0, 16]"),
                Arguments.of("benchmark: {type: sa-bench, isl: 16, osl: 4, concurrencies: 4xx16}\n"
                        + "profiling:\n  type: torch\n", "benchmark.concurrencies", "an \"AxB\" string"),
                Arguments.of("resources: {gpu_type: h100, prefill_nodes: 1, decode_nodes: 1}\nprofiling:\n"
                        + "  type: torch\n" + load + "  decode: {stop_step: 9}\n", "profiling.prefill",
                        "requires both profiling.prefill and profiling.decode"),
                Arguments.of("benchmark: {type: sa-bench, isl: 16, osl: 4, concurrencies: [1], req_rate: fast}\n"
                        + "profiling:\n  type: torch\n", "benchmark.req_rate", "positive number of requests/s"),
                Arguments.of("profiling:\n  type: torch\n" + load + "  prefill: {}\n  aggregated: {}\n",
                        "profiling.aggregated", "Keep one kind"),
                Arguments.of("resources: {gpu_type: h100, prefill_nodes: 1, decode_nodes: 1}\nprofiling:\n"
                        + "  type: torch\n" + load + "  aggregated: {}\n", "profiling.aggregated",
                        "use profiling.prefill and profiling.decode"),
                Arguments.of("resources: {gpu_type: h100, agg_nodes: 1}\nprofiling:\n  type: torch\n" + load
                        + "  decode: {}\n", "profiling.decode", "use profiling.aggregated"),
                Arguments.of("profiling:\n  type: torch\n  aggregated: {isl: 4, osl: 4, concurrency: 1}\n",
                        "profiling.aggregated.isl", "in no srtctl schema"),
                Arguments.of("profiling:\n  type: torch\n  isl: 8\n  prefill: {osl: 4}\n  decode: {osl: 4}\n",
                        "profiling.isl", "no srtctl schema has both"),
                Arguments.of("profiling:\n  type: torch\n" + load + "  start_step: 3\n  aggregated: {stop_step: 9}\n",
                        "profiling.start_step", "only without phase blocks"),
                Arguments.of("name: no-profiling\n", "profiling", "no profiling: section"),
                Arguments.of("base: {name: x}\noverride_a: {name: y}\n", "base", "srtctl resolve-override"),
                Arguments.of("name: x\nsweep: {isl: [1, 2]}\n", "sweep", "without the sweep: section"),
                Arguments.of("profiling:\n  type: torch\nprofiling:\n  type: nsys\n", null, "Duplicate field"),
                Arguments.of("profiling: [torch]\n", "profiling", "must be a mapping"),
                Arguments.of("profiling: {type: torch\n", null, "is not valid YAML at line"),
                Arguments.of("- a\n- b\n", null, "not a mapping"));
    }

    @ParameterizedTest
    @MethodSource("invalid")
    void should_name_the_field_and_the_fix(String yaml, String field, String fix) {
        RecipeException e = catchThrowableOfType(RecipeException.class, () -> SrtctlRecipe.parse(yaml, "bad.yaml"));

        assertThat(e).as("no error for:%n%s", yaml).isNotNull();
        assertThat(e.source()).isEqualTo("bad.yaml");
        assertThat(e.field()).isEqualTo(field);
        assertThat(e).hasMessageStartingWith("srtctl recipe bad.yaml: ").hasMessageContaining(fix);
    }
}
