package dev.profiledrollout.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.metrics.ErrorKind;
import dev.profiledrollout.metrics.RequestRecord;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.sse.EventSource;
import okhttp3.sse.EventSourceListener;
import okhttp3.sse.EventSources;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Arrays;

/**
 * Sends one streaming {@code POST /v1/completions} on the calling thread and turns what happens into a
 * {@link RequestRecord}. Never throws for server or network misbehaviour: every failure becomes a record.
 */
final class CompletionCall {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final MediaType JSON_TYPE = MediaType.get("application/json");
    private static final int SNIPPET_CHARS = 500;

    private final OkHttpClient http;
    private final String url;
    private final String model;

    CompletionCall(OkHttpClient http, String url, String model) {
        this.http = http;
        this.url = url;
        this.model = model;
    }

    /** The request body vLLM's {@code bench serve} sends for random data, with token ids as the prompt. */
    String body(CompletionRequest request) {
        ObjectNode node = JSON.createObjectNode();
        node.put("model", model);
        ArrayNode prompt = node.putArray("prompt");
        for (int id : request.promptTokenIds()) {
            prompt.add(id);
        }
        node.put("max_tokens", request.maxTokens());
        node.put("stream", true);
        node.putObject("stream_options").put("include_usage", true);
        node.put("ignore_eos", true);
        node.put("temperature", 0.0);
        return node.toString();
    }

    /**
     * @param request  what to send
     * @param inFlight registers the call so another thread can cancel it; returns false when the run is already
     *                 cancelled (the call is then cancelled before it is sent)
     */
    RequestRecord execute(CompletionRequest request, LoadRun.CallRegistry inFlight) {
        Request httpRequest = new Request.Builder().url(url)
                .header("Accept", "text/event-stream")
                .post(RequestBody.create(body(request), JSON_TYPE))
                .build();
        Call call = http.newCall(httpRequest);
        StreamListener listener = new StreamListener(request, call);
        if (!inFlight.register(call)) {
            call.cancel();
        }
        try {
            listener.startNanos = System.nanoTime();
            try (Response response = call.execute()) {
                if (response.code() != 200) {
                    listener.fail(System.nanoTime(), ErrorKind.HTTP_STATUS, "HTTP " + response.code() + " from POST "
                            + url + ": " + snippet(response));
                    return listener.toRecord();
                }
                EventSources.processResponse(response, listener);
            }
        } catch (IOException e) {
            listener.failure(System.nanoTime(), e);
        } finally {
            inFlight.unregister(call);
        }
        return listener.toRecord();
    }

    private static String snippet(Response response) {
        try {
            String body = response.peekBody(SNIPPET_CHARS * 4L).string().strip();
            return body.length() <= SNIPPET_CHARS ? body : body.substring(0, SNIPPET_CHARS) + "…";
        } catch (IOException | IllegalStateException e) {
            return "(body unreadable: " + e + ")";
        }
    }

    private static String shorten(String s) {
        return s.length() <= SNIPPET_CHARS ? s : s.substring(0, SNIPPET_CHARS) + "…";
    }

    /** Thrown inside {@code onEvent} to stop reading a stream that is already known to have failed. */
    private static final class StreamAborted extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StreamAborted() {
            super(null, null, false, false);
        }
    }

    /** Collects timestamps and usage from SSE events; used by one worker thread only. */
    private static final class StreamListener extends EventSourceListener {
        private final CompletionRequest request;
        private final Call call;
        private long startNanos;
        private long[] chunks = new long[16];
        private int chunkCount;
        private int promptTokens = -1;
        private int completionTokens = -1;
        private boolean done;
        private ErrorKind error;
        private String errorMessage;
        private long failedAtNanos;

        StreamListener(CompletionRequest request, Call call) {
            this.request = request;
            this.call = call;
        }

        @Override
        public void onEvent(EventSource eventSource, String id, String type, String data) {
            long now = System.nanoTime();
            if (done || error != null) {
                return;
            }
            if ("[DONE]".equals(data.strip())) {
                done = true;
                return;
            }
            JsonNode node;
            try {
                node = JSON.readTree(data);
            } catch (IOException e) {
                fail(now, ErrorKind.MALFORMED_STREAM, "data event " + (chunkCount + 1) + " is not JSON: " + shorten(data));
                throw new StreamAborted();
            }
            if (node == null || !node.isObject()) {
                fail(now, ErrorKind.MALFORMED_STREAM, "data event is not a JSON object: " + shorten(data));
                throw new StreamAborted();
            }
            if (node.has("error") || "error".equals(node.path("object").asText())) {
                JsonNode err = node.has("error") ? node.get("error") : node;
                String message = err.isObject() ? err.path("message").asText(err.toString()) : err.asText();
                fail(now, ErrorKind.IN_STREAM_ERROR, "in-stream error after " + chunkCount + " chunks: " + shorten(message));
                throw new StreamAborted();
            }
            JsonNode choices = node.path("choices");
            if (choices.isArray() && !choices.isEmpty()) {
                if (chunkCount == chunks.length) {
                    chunks = Arrays.copyOf(chunks, chunkCount * 2);
                }
                chunks[chunkCount++] = now;
            }
            JsonNode usage = node.path("usage");
            if (usage.isObject()) {
                promptTokens = usage.path("prompt_tokens").asInt(promptTokens);
                completionTokens = usage.path("completion_tokens").asInt(completionTokens);
            }
        }

        @Override
        public void onFailure(EventSource eventSource, Throwable t, Response response) {
            long now = System.nanoTime();
            if (error != null || t instanceof StreamAborted) {
                return;
            }
            if (t instanceof IOException io) {
                failure(now, io);
            } else if (t == null && response != null) {
                fail(now, ErrorKind.HTTP_STATUS, "HTTP " + response.code());
            } else {
                // okhttp-sse reports a non-SSE content type as an IllegalStateException
                fail(now, ErrorKind.MALFORMED_STREAM, "not a server-sent-event stream: " + t
                        + (response != null ? " (Content-Type " + response.header("Content-Type") + ")" : ""));
            }
        }

        void failure(long now, IOException e) {
            if (error != null) {
                return;
            }
            if (call.isCanceled()) {
                fail(now, ErrorKind.CANCELLED, "cancelled after " + chunkCount + " chunks");
            } else if (e instanceof InterruptedIOException) {
                fail(now, ErrorKind.TIMEOUT, "timed out after " + chunkCount + " chunks: " + e);
            } else {
                fail(now, ErrorKind.CONNECTION, "connection failed after " + chunkCount + " chunks: " + e);
            }
        }

        void fail(long now, ErrorKind kind, String message) {
            if (error == null) {
                error = kind;
                errorMessage = message;
                failedAtNanos = now;
            }
        }

        RequestRecord toRecord() {
            long[] chunkNanos = Arrays.copyOf(chunks, chunkCount);
            int in = request.promptTokenIds().length;
            if (error == null && call.isCanceled()) {
                fail(System.nanoTime(), ErrorKind.CANCELLED, "cancelled after " + chunkCount + " chunks");
            }
            if (error == null && chunkCount == 0) {
                fail(System.nanoTime(), ErrorKind.NO_CHUNKS,
                        "Never received a valid chunk to calculate TTFT (HTTP 200 without any non-empty choices chunk)");
            }
            if (error != null) {
                return RequestRecord.failure(request.index(), in, request.maxTokens(), startNanos, chunkNanos,
                        failedAtNanos, promptTokens, completionTokens, error, errorMessage);
            }
            return RequestRecord.success(request.index(), in, request.maxTokens(), startNanos, chunkNanos,
                    promptTokens, completionTokens);
        }
    }
}
