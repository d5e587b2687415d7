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
 * Shapes the embedded engine simulator a {@link ProfiledRollout} class runs against when
 * {@code profiledrollout.engine} is {@code embedded} (the default). Ignored when attached to a real engine.
 *
 * <p>The simulator models Llama-3.1-8B on H100 SXM GPUs with a roofline cost model (see
 * {@code dev.profiledrollout.simulator.CostModel}); its reports say {@code engine: simulator}.
 *
 * <pre>{@code
 * @ProfiledRollout(numSteps = 8)
 * @SimulatedEngine(tpSize = 2)
 * class TensorParallelTest { ... }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@API(status = EXPERIMENTAL, since = "0.1")
public @interface SimulatedEngine {

    /** Tensor-parallel size: one trace file per TP rank. At least 1. Default 1. */
    int tpSize() default 1;

    /** SGLang {@code --max-running-requests}: the largest decode batch. At least 1. Default 64. */
    int maxRunningRequests() default 64;

    /** Fault injection: kernels whose name matches this regex (find) run {@link #slowKernelFactor()} times longer. */
    String slowKernel() default "";

    /** Slow-down factor for {@link #slowKernel()}; at least 1. Default 2. Set without {@code slowKernel}, an error. */
    double slowKernelFactor() default 2.0;

    /** Fault injection: this TP rank runs {@link #slowRankFactor()} times slower (a straggler). {@code -1}: none. */
    int slowRank() default -1;

    /** Slow-down factor for {@link #slowRank()}; at least 1. Default 1.5. Set without {@code slowRank}, an error. */
    double slowRankFactor() default 1.5;

    /**
     * Fault injection: every decode step's kernels run this many times longer (prefill unchanged); at least 1.
     * Default 1: none. See {@code SimulatorConfig.Builder#slowDecode}.
     */
    double slowDecode() default 1.0;

    /**
     * Fault injection: every step takes this many times its normal wall time through host (CPU) time before its
     * kernels, the kernels' durations unchanged, so client latency grows and the trace's kernel times do not; at
     * least 1. Default 1: none. See {@code SimulatorConfig.Builder#slowHost}.
     */
    double slowHost() default 1.0;

    /**
     * GPU noise: log-normal sigma of each kernel launch's duration factor, in [0, 1]. Default 0 (exact cost-model
     * durations); {@code SimulatorConfig.MEASURED_KERNEL_JITTER} (0.03) is what real traces show (docs/TRACES.md §8).
     */
    double kernelJitter() default 0.0;

    /**
     * GPU noise: log-normal sigma of the per-run clock factor that scales every kernel of one simulator start, in
     * [0, 1]. Default 0; {@code SimulatorConfig.DEFAULT_CLOCK_SPREAD} (0.01) is one GPU against itself from run to
     * run, {@code SimulatorConfig.POOL_CLOCK_SPREAD} (0.08) runs landing on different GPUs (docs/TRACES.md §8).
     */
    double clockSpread() default 0.0;

    /**
     * Seed of the GPU noise; {@code -1} (default): a fresh seed at every start, so reruns differ as on a real GPU. The
     * seed used is reported in {@code /server_info} as {@code simulated_gpu_noise.noise_seed}.
     */
    long noiseSeed() default -1;
}
