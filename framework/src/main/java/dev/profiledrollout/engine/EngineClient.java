package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.load.LoadTarget;
import okhttp3.OkHttpClient;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.apiguardian.api.API;

/**
 * One engine server's health, model discovery and profiler endpoints, independent of the backend: what a profile
 * window needs from SGLang ({@link SglangClient}, {@code docs/PROTOCOLS.md} §1) and vLLM ({@link VllmClient}, §2)
 * alike.
 *
 * <h2>Contract</h2>
 * Implementations are thread-safe and block the calling thread. Every failure is an {@link EngineException} whose
 * message names the URL, the cause and the fix, never the API key.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public interface EngineClient extends AutoCloseable {

    /** @return the server root this client talks to, e.g. {@code http://10.0.0.5:30000} */
    URI baseUri();

    /** @return the backend's name as users know it: {@code SGLang} or {@code vLLM} */
    String engineName();

    /**
     * Polls {@code GET /health} until it answers {@code 200}.
     *
     * @param timeout the total time to wait, not null
     * @throws EngineException when the server was not healthy in time
     */
    void awaitHealthy(Duration timeout);

    /**
     * {@code GET /v1/models}.
     *
     * @return the served model ids, in server order
     * @throws EngineException on a non-200 answer, an I/O error or an unexpected body
     */
    List<String> models();

    /**
     * {@code POST /start_profile}. SGLang sends {@link ProfileRequest#toJson()}; vLLM sends an empty body, because its
     * profiler settings are fixed at server start (the caller checks them against configuration first).
     *
     * @param request the capture settings, not null
     * @throws EngineException with the status, the body and the fix for any answer other than {@code 200}
     */
    void startProfile(ProfileRequest request);

    /**
     * {@code POST /stop_profile}, waiting for the trace export (minutes on real engines).
     *
     * @return {@link StopOutcome#STOPPED} when a capture was stopped (vLLM always answers so);
     *         {@link StopOutcome#NOT_IN_PROGRESS} when SGLang reported none running
     * @throws EngineException on any other status, an I/O error, or when the stop timeout expires
     */
    StopOutcome stopProfile();

    /**
     * @return the shared OkHttp client (pool, dispatcher, auth interceptor), for other calls to the same server or its
     *         router; owned by this object
     */
    OkHttpClient httpClient();

    /**
     * @return where a {@code LoadGenerator} sends this server's load: {@link #baseUri()}, with the client's API key as
     *         {@code Authorization: Bearer <key>} when it has one
     */
    LoadTarget loadTarget();

    /** Releases the connection pool and the dispatcher. Idempotent; never throws. */
    @Override
    void close();
}
