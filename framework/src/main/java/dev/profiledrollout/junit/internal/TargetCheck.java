package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.ROUTER_URL;
import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.backend.BackendSupport;
import dev.profiledrollout.engine.EngineClient;
import dev.profiledrollout.engine.ServerProbe;
import java.net.URI;
import java.util.Optional;
import org.apiguardian.api.API;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * Recognises an attached URL that points at the wrong kind of server, once it answers {@code /health} and before any
 * profile call, so the test fails with the key to change instead of a 404 from {@code /start_profile}:
 * <ul>
 *   <li>a router (sgl-model-gateway or vllm-router) given as an engine: it answers {@code GET /workers} with a
 *       {@code workers} array (or the legacy {@code GET /list_workers} with {@code urls}), which no engine serves;</li>
 *   <li>a server of another backend than the test declares, as that backend recognises it
 *       ({@link BackendSupport#otherBackendAt}).</li>
 * </ul>
 * A probe that fails for any other reason (an API key, a network error) proves nothing and is ignored: the usual
 * calls report it.
 */
@API(status = INTERNAL, since = "0.1")
public final class TargetCheck {

    private TargetCheck() {
    }

    /**
     * @param engine the client of a URL configured as an engine (with its API key)
     * @param source the key that named it, e.g. {@code profiledrollout.engine.url}
     * @throws ExtensionConfigurationException when it answers like a router
     */
    public static void notARouter(EngineClient engine, String source) {
        URI url = engine.baseUri();
        Optional<String> route = ServerProbe.routerRoute(engine.httpClient(), url);
        if (route.isPresent()) {
            throw new ExtensionConfigurationException(url + " (" + source + ") answers " + route.get() + " like a"
                    + " router (sgl-model-gateway or vllm-router), not like an engine: a router is not profiled itself,"
                    + " only the workers it lists write traces. Set " + ROUTER_URL + "=" + url + " instead of " + source
                    + ", so that every worker it lists is profiled and the load goes through it");
        }
    }

    /**
     * @param engine  the client of an engine (with its API key)
     * @param source  the key that named it (or the router's {@code GET /workers})
     * @param backend the support of the backend the test declares
     * @throws ExtensionConfigurationException when the engine answers like the other backend
     */
    public static void backendMatches(EngineClient engine, String source, BackendSupport backend) {
        backend.otherBackendAt(engine, source).ifPresent(message -> {
            throw new ExtensionConfigurationException(message);
        });
    }
}
