package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/**
 * What {@code POST /stop_profile} reported ({@code docs/PROTOCOLS.md} §1.2).
 */
@API(status = EXPERIMENTAL, since = "0.1")
public enum StopOutcome {
    /** {@code 200}: a capture was running and its trace files are now completely written (the stop blocks). */
    STOPPED,
    /**
     * {@code 500}: no capture was running, either because it already auto-stopped after {@code num_steps} or
     * because none was started. SGLang gives no body; the reason is only in the server log.
     */
    NOT_IN_PROGRESS
}
