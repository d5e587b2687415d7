package dev.profiledrollout.load;

/**
 * The requests of a load, by index: deterministic, so a run with the same seed sends the same prompts.
 * Implementations are immutable and thread-safe: the open-loop pacer and the event loop threads call them concurrently.
 */
@FunctionalInterface
public interface Workload {

    /**
     * @param index 0…requests−1 for the run; negative for warm-up
     * @return the request at that index
     */
    CompletionRequest request(int index);
}
