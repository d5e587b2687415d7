package dev.profiledrollout.recipe;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.Backend;
import dev.profiledrollout.Phase;
import dev.profiledrollout.Profiler;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A profiling run described as an srtctl recipe: the YAML job file of {@code srtctl}, the SGLang/Dynamo launcher for
 * Slurm ({@code NVIDIA/srt-slurm}), read for what a profile window needs. A whole recipe is accepted as it is; the
 * sections that describe how srtctl launches the deployment ({@code slurm}, {@code frontend}, the engine flags and
 * environment under {@code backend}, {@code environment}, mounts, …) are not read.
 *
 * <h2>What is read</h2>
 * Field names and meanings are srtctl's ({@code src/srtctl/core/schema.py}: {@code SrtConfig}, {@code ProfilingConfig},
 * {@code ProfilingPhaseConfig}, {@code BenchmarkConfig}, {@code ResourceConfig}; {@code docs/profiling.md};
 * {@code examples/enable-profiling.yaml}):
 * <ul>
 *   <li>{@code profiling.type}: {@code torch} gives {@link Profiler#TORCH}; {@code nsys} gives {@link Profiler#NSYS},
 *       a {@code -c cudaProfilerApi} capture driven by {@code /start_profile} with the {@code CUDA_PROFILER} activity,
 *       which is what srtctl sends ({@code src/srtctl/benchmarks/scripts/lib/profiling.sh}). {@code none} (srtctl's
 *       default) and {@code nsys-time} (a capture timed by {@code nsys --delay/--duration} at worker launch) are
 *       rejected: neither has a window to open.</li>
 *   <li>{@code profiling.prefill}, {@code profiling.decode}, {@code profiling.aggregated}: one {@link Window} each, in
 *       that order, with {@code start_step} and {@code stop_step}.</li>
 *   <li>The load of each window, {@code isl}, {@code osl} and {@code concurrency}, taken from the first place that has
 *       it, which covers srtctl's schemas over time: the phase block ({@code profiling.prefill.isl}, schema of
 *       December 2025), the profiling section ({@code profiling.isl}, December 2025 to February 2026), then the
 *       benchmark ({@code benchmark.isl}, {@code benchmark.osl}, {@code benchmark.concurrencies} and
 *       {@code benchmark.req_rate}; the current schema, where the profile is taken during the benchmark). Several
 *       concurrencies ({@code "1x2x4x…"}) make a {@linkplain #sweep() sweep}: srtctl arms each worker's profiler once
 *       ({@code lib/profiling.sh}) and runs the whole sweep through it, so the captured steps fall wherever the
 *       sweep puts them.
 *       Step fields directly under {@code profiling} (the December 2025 unified schema) apply to every window that
 *       does not set its own.</li>
 *   <li>{@code backend.type}: {@code sglang} (srtctl's default) or {@code vllm}; {@code trtllm} and {@code mocker}
 *       are rejected.</li>
 *   <li>{@code resources}: {@code prefill_nodes} or {@code decode_nodes} make the deployment disaggregated, as in
 *       srtctl ({@code ResourceConfig.is_disaggregated}); it then takes {@code profiling.prefill}/{@code decode}, and
 *       an aggregated one takes {@code profiling.aggregated}. The worker counts are kept ({@link Resources}).</li>
 *   <li>{@code name} and {@code model} ({@code path}, {@code container}, {@code precision}) are kept for reports.</li>
 *   <li>{@code profiling.extra_nsys_args} is accepted and not applied: it belongs to the {@code nsys profile} command
 *       that launches the workers, which is the deployment's business here.</li>
 * </ul>
 * Unknown fields inside {@code profiling} are errors, as srtctl's schema makes them (a misspelt {@code stop_step}
 * would otherwise silently become 50); unknown top-level sections are ignored. srtctl's override files (a top-level
 * {@code base:}) and sweep files ({@code sweep:}) describe several jobs and are rejected, saying how to get one.
 *
 * <h2>Steps</h2>
 * srtctl sends {@code /start_profile} with {@code start_step} and {@code num_steps = stop_step − start_step}, each
 * step defaulting to {@code 0} and {@code 50} ({@code lib/profiling.sh}); a window whose {@code stop_step} is not
 * greater than its {@code start_step} is rejected. SGLang treats {@code start_step} {@code 0} as absent
 * ({@code if start_step:} in {@code python/sglang/srt/managers/scheduler_components/profiler_manager.py}, before that
 * {@code scheduler_profiler_mixin.py}, sgl-project/sglang): the
 * capture begins with the next batch; a positive one is an absolute scheduler step counted from server start.
 *
 * <h2>Differences from srtctl</h2>
 * srtctl starts the prefill and the decode workers together and sends one load through the frontend; a profile
 * window here runs the phases one after the other, each on its own workers and with its own load (see
 * {@link dev.profiledrollout.RolloutPhase}); only {@code profile --recipe} arms a {@linkplain #sweep() sweep}'s
 * windows together, as srtctl arms them, while {@code @RolloutRecipe} gives each phase in turn the whole sweep. A
 * disaggregated recipe needs both {@code prefill} and {@code decode}, as srtctl's
 * {@code SrtConfig._validate_profiling} requires. Request counts are not part of a recipe: they come from
 * {@link dev.profiledrollout.RolloutLoad} or the command line. srtctl's {@code benchmark.slow_down_*} (SGLang's
 * {@code /slow_down} on the decode workers) and sa-bench's request-count knobs are not applied; they are named in
 * {@link #warnings()}. With {@code backend.type vllm} and {@code profiling.type nsys}, {@code start_step} is the
 * server's {@code delay_iterations} ({@code --profiler-config {"profiler":"cuda",…}}, srt-slurm
 * {@code src/srtctl/backends/vllm.py}), not part of a window's request.
 *
 * <p>Immutable and thread-safe.
 *
 * @param source    where the recipe was read from (a file path or a classpath resource), for messages; not null
 * @param name      the recipe's {@code name}, or null
 * @param backend   {@code backend.type}; not null
 * @param profiler  {@code profiling.type}; not null
 * @param model     the recipe's {@code model}; not null (its fields may be null)
 * @param resources the recipe's worker counts; not null (its fields may be null)
 * @param windows   the profile windows in the order they run: prefill then decode, or one aggregated; not empty
 * @param sweep     {@code benchmark.concurrencies} when it lists several (srtctl's
 *                  {@code BenchmarkConfig.get_concurrency_list}: {@code "1x2x4"} or a list), in order: the stages of
 *                  the load every window rides along, each a closed loop (or {@code req_rate} capped) at that
 *                  concurrency; each window's {@link Window#concurrency()} is then the first stage's. Empty when
 *                  the load is one concurrency
 * @param warnings  fields srtctl applies that are not applied here (e.g. {@code benchmark.slow_down_sleep_time},
 *                  which changes the engine's behaviour), each named with why; printed by the CLI and logged by
 *                  {@code @RolloutRecipe}; empty when none
 */
@API(status = EXPERIMENTAL, since = "0.1.0")
public record SrtctlRecipe(String source, String name, Backend backend, Profiler profiler, Model model,
                           Resources resources, List<Window> windows, List<Integer> sweep, List<String> warnings) {

    /** A recipe without a benchmark sweep or warnings. */
    public SrtctlRecipe(String source, String name, Backend backend, Profiler profiler, Model model,
            Resources resources, List<Window> windows) {
        this(source, name, backend, profiler, model, resources, windows, List.of(), List.of());
    }

    /**
     * @return whether the benchmark runs a sweep ({@link #sweep()} has several concurrencies): the windows are then
     *         armed once and the whole sweep is their load, as srtctl runs it
     */
    public boolean isSweep() {
        return !sweep.isEmpty();
    }

    public SrtctlRecipe {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(profiler, "profiler");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(resources, "resources");
        windows = List.copyOf(windows);
        sweep = List.copyOf(sweep);
        warnings = List.copyOf(warnings);
        if (sweep.size() == 1) {
            throw new IllegalArgumentException("a sweep has at least two stages; give an empty list for none");
        }
        if (windows.isEmpty()) {
            throw new IllegalArgumentException("a recipe has at least one window");
        }
    }

    /**
     * srtctl's {@code model} section.
     *
     * @param path      {@code model.path}: the model's path or alias on the cluster, or null
     * @param container {@code model.container}, or null
     * @param precision {@code model.precision} ({@code fp4}, {@code fp8}, {@code fp16}, {@code bf16}), or null
     */
    @API(status = EXPERIMENTAL, since = "0.1.0")
    public record Model(String path, String container, String precision) {
    }

    /**
     * srtctl's worker counts ({@code resources.prefill_workers}, {@code decode_workers}, {@code agg_workers}).
     *
     * @param prefillWorkers prefill workers, or null when not given
     * @param decodeWorkers  decode workers, or null when not given
     * @param aggWorkers     aggregated workers, or null when not given
     */
    @API(status = EXPERIMENTAL, since = "0.1.0")
    public record Resources(Integer prefillWorkers, Integer decodeWorkers, Integer aggWorkers) {
    }

    /**
     * One profile window of the recipe.
     *
     * @param phase        {@link Phase#PREFILL} or {@link Phase#DECODE}, or null for srtctl's {@code aggregated}
     *                     window over every engine
     * @param startStep    {@code start_step}, ≥ 0
     * @param stopStep     {@code stop_step}, &gt; {@code startStep}
     * @param inputTokens  {@code isl}: prompt length in tokens, ≥ 1
     * @param outputTokens {@code osl}: completion length in tokens, ≥ 1
     * @param concurrency  requests in flight (with a finite {@code requestRate}, the cap on them), ≥ 1
     * @param requestRate  {@code benchmark.req_rate} in requests/s, or {@link Double#POSITIVE_INFINITY} (srtctl's
     *                     {@code inf}) for a closed loop of {@code concurrency}
     */
    @API(status = EXPERIMENTAL, since = "0.1.0")
    public record Window(Phase phase, int startStep, int stopStep, int inputTokens, int outputTokens, int concurrency,
                         double requestRate) {

        public Window {
            if (startStep < 0 || stopStep <= startStep || inputTokens < 1 || outputTokens < 1 || concurrency < 1
                    || !(requestRate > 0)) {
                throw new IllegalArgumentException("invalid window: " + startStep + ".." + stopStep + ", isl "
                        + inputTokens + ", osl " + outputTokens + ", concurrency " + concurrency + ", rate "
                        + requestRate);
            }
        }

        /** @return {@code num_steps} as srtctl sends it: {@code stopStep − startStep}, ≥ 1 */
        public int numSteps() {
            return stopStep - startStep;
        }

        /**
         * @return {@code start_step} to send, or null for {@code 0}, which SGLang treats as absent (the capture begins
         *         with the next batch)
         */
        public Integer profileStartStep() {
            return startStep > 0 ? startStep : null;
        }

        /** @return whether this is srtctl's {@code aggregated} window ({@link #phase()} is null) */
        public boolean aggregated() {
            return phase == null;
        }

        /** @return srtctl's name of the window's mode and output folder: {@code prefill}, {@code decode} or {@code agg} */
        public String mode() {
            return phase == null ? "agg" : phase.workerType();
        }
    }

    /**
     * Reads a recipe file.
     *
     * @param file the YAML file, not null
     * @return the recipe
     * @throws RecipeException when the file cannot be read, is not YAML, or is not a recipe a window can run
     */
    public static SrtctlRecipe read(Path file) {
        Objects.requireNonNull(file, "file");
        String source = file.toString();
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8), source);
        } catch (NoSuchFileException e) {
            throw new RecipeException(source, null, "no such file (resolved to " + file.toAbsolutePath()
                    + "); give an absolute path or one relative to " + Path.of("").toAbsolutePath(), e);
        } catch (IOException e) {
            throw new RecipeException(source, null, "cannot be read: " + e, e);
        }
    }

    /**
     * Reads a recipe from a stream, which is closed.
     *
     * @param in     UTF-8 YAML, not null
     * @param source where it comes from, for messages; not null
     * @return the recipe
     * @throws RecipeException as {@link #read(Path)}
     */
    public static SrtctlRecipe read(InputStream in, String source) {
        try (InputStream stream = in) {
            return parse(new String(stream.readAllBytes(), StandardCharsets.UTF_8), source);
        } catch (IOException e) {
            throw new RecipeException(source, null, "cannot be read: " + e, e);
        }
    }

    /**
     * Parses recipe YAML.
     *
     * @param yaml   the recipe's text, not null
     * @param source where it comes from, for messages; not null
     * @return the recipe
     * @throws RecipeException as {@link #read(Path)}
     */
    public static SrtctlRecipe parse(String yaml, String source) {
        return RecipeYaml.parse(Objects.requireNonNull(yaml, "yaml"), Objects.requireNonNull(source, "source"));
    }
}
