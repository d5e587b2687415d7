package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.ProfiledRolloutKeys;
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
 * Blocking client for a TensorRT-LLM server ({@code trtllm-serve}, {@code docs/PROTOCOLS.md} §6): health, model
 * discovery and version (NVIDIA/TensorRT-LLM {@code tensorrt_llm/serve/openai_server.py}, {@code register_routes}:
 * {@code GET /health}, {@code /version}, {@code /v1/models}).
 *
 * <h2>Profiler</h2>
 * {@code trtllm-serve} has no profile routes. Its capture is the iteration range {@code TLLM_PROFILE_START_STOP} in
 * the server's environment at launch (NVIDIA/TensorRT-LLM {@code tensorrt_llm/_torch/pyexecutor/py_executor.py},
 * {@code _profiler}). So {@link #startProfile(ProfileRequest)} sends nothing: it confirms that the server is up
 * ({@code GET /health}), because the range runs by itself once the load reaches it; and {@link #stopProfile()} sends
 * nothing and answers {@link StopOutcome#NOT_IN_PROGRESS}, because the range closes by itself at its stop iteration.
 *
 * <h2>Auth and thread safety</h2>
 * An optional bearer key on every request (for a gateway in front; {@code trtllm-serve} itself takes none), never
 * logged; thread-safe; {@link #close()} releases the pool.
 */
@API(status = EXPERIMENTAL, since = "0.2")
public final class TrtllmClient implements EngineClient {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI baseUri;
    private final OkHttpClient http;
    private final LoadTarget loadTarget;
    private final Duration readTimeout;
    private final Duration unreachableTimeout;

    private TrtllmClient(Builder b) {
        this.baseUri = b.baseUri;
        this.loadTarget = LoadTarget.builder(b.baseUri).bearerToken(b.apiKey).build();
        this.readTimeout = b.readTimeout;
        this.unreachableTimeout = b.unreachableTimeout;
        this.http = EngineHttp.withApiKey(new OkHttpClient.Builder()
                .connectTimeout(b.connectTimeout)
                .readTimeout(b.readTimeout)
                .writeTimeout(b.readTimeout), b.apiKey).build();
    }

    /**
     * @param baseUri the server root, e.g. {@code http://localhost:8000}; not null, absolute
     * @return a builder with the defaults described on {@link Builder}
     */
    public static Builder builder(URI baseUri) {
        return new Builder(baseUri);
    }

    @Override
    public URI baseUri() {
        return baseUri;
    }

    /** @return {@code TensorRT-LLM} */
    @Override
    public String engineName() {
        return "TensorRT-LLM";
    }

    @Override
    public OkHttpClient httpClient() {
        return http;
    }

    @Override
    public LoadTarget loadTarget() {
        return loadTarget;
    }

    /** Polls {@code GET /health}, which answers 200 once the executor is up. */
    @Override
    public void awaitHealthy(Duration timeout) {
        EngineHttp.awaitHealthy(http, baseUri, timeout, unreachableTimeout == null ? timeout : unreachableTimeout,
                Duration.ofSeconds(1), "TensorRT-LLM", "Check that trtllm-serve is running and has loaded the model,"
                        + " or raise the health timeout (" + ProfiledRolloutKeys.HEALTH_TIMEOUT
                        + " in the JUnit extension).", EngineHttp.unreachableFix());
    }

    @Override
    public List<String> models() {
        return EngineHttp.modelIds(getJson("/v1/models"), baseUri);
    }

    /** @return {@code GET /version}'s version, e.g. {@code 1.2.0}, or empty when the route or field is absent */
    public Optional<String> version() {
        try {
            return Optional.ofNullable(getJson("/version").path("version").textValue());
        } catch (EngineException e) {
            return Optional.empty();
        }
    }

    /**
     * Sends nothing: the range was armed at launch. Confirms the server answers {@code GET /health} with 200.
     *
     * @param request the capture the caller wanted, not null; its fields are not sent (the caller checked them
     *                against the configured range)
     * @throws EngineException when the server is not healthy
     */
    @Override
    public void startProfile(ProfileRequest request) {
        Objects.requireNonNull(request, "request");
        URI uri = EngineHttp.resolve(baseUri, "/health");
        try (Response response = http.newCall(new Request.Builder().url(uri.toString()).get().build()).execute()) {
            if (response.code() != 200) {
                String body = EngineHttp.snippet(response);
                throw new EngineException("TensorRT-LLM at " + baseUri + " answered " + response.code() + " to GET"
                        + " /health, so its launch-time capture range cannot run; see the server log"
                        + EngineHttp.bodySuffix(body), uri, response.code(), body, null);
            }
        } catch (IOException e) {
            throw EngineHttp.ioFailure("GET", uri, baseUri, readTimeout, e);
        }
    }

    /** @return {@link StopOutcome#NOT_IN_PROGRESS}: nothing is sent, the range closes at its stop iteration */
    @Override
    public StopOutcome stopProfile() {
        return StopOutcome.NOT_IN_PROGRESS;
    }

    private JsonNode getJson(String path) {
        URI uri = EngineHttp.resolve(baseUri, path);
        try (Response response = http.newCall(new Request.Builder().url(uri.toString()).get().build()).execute()) {
            if (response.code() != 200) {
                String body = EngineHttp.snippet(response);
                throw new EngineException("TensorRT-LLM at " + baseUri + " answered " + response.code() + " to GET "
                        + path + "; see the server log" + EngineHttp.bodySuffix(body), uri, response.code(), body,
                        null);
            }
            String body = response.body().string();
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new EngineException("GET " + uri + " returned a body that is not JSON; is this trtllm-serve?",
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

    /** Settings of a {@link TrtllmClient}; defaults: no API key, connect 10 s, read 60 s. */
    public static final class Builder {
        private final URI baseUri;
        private String apiKey;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration readTimeout = Duration.ofSeconds(60);
        private Duration unreachableTimeout;

        private Builder(URI baseUri) {
            this.baseUri = Objects.requireNonNull(baseUri, "baseUri");
            if (!baseUri.isAbsolute()) {
                throw new IllegalArgumentException("baseUri must be absolute, was " + baseUri);
            }
        }

        /** @param apiKey bearer key of a gateway in front, or null */
        public Builder apiKey(String apiKey) {
            this.apiKey = apiKey;
            return this;
        }

        /** @param readTimeout per call, positive */
        public Builder readTimeout(Duration readTimeout) {
            this.readTimeout = EngineHttp.positive(readTimeout, "readTimeout");
            return this;
        }

        /** @param unreachableTimeout how long {@link #awaitHealthy} waits while no connection can be made */
        public Builder unreachableTimeout(Duration unreachableTimeout) {
            this.unreachableTimeout = EngineHttp.positive(unreachableTimeout, "unreachableTimeout");
            return this;
        }

        public TrtllmClient build() {
            return new TrtllmClient(this);
        }
    }
}
