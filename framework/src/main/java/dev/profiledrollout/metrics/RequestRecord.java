package dev.profiledrollout.metrics;

import java.util.Arrays;
import java.util.Objects;

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
 */
public record RequestRecord(int index, int inputTokensRequested, int outputTokensRequested,
                            long startNanos, long firstTokenNanos, long[] chunkNanos, long endNanos,
                            int promptTokens, int completionTokens,
                            ErrorKind error, String errorMessage) {

    public RequestRecord {
        Objects.requireNonNull(chunkNanos, "chunkNanos");
        chunkNanos = chunkNanos.clone();
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
                && error == r.error && Objects.equals(errorMessage, r.errorMessage);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index, startNanos, endNanos, error) * 31 + Arrays.hashCode(chunkNanos);
    }

    @Override
    public String toString() {
        return "RequestRecord[index=" + index + ", in=" + inputTokensRequested + ", out=" + outputTokensRequested
                + ", chunks=" + chunkNanos.length + ", ttftNs=" + (firstTokenNanos < 0 ? -1 : firstTokenNanos - startNanos)
                + ", e2eNs=" + (endNanos - startNanos) + ", promptTokens=" + promptTokens
                + ", completionTokens=" + completionTokens + (error == null ? "" : ", error=" + error + ": " + errorMessage)
                + "]";
    }
}
