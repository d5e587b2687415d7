package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.net.URI;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One engine behind a router, as {@code GET /workers} lists it ({@code docs/PROTOCOLS.md} §3), after stripping the
 * DP-aware {@code @<dp_rank>} suffix and merging the entries of the same server.
 *
 * @param url        the worker's base URL without {@code @N}, e.g. {@code http://10.0.0.5:30000}; not null
 * @param workerType {@code regular}, {@code prefill} or {@code decode} as the router reports it (lower-cased);
 *                   {@code regular} when absent (legacy {@code /list_workers})
 * @param healthy    the router's {@code is_healthy}; true when absent. For merged {@code @N} entries: all healthy
 * @param load       the router's {@code load} (outstanding requests; summed over merged entries), 0 when absent
 * @param modelId    {@code model_id}, or null when absent
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record Worker(URI url, String workerType, boolean healthy, long load, String modelId) {

    public Worker {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(workerType, "workerType");
    }
}
