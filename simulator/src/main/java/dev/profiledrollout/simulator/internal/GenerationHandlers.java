package dev.profiledrollout.simulator.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.profiledrollout.simulator.SimulatorFaults;

/**
 * {@code POST /v1/completions} and {@code POST /generate} ({@code docs/PROTOCOLS.md} §1.5): parse the prompt and
 * sampling parameters, queue the request on the {@link Scheduler}, and stream or return its tokens as they are
 * produced.
 *
 * <p>With {@code vllm} set, the OpenAI endpoint follows vLLM instead ({@code docs/PROTOCOLS.md} §2.5):
 * {@code stop_reason} instead of {@code matched_stop}, {@code include_usage} true once {@code stream_options} is
 * present, {@code stream_options} without {@code stream} answered 400, errors as
 * {@code {"error":{message,type,param,code}}}.
 *
 * <p>Prompt length: a list of token ids counts its length; a string counts one token per 4 characters (at least 1).
 * Token texts are words chosen by the token id, so they carry no meaning.
 */
final class GenerationHandlers {

    private static final String[] WORDS = {"the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "with",
        "was", "on", "be", "at", "by", "this", "had", "not", "are", "but", "from", "or", "have", "an", "they",
        "which", "one", "you", "were", "all", "we", "her", "she", "there", "would", "their", "will", "when", "who"};
    private static final int EOS_TOKEN_ID = 128009;
    private static final long MAX_WAIT_SECONDS = 600;

    /** The longest a {@link SimulatorFaults.StreamFault#STALL} holds a connection (close() interrupts it sooner). */
    private static final long MAX_STALL_MILLIS = 600_000;

    private final Scheduler scheduler;
    private final String modelName;
    private final boolean vllm;
    private final SimulatorFaults faults;
    private final AtomicInteger streamedRequests = new AtomicInteger();

    GenerationHandlers(Scheduler scheduler, String modelName, boolean vllm) {
        this(scheduler, modelName, vllm, SimulatorFaults.NONE);
    }

    GenerationHandlers(Scheduler scheduler, String modelName, boolean vllm, SimulatorFaults faults) {
        this.scheduler = scheduler;
        this.modelName = modelName;
        this.vllm = vllm;
        this.faults = faults;
    }

    private void error(HttpExchange ex, int status, String type, String message) throws IOException {
        if (vllm) {
            Http.vllmError(ex, status, type, message);
        } else {
            Http.openAiError(ex, status, type, message);
        }
    }

    static String tokenText(int tokenId) {
        return " " + WORDS[Math.floorMod(tokenId, WORDS.length)];
    }

    /** Counts prompt tokens of a str | [int] | [str] | [[int]] prompt with one element; null if malformed. */
    static Integer promptTokens(JsonNode prompt) {
        if (prompt == null || prompt.isNull()) {
            return null;
        }
        if (prompt.isTextual()) {
            return Math.max(1, (prompt.asText().length() + 3) / 4);
        }
        if (prompt.isArray() && prompt.size() > 0) {
            if (prompt.get(0).isIntegralNumber()) {
                for (JsonNode n : prompt) {
                    if (!n.isIntegralNumber()) {
                        return null;
                    }
                }
                return prompt.size();
            }
            if (prompt.size() == 1) {
                return promptTokens(prompt.get(0));
            }
        }
        return null;
    }

