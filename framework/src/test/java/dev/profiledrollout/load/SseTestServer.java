package dev.profiledrollout.load;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** A loopback JDK HttpServer answering the three endpoints with canned streams; can stall every response once. */
final class SseTestServer implements AutoCloseable {

    static final int TOKENS = 4;

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    final AtomicInteger requests = new AtomicInteger();
    /** The client port of every request: one per TCP connection the client opened. */
    final java.util.Set<Integer> clientPorts = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Responses arriving while {@code stallUntilNanos} is in the future wait for it. */
    final AtomicLong stallUntilNanos = new AtomicLong();
    private final int stallAtRequest;
    private final long stallNanos;
    volatile String completionsBody = completions();

    SseTestServer(int stallAtRequest, long stallMillis) throws IOException {
        this.stallAtRequest = stallAtRequest;
        this.stallNanos = TimeUnit.MILLISECONDS.toNanos(stallMillis);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/v1/completions", ex -> respond(ex, completionsBody));
        server.createContext("/v1/chat/completions", ex -> respond(ex, chat()));
        server.createContext("/generate", ex -> respond(ex, generate()));
        server.start();
    }

    URI base() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private void respond(HttpExchange ex, String body) throws IOException {
        ex.getRequestBody().readAllBytes();
        clientPorts.add(ex.getRemoteAddress().getPort());
        int n = requests.incrementAndGet();
        if (n == stallAtRequest) {
            stallUntilNanos.set(System.nanoTime() + stallNanos);
        }
        long wait;
        while ((wait = stallUntilNanos.get() - System.nanoTime()) > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/event-stream");
        ex.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    static String completions() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < TOKENS; i++) {
            sb.append("data: {\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"t\"}],\"usage\":null}\n\n");
        }
        return sb.append("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":").append(TOKENS)
                .append(",\"total_tokens\":").append(9 + TOKENS).append("}}\n\ndata: [DONE]\n\n").toString();
    }

    static String chat() {
        StringBuilder sb = new StringBuilder("data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n");
        for (int i = 0; i < TOKENS; i++) {
            sb.append("data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"w\"}}]}\n\n");
        }
        return sb.append("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":21,\"completion_tokens\":").append(TOKENS)
                .append("}}\n\ndata: [DONE]\n\n").toString();
    }

    /** Cumulative: 1 token, then 3 coalesced in one event (cumulative text), then a final event without growth. */
    static String generate() {
        return "data: {\"text\":\"a\",\"meta_info\":{\"prompt_tokens\":7,\"completion_tokens\":1,\"finish_reason\":null}}\n\n"
                + "data: {\"text\":\"abcd\",\"meta_info\":{\"prompt_tokens\":7,\"completion_tokens\":4,\"finish_reason\":null}}\n\n"
                + "data: {\"text\":\"abcd\",\"meta_info\":{\"prompt_tokens\":7,\"completion_tokens\":4,"
                + "\"finish_reason\":{\"type\":\"length\",\"length\":4}}}\n\n"
                + "data: [DONE]\n\n";
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
