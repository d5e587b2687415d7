package dev.profiledrollout;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;
import static org.apiguardian.api.API.Status.STABLE;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.apiguardian.api.API;

/**
 * One phase window of a {@link ProfiledRollout} test against a prefill/decode deployment: which engines to profile,
 * for which steps, under which load. Repeatable; the phases run one after the other in declaration order, each with
 * its own {@code /start_profile} … {@code /stop_profile}, and the result has one entry per phase
 * ({@link RolloutResult#phases()}).
 *
 * <pre>{@code
 * @ProfiledRollout(activities = GPU)
 * @RolloutPhase(phase = PREFILL, numSteps = 5, inputTokens = 4096, outputTokens = 1, concurrency = 8, requests = 16)
 * @RolloutPhase(phase = DECODE, numSteps = 20, inputTokens = 128, outputTokens = 256, concurrency = 64, requests = 64)
 * class DisaggregatedTest { ... }
 * }</pre>
 *
 * <p>The engines of a phase are the workers whose {@code worker_type} is the phase's ({@link Phase#workerType()}),
 * from the router or from {@code profiledrollout.prefill.url} / {@code .decode.url}; with no such workers (one
 * regular engine, the embedded simulator) every engine is profiled in each phase. Load always goes through the router
 * (or {@code profiledrollout.engine.url}), because a disaggregated request needs both phases.
 *
 * <p>Unset values ({@code 0}, {@code -1}) fall back to {@link ProfiledRollout} and {@link RolloutLoad}.
 *
 * <p>{@link RolloutRecipe} takes the phases from an srtctl recipe instead; a test has one or the other.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Repeatable(RolloutPhases.class)
@API(status = STABLE, since = "0.1")
public @interface RolloutPhase {

    /** The phase whose engines this window profiles. */
    Phase phase();

    /** {@code num_steps} of this phase's capture; {@code 0}: {@link ProfiledRollout#numSteps()}. */
    int numSteps() default 0;

    /** {@code start_step} of this phase's capture; {@code -1}: {@link ProfiledRollout#startStep()}. */
    int startStep() default -1;

    /** Prompt length in tokens; {@code 0}: {@link RolloutLoad#inputTokens()}. */
    int inputTokens() default 0;

    /** Completion length in tokens; {@code 0}: {@link RolloutLoad#outputTokens()}. */
    int outputTokens() default 0;

    /** Closed loop only: requests in flight at once (the lanes); {@code 0}: {@link RolloutLoad#concurrency()}.
     * Set under an open loop ({@link RolloutLoad#requestRate()} or a ramp) it is a configuration error: cap an open
     * loop's phase with {@link #maxConcurrency()}. */
    int concurrency() default 0;

    /** Open loop only: the cap on requests in flight in this phase's window ({@code --max-concurrency});
     * {@code 0}: {@link RolloutLoad#maxConcurrency()}. Set on a closed loop it is a configuration error: use
     * {@link #concurrency()} there. */
    @API(status = EXPERIMENTAL, since = "0.2")
    int maxConcurrency() default 0;

    /** Requests sent in this phase's window; {@code 0}: {@link RolloutLoad#requests()}. */
    int requests() default 0;
}
