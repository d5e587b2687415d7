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
}
