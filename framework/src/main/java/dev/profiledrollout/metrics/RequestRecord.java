package dev.profiledrollout.metrics;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Arrays;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What happened to one streamed completion request. All {@code …Nanos} values are {@link System#nanoTime()}
 * readings. Immutable: the array is copied in and out.
 *
 * @param index                 the request's index in the workload (warm-up requests use negative indices)
 * @param inputTokensRequested  prompt length sent, in tokens
 * @param outputTokensRequested {@code max_tokens} sent
 * @param startNanos            just before the request was sent (after any concurrency wait)
 * @param firstTokenNanos       arrival of the first SSE data event with non-empty {@code choices} (vLLM's TTFT
 *                              point), or {@code -1} when none arrived
 * @param chunkNanos            arrival of every data event with non-empty {@code choices}, in order; the first
 *                              equals {@code firstTokenNanos}; empty when none arrived; not null
 * @param endNanos              the last such chunk (the usage chunk and {@code [DONE]} excluded, as in vLLM), or
 *                              the time of the failure
 * @param promptTokens          {@code usage.prompt_tokens}, or {@code -1} when the server sent no usage
 * @param completionTokens      {@code usage.completion_tokens}, or {@code -1} when the server sent no usage
 * @param error                 null on success
 * @param errorMessage          null on success; otherwise what went wrong, for a person
 * @param intendedNanos         when the schedule meant the request to be sent (open loop); equals
 *                              {@code startNanos} in a closed loop, where there is no schedule. {@code startNanos −
 *                              intendedNanos} is the schedule lag ({@code docs/METRICS.md} §6)
 * @param chunkTokens           new output tokens carried by each chunk, parallel to {@code chunkNanos}, when the
 *                              endpoint says (SGLang {@code /generate}: the {@code meta_info.completion_tokens}
 *                              delta); empty when it does not, and each chunk then counts as one ITL gap; not null
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record RequestRecord(int index, int inputTokensRequested, int outputTokensRequested,
                            long startNanos, long firstTokenNanos, long[] chunkNanos, long endNanos,
                            int promptTokens, int completionTokens,
                            ErrorKind error, String errorMessage, long intendedNanos, int[] chunkTokens) {

    public RequestRecord {
        Objects.requireNonNull(chunkNanos, "chunkNanos");
        Objects.requireNonNull(chunkTokens, "chunkTokens");
        chunkNanos = chunkNanos.clone();
        chunkTokens = chunkTokens.clone();
        if (chunkTokens.length != 0 && chunkTokens.length != chunkNanos.length) {
            throw new IllegalArgumentException("chunkTokens must be empty or parallel to chunkNanos, had "
                    + chunkTokens.length + " and " + chunkNanos.length);
        }
        if (error == null && errorMessage != null) {
            throw new IllegalArgumentException("errorMessage without an error kind: " + errorMessage);
        }
        if (error != null && errorMessage == null) {
            errorMessage = error.name();
        }
        if (error == null && chunkNanos.length == 0) {
            throw new IllegalArgumentException("a successful record needs at least one chunk (index " + index + ")");
        }
    }

    /** A record without a schedule (intended = actual send) and without per-chunk token counts. */
    public RequestRecord(int index, int inputTokensRequested, int outputTokensRequested, long startNanos,
                         long firstTokenNanos, long[] chunkNanos, long endNanos, int promptTokens,
                         int completionTokens, ErrorKind error, String errorMessage) {
        this(index, inputTokensRequested, outputTokensRequested, startNanos, firstTokenNanos, chunkNanos, endNanos,
                promptTokens, completionTokens, error, errorMessage, startNanos, new int[0]);
    }

    /** @return a copy of the new-token counts per chunk; empty when the endpoint does not report them */
    @Override
    public int[] chunkTokens() {
        return chunkTokens.clone();
    }

    /** @return this record with its intended send time set (nanoTime) */
    public RequestRecord withIntendedNanos(long intended) {
        return new RequestRecord(index, inputTokensRequested, outputTokensRequested, startNanos, firstTokenNanos,
                chunkNanos, endNanos, promptTokens, completionTokens, error, errorMessage, intended, chunkTokens);
    }

    /** @return this record with per-chunk new-token counts (parallel to {@link #chunkNanos()}) */
    public RequestRecord withChunkTokens(int[] tokens) {
        return new RequestRecord(index, inputTokensRequested, outputTokensRequested, startNanos, firstTokenNanos,
                chunkNanos, endNanos, promptTokens, completionTokens, error, errorMessage, intendedNanos, tokens);
    }

    /** @return schedule lag: actual send − intended send, in nanoseconds (0 in a closed loop) */
    public long scheduleLagNanos() {
        return startNanos - intendedNanos;
    }

    /** @return a copy of the chunk arrival times */
    @Override
    public long[] chunkNanos() {
        return chunkNanos.clone();
    }

    /** @return the number of chunks with non-empty {@code choices} (not tokens: a chunk may carry several) */
    public int chunkCount() {
        return chunkNanos.length;
    }

    /** @return true when the request completed: HTTP 200, at least one choices chunk and no error */
    public boolean succeeded() {
        return error == null;
    }

    /**
     * A successful record; {@code firstTokenNanos} and {@code endNanos} are the first and last chunk.
     *
     * @throws IllegalArgumentException when {@code chunkNanos} is empty
     */
    public static RequestRecord success(int index, int inputTokensRequested, int outputTokensRequested, long startNanos,
                                        long[] chunkNanos, int promptTokens, int completionTokens) {
        if (chunkNanos.length == 0) {
            throw new IllegalArgumentException("a successful record needs at least one chunk (index " + index + ")");
        }
        return new RequestRecord(index, inputTokensRequested, outputTokensRequested, startNanos, chunkNanos[0],
                chunkNanos, chunkNanos[chunkNanos.length - 1], promptTokens, completionTokens, null, null);
    }

    /** A failed record; chunks received before the failure are kept for diagnosis. */
    public static RequestRecord failure(int index, int inputTokensRequested, int outputTokensRequested, long startNanos,
                                        long[] chunkNanos, long failedAtNanos, int promptTokens, int completionTokens,
                                        ErrorKind error, String errorMessage) {
        Objects.requireNonNull(error, "error");
        return new RequestRecord(index, inputTokensRequested, outputTokensRequested, startNanos,
                chunkNanos.length == 0 ? -1 : chunkNanos[0], chunkNanos, failedAtNanos, promptTokens, completionTokens,
                error, errorMessage);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RequestRecord r && index == r.index && inputTokensRequested == r.inputTokensRequested
                && outputTokensRequested == r.outputTokensRequested && startNanos == r.startNanos
                && firstTokenNanos == r.firstTokenNanos && Arrays.equals(chunkNanos, r.chunkNanos)
                && endNanos == r.endNanos && promptTokens == r.promptTokens && completionTokens == r.completionTokens
                && error == r.error && Objects.equals(errorMessage, r.errorMessage) && intendedNanos == r.intendedNanos
                && Arrays.equals(chunkTokens, r.chunkTokens);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index, startNanos, endNanos, error) * 31 + Arrays.hashCode(chunkNanos);
    }

    @Override
    public String toString() {
        return "RequestRecord[index=" + index + ", in=" + inputTokensRequested + ", out=" + outputTokensRequested
                + ", chunks=" + chunkNanos.length + ", ttftNs=" + (firstTokenNanos < 0 ? -1 : firstTokenNanos - startNanos)
                + ", e2eNs=" + (endNanos - startNanos) + ", lagNs=" + (startNanos - intendedNanos) + ", promptTokens=" + promptTokens
                + ", completionTokens=" + completionTokens + (error == null ? "" : ", error=" + error + ": " + errorMessage)
                + "]";
    }
}
