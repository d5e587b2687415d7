package dev.profiledrollout;

import static org.apiguardian.api.API.Status.STABLE;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.apiguardian.api.API;

/**
 * The load sent through the profile window of a {@link ProfiledRollout} test: by default a closed loop of
 * streaming {@code /v1/completions} requests whose prompts are random token ids of an exact length; with
 * {@link #requestRate()} an open loop (Poisson, gamma burstiness or a linear ramp, as {@code vllm bench serve}
 * shapes it, {@code docs/METRICS.md} §4) whose latencies are also reported from the intended send time.
 *
 * <p>Optional: without it the defaults below apply, sized so that a test against the embedded simulator takes a
 * second or two. On a method it replaces the class's annotation.
 *
 * <p>Lengths follow vLLM's {@code RandomDataset} law ({@code vllm/benchmarks/datasets/random.py};
 * {@code docs/METRICS.md} §5): input length uniform on {@code [⌊in·(1−r)⌋, ⌈in·(1+r)⌉]}, output length uniform on
 * {@code [max(1,⌊out·(1−r)⌋), max(1,⌈out·(1+r)⌉)]}; {@code r = 0} gives exact lengths.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@API(status = STABLE, since = "0.1")
public @interface RolloutLoad {

    /** Requests in flight at once (closed loop), on the wire. At least 1. Default 8. An open loop has no such size:
     * setting it together with {@link #requestRate()} or a ramp is a configuration error (cap an open loop with
     * {@link #maxConcurrency()}). */
    int concurrency() default 8;

    /**
     * Open-loop mean arrival rate in requests/s ({@code --request-rate}); {@link Double#POSITIVE_INFINITY}
     * (default) means a closed loop of {@link #concurrency()}.
     */
    double requestRate() default Double.POSITIVE_INFINITY;

    /** Gamma shape of the open-loop gaps ({@code --burstiness}): 1 Poisson (default), +∞ constant, &lt; 1 burstier.
     * Only for an open loop: set without {@link #requestRate()} or a ramp, it is a configuration error. */
    double burstiness() default 1.0;

    /** Open loop: cap on requests in flight ({@code --max-concurrency}); 0 (default) for none. Set on a closed loop,
     * it is a configuration error: use {@link #concurrency()} there. */
    int maxConcurrency() default 0;

    /** Ramp-up start rate, requests/s; with {@link #rampUpEndRate()} &gt; 0 it replaces {@link #requestRate()}, which
     * must then stay unset (as {@code vllm bench serve} demands). 0 = no ramp; both rates or neither. */
    double rampUpStartRate() default 0;

    /** Ramp-up end rate, requests/s. 0 = no ramp. */
    double rampUpEndRate() default 0;

    /**
     * vLLM's {@code --ramp-up-strategy}: {@code "linear"} ({@code rate_i = start + (end − start)·i/(N−1)}, the
     * default) or {@code "exponential"} ({@code rate_i = start·(end/start)^(i/(N−1))}).
     * Needs both ramp rates; set to {@code "exponential"} without them, it is a configuration error.
     */
    String rampUpStrategy() default "linear";

    /** Stop issuing requests after this many seconds; 0 (default) bounds the run by {@link #requests()} only. */
    double durationSeconds() default 0;

    /** Random tokens shared by every prompt ({@code --random-prefix-len}). Default 0. */
    int prefixTokens() default 0;

    /** Endpoint: {@code /v1/completions} (default), {@code /v1/chat/completions} or SGLang's {@code /generate}. */
    String endpoint() default "/v1/completions";

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

    /**
     * Goodput SLOs in vLLM's {@code --goodput} syntax, {@code "KEY:MILLISECONDS"} with keys {@code ttft},
     * {@code tpot} and {@code e2el}, e.g. {@code {"ttft:250", "tpot:20", "e2el:2000"}}. A request is good when it
     * succeeded and meets <em>every</em> bound given (vLLM's AND semantics, {@code docs/METRICS.md} §2); request
     * goodput is good requests per second of the benchmark duration (DistServe). The window reports it in
     * {@code summary.json} ({@code latency.requestGoodput} in req/s, {@code latency.goodRequests},
     * {@code latency.goodput}), on the console and in the HTML report; assert it with
     * {@code assertThat(result.latency()).goodput()}. Default
     * {@code {}}: no SLO, no goodput.
     */
    String[] goodput() default {};

    /**
     * Where prompts come from: {@code "random"} (default: random token ids of {@link #inputTokens()} tokens,
     * vLLM's {@code --dataset-name random}), {@code "sharegpt"} (a ShareGPT JSON list of conversations, first turn
     * as prompt, shuffled with {@link #seed()}) or {@code "jsonl"} (one {@code {"prompt": …}} object per line).
     * File datasets send text prompts: {@link #inputTokens()}, {@link #rangeRatio()} and {@link #prefixTokens()}
     * do not apply, every request asks for {@link #outputTokens()} tokens (a JSONL line's own
     * {@code max_tokens} wins), and input token counts come from the server's usage.
     */
    String dataset() default "random";

    /**
     * The file of a {@code "sharegpt"} or {@code "jsonl"} {@link #dataset()}: absolute, or relative to the working
     * directory of the test JVM (the module directory under Maven). Must be empty for {@code "random"}.
     */
    String datasetPath() default "";
}
