package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.load.LoadTarget;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.apiguardian.api.API;

/**
 * What the clients of the servers whose profiler is fixed at launch ({@link VllmClient}, {@link TrtllmClient}) share:
 * the OkHttp client with the optional bearer key ({@link EngineHttp#withApiKey}), the load target, model discovery
 * ({@code GET /v1/models}), {@code GET /version}, JSON {@code GET}s with the engine's own error messages, and
 * {@link #close()}. A subclass adds its profile calls and health check.
 */
@API(status = INTERNAL, since = "0.2")
public abstract class HttpEngineClient implements EngineClient {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI baseUri;
    private final String engineName;
    private final OkHttpClient http;
    private final LoadTarget loadTarget;
    private final Duration readTimeout;
    private final Duration unreachableTimeout;

    /**
     * @param b          the settings; connect timeout for connections, read timeout for reads and writes
     * @param engineName the engine's name in messages, e.g. {@code vLLM}
     */
    protected HttpEngineClient(Builder<?> b, String engineName) {
        this.baseUri = b.baseUri;
        this.engineName = engineName;
        this.loadTarget = LoadTarget.builder(b.baseUri).bearerToken(b.apiKey).build();
        this.readTimeout = b.readTimeout;
        this.unreachableTimeout = b.unreachableTimeout;
        this.http = EngineHttp.withApiKey(new OkHttpClient.Builder()
                .connectTimeout(b.connectTimeout)
                .readTimeout(b.readTimeout)
                .writeTimeout(b.readTimeout), b.apiKey).build();
    }

    @Override
    public final URI baseUri() {
        return baseUri;
    }

    @Override
    public final String engineName() {
        return engineName;
    }

    @Override
    public final OkHttpClient httpClient() {
        return http;
    }

    /** @return {@link #baseUri()} with this client's API key, for the load generator */
    @Override
    public final LoadTarget loadTarget() {
        return loadTarget;
    }

    /** @return the read timeout of ordinary calls, positive */
    protected final Duration readTimeout() {
        return readTimeout;
    }

    /**
     * @param healthTimeout the whole health timeout
     * @return how long {@link #awaitHealthy} keeps polling while no connection can be made: the builder's
     *         {@link Builder#unreachableTimeout(Duration)}, else {@code healthTimeout}
     */
    protected final Duration unreachableTimeout(Duration healthTimeout) {
        return unreachableTimeout == null ? healthTimeout : unreachableTimeout;
    }

    @Override
    public final List<String> models() {
        return EngineHttp.modelIds(getJson("/v1/models"), baseUri);
    }

    /**
     * {@code GET /version}.
     *
     * @return the server's version string, e.g. {@code 0.11.0}, or empty when the route or field is absent
     */
    public final Optional<String> version() {
        try {
            return Optional.ofNullable(getJson("/version").path("version").textValue());
        } catch (EngineException e) {
            return Optional.empty();
        }
    }

    /**
     * @param code an HTTP status other than 200 answered to a {@code GET}
     * @return what follows "… answered {@code code} to GET {@code path}" in the error: its separator and what to do,
     *         e.g. {@code "; see the server log"}
     */
    protected abstract String getFix(int code);

    /** @return the question a body that is not JSON raises, e.g. {@code is this a vLLM server?} */
    protected abstract String notJsonHint();

    /**
     * @param path the route, e.g. {@code /v1/models}
     * @return the body of {@code GET path}
     * @throws EngineException naming the status and {@link #getFix(int)} for a status other than 200, for a body that
     *                         is not JSON, or when the call fails ({@link EngineHttp#ioFailure})
     */
    protected final JsonNode getJson(String path) {
        URI uri = EngineHttp.resolve(baseUri, path);
        try (Response response = http.newCall(new Request.Builder().url(uri.toString()).get().build()).execute()) {
            if (response.code() != 200) {
                String body = EngineHttp.snippet(response);
                throw new EngineException(engineName + " at " + baseUri + " answered " + response.code() + " to GET "
                        + path + getFix(response.code()) + EngineHttp.bodySuffix(body), uri, response.code(), body,
                        null);
            }
            String body = response.body().string();
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new EngineException("GET " + uri + " returned a body that is not JSON; " + notJsonHint(),
                        uri, 200, EngineHttp.truncate(body), e);
            }
        } catch (IOException e) {
            throw EngineHttp.ioFailure("GET", uri, baseUri, readTimeout, e);
        }
    }

    @Override
    public void close() {
        http.dispatcher().cancelAll();
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
    }

    /**
     * The settings every such client takes; defaults: no API key, connect 10 s, read 60 s, no separate unreachable
     * timeout.
     *
     * @param <B> the concrete builder, returned by each setter
     */
    public abstract static class Builder<B extends Builder<B>> {
        private final URI baseUri;
        private String apiKey;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration readTimeout = Duration.ofSeconds(60);
        private Duration unreachableTimeout;

        /**
         * @param baseUri the server root, e.g. {@code http://localhost:8000}
         * @throws NullPointerException     when it is null
         * @throws IllegalArgumentException when it has no scheme or host
         */
        protected Builder(URI baseUri) {
            this.baseUri = Objects.requireNonNull(baseUri, "baseUri");
            if (baseUri.getScheme() == null || baseUri.getHost() == null) {
                throw new IllegalArgumentException("baseUri must be absolute, e.g. http://localhost:8000, was " + baseUri);
            }
        }

        /** @return this builder as its concrete type */
        protected abstract B self();

        /** @param apiKey sent as {@code Authorization: Bearer <key>}; null for none */
        public B apiKey(String apiKey) {
            this.apiKey = apiKey;
            return self();
        }

        /** @param connectTimeout TCP connect timeout, positive, default 10 s */
        public B connectTimeout(Duration connectTimeout) {
            this.connectTimeout = EngineHttp.positive(connectTimeout, "connectTimeout");
            return self();
        }

        /** @param readTimeout socket read timeout of ordinary calls, positive, default 60 s */
        public B readTimeout(Duration readTimeout) {
            this.readTimeout = EngineHttp.positive(readTimeout, "readTimeout");
            return self();
        }

        /**
         * @param unreachableTimeout how long {@link EngineClient#awaitHealthy(Duration)} keeps polling while no
         *                           connection to the server can be made at all (refused, unknown host, no route,
         *                           TCP connect timeout): a wrong URL or port fails after it instead of after the
         *                           whole health timeout; positive; default: no separate limit
         */
        public B unreachableTimeout(Duration unreachableTimeout) {
            this.unreachableTimeout = EngineHttp.positive(unreachableTimeout, "unreachableTimeout");
            return self();
        }
    }
}
