package dev.profiledrollout.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.metrics.ErrorKind;
import dev.profiledrollout.metrics.RequestRecord;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Turns the SSE {@code data:} events of one streamed completion into a {@link RequestRecord}: a chunk timestamp per
 * token-bearing event (OpenAI {@code choices} chunks, or SGLang {@code /generate} events whose
 * {@code meta_info.completion_tokens} grew), the server's usage counts, and the first error with its kind. Knows
 * nothing of the transport; used by one thread at a time.
 */
final class StreamRecorder {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final int SNIPPET_CHARS = 500;
    private static final int[] NO_TOKENS = new int[0];

    private final CompletionRequest request;
    private final boolean cumulative;
    private long startNanos;
    private long intendedNanos;
    private long[] chunks;
    /** The last chunk taken by the byte path, for its finish reason; length 0 when the last event took the other. */
    private byte[] lastChunk = new byte[256];
    private int lastChunkLength;
    /** Tokens per chunk, for a cumulative stream only. */
    private int[] chunkTokens;
    private int chunkCount;
    private int promptTokens = -1;
    private int completionTokens = -1;
    private boolean done;
    /** A finish reason or a usage object arrived: the stream said it was complete, [DONE] or not. */
    private boolean finished;
    private ErrorKind error;
    private String errorMessage;
    private long failedAtNanos;

    /** @param cumulative SGLang's native {@code /generate} stream (cumulative text, {@code meta_info} counts) */
    StreamRecorder(CompletionRequest request, boolean cumulative) {
        this.request = request;
        this.cumulative = cumulative;
        // one chunk per token is the common case: sized so that the array neither grows nor is copied at the end
        // (up to 4096 tokens; a longer stream grows it)
        this.chunks = new long[Math.max(1, Math.min(request.maxTokens(), 4096))];
        this.chunkTokens = cumulative ? new int[chunks.length] : null;
    }

    /**
     * @param nanos         when the request was sent, a {@link System#nanoTime()} reading
     * @param intendedNanos when the open-loop schedule meant it to be sent; 0 in a closed loop (then = nanos)
     */
    void started(long nanos, long intendedNanos) {
        startNanos = nanos;
        this.intendedNanos = intendedNanos == 0 ? nanos : intendedNanos;
    }

    long startNanos() {
        return startNanos;
    }

    int chunkCount() {
        return chunkCount;
    }

    /** @return true once an error was recorded: further events are ignored and reading may stop */
    boolean failed() {
        return error != null;
    }

    private static final byte[] FINISH_REASON_STRING = "\"finish_reason\":\"".getBytes(StandardCharsets.US_ASCII);

    /**
     * One {@code data:} event as UTF-8 bytes. The common case is recognised on the bytes, without a String or a
     * JSON tree, so that parsing is not the client's bottleneck: a compact JSON object with a non-empty
     * {@code choices} array and neither a usage nor an error object ({@link Bytes#chunkKeys}). Whether such a chunk
     * carries a finish reason is only asked of the last one, and only when the stream ends without a usage chunk or
     * {@code [DONE]}. Anything else (usage chunk, error, {@code [DONE]}, JSON with spaces, malformed data) goes to
     * {@link #onData(long, String)}.
     *
     * @return false when the event failed the request: stop reading
     */
    boolean onData(long now, byte[] data, int offset, int length) {
        if (!cumulative && error == null && !done && length > 1 && data[offset] == '{'
                && data[offset + length - 1] == '}'
                && Bytes.chunkKeys(data, offset, offset + length) == Bytes.CHOICES_ARRAY) {
            chunk(now, 1);
            if (lastChunk.length < length) {
                lastChunk = new byte[Math.max(length, 2 * lastChunk.length)];
            }
            System.arraycopy(data, offset, lastChunk, 0, length);
            lastChunkLength = length;
            return true;
        }
        lastChunkLength = 0;
        return onData(now, new String(data, offset, length, StandardCharsets.UTF_8));
    }

    private void chunk(long now, int tokens) {
        if (chunkCount == chunks.length) {
            chunks = Arrays.copyOf(chunks, chunkCount * 2);
            if (cumulative) {
                chunkTokens = Arrays.copyOf(chunkTokens, chunkCount * 2);
            }
        }
        if (cumulative) {
            chunkTokens[chunkCount] = tokens;
        }
        chunks[chunkCount++] = now;
    }

