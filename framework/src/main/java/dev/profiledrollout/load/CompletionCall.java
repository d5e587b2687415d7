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
 * Sends one streaming request to an {@link Endpoint} on the calling thread and turns what happens into a
 * {@link RequestRecord}. Never throws for server or network misbehaviour: every failure becomes a record.
 */
final class CompletionCall {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final MediaType JSON_TYPE = MediaType.get("application/json");
    private static final int SNIPPET_CHARS = 500;

    private final OkHttpClient http;
    private final String url;
    private final String model;
    private final Endpoint endpoint;

    CompletionCall(OkHttpClient http, String url, String model) {
        this(http, url, model, Endpoint.COMPLETIONS);
    }

    /** @param url the full URL, {@code baseUri + endpoint.path()} */
    CompletionCall(OkHttpClient http, String url, String model, Endpoint endpoint) {
        this.http = http;
        this.url = url;
        this.model = model;
        this.endpoint = endpoint;
    }

    /**
     * The request body {@code vllm bench serve} (OpenAI endpoints) or SGLang's {@code bench_serving} (native
     * {@code /generate}) sends: greedy, {@code ignore_eos}, streamed, usage included.
     */
    String body(CompletionRequest request) {
        ObjectNode node = JSON.createObjectNode();
        String text = request.promptText();
        switch (endpoint) {
            case COMPLETIONS -> {
                node.put("model", model);
                if (text != null) {
                    node.put("prompt", text);
                } else {
                    ids(node.putArray("prompt"), request);
                }
                node.put("max_tokens", request.maxTokens());
                openAiStreamOptions(node);
            }
            case CHAT_COMPLETIONS -> {
                node.put("model", model);
                ObjectNode message = node.putArray("messages").addObject();
                message.put("role", "user");
                message.put("content", text != null ? text : idsAsText(request));
                node.put("max_completion_tokens", request.maxTokens());
                openAiStreamOptions(node);
            }
            case GENERATE -> {
                if (text != null) {
                    node.put("text", text);
                } else {
                    ids(node.putArray("input_ids"), request);
                }
                ObjectNode sampling = node.putObject("sampling_params");
                sampling.put("temperature", 0.0);
                sampling.put("max_new_tokens", request.maxTokens());
                sampling.put("ignore_eos", true);
                node.put("stream", true);
            }
            default -> throw new IllegalStateException(endpoint.name());
        }
        return node.toString();
    }

    private static void openAiStreamOptions(ObjectNode node) {
        node.put("stream", true);
        node.putObject("stream_options").put("include_usage", true);
        node.put("ignore_eos", true);
        node.put("temperature", 0.0);
    }

    private static void ids(ArrayNode array, CompletionRequest request) {
        for (int id : request.promptTokenIds()) {
            array.add(id);
        }
    }

    private static String idsAsText(CompletionRequest request) {
        StringBuilder sb = new StringBuilder();
        for (int id : request.promptTokenIds()) {
            sb.append(sb.length() == 0 ? "" : " ").append(id);
        }
        return sb.toString();
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
        StreamListener listener = new StreamListener(request, call, endpoint == Endpoint.GENERATE);
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
        private final boolean cumulative;
        private long startNanos;
        private long[] chunks = new long[16];
        private int[] chunkTokens = new int[16];
        private int chunkCount;
        private int promptTokens = -1;
        private int completionTokens = -1;
        private boolean done;
        /** A finish reason or a usage object arrived: the stream said it was complete, [DONE] or not. */
        private boolean finished;
        private ErrorKind error;
        private String errorMessage;
        private long failedAtNanos;

        StreamListener(CompletionRequest request, Call call, boolean cumulative) {
            this.request = request;
            this.call = call;
            this.cumulative = cumulative;
        }

        /**
         * The common case, recognised without building a JSON tree so that parsing is not the client's
         * bottleneck: an object with non-empty {@code choices}, no usage object and no error. Anything else (usage
         * chunk, error, malformed data) takes the full parse.
         */
        private static boolean isPlainChoicesChunk(String data) {
            return data.startsWith("{") && data.endsWith("}") && data.contains("\"choices\":[{")
                    && !data.contains("\"usage\":{") && !data.contains("\"error\"");
        }

        private void chunk(long now, int tokens) {
            if (chunkCount == chunks.length) {
                chunks = Arrays.copyOf(chunks, chunkCount * 2);
                chunkTokens = Arrays.copyOf(chunkTokens, chunkCount * 2);
            }
            chunkTokens[chunkCount] = tokens;
            chunks[chunkCount++] = now;
        }

        /** SGLang's cumulative stream: a chunk is an event whose {@code meta_info.completion_tokens} grew. */
        private void onGenerateEvent(long now, JsonNode node) {
            JsonNode meta = node.path("meta_info");
            int total = meta.path("completion_tokens").asInt(-1);
            if (total < 0) {
                fail(now, ErrorKind.MALFORMED_STREAM, "/generate event without meta_info.completion_tokens after "
                        + chunkCount + " chunks");
                throw new StreamAborted();
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
                throw new StreamAborted();
            }
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
            if (!cumulative && isPlainChoicesChunk(data)) {
                chunk(now, 1);
                finished |= data.contains("\"finish_reason\":\"");
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
            if (cumulative) {
                onGenerateEvent(now, node);
                return;
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
            int[] tokens = cumulative ? Arrays.copyOf(chunkTokens, chunkCount) : new int[0];
            int in = request.promptTokensRequested();
            if (error == null && call.isCanceled()) {
                fail(System.nanoTime(), ErrorKind.CANCELLED, "cancelled after " + chunkCount + " chunks");
            }
            if (error == null && chunkCount > 0 && !done && !finished) {
                fail(System.nanoTime(), ErrorKind.MALFORMED_STREAM, "the stream ended after " + chunkCount
                        + " chunks without a finish_reason, usage or [DONE]: cut off by the server or the network");
            }
            if (error == null && chunkCount == 0) {
                fail(System.nanoTime(), ErrorKind.NO_CHUNKS,
                        "Never received a valid chunk to calculate TTFT (HTTP 200 without any non-empty choices chunk)");
            }
            if (error != null) {
                return RequestRecord.failure(request.index(), in, request.maxTokens(), startNanos, chunkNanos,
                        failedAtNanos, promptTokens, completionTokens, error, errorMessage).withChunkTokens(tokens);
            }
            return RequestRecord.success(request.index(), in, request.maxTokens(), startNanos, chunkNanos,
                    promptTokens, completionTokens).withChunkTokens(tokens);
        }
    }
}
