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
 * Makes the test's load a capacity search: stages at rising, then bisected, request rates (or concurrencies) until
 * the highest load at which every {@link #slo()} holds is bracketed to {@link #precision()}
 * ({@link dev.profiledrollout.capacity.CapacitySearch}). The stages run inside the one profile window; the token
 * lengths, seed, endpoint and warm-up are {@link RolloutLoad}'s.
 *
 * <pre>{@code
 * @ProfiledRollout(backend = SGLANG)
 * @RolloutLoad(inputTokens = 512, outputTokens = 64)
 * @RolloutCapacity(slo = {"ttft.p99<500ms", "tpot.p99<50ms"}, startRate = 8, maxRate = 256)
 * class CapacityTest {
 *     @Test
 *     void holdsForty(RolloutSession session) {
 *         assertThat(session.awaitResult().capacity()).requestRate().isGreaterThan(40);
 *     }
 * }
 * }</pre>
 *
 * A stage meets an SLO only when the percentile's 95 % confidence interval lies below the budget, so a p99 SLO needs
 * stages of at least 368 requests (fewer leave the interval without an upper end); every stage is raised to what the
 * strictest SLO needs, above {@link #minRequestsPerStage()}. Not combinable with {@link RolloutSweep},
 * {@link RolloutPhase}, a recipe or an open-loop {@link RolloutLoad}.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@API(status = EXPERIMENTAL, since = "0.2")
public @interface RolloutCapacity {

    /** The SLOs, each {@code METRIC.pPERCENTILE<VALUE UNIT}, e.g. {@code "ttft.p99<500ms"}; at least one. */
    String[] slo();

    /** Search open-loop request rates from this many requests/s (default); 0 to search concurrencies instead. */
    double startRate() default 8;

    /** The highest rate tried, requests/s. */
    double maxRate() default 512;

    /** With {@code startRate = 0}: search closed-loop concurrencies from this many lanes. */
    int startConcurrency() default 1;

    /** With {@code startRate = 0}: the highest concurrency tried. */
    int maxConcurrency() default 256;

    /** Relative precision of the bracket, in (0, 0.5); default ±5 %. */
    double precision() default 0.05;

    /** The most stages the search runs. */
    int maxStages() default 12;

    /** The fewest requests of a stage; raised to what the strictest SLO's percentile interval needs (p99: 368). */
    int minRequestsPerStage() default 40;

    /** A rate stage's nominal length in seconds: it sends {@code rate × secondsPerStage} requests, at least the minimum. */
    double secondsPerStage() default 3;

    /**
     * The schedule-lag p99 above which an open-loop stage counts as not driven by the client, in milliseconds
     * ({@link dev.profiledrollout.load.LoadFidelity}); default 10 (the schedule report's lag budget). Raise it on a
     * machine whose cores the engine shares with the load generator.
     */
    long maxLagMillis() default 10;

    /** Fail, rather than warn, when a stage's load could not be delivered (load fidelity). */
    boolean strict() default false;
}
