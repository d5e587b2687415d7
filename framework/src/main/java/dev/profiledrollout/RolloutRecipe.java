package dev.profiledrollout;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.apiguardian.api.API;

/**
 * Takes the profile windows of a {@link ProfiledRollout} test from an srtctl recipe, the YAML job file of the
 * SGLang/Dynamo Slurm launcher, read as it is (see {@link dev.profiledrollout.recipe.SrtctlRecipe} for the fields read
 * and their sources). Give exactly one of {@link #resource()} and {@link #file()}, as with JUnit's
 * {@code @CsvFileSource}.
 *
 * <pre>{@code
 * @ProfiledRollout
 * @RolloutRecipe(resource = "/recipes/gb200-fp8-profiling.yaml")
 * @RolloutLoad(requests = 64)
 * class RecipeTest {
 *     @Test
 *     void decodeStaysWithinBudget(RolloutSession session) {
 *         assertThat(session.awaitResult().phase(Phase.DECODE).trace()).kernels(matching(".*gemm.*"))
 *                 .share().isLessThan(0.60);
 *     }
 * }
 * }</pre>
 *
 * <h2>Mapping</h2>
 * <ul>
 *   <li>{@code profiling.prefill} and {@code profiling.decode} become the test's phases, as if declared with
 *       {@link RolloutPhase} in that order: {@code numSteps = stop_step − start_step}, {@code startStep = start_step}
 *       (omitted when {@code 0}), {@code inputTokens = isl}, {@code outputTokens = osl}, {@code concurrency}.
 *       {@code profiling.aggregated} becomes the single window of {@link ProfiledRollout#numSteps()} and
 *       {@link ProfiledRollout#startStep()}.</li>
 *   <li>{@code profiling.type} gives {@link ProfiledRollout#profiler()}: {@code torch} is {@link Profiler#TORCH}
 *       with {@link ProfiledRollout#activities()}; {@code nsys} is {@link Profiler#NSYS} with the
 *       {@link Activity#CUDA_PROFILER} activity only, as srtctl sends it.</li>
 *   <li>{@code backend.type} gives {@link ProfiledRollout#backend()}.</li>
 *   <li>A finite {@code benchmark.req_rate} makes each window's load an open loop (Poisson arrivals) capped at the
 *       concurrency; otherwise it is a closed loop of the concurrency.</li>
 *   <li>{@link RolloutLoad} still gives what a recipe does not hold: requests per window (per stage of a sweep),
 *       warm-up, seed, range ratio, prefix, endpoint, dataset and goodput.</li>
 *   <li>A {@code benchmark.concurrencies} with several values ({@code "1x2x4x…"}, srtctl's sweep) makes each window's
 *       load that sweep, one stage per concurrency ({@code RolloutResult.stages()}), as srtctl runs its benchmark
 *       with the profiler armed once; the captured steps fall wherever the sweep puts them. Windows of a
 *       disaggregated recipe still run one after the other, each with the whole sweep.</li>
 *   <li>{@link #maxInputTokens()}, {@link #maxOutputTokens()} and {@link #maxConcurrency()} cap a production recipe's
 *       load for a small engine (the simulator); steps are never changed.</li>
 *   <li>Fields srtctl applies that a window does not ({@code benchmark.slow_down_*}, which change the engine's
 *       behaviour, and sa-bench's request-count knobs) are logged as warnings.</li>
 * </ul>
 *
 * <h2>Errors</h2>
 * Before anything starts, the test fails with an {@code ExtensionConfigurationException} naming the recipe, the
 * YAML field and the fix when: the recipe cannot be read or asks for what a window cannot do (see
 * {@link dev.profiledrollout.recipe.RecipeException}); the test also declares {@link RolloutPhase}s; or
 * {@link ProfiledRollout} sets {@code numSteps}, {@code startStep}, or a {@code backend} or {@code profiler} other
 * than the default that disagrees with the recipe.
 *
 * <p>On a method it replaces the class's annotation.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@API(status = EXPERIMENTAL, since = "0.1.0")
public @interface RolloutRecipe {

    /**
     * A classpath resource, resolved as {@link Class#getResource(String)} of the test class resolves it: with a
     * leading {@code /} from the classpath root (e.g. {@code "/recipes/decode.yaml"} for
     * {@code src/test/resources/recipes/decode.yaml}), without one next to the test class. Empty when
     * {@link #file()} is given.
     */
    String resource() default "";

    /**
     * A file: absolute, or relative to the working directory of the test JVM (the module directory under Maven).
     * Empty when {@link #resource()} is given.
     */
    String file() default "";

    /** The most prompt tokens per request: caps the recipe's {@code isl}; 0 (the default) keeps it. */
    int maxInputTokens() default 0;

    /** The most output tokens per request: caps the recipe's {@code osl}; 0 (the default) keeps it. */
    int maxOutputTokens() default 0;

    /**
     * The most requests in flight: caps every window's and sweep stage's concurrency (stages that become equal run
     * once); 0 (the default) keeps the recipe's.
     */
    int maxConcurrency() default 0;

    /**
     * Whether a recipe's benchmark sweep runs to its last stage. {@code false} (the default) stops it once every
     * window has closed and its traces are in, as {@code profile --recipe} does: srtctl arms the profiler for
     * {@code start_step … stop_step} only, so the later stages of a sweep to concurrency 1024 would profile nothing.
     * The stages left out are listed by {@code RolloutResult.stages().notRun()} (and {@code stage(c)} names them as
     * not run); when the trace directories are not on this machine the whole sweep runs. {@code true} runs every
     * stage, as a benchmark ({@code profile --recipe --full-sweep}).
     */
    boolean fullSweep() default false;
}
