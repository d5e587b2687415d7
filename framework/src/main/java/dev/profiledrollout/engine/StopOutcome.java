package dev.profiledrollout.engine;

/**
 * What {@code POST /stop_profile} reported ({@code docs/PROTOCOLS.md} §1.2).
 */
public enum StopOutcome {
    /** {@code 200}: a capture was running and its trace files are now completely written (the stop blocks). */
    STOPPED,
    /**
     * {@code 500}: no capture was running, either because it already auto-stopped after {@code num_steps} or
     * because none was started. SGLang gives no body; the reason is only in the server log.
     */
    NOT_IN_PROGRESS
}
