package dev.profiledrollout.load;

import java.util.Arrays;

/**
 * One request of a workload: the prompt as token ids and {@code max_tokens}. Immutable (the array is copied).
 *
 * @param index          the request's index in the workload; warm-up requests have negative indices
 * @param promptTokenIds the prompt, sent as {@code "prompt":[ids]} so no tokenizer round-trip changes its length
 * @param maxTokens      {@code max_tokens}, ≥ 1
 */
public record CompletionRequest(int index, int[] promptTokenIds, int maxTokens) {

    public CompletionRequest {
        promptTokenIds = promptTokenIds.clone();
        if (promptTokenIds.length == 0 || maxTokens < 1) {
            throw new IllegalArgumentException("a request needs ≥ 1 prompt token and maxTokens ≥ 1, was "
                    + promptTokenIds.length + " and " + maxTokens);
        }
    }

    /** @return a copy of the prompt token ids */
    @Override
    public int[] promptTokenIds() {
        return promptTokenIds.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CompletionRequest r && index == r.index && maxTokens == r.maxTokens
                && Arrays.equals(promptTokenIds, r.promptTokenIds);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * index + maxTokens) + Arrays.hashCode(promptTokenIds);
    }

    @Override
    public String toString() {
        return "CompletionRequest[index=" + index + ", promptTokens=" + promptTokenIds.length + ", maxTokens=" + maxTokens + "]";
    }
}
