package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;

import java.util.Locale;
import org.apiguardian.api.API;

/** Mounts the simulators' handlers on a JDK {@link HttpServer} with the connection handling real engines have. */
@API(status = INTERNAL, since = "0.1")
public final class HttpContexts {

    private static final Filter ECHO_CONNECTION_CLOSE = Filter.beforeHandler("Connection: close in the response "
            + "when the request asked for it", ex -> {
                String connection = ex.getRequestHeaders().getFirst("Connection");
                if (connection != null && connection.toLowerCase(Locale.ROOT).contains("close")) {
                    ex.getResponseHeaders().set("Connection", "close");
                }
            });

    private HttpContexts() {
    }

    /**
     * Serves {@code handler} at {@code /}, answering {@code Connection: close} when the request said
     * {@code Connection: close}.
     *
     * <p>The JDK server closes such a connection after the exchange but does not say so in the response. A client
     * that pools connections (the JDK's {@code HttpURLConnection}, which the simulated router proxies with) then keeps
     * the connection, and its next request on it races the server's close and fails with "Connection reset". Uvicorn,
     * which serves SGLang and vLLM, says {@code Connection: close} in that case (python-hyper/h11
     * {@code h11/_connection.py}, {@code _clean_up_response_headers_for_sending}), so no client reuses it.
     */
    public static void serve(HttpServer server, HttpHandler handler) {
        server.createContext("/", handler).getFilters().add(ECHO_CONNECTION_CLOSE);
    }
}
