package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.apiguardian.api.API;

/**
 * One generation request inside the scheduler. The scheduler thread owns {@code generated}; HTTP threads read the
 * tokens from {@link #events()} as they are produced.
 */
@API(status = INTERNAL, since = "0.1")
public final class SimRequest {

    /** A scheduler output: one token, or an abort. {@code finishReason} is set on the last token only. */
    public record Event(int tokenId, int completionTokens, String finishReason, String error) {
        public boolean last() {
            return finishReason != null || error != null;
        }
    }

    private final long id;
    private final int promptTokens;
    private final int targetTokens;
    private final String finishReason;
    private final long receivedEpochNs;
    private final java.util.Random random;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    int generated;

    SimRequest(long id, int promptTokens, int targetTokens, String finishReason, long receivedEpochNs, long seed) {
        this.id = id;
        this.promptTokens = promptTokens;
        this.targetTokens = targetTokens;
        this.finishReason = finishReason;
        this.receivedEpochNs = receivedEpochNs;
        this.random = new java.util.Random(seed);
    }

    public long id() {
        return id;
    }

    public int promptTokens() {
        return promptTokens;
    }

    /** Tokens this request will generate before it finishes. */
    public int targetTokens() {
        return targetTokens;
    }

    public long receivedEpochNs() {
        return receivedEpochNs;
    }

    /** Tokens so far, in order; the last one has a finish reason ({@code "length"} or {@code "stop"}). */
    public BlockingQueue<Event> events() {
        return events;
    }

    int contextTokens() {
        return promptTokens + generated;
    }

    /** Emits one token; returns true when that finished the request. */
    boolean nextTokenIsLast() {
        return generated + 1 >= targetTokens;
    }

    boolean emitToken() {
        generated++;
        boolean done = generated >= targetTokens;
        events.add(new Event(random.nextInt(32000) + 100, generated, done ? finishReason : null, null));
        return done;
    }

    void abort(String message) {
        events.add(new Event(-1, generated, null, message));
    }
}
