package dev.profiledrollout;

import static org.apiguardian.api.API.Status.STABLE;

import org.apiguardian.api.API;

/**
 * A phase of a disaggregated (prefill/decode) deployment, profiled in its own window with its own load, as the
 * srtctl workflow does for disaggregated prefill/decode deployments.
 */
@API(status = STABLE, since = "0.1")
public enum Phase {

    /** Prefill engines ({@code worker_type} {@code prefill}; {@code profiledrollout.prefill.url}). */
    PREFILL("prefill"),

    /** Decode engines ({@code worker_type} {@code decode}; {@code profiledrollout.decode.url}). */
    DECODE("decode");

    private final String workerType;

    Phase(String workerType) {
        this.workerType = workerType;
    }

    /** @return the router's {@code worker_type} of this phase's engines: {@code prefill} or {@code decode} */
    public String workerType() {
        return workerType;
    }
}
