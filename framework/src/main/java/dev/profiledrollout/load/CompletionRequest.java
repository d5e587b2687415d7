package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Arrays;
import org.apiguardian.api.API;

/**
 * One request of a workload: the prompt as token ids or as text, and {@code max_tokens}. Immutable (the array is
 * copied).
 *
 * @param index          the request's index in the workload; warm-up requests have negative indices
 * @param promptTokenIds the prompt, sent as {@code "prompt":[ids]} so no tokenizer round-trip changes its length;
 *                       empty when the prompt is text
 * @param maxTokens      {@code max_tokens}, ≥ 1
 * @param promptText     the prompt as text (JSONL, ShareGPT or fixed prompts), or null for a token-id prompt
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record CompletionRequest(int index, int[] promptTokenIds, int maxTokens, String promptText) {

    public CompletionRequest {
        promptTokenIds = promptTokenIds.clone();
        if ((promptText == null && promptTokenIds.length == 0) || maxTokens < 1) {
            throw new IllegalArgumentException("a request needs a text or ≥ 1 prompt token and maxTokens ≥ 1, was "
                    + promptTokenIds.length + " tokens, text " + (promptText == null ? "absent" : "present")
                    + " and " + maxTokens);
        }
    }

    /** A token-id prompt. */
    public CompletionRequest(int index, int[] promptTokenIds, int maxTokens) {
        this(index, promptTokenIds, maxTokens, null);
    }

    /** A text prompt. */
    public static CompletionRequest text(int index, String promptText, int maxTokens) {
        return new CompletionRequest(index, new int[0], maxTokens, java.util.Objects.requireNonNull(promptText));
    }

    /** @return the prompt length in tokens when it is known (token ids), else −1 (text: the server's usage tells) */
    public int promptTokensRequested() {
        return promptText == null ? promptTokenIds.length : -1;
    }

    /** @return a copy of the prompt token ids */
    @Override
    public int[] promptTokenIds() {
        return promptTokenIds.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CompletionRequest r && index == r.index && maxTokens == r.maxTokens
                && Arrays.equals(promptTokenIds, r.promptTokenIds) && java.util.Objects.equals(promptText, r.promptText);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * index + maxTokens) + Arrays.hashCode(promptTokenIds);
    }

    @Override
    public String toString() {
        return "CompletionRequest[index=" + index + (promptText == null ? ", promptTokens=" + promptTokenIds.length
                : ", promptChars=" + promptText.length()) + ", maxTokens=" + maxTokens + "]";
    }
}