    void completions(HttpExchange ex) throws IOException, InterruptedException {
        if (!ex.getRequestMethod().equals("POST")) {
            Http.detail(ex, 405, "Method Not Allowed");
            return;
        }
        if (!Http.isJson(ex)) {
            error(ex, 400, "BadRequestError", "Unsupported Media Type: Only 'application/json' is allowed");
            return;
        }
        JsonNode req;
        try {
            req = Http.MAPPER.readTree(Http.body(ex));
        } catch (IOException e) {
            error(ex, 400, "BadRequestError", "Invalid JSON body: " + e.getMessage());
            return;
        }
        Integer prompt = req == null ? null : promptTokens(req.get("prompt"));
        JsonNode maxTokensNode = req == null ? null : req.get("max_tokens");
        if (prompt == null || (maxTokensNode != null && !maxTokensNode.isNull() && !maxTokensNode.isIntegralNumber())
                || (maxTokensNode != null && maxTokensNode.asInt(1) < 1)) {
            error(ex, 400, "BadRequestError", "prompt must be a string or a list of token ids, and "
                    + "max_tokens a positive integer (the simulator serves one prompt per request)");
            return;
        }
        int maxTokens = maxTokensNode == null || maxTokensNode.isNull() ? 16 : maxTokensNode.asInt();
        boolean ignoreEos = req.path("ignore_eos").asBoolean(false);
        boolean stream = req.path("stream").asBoolean(false);
        JsonNode streamOptions = req.get("stream_options");
        boolean hasStreamOptions = streamOptions != null && !streamOptions.isNull();
        if (vllm && hasStreamOptions && !stream) {
            error(ex, 400, "BadRequestError", "Stream options can only be defined when `stream=True`.");
            return;
        }
        boolean includeUsage = vllm ? hasStreamOptions && streamOptions.path("include_usage").asBoolean(true)
                : req.path("stream_options").path("include_usage").asBoolean(false);
        SimRequest r = submit(ex, prompt, maxTokens, ignoreEos, true);
        if (r == null) {
            return;
        }
        String id = "cmpl-" + Long.toHexString(r.id() * 0x9E3779B97F4A7C15L);
        long created = r.receivedEpochNs() / 1_000_000_000L;
        if (!stream) {
            StringBuilder text = new StringBuilder();
            SimRequest.Event e;
            do {
                e = take(r);
                if (e.error() != null) {
                    error(ex, 503, "ServiceUnavailableError", e.error());
                    return;
                }
                text.append(tokenText(e.tokenId()));
            } while (!e.last());
            ObjectNode body = completionChunk(id, created, text.toString(), e.finishReason());
            body.set("usage", usage(r.promptTokens(), e.completionTokens()));
            Http.json(ex, 200, body);
            return;
        }
        SimulatorFaults.StreamFault fault = streamedRequests.incrementAndGet() >= faults.streamFaultFromRequest()
                ? faults.streamFault() : SimulatorFaults.StreamFault.NONE;
        int chunks = 0;
        try (OutputStream out = Http.startSse(ex)) {
            SimRequest.Event e;
            do {
                if (fault != SimulatorFaults.StreamFault.NONE && fault != SimulatorFaults.StreamFault.NO_DONE
                        && chunks >= faults.streamFaultAfterChunks()) {
                    injectStreamFault(fault, id, out);
                    return;
                }
                chunks++;
                e = take(r);
                if (e.error() != null) {
                    ObjectNode err = Http.MAPPER.createObjectNode();
                    err.putObject("error").put("message", e.error()).put("type", "ServiceUnavailableError")
                            .put("code", 503);
                    Http.sse(out, err.toString());
                    break;
                }
                ObjectNode chunk = completionChunk(id, created, tokenText(e.tokenId()), e.finishReason());
                chunk.putNull("usage");
                Http.sse(out, chunk.toString());
            } while (!e.last());
            if (includeUsage && e.error() == null) {
                ObjectNode chunk = Http.MAPPER.createObjectNode();
                chunk.put("id", id).put("object", "text_completion").put("created", created).put("model", modelName);
                chunk.putArray("choices");
                chunk.set("usage", usage(r.promptTokens(), e.completionTokens()));
                Http.sse(out, chunk.toString());
            }
            if (fault != SimulatorFaults.StreamFault.NO_DONE) {
                Http.sse(out, "[DONE]");
            }
        }
    }

    /** Breaks the stream as {@code fault} says; the caller closes the response afterwards. */
    private static void injectStreamFault(SimulatorFaults.StreamFault fault, String id, OutputStream out)
            throws IOException, InterruptedException {
        switch (fault) {
            case STALL -> Thread.sleep(MAX_STALL_MILLIS);
            case MALFORMED -> Http.sse(out, "{\"id\":\"" + id + "\",\"choices\": [");
            case ERROR_EVENT -> {
                ObjectNode err = Http.MAPPER.createObjectNode();
                err.putObject("error").put("message", "simulated fault: the engine failed mid-stream")
                        .put("type", "InternalServerError").put("code", 500);
                Http.sse(out, err.toString());
                Http.sse(out, "[DONE]");
            }
            default -> {
                // CUT_OFF: end the response here, without finish reason, usage or [DONE]
            }
        }
    }

