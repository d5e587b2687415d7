package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.net.URI;
import org.apiguardian.api.API;

/**
 * An engine endpoint answered unexpectedly or could not be reached. The message names the URL, the cause and
 * the fix; it never contains the API key.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public class EngineException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String responseBody;
    private final transient URI uri;

    /**
     * @param message      cause and fix, never containing credentials
     * @param uri          the URL that was called, not null
     * @param status       the HTTP status, or {@code -1} for I/O failures
     * @param responseBody the response body (possibly truncated), or {@code ""} when there was none
     * @param cause        the underlying exception, may be null
     */
    public EngineException(String message, URI uri, int status, String responseBody, Throwable cause) {
        super(message, cause);
        this.uri = uri;
        this.status = status;
        this.responseBody = responseBody == null ? "" : responseBody;
    }

    /** @return the HTTP status, or {@code -1} when the failure was an I/O error (connection refused, timeout) */
    public int status() {
        return status;
    }

    /** @return the response body (at most a few kilobytes), or {@code ""}; never null */
    public String responseBody() {
        return responseBody;
    }

    /** @return the URL that was called */
    public URI uri() {
        return uri;
    }
}
