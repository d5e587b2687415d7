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
 * Makes the test's load a sequence of stages, run back to back inside the one profile window: closed loops at each
 * {@link #concurrency()}, or open loops at each of the {@link #rates()}. Every other attribute of the load (token
 * lengths, prefix, seed, endpoint, goodput SLO, warm-up before the window) is {@link RolloutLoad}'s. Each stage sends
 * {@link #requestsPerStage()} requests (default {@link RolloutLoad#requests()}).
 *
 * <pre>{@code
 * @ProfiledRollout(backend = SGLANG)
 * @RolloutLoad(requests = 64, inputTokens = 512, outputTokens = 64)
 * @RolloutSweep(concurrency = {1, 4, 16, 64})
 * class ScalingTest {
 *     @Test
 *     void scales(RolloutSession session) {
 *         RolloutResult result = session.awaitResult();
 *         assertThat(result.stages()).hasMonotoneThroughput(0.05).meetsUpToConcurrency("ttft.p99<1s", 32);
 *         assertThat(result.stages().stage(64).latency()).ttft().percentile(99).isLessThan(Duration.ofSeconds(2));
 *     }
 * }
 * }</pre>
 *
 * {@code result.latency()} is then over every stage's requests; {@code result.stages()} gives each stage's own
 * figures. Not combinable with {@link RolloutPhase} or a recipe, nor with an open-loop {@link RolloutLoad} (the
 * stages set the arrival): such a test is refused with a message naming the attribute.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@API(status = EXPERIMENTAL, since = "0.2")
public @interface RolloutSweep {

    /** Closed-loop stages: requests in flight at once per stage, each ≥ 1. Exclusive with {@link #rates()}. */
    int[] concurrency() default {};

    /** Open-loop stages: mean arrival rates in requests/s, each &gt; 0. Exclusive with {@link #concurrency()}. */
    double[] rates() default {};

    /** Gamma shape of the open-loop stages' gaps: 1 Poisson (default), +∞ constant ({@code --burstiness}). */
    double burstiness() default 1.0;

    /** Open-loop stages: cap on requests in flight ({@code --max-concurrency}); 0 (default) for none. */
    int maxConcurrency() default 0;

    /** Requests per stage; 0 (default): {@link RolloutLoad#requests()}. */
    int requestsPerStage() default 0;

    /** Each stage stops issuing after this many seconds as well; 0 (default) for no bound. */
    double secondsPerStage() default 0;

    /**
     * {@code false} (default): one profile window spans every stage. {@code true}: each stage gets its own window, in
     * {@code <test output>/stage-<n>-<label>/} with its own traces, {@code summary.json} and {@code report.html};
     * {@code result.stage(16).trace()} is that stage's trace, so kernel budgets can be asserted per stage. The load's
     * warm-up runs once, before the first stage's window. A stage whose window captured nothing fails the test, naming
     * the stage. See {@link dev.profiledrollout.load.LoadSweep#windowPerStage()}.
     */
    @API(status = EXPERIMENTAL, since = "0.2")
    boolean windowPerStage() default false;
}
