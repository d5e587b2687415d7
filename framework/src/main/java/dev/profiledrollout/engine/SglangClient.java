package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.load.LoadTarget;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apiguardian.api.API;

/**
 * Blocking client for an SGLang server's health, discovery and profiler endpoints ({@code docs/PROTOCOLS.md} §1).
 *
 * <h2>Timeouts</h2>
 * {@link #awaitHealthy(Duration)} gives up after {@link Builder#unreachableTimeout(Duration)} while no connection
 * can be made at all. Ordinary calls use {@link Builder#readTimeout(Duration)} (default 60 s).
 * {@link #stopProfile()} uses {@link Builder#stopProfileTimeout(Duration)} (default 10 min) because SGLang's stop
 * blocks until every rank has exported its trace, which takes minutes with {@code with_stack}.
 *
 * <h2>Auth</h2>
 * With {@link Builder#apiKey(String)} every request, including those of clients derived from
 * {@link #httpClient()} and the load sent to {@link #loadTarget()}, carries {@code Authorization: Bearer <key>}. The key is never logged and never part of
 * an exception message.
 *
 * <h2>Thread safety</h2>
 * Thread-safe; every method blocks the calling thread. {@link #close()} releases the connection pool and the
 * dispatcher executor; calls after close fail.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class SglangClient implements EngineClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final MediaType JSON_TYPE = MediaType.get("application/json");

    private final URI baseUri;
    private final OkHttpClient http;
    private final String adminApiKey;
    private final LoadTarget loadTarget;
    private final Duration stopProfileTimeout;
    private final Duration readTimeout;
    private final Duration healthPollInterval;
    private final Duration unreachableTimeout;

    private SglangClient(Builder b) {
        this.baseUri = b.baseUri;
        this.loadTarget = LoadTarget.builder(b.baseUri).bearerToken(b.apiKey).build();
        this.stopProfileTimeout = b.stopProfileTimeout;
        this.readTimeout = b.readTimeout;
        this.healthPollInterval = b.healthPollInterval;
        this.unreachableTimeout = b.unreachableTimeout;
        OkHttpClient.Builder http = new OkHttpClient.Builder()
                .connectTimeout(b.connectTimeout)
                .readTimeout(b.readTimeout)
                .writeTimeout(b.readTimeout);
        this.http = EngineHttp.withApiKey(http, b.apiKey).build();
        this.adminApiKey = b.adminApiKey;
    }

    /**
     * @param baseUri the server root, e.g. {@code http://localhost:30000}; a path prefix is kept; not null
     * @return a builder with the defaults described on {@link Builder}
     */
    public static Builder builder(URI baseUri) {
        return new Builder(baseUri);
    }

    /** @return the server root this client talks to */
    @Override
    public URI baseUri() {
        return baseUri;
    }

    /** @return {@code SGLang} */
    @Override
    public String engineName() {
        return "SGLang";
    }

    /**
     * @return the shared OkHttp client (connection pool, dispatcher, auth interceptor); derive from it with
     *         {@link OkHttpClient#newBuilder()} to reuse the pool. Owned by this object: closed by {@link #close()}.
     */
    @Override
    public OkHttpClient httpClient() {
        return http;
    }

    /** @return {@link #baseUri()} with this client's API key, for the load generator */
    @Override
    public LoadTarget loadTarget() {
        return loadTarget;
    }

    /**
     * Polls {@code GET /health} until it answers {@code 200}. SGLang answers {@code 503} while starting; each
     * poll itself takes ≥ 1 s on a live server because it generates one token.
     *
     * @param timeout the total time to wait, not null
     * @throws EngineException naming the URL, the last status or exception and the elapsed time when the server
     *                         was not healthy in time (status = the last HTTP status, or -1)
     */
    @Override
    public void awaitHealthy(Duration timeout) {
        EngineHttp.awaitHealthy(http, baseUri, timeout, unreachableTimeout(timeout), healthPollInterval, "SGLang",
                "Check that the server is running and has finished loading the model (503 means still starting),"
                        + " or raise the health timeout (" + ProfiledRolloutKeys.HEALTH_TIMEOUT
                        + " in the JUnit extension).",
                EngineHttp.unreachableFix());
    }

    private Duration unreachableTimeout(Duration timeout) {
        return unreachableTimeout == null ? timeout : unreachableTimeout;
    }

    /**
     * {@code GET /server_info}.
     *
     * @return the parallelism layout and the raw answer
     * @throws EngineException on a non-200 answer, an I/O error or a body that is not a JSON object
     */
    public ServerInfo serverInfo() {
        URI uri = resolve("/server_info");
        JsonNode node = getJson(uri);
        if (!node.isObject()) {
            throw new EngineException("GET " + uri + " did not return a JSON object; is this an SGLang server?",
                    uri, 200, truncate(node.toString()), null);
        }
        return ServerInfo.fromJson(node);
    }

    /**
     * {@code GET /v1/models}.
     *
     * @return the served model ids, in server order
     * @throws EngineException on a non-200 answer, an I/O error or an unexpected body
     */
    @Override
    public List<String> models() {
        URI uri = resolve("/v1/models");
        JsonNode data = getJson(uri).path("data");
        if (!data.isArray()) {
            throw new EngineException("GET " + uri + " returned no \"data\" array; is this an OpenAI-compatible server?",
                    uri, 200, "", null);
        }
        List<String> ids = new ArrayList<>();
        data.forEach(model -> ids.add(model.path("id").asText()));
        return List.copyOf(ids);
    }

    /**
     * {@code POST /start_profile} with {@link ProfileRequest#toJson()}. Returns as soon as the server accepted
     * the start; it never waits for a trace.
     *
     * @param request the profile settings, not null
     * @throws EngineException with the status, the body and the fix for any answer other than {@code 200}
     */
    @Override
    public void startProfile(ProfileRequest request) {
        Objects.requireNonNull(request, "request");
        URI uri = resolve("/start_profile");
        Request post = admin(new Request.Builder().url(uri.toString())
                .post(RequestBody.create(request.toJson(), JSON_TYPE))).build();
        try (Response response = http.newCall(post).execute()) {
            if (response.code() == 200) {
                return;
            }
            String body = snippet(response);
            throw new EngineException("SGLang at " + baseUri + " answered " + response.code() + " to POST /start_profile "
                    + request.toJson() + ": " + startFix(response.code()) + bodySuffix(body), uri, response.code(), body, null);
        } catch (IOException e) {
            throw ioFailure("POST", uri, e);
        }
    }

    /**
     * {@code POST /stop_profile}, waiting up to {@link Builder#stopProfileTimeout(Duration)}: the server replies
     * only after every rank of the DP group has written its trace files.
     *
     * @return {@link StopOutcome#STOPPED} on {@code 200}; {@link StopOutcome#NOT_IN_PROGRESS} on {@code 500}
     *         (already auto-stopped after {@code num_steps}, or never started)
     * @throws EngineException on any other status, an I/O error, or when the stop timeout expires
     */
    @Override
    public StopOutcome stopProfile() {
        URI uri = resolve("/stop_profile");
        OkHttpClient slow = http.newBuilder()
                .readTimeout(stopProfileTimeout)
                .callTimeout(stopProfileTimeout)
                .build();
        Request post = admin(new Request.Builder().url(uri.toString()).post(RequestBody.create(new byte[0], null)))
                .build();
        try (Response response = slow.newCall(post).execute()) {
            int code = response.code();
            if (code == 200) {
                return StopOutcome.STOPPED;
            }
            if (code == 500) {
                return StopOutcome.NOT_IN_PROGRESS;
            }
            String body = snippet(response);
            throw new EngineException("SGLang at " + baseUri + " answered " + code + " to POST /stop_profile: "
                    + stopFix(code) + bodySuffix(body), uri, code, body, null);
        } catch (InterruptedIOException e) {
            throw new EngineException("POST " + uri + " did not answer within " + stopProfileTimeout.toSeconds()
                    + " s. The stop blocks while every rank exports its trace (minutes with with_stack=true);"
                    + " raise stopProfileTimeout (" + ProfiledRolloutKeys.STOP_TIMEOUT + " in the JUnit extension),"
                    + " or capture fewer steps (num_steps) or set with_stack=false.",
                    uri, -1, "", e);
        } catch (IOException e) {
            throw ioFailure("POST", uri, e);
        }
    }

    /** Evicts every pooled connection and shuts down the dispatcher's executor. Idempotent. */
    @Override
    public void close() {
        http.dispatcher().cancelAll();
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
    }

    private JsonNode getJson(URI uri) {
        try (Response response = http.newCall(new Request.Builder().url(uri.toString()).get().build()).execute()) {
            if (response.code() != 200) {
                String body = snippet(response);
                String fix = response.code() == 401 || response.code() == 403
                        ? "set " + ProfiledRolloutKeys.API_KEY + " to the server's API key"
                        : response.code() == 404 ? "no such route; is " + baseUri + " an SGLang server?"
                        : "see the server log";
                throw new EngineException("SGLang at " + baseUri + " answered " + response.code() + " to GET " + uri.getPath()
                        + ": " + fix + bodySuffix(body), uri, response.code(), body, null);
            }
            String body = response.body().string();
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new EngineException("GET " + uri + " returned a body that is not JSON; is this an SGLang server?",
                        uri, 200, truncate(body), e);
            }
        } catch (IOException e) {
            throw ioFailure("GET", uri, e);
        }
    }

    /** The profile routes carry the admin key when one is set; the client's interceptor then adds no other. */
    private Request.Builder admin(Request.Builder request) {
        return adminApiKey == null ? request : request.header("Authorization", "Bearer " + adminApiKey);
    }

    private static String startFix(int code) {
        return switch (code) {
            case 404 -> "no such route. The server is not SGLang (vLLM mounts /start_profile only with"
                    + " --profiler-config), or an SGLang older than 2025-03 that needs SGLANG_TORCH_PROFILER_DIR at launch.";
            case 500 -> "the server refused: profiling is already in progress (call /stop_profile first), or torch"
                    + " raised an error; the reason is only in the server log.";
            case 401, 403 -> "unauthorised. Set " + ProfiledRolloutKeys.API_KEY + " to the server's API key, or, when it"
                    + " was started with --admin-api-key (which alone opens the profile routes then), "
                    + ProfiledRolloutKeys.ADMIN_API_KEY + " to that key.";
            case 400 -> "a field has a bad type or value; check the ProfileRequest against docs/PROTOCOLS.md §1.1.";
            default -> "unexpected status; see the server log.";
        };
    }

    private static String stopFix(int code) {
        return switch (code) {
            case 404 -> "no such route; the server is not SGLang or is too old.";
            case 401, 403 -> "unauthorised. Set " + ProfiledRolloutKeys.API_KEY + " to the server's API key, or, when it"
                    + " was started with --admin-api-key, " + ProfiledRolloutKeys.ADMIN_API_KEY + " to that key.";
            default -> "unexpected status; see the server log.";
        };
    }

    private EngineException ioFailure(String method, URI uri, IOException e) {
        return EngineHttp.ioFailure(method, uri, baseUri, readTimeout, e);
    }

    private URI resolve(String path) {
        return EngineHttp.resolve(baseUri, path);
    }

    private static String bodySuffix(String body) {
        return EngineHttp.bodySuffix(body);
    }

    private static String snippet(Response response) {
        return EngineHttp.snippet(response);
    }

    private static String truncate(String s) {
        return EngineHttp.truncate(s);
    }

    /** Settings of an {@link SglangClient}; defaults: no API key, connect 10 s, read 60 s, stop 10 min. */
    public static final class Builder {
        private final URI baseUri;
        private String apiKey;
        private String adminApiKey;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration readTimeout = Duration.ofSeconds(60);
        private Duration stopProfileTimeout = Duration.ofMinutes(10);
        private Duration healthPollInterval = Duration.ofSeconds(1);
        private Duration unreachableTimeout;

        private Builder(URI baseUri) {
            this.baseUri = Objects.requireNonNull(baseUri, "baseUri");
            if (baseUri.getScheme() == null || baseUri.getHost() == null) {
                throw new IllegalArgumentException("baseUri must be absolute, e.g. http://localhost:30000, was " + baseUri);
            }
        }

        /** @param apiKey sent as {@code Authorization: Bearer <key>}; null for none */
        public Builder apiKey(String apiKey) { this.apiKey = apiKey; return this; }

        /**
         * @param adminApiKey the server's {@code --admin-api-key}, sent as {@code Authorization: Bearer <key>} on
         *                    {@code /start_profile} and {@code /stop_profile} only, which accept no other key when
         *                    the server has one (sgl-project/sglang {@code python/sglang/srt/utils/auth.py}); null for
         *                    none (those routes then get {@link #apiKey(String)})
         */
        public Builder adminApiKey(String adminApiKey) { this.adminApiKey = adminApiKey; return this; }

        /** @param connectTimeout TCP connect timeout, default 10 s */
        public Builder connectTimeout(Duration connectTimeout) { this.connectTimeout = positive(connectTimeout, "connectTimeout"); return this; }

        /** @param readTimeout socket read timeout of ordinary calls, default 60 s */
        public Builder readTimeout(Duration readTimeout) { this.readTimeout = positive(readTimeout, "readTimeout"); return this; }

        /** @param stopProfileTimeout how long {@link #stopProfile()} waits for the trace export, default 10 min */
        public Builder stopProfileTimeout(Duration stopProfileTimeout) { this.stopProfileTimeout = positive(stopProfileTimeout, "stopProfileTimeout"); return this; }

        /** @param healthPollInterval pause between {@code /health} polls in {@link #awaitHealthy(Duration)}, default 1 s */
        public Builder healthPollInterval(Duration healthPollInterval) { this.healthPollInterval = positive(healthPollInterval, "healthPollInterval"); return this; }

        /**
         * @param unreachableTimeout how long {@link SglangClient#awaitHealthy(Duration)} keeps polling while no
         *                           connection to the server can be made at all (refused, unknown host, no route,
         *                           TCP connect timeout): a wrong URL or port fails after it instead of after the
         *                           whole health timeout; default: no separate limit
         */
        public Builder unreachableTimeout(Duration unreachableTimeout) { this.unreachableTimeout = positive(unreachableTimeout, "unreachableTimeout"); return this; }

        public SglangClient build() {
            return new SglangClient(this);
        }

        private static Duration positive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be > 0, was " + d);
            }
            return d;
        }
    }
}