    /**
     * One {@code data:} event.
     *
     * @param now  when its bytes were read, a {@link System#nanoTime()} reading
     * @param data the event's data (lines joined by {@code \n})
     * @return false when the event failed the request (malformed, in-stream error): stop reading
     */
    boolean onData(long now, String data) {
        if (done || error != null) {
            return error == null;
        }
        if ("[DONE]".equals(data.strip())) {
            done = true;
            return true;
        }
        JsonNode node;
        try {
            node = JSON.readTree(data);
        } catch (IOException e) {
            fail(now, ErrorKind.MALFORMED_STREAM, "data event " + (chunkCount + 1) + " is not JSON: " + shorten(data));
            return false;
        }
        if (node == null || !node.isObject()) {
            fail(now, ErrorKind.MALFORMED_STREAM, "data event is not a JSON object: " + shorten(data));
            return false;
        }
        if (node.has("error") || "error".equals(node.path("object").asText())) {
            JsonNode err = node.has("error") ? node.get("error") : node;
            String message = err.isObject() ? err.path("message").asText(err.toString()) : err.asText();
            fail(now, ErrorKind.IN_STREAM_ERROR, "in-stream error after " + chunkCount + " chunks: " + shorten(message));
            return false;
        }
        if (cumulative) {
            return onGenerateEvent(now, node);
        }
        JsonNode choices = node.path("choices");
        if (choices.isArray() && !choices.isEmpty()) {
            chunk(now, 1);
            finished |= choices.get(0).path("finish_reason").isTextual();
        }
        JsonNode usage = node.path("usage");
        if (usage.isObject()) {
            finished = true;
            promptTokens = usage.path("prompt_tokens").asInt(promptTokens);
            completionTokens = usage.path("completion_tokens").asInt(completionTokens);
        }
        return true;
    }

    /** SGLang's cumulative stream: a chunk is an event whose {@code meta_info.completion_tokens} grew. */
    private boolean onGenerateEvent(long now, JsonNode node) {
        JsonNode meta = node.path("meta_info");
        int total = meta.path("completion_tokens").asInt(-1);
        if (total < 0) {
            fail(now, ErrorKind.MALFORMED_STREAM, "/generate event without meta_info.completion_tokens after "
                    + chunkCount + " chunks");
            return false;
        }
        int previous = Math.max(0, completionTokens);
        if (total > previous) {
            chunk(now, total - previous);
        }
        completionTokens = Math.max(completionTokens, total);
        promptTokens = meta.path("prompt_tokens").asInt(promptTokens);
        JsonNode finish = meta.path("finish_reason");
        finished |= finish.isObject();
        if (finish.isObject() && "abort".equals(finish.path("type").asText())) {
            fail(now, ErrorKind.IN_STREAM_ERROR, "request aborted by the server after " + chunkCount
                    + " chunks: " + shorten(finish.path("message").asText(finish.toString())));
            return false;
        }
        return true;
    }

    /** Records the first error only; later ones are consequences of it. */
    void fail(long now, ErrorKind kind, String message) {
        if (error == null) {
            error = kind;
            errorMessage = message;
            failedAtNanos = now;
        }
    }

    /** A transport failure: a timeout, or a connection that could not be opened or broke. */
    void failure(long now, boolean timeout, Throwable cause) {
        fail(now, timeout ? ErrorKind.TIMEOUT : ErrorKind.CONNECTION, (timeout ? "timed out" : "connection failed")
                + " after " + chunkCount + " chunks: " + cause);
    }

    /**
     * @param now       when the request ended
     * @param cancelled the run was cancelled while the request was in flight
     */
    RequestRecord toRecord(long now, boolean cancelled) {
        long[] chunkNanos = chunkCount == chunks.length ? chunks : Arrays.copyOf(chunks, chunkCount);
        int[] tokens = cumulative ? Arrays.copyOf(chunkTokens, chunkCount) : NO_TOKENS;
        int in = request.promptTokensRequested();
        if (cancelled) {
            fail(now, ErrorKind.CANCELLED, "cancelled after " + chunkCount + " chunks");
        }
        if (!done && !finished && lastChunkLength > 0) {
            finished = Bytes.contains(lastChunk, 0, lastChunkLength, FINISH_REASON_STRING);
        }
        if (error == null && chunkCount > 0 && !done && !finished) {
            fail(now, ErrorKind.MALFORMED_STREAM, "the stream ended after " + chunkCount
                    + " chunks without a finish_reason, usage or [DONE]: cut off by the server or the network");
        }
        if (error == null && chunkCount == 0) {
            fail(now, ErrorKind.NO_CHUNKS,
                    "Never received a valid chunk to calculate TTFT (HTTP 200 without any non-empty choices chunk)");
        }
        long first = chunkCount == 0 ? -1 : chunkNanos[0];
        long end = error != null ? failedAtNanos : chunkNanos[chunkCount - 1];
        // one construction (the record copies the arrays in): no with…() copies on the hot path
        return new RequestRecord(request.index(), in, request.maxTokens(), startNanos, first, chunkNanos, end,
                promptTokens, completionTokens, error, errorMessage, intendedNanos, tokens);
    }

    static String shorten(String s) {
        return s.length() <= SNIPPET_CHARS ? s : s.substring(0, SNIPPET_CHARS) + "…";
    }
}
