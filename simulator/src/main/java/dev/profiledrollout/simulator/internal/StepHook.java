package dev.profiledrollout.simulator.internal;

/**
 * What the {@link Scheduler} tells a profiler around every engine step: SGLang's {@link Profiler} and vLLM's
 * {@link VllmProfiler} both hook here, so one scheduler serves both backends.
 */
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
