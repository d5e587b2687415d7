package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.net.URI;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What happened to one worker in a fanned-out profile window ({@link FanOut}).
 *
 * @param url         the worker's base URL, not null
 * @param workerType  {@code regular}, {@code prefill} or {@code decode}; not null
 * @param state       where the worker ended, not null
 * @param httpStatus  the HTTP status of the failed call, {@code -1} for I/O failures, {@code 0} when nothing failed
 * @param reason      why it was skipped or failed (the {@link EngineException} message), or {@code ""}
 * @param stopOutcome the stop's outcome when the worker was stopped, else null
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record WorkerOutcome(URI url, String workerType, State state, int httpStatus, String reason,
                            StopOutcome stopOutcome) {

    /** Where a worker ended. */
    public enum State {
        /** The router reported it unhealthy; it was neither started nor stopped. */
        SKIPPED_UNHEALTHY,
        /** {@code /start_profile} failed; it was not stopped (nothing was running). */
        START_FAILED,
        /** Started and not yet stopped (only seen between {@link FanOut#start} and {@link FanOut#stop}). */
        STARTED,
        /** Started and stopped: its traces are part of the capture. */
        PROFILED,
        /**
         * Started and stopped, but the window captured nothing to judge: no trace file, no kernel event, no step or
         * (nsys) no report; {@code reason} says which and how to fix it. The window fails.
         */
        NO_DATA,
        /** Started, but {@code /stop_profile} failed; its traces may be missing or partial. */
        STOP_FAILED,
        /**
         * Started, and {@code /stop_profile} was sent, but its answer had not come when the JVM exited (the shutdown
         * hook's bound): the engine was still stopping and exporting its traces, which it may finish on its own.
         */
        STOP_REQUESTED
    }

    public WorkerOutcome {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(workerType, "workerType");
        Objects.requireNonNull(state, "state");
        reason = reason == null ? "" : reason;
    }

    /** @return whether this worker failed a profile call (start or stop) */
    public boolean failed() {
        return state == State.START_FAILED || state == State.STOP_FAILED;
    }

    /** One line for a console or a log, e.g. {@code http://h:1 decode PROFILED (STOPPED)}. */
    public String describe() {
        StringBuilder line = new StringBuilder().append(url).append(' ').append(workerType).append(' ').append(state);
        if (stopOutcome != null) {
            line.append(" (").append(stopOutcome).append(')');
        }
        if (failed()) {
            line.append(": HTTP ").append(httpStatus < 0 ? "I/O error" : String.valueOf(httpStatus));
        }
        if (!reason.isEmpty()) {
            line.append(" — ").append(reason);
        }
        return line.toString();
    }
}
