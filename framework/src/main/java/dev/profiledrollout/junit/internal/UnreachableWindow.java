package dev.profiledrollout.junit.internal;

import dev.profiledrollout.engine.ServerInfo;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Decides that a capture armed for {@code start_step} and {@code num_steps} will never write its files, so that the
 * wait for them can end before {@code profiledrollout.trace.timeout}.
 *
 * <p>Why this is certain: SGLang writes such a capture at the start of batch {@code start_step + num_steps}, on the
 * scheduler's own thread ({@code docs/PROTOCOLS.md} §1.1; the simulator does the same), and a {@code /stop_profile}
 * before {@code start_step} finds no capture in progress to write. An engine
 * whose step counter {@code forward_ct} is below that batch, that holds no waiting or running request, and whose
 * counter has not moved for {@link #SETTLE}, runs no further batch once the window's own load has finished, so no
 * file comes. An export in progress cannot be mistaken for this: it runs inside the batch that triggers it, whose
 * requests are still queued or running.
 *
 * <p>Needs both {@link ServerInfo#forwardCount()} and {@link ServerInfo#queuedRequests()}; an engine that reports
 * either not (SGLang's own {@code get_internal_state} has no {@code forward_ct}) is never judged, and the wait keeps
 * its full timeout. Not thread-safe: one instance per wait.
 */
final class UnreachableWindow {

    /** How long the engine must stay idle at one step count before the window is declared unreachable. */
    static final Duration SETTLE = Duration.ofSeconds(2);

    private final long writeStep;
    private final String window;
    private final Duration settle;
    private long count = -1;
    private long since;

    /**
     * @param writeStep the step whose start writes the files (a lower bound of it); at least 1
     * @param window    the capture's steps as the request gave them, e.g. {@code start_step=1100, num_steps=4}
     * @param settle    how long the engine must stay idle at one count, positive
     * @throws IllegalArgumentException on a write step below 1 or a settle time that is not positive
     */
    UnreachableWindow(long writeStep, String window, Duration settle) {
        if (writeStep < 1) {
            throw new IllegalArgumentException("writeStep must be >= 1, was " + writeStep);
        }
        if (settle.isNegative() || settle.isZero()) {
            throw new IllegalArgumentException("settle must be positive, was " + settle);
        }
        this.writeStep = writeStep;
        this.window = Objects.requireNonNull(window, "window");
        this.settle = settle;
    }

    /**
     * Records one reading of the engine's state.
     *
     * @param info     the engine's {@code /server_info} now, or null when it could not be read
     * @param nowNanos {@link System#nanoTime()} of the reading
     * @return why no file will come, once the engine has been idle below the write step for the settle time
     */
    Optional<String> observe(ServerInfo info, long nowNanos) {
        OptionalLong steps = info == null ? OptionalLong.empty() : info.forwardCount();
        OptionalInt queued = info == null ? OptionalInt.empty() : info.queuedRequests();
        if (steps.isEmpty() || queued.isEmpty() || queued.getAsInt() > 0 || steps.getAsLong() >= writeStep) {
            count = -1;
            return Optional.empty();
        }
        if (steps.getAsLong() != count) {
            count = steps.getAsLong();
            since = nowNanos;
            return Optional.empty();
        }
        if (nowNanos - since < settle.toNanos()) {
            return Optional.empty();
        }
        return Optional.of(String.format("the load has finished and the engine has been idle for %s (no waiting or"
                + " running request) at step %d (forward_ct), but this capture (%s) writes its files only when step %d"
                + " begins: the load produced too few steps for the window", settle, count, window, writeStep));
    }
}
