package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.ProfiledRolloutKeys;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Blocking client for a vLLM server's health, discovery and profiler endpoints ({@code docs/PROTOCOLS.md} §2).
 *
 * <h2>Profiler</h2>
 * {@code POST /start_profile} and {@code /stop_profile} are sent with an <em>empty</em> body: vLLM takes no per-call
 * settings; the profiler directory, {@code delay_iterations} and {@code max_iterations} are fixed at server start by
 * {@code --profiler-config} (§2.2). Without that flag vLLM does not mount the routes and answers
 * {@code 404 {"detail":"Not Found"}}; {@link #startProfile(ProfileRequest)} turns that into an
 * {@link EngineException} that says so and shows the flag to add ({@link #PROFILER_CONFIG_FLAG}).
 *
 * <h2>Timeouts</h2>
 * {@link #awaitHealthy(Duration)} gives up after {@link Builder#unreachableTimeout(Duration)} while no connection
 * can be made at all. Ordinary calls use {@link Builder#readTimeout(Duration)} (default 60 s).
 * {@link #stopProfile()} uses {@link Builder#stopProfileTimeout(Duration)}, default 30 min: the stop returns only
 * after every worker has exported its trace, which took 295 s for ten requests on a 0.6B model with
 * {@code with_stack} (vllm-project/vllm#54322) and more than 20 min in vllm-project/vllm#22748 (§2.3).
 *
 * <h2>Auth and thread safety</h2>
 * As {@link SglangClient}: an optional bearer key on every request (vLLM guards only {@code /v1/…}; the profile routes
 * are open), never logged; thread-safe; {@link #close()} releases the pool.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class VllmClient extends HttpEngineClient {

    /**
     * The flag a vLLM ≥ 0.13 server needs for the profile routes, with the torch profiler
     * ({@code docs/PROTOCOLS.md} §2.2).
     */
    public static final String PROFILER_CONFIG_FLAG =
            "--profiler-config '{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/abs/dir\"}'";

    private final Duration stopProfileTimeout;
    private final Duration healthPollInterval;

    private VllmClient(Builder b) {
        super(b, "vLLM");
        this.stopProfileTimeout = b.stopProfileTimeout;
        this.healthPollInterval = b.healthPollInterval;
    }

    /**
     * @param baseUri the server root, e.g. {@code http://localhost:8000}; not null, absolute
     * @return a builder with the defaults described on {@link Builder}
     */
    public static Builder builder(URI baseUri) {
        return new Builder(baseUri);
    }

    /** Polls {@code GET /health}; vLLM answers {@code 503} once the engine died ({@code EngineDeadError}). */
    @Override
    public void awaitHealthy(Duration timeout) {
        EngineHttp.awaitHealthy(httpClient(), baseUri(), timeout, unreachableTimeout(timeout),
                healthPollInterval, "vLLM", "Check that the server is running and has finished loading the model, or"
                        + " raise the health timeout (" + ProfiledRolloutKeys.HEALTH_TIMEOUT
                        + " in the JUnit extension).",
                EngineHttp.unreachableFix());
    }

    /**
     * {@code POST /start_profile} with an empty body. The fields of {@code request} are <em>not</em> sent (vLLM has no
     * per-call settings); the caller is expected to have checked them against the server's {@code --profiler-config}.
     *
     * @param request the capture the caller wanted, not null; only used in error messages
     * @throws EngineException on 404 (no {@code --profiler-config}: the message shows the flag to add), or any other
     *                         answer than {@code 200}
     */
    @Override
    public void startProfile(ProfileRequest request) {
        Objects.requireNonNull(request, "request");
        post("/start_profile", httpClient(), null);
    }

    /**
     * {@code POST /stop_profile} with an empty body, waiting up to {@link Builder#stopProfileTimeout(Duration)}.
     * vLLM ignores a stop while idle and still answers {@code 200} ({@code docs/PROTOCOLS.md} §2.1), so the outcome is
     * always {@link StopOutcome#STOPPED}.
     *
     * @throws EngineException on 404 (no {@code --profiler-config}), any other non-200 answer, or the stop timeout
     */
    @Override
    public StopOutcome stopProfile() {
        OkHttpClient slow = httpClient().newBuilder().readTimeout(stopProfileTimeout).callTimeout(stopProfileTimeout).build();
        post("/stop_profile", slow, stopProfileTimeout);
        return StopOutcome.STOPPED;
    }

    private void post(String path, OkHttpClient client, Duration timeout) {
        URI uri = EngineHttp.resolve(baseUri(), path);
        Request post = new Request.Builder().url(uri.toString()).post(RequestBody.create(new byte[0], null)).build();
        try (Response response = client.newCall(post).execute()) {
            int code = response.code();
            if (code == 200) {
                return;
            }
            String body = EngineHttp.snippet(response);
            throw new EngineException("vLLM at " + baseUri() + " answered " + code + " to POST " + path + ": "
                    + fix(code) + EngineHttp.bodySuffix(body), uri, code, body, null);
        } catch (InterruptedIOException e) {
            if (timeout == null) {
                throw ioFailure(uri, e);
            }
            throw new EngineException("POST " + uri + " did not answer within " + timeout.toSeconds() + " s. vLLM's stop"
                    + " blocks until every worker has exported its trace (minutes to tens of minutes with with_stack);"
                    + " raise " + ProfiledRolloutKeys.STOP_TIMEOUT + ", or profile fewer requests / set"
                    + " max_iterations in --profiler-config.", uri, -1, "", e);
        } catch (IOException e) {
            throw ioFailure(uri, e);
        }
    }

    private static String fix(int code) {
        return switch (code) {
            // --profiler-config: vllm-project/vllm PR #29912, first in 0.13.0; the environment variable was read until
            // 0.15 and removed in 0.16 (PR #33536).
            case 404 -> "the server was started without --profiler-config, so vLLM did not mount the profile routes."
                    + " Restart it with " + PROFILER_CONFIG_FLAG + " (vLLM 0.13 and later), or with"
                    + " VLLM_TORCH_PROFILER_DIR=/abs/dir in its environment (vLLM before 0.13, which has no such flag).";
            case 405 -> "method not allowed; vLLM's profile routes take POST only.";
            case 500 -> "the engine raised an error (e.g. profiling not enabled in this process); see the server log.";
            default -> "unexpected status; see the server log.";
        };
    }

    @Override
    protected String getFix(int code) {
        return ": " + (code == 401 ? "set " + ProfiledRolloutKeys.API_KEY + " to the server's API key (--api-key)"
                : "see the server log");
    }

    @Override
    protected String notJsonHint() {
        return "is this a vLLM server?";
    }

    private EngineException ioFailure(URI uri, IOException e) {
        return EngineHttp.ioFailure(uri.getPath().endsWith("_profile") ? "POST" : "GET", uri, baseUri(), readTimeout(), e);
    }

    /**
     * Settings of a {@link VllmClient}: those of {@link HttpEngineClient.Builder} and the stop's timeout and health
     * poll; defaults: no API key, connect 10 s, read 60 s, stop 30 min, poll 1 s.
     */
    public static final class Builder extends HttpEngineClient.Builder<Builder> {
        private Duration stopProfileTimeout = Duration.ofMinutes(30);
        private Duration healthPollInterval = Duration.ofSeconds(1);

        private Builder(URI baseUri) {
            super(baseUri);
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** @param stopProfileTimeout how long {@link #stopProfile()} waits for the export, default 30 min */
        public Builder stopProfileTimeout(Duration stopProfileTimeout) { this.stopProfileTimeout = EngineHttp.positive(stopProfileTimeout, "stopProfileTimeout"); return this; }

        /** @param healthPollInterval pause between {@code /health} polls, default 1 s */
        public Builder healthPollInterval(Duration healthPollInterval) { this.healthPollInterval = EngineHttp.positive(healthPollInterval, "healthPollInterval"); return this; }

        public VllmClient build() {
            return new VllmClient(this);
        }
    }
}