    void generate(HttpExchange ex) throws IOException, InterruptedException {
        String method = ex.getRequestMethod();
        if (!method.equals("POST") && !method.equals("PUT")) {
            Http.detail(ex, 405, "Method Not Allowed");
            return;
        }
        JsonNode req;
        try {
            req = Http.MAPPER.readTree(Http.body(ex));
        } catch (IOException e) {
            Http.nativeError(ex, 400, "Invalid JSON body: " + e.getMessage());
            return;
        }
        Integer prompt = req == null ? null
                : promptTokens(req.has("input_ids") ? req.get("input_ids") : req.get("text"));
        JsonNode sp = req == null ? null : req.path("sampling_params");
        if (prompt == null) {
            Http.nativeError(ex, 400, "Either text or input_ids should be provided (one prompt per request).");
            return;
        }
        int maxNew = sp.path("max_new_tokens").asInt(128);
        if (maxNew < 1) {
            Http.nativeError(ex, 400, "max_new_tokens must be at least 1");
            return;
        }
        boolean ignoreEos = sp.path("ignore_eos").asBoolean(false);
        boolean stream = req.path("stream").asBoolean(false);
        String rid = req.path("rid").asText(null);
        SimRequest r = submit(ex, prompt, maxNew, ignoreEos, false);
        if (r == null) {
            return;
        }
        String id = rid != null ? rid : Long.toHexString(r.id() * 0x9E3779B97F4A7C15L);
        List<Integer> ids = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        OutputStream out = stream ? Http.startSse(ex) : null;
        try {
            SimRequest.Event e = null;
            boolean last = false;
            while (!last) {
                e = take(r);
                List<SimRequest.Event> batch = new ArrayList<>(List.of(e));
                r.events().drainTo(batch);
                for (SimRequest.Event b : batch) {
                    if (b.error() != null) {
                        e = b;
                        break;
                    }
                    ids.add(b.tokenId());
                    text.append(tokenText(b.tokenId()));
                    e = b;
                }
                last = e.last();
                if (e.error() != null) {
                    ObjectNode err = Http.MAPPER.createObjectNode();
                    err.putObject("error").put("message", e.error()).put("type", "invalid_request_error")
                            .put("code", 503).put("retryable", true);
                    if (out != null) {
                        Http.sse(out, err.toString());
                    } else {
                        Http.json(ex, 503, err);
                        return;
                    }
                    break;
                }
                if (out != null) {
                    Http.sse(out, generateChunk(id, text, ids, r, e).toString());
                }
            }
            if (out != null) {
                Http.sse(out, "[DONE]");
            } else {
                Http.json(ex, 200, generateChunk(id, text, ids, r, e));
            }
        } finally {
            if (out != null) {
                out.close();
            }
        }
    }

    private ObjectNode generateChunk(String id, CharSequence text, List<Integer> ids, SimRequest r, SimRequest.Event e) {
        ObjectNode n = Http.MAPPER.createObjectNode();
        n.put("text", text.toString());
        ArrayNode out = n.putArray("output_ids");
        ids.forEach(out::add);
        ObjectNode meta = n.putObject("meta_info");
        meta.put("id", id);
        if (e.finishReason() == null) {
            meta.putNull("finish_reason");
        } else if (e.finishReason().equals("length")) {
            meta.putObject("finish_reason").put("type", "length").put("length", e.completionTokens());
        } else {
            meta.putObject("finish_reason").put("type", "stop").put("matched", EOS_TOKEN_ID);
        }
        meta.put("prompt_tokens", r.promptTokens());
        meta.put("completion_tokens", e.completionTokens());
        meta.put("cached_tokens", 0);
        if (e.finishReason() != null) {
            meta.put("e2e_latency", (System.currentTimeMillis() * 1_000_000L - r.receivedEpochNs()) / 1e9);
        }
        return n;
    }

    private ObjectNode completionChunk(String id, long created, String text, String finishReason) {
        ObjectNode chunk = Http.MAPPER.createObjectNode();
        chunk.put("id", id).put("object", "text_completion").put("created", created).put("model", modelName);
        ObjectNode choice = chunk.putArray("choices").addObject();
        choice.put("index", 0).put("text", text).putNull("logprobs");
        if (vllm) {
            if (finishReason == null) {
                choice.putNull("finish_reason");
            } else {
                choice.put("finish_reason", finishReason);
            }
            choice.putNull("stop_reason");
        } else if (finishReason == null) {
            choice.putNull("finish_reason");
            choice.putNull("matched_stop");
        } else {
            choice.put("finish_reason", finishReason);
            if (finishReason.equals("stop")) {
                choice.put("matched_stop", EOS_TOKEN_ID);
            } else {
                choice.putNull("matched_stop");
            }
        }
        return chunk;
    }

    private ObjectNode usage(int prompt, int completion) {
        ObjectNode u = Http.MAPPER.createObjectNode();
        u.put("prompt_tokens", prompt).put("completion_tokens", completion).put("total_tokens", prompt + completion);
        if (vllm) {
            u.putNull("prompt_tokens_details");
        } else {
            u.put("reasoning_tokens", 0);
        }
        return u;
    }

    private SimRequest submit(HttpExchange ex, int prompt, int maxNew, boolean ignoreEos, boolean openAi)
            throws IOException {
        try {
            return scheduler.submit(prompt, maxNew, ignoreEos);
        } catch (IllegalStateException e) {
            if (openAi) {
                Http.openAiError(ex, 503, "ServiceUnavailableError", e.getMessage());
            } else {
                Http.nativeError(ex, 503, e.getMessage());
            }
            return null;
        }
    }

    private static SimRequest.Event take(SimRequest r) throws InterruptedException {
        SimRequest.Event e = r.events().poll(MAX_WAIT_SECONDS, TimeUnit.SECONDS);
        return e != null ? e : new SimRequest.Event(-1, 0, null, "no scheduler output for " + MAX_WAIT_SECONDS + " s");
    }
}
