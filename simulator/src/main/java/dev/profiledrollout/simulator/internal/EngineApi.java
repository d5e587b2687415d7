package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apiguardian.api.API;

/**
 * What an engine's HTTP API shares whatever protocol it speaks: the ready/closing state that {@code /health} reports,
 * and one place that turns a handler's failure into a 500 (or, for a broken client connection, nothing) and always
 * closes the exchange.
 */
@API(status = INTERNAL, since = "0.1")
public abstract class EngineApi implements HttpHandler {

    private static final System.Logger LOG = System.getLogger(EngineApi.class.getName());

    private volatile boolean ready;
    private volatile boolean closing;
    private final Map<String, LongAdder> received = new ConcurrentHashMap<>();

    /** Marks the warm-up done: {@code /health} answers 200 from now on. */
    public void markReady() {
        ready = true;
    }

    /** Marks shutdown: {@code /health} answers 503 from now on. */
    public void markClosing() {
        closing = true;
    }

    /**
     * @param path a request path, e.g. {@code /stop_profile}
     * @return how many requests arrived on {@code path} so far, whatever their method, credentials or answer
     */
    public long received(String path) {
        LongAdder n = received.get(path);
        return n == null ? 0 : n.sum();
    }

    /** @return whether the engine serves: warmed up and not shutting down */
    protected boolean serving() {
        return ready && !closing;
    }

    @Override
    public final void handle(HttpExchange ex) throws IOException {
        received.computeIfAbsent(ex.getRequestURI().getPath(), p -> new LongAdder()).increment();
        try {
            route(ex);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "client connection failed", e);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "handler failed", e);
            try {
                Http.text(ex, 500, "Internal Server Error");
            } catch (IOException | RuntimeException ignored) {
                // the response may already have started; nothing more can be sent
            }
        } finally {
            ex.close();
        }
    }

    /** Answers one exchange; the exchange is closed afterwards. */
    protected abstract void route(HttpExchange ex) throws IOException, InterruptedException;
}
