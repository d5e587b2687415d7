package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import org.apiguardian.api.API;

/**
 * What the {@link Scheduler} tells a profiler around every engine step: SGLang's {@link Profiler} and vLLM's
 * {@link VllmProfiler} both hook here, so one scheduler serves both backends.
 */
@API(status = INTERNAL, since = "0.1")
public interface StepHook {

    /**
     * Called on the scheduler thread before step {@code batch} runs.
     *
     * @param batch  the step number ({@code forward_ct} after this step)
     * @param extend true for a prefill (EXTEND) step
     * @return true when this step is recorded by an open capture
     */
    boolean beforeBatch(long batch, boolean extend);

    /** Called after the step; {@code step} is null when the step was not recorded. */
    void afterBatch(StepRecord step);
}
