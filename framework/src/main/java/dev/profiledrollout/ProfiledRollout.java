package dev.profiledrollout;

import static org.apiguardian.api.API.Status.STABLE;

import dev.profiledrollout.junit.ProfiledRolloutExtension;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.apiguardian.api.API;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs each test method of the annotated class (or the annotated method) inside an engine profile window while a
 * load generator sends completion requests, then hands the test a {@link RolloutResult} with latency histograms and
 * the analysed traces of every rank.
 *
 * <pre>{@code
 * @ProfiledRollout(backend = SGLANG, numSteps = 10, activities = {GPU, CPU})
 * class DecodeBudgetTest {
 *     @Test
 *     void decodeStaysWithinBudget(RolloutSession session) {
 *         RolloutResult result = session.awaitResult();
 *         assertThat(result.trace()).kernels(matching(".*gemm.*")).share().isLessThan(0.60);
 *     }
 * }
 * }</pre>
 *
 * <h2>Invocation contract</h2>
 * For every test method: the engine is resolved once per class (see {@code profiledrollout.engine}: the embedded
 * simulator by default, or {@code attach} to {@code profiledrollout.engine.url}) and awaited on {@code /health}; the
 * {@link RolloutLoad#warmupRequests() warm-up requests} are sent outside the window; then {@code POST /start_profile}
 * with the body these attributes describe, the load starts, the test body runs, the load finishes,
 * {@code /stop_profile} is sent (SGLang answers 500 when it already stopped by itself after {@link #numSteps()} steps;
 * both are handled), the extension waits until every expected rank's trace file exists and has stopped growing, and
 * reads them. A test body that never calls {@link RolloutSession#awaitResult()} still gets the whole window; the
 * profiler is stopped even when the body throws.
 *
 * <h2>vLLM</h2>
 * With {@code backend = VLLM} the profile calls carry no body: vLLM's profiler settings are fixed when the server starts
 * ({@code --profiler-config}, {@code docs/PROTOCOLS.md} §2.2). {@link #numSteps()} is then checked against
 * {@code profiledrollout.vllm.max.iterations} (the server's {@code max_iterations}, which vLLM cannot report) and the
 * window fails when they differ; {@link #startStep()}, {@link #profileByStage()}, {@link #outputDir()},
 * {@link #profilePrefix()}, {@link #profileId()}, {@link #mergeProfiles()}, {@link #profileStages()} and
 * {@link #shapeDiscovery()} cannot be sent and are rejected. Traces are read from {@code profiledrollout.trace.dir}
 * (the server's {@code torch_profiler_dir} as this machine sees it). The server's profiler kind is fixed at start too:
 * of {@code torch}, {@code cuda} and {@code proton} ({@code vllm/config/profiler.py}) only {@code torch} writes the
 * Kineto traces the window reads; profile a server started with another kind through {@link Profiler#NSYS} (an
 * interactive nsys session).
 *
 * <h2>Several engines</h2>
 * With {@code profiledrollout.router.url} (or several comma-separated {@code profiledrollout.engine.url}) every
 * healthy engine is started and stopped concurrently; one that fails to start is reported and the others are
 * profiled ({@link RolloutResult#workers()}).
 *
 * <p>Defaults follow SGLang's {@code ProfileReq} ({@code python/sglang/srt/managers/io_struct.py};
 * {@code docs/PROTOCOLS.md} §1.1) where it has them. An attribute left at its default is not sent at all (the numeric
 * "unset" values {@code 0} steps and {@code -1} start step, empty strings and arrays, {@code false}, and {@code true}
 * for {@link #withStack()} and {@link #recordShapes()}), so the server's own default applies and a server older than a
 * field never sees it.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(ProfiledRolloutExtension.class)
@API(status = STABLE, since = "0.1")
public @interface ProfiledRollout {

    /** The engine's wire protocol. Default {@link Backend#SGLANG}. */
    Backend backend() default Backend.SGLANG;

    /**
     * Which profiler records the window: the engine's torch profiler (default) or Nsight Systems
     * ({@link Profiler#NSYS}: {@code nsys start/stop} on an interactive session, or the {@code CUDA_PROFILER}
     * activity for a {@code -c cudaProfilerApi} capture).
     */
    Profiler profiler() default Profiler.TORCH;

    /**
     * SGLang {@code num_steps}: profile this many scheduler steps (one step = one forward batch), then the engine stops
     * and writes the traces by itself at the start of the following batch. {@code 0} (the default) omits the field:
     * the capture runs until {@code /stop_profile} at the end of the window.
     */
    int numSteps() default 0;

    /**
     * Whether a capture that holds another number of engine steps than {@link #numSteps()} fails the test. After each
     * capture the extension counts the steps in every rank's trace and records a {@code CAPTURE} verdict
     * {@code "steps captured"} (the fewest over ranks against {@code numSteps}); by default a mismatch is a warning,
     * with {@code true} (or {@link ProfiledRolloutKeys#STEPS_STRICT}{@code =true}) it fails the test. Ignored without
     * {@code numSteps}.
     */
    boolean strictSteps() default false;

    /**
     * SGLang {@code start_step}: the absolute scheduler step (counted from server start, warm-up batches included) at
     * which the capture begins. {@code -1} (the default) omits it: the capture begins with the next batch.
     */
    int startStep() default -1;

    /** SGLang {@code activities}. Default {@code {CPU, GPU}}, SGLang's default. Must not be empty. */
    Activity[] activities() default {Activity.CPU, Activity.GPU};

    /** SGLang {@code profile_by_stage}: separate {@code -EXTEND} and {@code -DECODE} captures; needs {@link #numSteps()}. */
    boolean profileByStage() default false;

    /** SGLang {@code with_stack}. SGLang's effective default is {@code true}. */
    boolean withStack() default true;

    /** SGLang {@code record_shapes}. SGLang's effective default is {@code true}. */
    boolean recordShapes() default true;

    /**
     * SGLang {@code output_dir}, a path on the <em>server's</em> filesystem. Empty (the default): a fresh directory per
     * test under the test's output directory, {@code <profiledrollout.output.dir>/<Class>/<method>/traces}.
     */
    String outputDir() default "";

    /** SGLang {@code profile_prefix}, prepended to every trace file name. Empty (the default) omits it. */
    String profilePrefix() default "";

    /**
     * SGLang {@code profile_id}, the stem of every trace file name ({@code {profile_id}-TP-{tp}….trace.json.gz}).
     * Empty (the default) omits it: the server uses {@code str(time.time())}, as servers that predate the field always
     * do. Letters, digits, {@code '.'} and {@code '_'} only.
     */
    String profileId() default "";

    /**
     * SGLang {@code merge_profiles}: after the capture, TP rank 0 of DP rank 0 also writes
     * {@code merged-{profile_id}.trace.json.gz} from every rank file it can see ({@code profile_merger.py}). The
     * extension waits for it and keeps it in {@code traces/}; the analysis reads the per-rank files. Cannot be combined
     * with {@link #profilePrefix()}, which hides the rank files from SGLang's merge. Default false (omitted).
     */
    boolean mergeProfiles() default false;

    /**
     * SGLang {@code profile_stages}: the stages a {@link #profileByStage()} capture records, {@code "prefill"} and/or
     * {@code "decode"}. Only SGLang's profiler V2 ({@code SGLANG_PROFILE_V2=1} on the server) reads it; other servers
     * record both. Empty (the default) omits it: both stages.
     */
    String[] profileStages() default {};

    /**
     * {@code shape_discovery}: with {@link #recordShapes()}, Triton / FlashInfer kernel metadata, <em>only on an SGLang
     * patched with the unmerged PR that adds it</em>: SGLang's main has no such field in {@code ProfileReq}
     * ({@code python/sglang/srt/managers/io_struct.py}) and drops the key silently, so setting it prints a warning.
     * Default false (omitted).
     */
    boolean shapeDiscovery() default false;

    /**
     * Soft budgets: a failed budget assertion (one that records a {@code Verdict}) in the test body records its verdict
     * and its failure without throwing, so every later budget is still evaluated; after the body the test fails once
     * with all of them ({@code BudgetFailuresError}: "N of M budgets failed", then each message). Other assertions
     * (AssertJ's {@code isEqualTo} on plain values) and checks later budgets depend on (a metric without samples, a
     * capture without traces) still fail at once. {@code false}: fail fast, at the first failed budget. Default true.
     */
    boolean softBudgets() default true;
}
