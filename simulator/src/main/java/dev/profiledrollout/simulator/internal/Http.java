package dev.profiledrollout.simulator.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Small response helpers shared by the HTTP handlers: the status codes and bodies SGLang's FastAPI app sends. */
final class Http {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private Http() {
    }

    static byte[] body(HttpExchange ex) throws IOException {
        try (InputStream in = ex.getRequestBody()) {
            return in.readAllBytes();
        }
    }

    static void text(HttpExchange ex, int status, String text) throws IOException {
        send(ex, status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }

    static void json(HttpExchange ex, int status, Object value) throws IOException {
        send(ex, status, "application/json", MAPPER.writeValueAsBytes(value));
    }

    /** Empty body, e.g. {@code /health}'s 200. */
    static void empty(HttpExchange ex, int status) throws IOException {
        ex.sendResponseHeaders(status, -1);
        ex.close();
    }

    static void send(HttpExchange ex, int status, String contentType, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", contentType);
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
        ex.close();
    }

    /** FastAPI's {@code {"detail": …}} body, used for 404 and 405. */
    static void detail(HttpExchange ex, int status, String detail) throws IOException {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("detail", detail);
        json(ex, status, n);
    }

    /** SGLang's OpenAI-style error {@code {"object":"error","message","type","param":null,"code"}}. */
    static void openAiError(HttpExchange ex, int status, String type, String message) throws IOException {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("object", "error");
        n.put("message", message);
        n.put("type", type);
        n.putNull("param");
        n.put("code", status);
        json(ex, status, n);
    }

    /**
     * vLLM's newer error body {@code {"error":{"message","type","param":null,"code"}}}
     * ({@code docs/PROTOCOLS.md} §2.5).
     */
    static void vllmError(HttpExchange ex, int status, String type, String message) throws IOException {
        ObjectNode n = MAPPER.createObjectNode();
        n.putObject("error").put("message", message).put("type", type).putNull("param").put("code", status);
        json(ex, status, n);
    }

    /** Native-endpoint error {@code {"error":{"message"}}}. */
    static void nativeError(HttpExchange ex, int status, String message) throws IOException {
        ObjectNode n = MAPPER.createObjectNode();
        n.putObject("error").put("message", message);
        json(ex, status, n);
    }

    /** Starts a {@code text/event-stream} response with chunked transfer. */
    static OutputStream startSse(HttpExchange ex) throws IOException {
        ex.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
        ex.getResponseHeaders().set("Cache-Control", "no-cache");
        ex.sendResponseHeaders(200, 0);
        return ex.getResponseBody();
    }

    /** Writes one {@code data: <payload>\n\n} event and flushes it. */
    static void sse(OutputStream out, String payload) throws IOException {
        out.write(("data: " + payload + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    static boolean isJson(HttpExchange ex) {
        String ct = ex.getRequestHeaders().getFirst("Content-Type");
        return ct != null && ct.toLowerCase(java.util.Locale.ROOT).contains("application/json");
    }
}
