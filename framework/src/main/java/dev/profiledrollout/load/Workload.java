package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/**
 * The requests of a load, by index: deterministic, so a run with the same seed sends the same prompts.
 * Implementations are immutable and thread-safe: the open-loop pacer and the event loop threads call them concurrently.
 */
@FunctionalInterface
@API(status = EXPERIMENTAL, since = "0.1")
public interface Workload {

    /**
     * @param index 0…requests−1 for the run; negative for warm-up
     * @return the request at that index
     */
    CompletionRequest request(int index);
}
