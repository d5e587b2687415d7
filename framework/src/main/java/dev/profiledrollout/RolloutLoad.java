package dev.profiledrollout;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The load sent through the profile window of a {@link ProfiledRollout} test: a closed loop of streaming
 * {@code /v1/completions} requests whose prompts are random token ids of an exact length.
 *
 * <p>Optional: without it the defaults below apply, sized so that a test against the embedded simulator takes a
 * second or two. On a method it replaces the class's annotation.
 *
 * <p>Lengths follow vLLM's {@code RandomDataset} law ({@code vllm/benchmarks/datasets/random.py}; METRICS.md §5):
 * input length uniform on {@code [⌊in·(1−r)⌋, ⌈in·(1+r)⌉]}, output length uniform on
 * {@code [max(1,⌊out·(1−r)⌋), max(1,⌈out·(1+r)⌉)]}; {@code r = 0} gives exact lengths.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface RolloutLoad {

    /** Requests in flight at once (closed loop), on the wire. At least 1. Default 8. */
    int concurrency() default 8;

    /** Requests in the profile window, warm-up excluded. At least 1. Default 32. */
    int requests() default 32;

    /** Prompt length in tokens (ISL). At least 1. Default 256. */
    int inputTokens() default 256;

    /** {@code max_tokens} with {@code ignore_eos: true} (OSL). At least 1. Default 32. */
    int outputTokens() default 32;

    /** vLLM's symmetric {@code --random-range-ratio} {@code r}, in {@code [0, 1)}. Default 0: exact lengths. */
    double rangeRatio() default 0.0;

    /** Requests sent before {@code /start_profile}, excluded from every metric and from the trace. Default 2. */
    int warmupRequests() default 2;

    /** Seed of the prompt and length generator. Default 0 (vLLM's {@code --seed} default). */
    long seed() default 0;
}
