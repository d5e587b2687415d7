package dev.profiledrollout.engine;

import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

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
     * @param engine the engine's name for the message, e.g. {@code SGLang}
     * @param fix    what to suggest when it never became healthy
     * @throws EngineException when the deadline passes (status = the last HTTP status, or -1)
     */
    static void awaitHealthy(OkHttpClient http, URI baseUri, Duration timeout, Duration pollInterval, String engine,
            String fix) {
        URI uri = resolve(baseUri, "/health");
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        int lastStatus = -1;
        String lastBody = "";
        IOException lastError = null;
        while (true) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                break;
            }
            Call call = http.newCall(new Request.Builder().url(uri.toString()).get().build());
            call.timeout().timeout(remaining, TimeUnit.NANOSECONDS);
            try (Response response = call.execute()) {
                if (response.code() == 200) {
                    return;
                }
                lastStatus = response.code();
                lastBody = snippet(response);
                lastError = null;
            } catch (IOException e) {
                boolean cutByDeadline = System.nanoTime() - deadline >= 0 && (lastStatus >= 0 || lastError != null);
                if (!cutByDeadline) {
                    // a poll cut short by our own deadline says nothing new; report the previous answer
                    lastError = e;
                }
            }
            long sleep = Math.min(pollInterval.toNanos(), deadline - System.nanoTime());
            if (sleep > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(sleep);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new EngineException("Interrupted while waiting for " + uri + " to become healthy", uri,
                            lastStatus, lastBody, e);
                }
            }
        }
        long elapsedMs = Duration.ofNanos(System.nanoTime() - start).toMillis();
        String last = lastError != null
                ? "the last poll failed with " + lastError
                : lastStatus >= 0 ? "the last answer was HTTP " + lastStatus : "no poll completed";
        throw new EngineException(engine + " at " + uri + " was not healthy after " + elapsedMs + " ms: " + last
                + ". " + fix, uri, lastError != null ? -1 : lastStatus, lastBody, lastError);
    }

    /** {@code base + path} with trailing slashes of the base removed; a path prefix of the base is kept. */
    static URI resolve(URI baseUri, String path) {
        String base = baseUri.toString();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return URI.create(base + path);
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
