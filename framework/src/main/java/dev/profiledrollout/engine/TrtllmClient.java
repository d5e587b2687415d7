package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.ProfiledRolloutKeys;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
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
public final class TrtllmClient extends HttpEngineClient {

    private TrtllmClient(Builder b) {
        super(b, "TensorRT-LLM");
    }

    /**
     * @param baseUri the server root, e.g. {@code http://localhost:8000}; not null, absolute
     * @return a builder with the defaults described on {@link Builder}
     */
    public static Builder builder(URI baseUri) {
        return new Builder(baseUri);
    }

    /** Polls {@code GET /health}, which answers 200 once the executor is up. */
    @Override
    public void awaitHealthy(Duration timeout) {
        EngineHttp.awaitHealthy(httpClient(), baseUri(), timeout, unreachableTimeout(timeout),
                Duration.ofSeconds(1), "TensorRT-LLM", "Check that trtllm-serve is running and has loaded the model,"
                        + " or raise the health timeout (" + ProfiledRolloutKeys.HEALTH_TIMEOUT
                        + " in the JUnit extension).", EngineHttp.unreachableFix());
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
        URI uri = EngineHttp.resolve(baseUri(), "/health");
        try (Response response = httpClient().newCall(new Request.Builder().url(uri.toString()).get().build()).execute()) {
            if (response.code() != 200) {
                String body = EngineHttp.snippet(response);
                throw new EngineException("TensorRT-LLM at " + baseUri() + " answered " + response.code() + " to GET"
                        + " /health, so its launch-time capture range cannot run; see the server log"
                        + EngineHttp.bodySuffix(body), uri, response.code(), body, null);
            }
        } catch (IOException e) {
            throw EngineHttp.ioFailure("GET", uri, baseUri(), readTimeout(), e);
        }
    }

    /** @return {@link StopOutcome#NOT_IN_PROGRESS}: nothing is sent, the range closes at its stop iteration */
    @Override
    public StopOutcome stopProfile() {
        return StopOutcome.NOT_IN_PROGRESS;
    }

    @Override
    protected String getFix(int code) {
        return "; see the server log";
    }

    @Override
    protected String notJsonHint() {
        return "is this trtllm-serve?";
    }

    /**
     * Settings of a {@link TrtllmClient} ({@link HttpEngineClient.Builder}); defaults: no API key, connect 10 s,
     * read 60 s.
     */
    public static final class Builder extends HttpEngineClient.Builder<Builder> {

        private Builder(URI baseUri) {
            super(baseUri);
        }

        @Override
        protected Builder self() {
            return this;
        }

        public TrtllmClient build() {
            return new TrtllmClient(this);
        }
    }
}
