package dev.profiledrollout.engine;

import dev.profiledrollout.ProfiledRolloutKeys;
import okhttp3.Call;
import okhttp3.Connection;
import okhttp3.EventListener;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * HTTP plumbing shared by the engine clients: the bearer-token interceptor, the {@code /health} poll, URL resolution
 * and body snippets for error messages. Package-private: the public faces are {@link SglangClient} and
 * {@link VllmClient}.
 */
final class EngineHttp {

    static final int BODY_SNIPPET_CHARS = 2000;

    private EngineHttp() {
    }

    /** Adds {@code Authorization: Bearer <key>} to requests that carry no Authorization header; null key: nothing. */
    static OkHttpClient.Builder withApiKey(OkHttpClient.Builder http, String apiKey) {
        if (apiKey != null) {
            http.addInterceptor(chain -> chain.request().header("Authorization") != null
                    ? chain.proceed(chain.request())
                    : chain.proceed(chain.request().newBuilder().header("Authorization", "Bearer " + apiKey).build()));
        }
        return http;
    }

    /**
     * Polls {@code GET <base>/health} until {@code 200}.
     *
     * <p>While no poll has obtained a connection to the server (refused, unknown host, no route, TCP connect
     * timeout), only {@code unreachableTimeout} may pass: a wrong URL or port then fails in seconds instead of after
     * the whole health timeout. Once a poll has connected (even to answer 503, or to be reset), the health timeout
     * alone applies.
     *
     * @param engine             the engine's name for the message, e.g. {@code SGLang}
     * @param unreachableTimeout how long the server may stay unreachable; at least {@code timeout} means no
     *                           separate limit
     * @param fix                what to suggest when it never became healthy
     * @param unreachableFix     what to suggest when nothing ever accepted a connection
     * @throws EngineException when a deadline passes (status = the last HTTP status, or -1)
     */
    static void awaitHealthy(OkHttpClient http, URI baseUri, Duration timeout, Duration unreachableTimeout,
            Duration pollInterval, String engine, String fix, String unreachableFix) {
        URI uri = resolve(baseUri, "/health");
        AtomicBoolean connected = new AtomicBoolean();
        OkHttpClient polling = http.newBuilder().eventListener(new EventListener() {
            @Override
            public void connectionAcquired(Call call, Connection connection) {
                connected.set(true);
            }
        }).build();
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long unreachableDeadline = start + Math.min(timeout.toNanos(), unreachableTimeout.toNanos());
        int lastStatus = -1;
        String lastBody = "";
        IOException lastError = null;
        while (true) {
            long remaining = (connected.get() ? deadline : unreachableDeadline) - System.nanoTime();
            if (remaining <= 0) {
                break;
            }
            Call call = polling.newCall(new Request.Builder().url(uri.toString()).get().build());
            call.timeout().timeout(remaining, TimeUnit.NANOSECONDS);
            try (Response response = call.execute()) {
                if (response.code() == 200) {
                    return;
                }
                lastStatus = response.code();
                lastBody = snippet(response);
                lastError = null;
            } catch (IOException e) {
                long now = System.nanoTime();
                boolean cutByDeadline = now - (connected.get() ? deadline : unreachableDeadline) >= 0
                        && (lastStatus >= 0 || lastError != null);
                if (!cutByDeadline) {
                    // a poll cut short by our own deadline says nothing new; report the previous answer
                    lastError = e;
                }
            }
            long sleep = Math.min(pollInterval.toNanos(),
                    (connected.get() ? deadline : unreachableDeadline) - System.nanoTime());
            if (sleep > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(sleep);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new EngineException("Interrupted while waiting for " + SafeUrls.of(uri.toString()) + " to become healthy", uri,
                            lastStatus, lastBody, e);
                }
            }
        }
        long elapsedMs = Duration.ofNanos(System.nanoTime() - start).toMillis();
        if (!connected.get()) {
            throw new EngineException(engine + " at " + SafeUrls.of(uri.toString()) + " could not be reached for " + elapsedMs + " ms ("
                    + (lastError == null ? "no connection was made" : describe(lastError)) + "): nothing accepts"
                    + " connections there. " + unreachableFix, uri, -1, "", lastError);
        }
        String last = lastError != null
                ? "the last poll failed with " + describe(lastError)
                : lastStatus >= 0 ? "the last answer was HTTP " + lastStatus : "no poll completed";
        throw new EngineException(engine + " at " + SafeUrls.of(uri.toString()) + " was not healthy after " + elapsedMs + " ms: " + last
                + ". " + fix, uri, lastError != null ? -1 : lastStatus, lastBody, lastError);
    }

    /**
     * {@code e} with its innermost cause's message, e.g.
     * {@code ConnectException: Failed to connect to /127.0.0.1:1 (Connection refused)}.
     */
    static String describe(IOException e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = e.getClass().getSimpleName() + ": " + e.getMessage();
        return root == e || root.getMessage() == null || text.contains(root.getMessage()) ? text
                : text + " (" + root.getMessage() + ")";
    }

    /**
     * The exception for a call that failed without an HTTP answer: one that hit the client's read timeout (not a
     * JUnit-extension key: {@code readTimeout} of the client's builder, 60 s there), or one that could not connect.
     */
    static EngineException ioFailure(String method, URI uri, URI baseUri, Duration readTimeout, IOException e) {
        if (e instanceof InterruptedIOException) {
            return new EngineException(method + " " + SafeUrls.of(uri.toString()) + " did not answer within the client's read timeout of "
                    + readTimeout.toSeconds() + " s (" + describe(e) + "). The server is overloaded or stuck; see its"
                    + " log.", uri, -1, "", e);
        }
        return new EngineException(method + " " + SafeUrls.of(uri.toString()) + " failed: " + describe(e)
                + ". Check that the server is running and reachable at " + SafeUrls.of(baseUri.toString()) + ".", uri, -1, "", e);
    }

    /** What to do when nothing ever accepted a connection: shared by both clients. */
    static String unreachableFix() {
        return "Check the URL and port and that the engine is running; if it is still starting, allow it longer with"
                + " unreachableTimeout (" + ProfiledRolloutKeys.CONNECT_TIMEOUT + " in the JUnit extension).";
    }

    /**
     * The model ids of an OpenAI-compatible {@code GET /v1/models} answer, in server order.
     *
     * @throws EngineException when the answer has no {@code data} array
     */
    static java.util.List<String> modelIds(com.fasterxml.jackson.databind.JsonNode answer, URI baseUri) {
        com.fasterxml.jackson.databind.JsonNode data = answer.path("data");
        if (!data.isArray()) {
            URI uri = resolve(baseUri, "/v1/models");
            throw new EngineException("GET " + uri + " returned no \"data\" array; is this an OpenAI-compatible server?",
                    uri, 200, "", null);
        }
        java.util.List<String> ids = new java.util.ArrayList<>();
        data.forEach(model -> ids.add(model.path("id").asText()));
        return java.util.List.copyOf(ids);
    }

    /**
     * {@code base + path} with trailing slashes of the base's path removed; a path prefix of the base is kept, and so
     * are its user info and query (a token some gateways take there), which stay after the new path.
     */
    static URI resolve(URI baseUri, String path) {
        String basePath = baseUri.getRawPath() == null ? "" : baseUri.getRawPath();
        while (basePath.endsWith("/")) {
            basePath = basePath.substring(0, basePath.length() - 1);
        }
        if (baseUri.getRawAuthority() == null) {
            return URI.create(baseUri.toString().replaceAll("/+$", "") + path);
        }
        return URI.create(baseUri.getScheme() + "://" + baseUri.getRawAuthority() + basePath + path
                + (baseUri.getRawQuery() == null ? "" : "?" + baseUri.getRawQuery()));
    }

    static String bodySuffix(String body) {
        return body.isBlank() ? "" : " Response body: " + body.strip();
    }

    static String snippet(Response response) {
        try {
            return truncate(response.peekBody(BODY_SNIPPET_CHARS * 4L).string());
        } catch (IOException | IllegalStateException e) {
            return "";
        }
    }

    static String truncate(String s) {
        return s.length() <= BODY_SNIPPET_CHARS ? s : s.substring(0, BODY_SNIPPET_CHARS) + "…";
    }

    static Duration positive(Duration d, String name) {
        if (d == null) {
            throw new NullPointerException(name);
        }
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be > 0, was " + d);
        }
        return d;
    }
}
