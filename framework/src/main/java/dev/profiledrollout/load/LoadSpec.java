package dev.profiledrollout.load;

/**
 * The shape of a closed-loop load: how many requests, how many at once, and the random-token lengths
 * (vLLM's {@code RandomDataset} law, METRICS.md §5).
 *
 * @param concurrency    requests in flight at once, ≥ 1 (vLLM's {@code --max-concurrency})
 * @param requests       requests in the measured run, ≥ 1 ({@code --num-prompts})
 * @param inputTokens    mean prompt length in tokens, ≥ 1 ({@code --random-input-len})
 * @param outputTokens   mean {@code max_tokens}, ≥ 1 ({@code --random-output-len}); {@code ignore_eos} makes it exact
 * @param rangeRatio     symmetric spread r of both lengths, 0 ≤ r &lt; 1; 0 gives fixed lengths ({@code --random-range-ratio})
 * @param warmupRequests requests sent by {@link LoadGenerator#warmup()} before the run, ≥ 0
 * @param seed           seed of the workload; vary it (or flush the prefix cache) between cells
 */
public record LoadSpec(int concurrency, int requests, int inputTokens, int outputTokens, double rangeRatio,
                       int warmupRequests, long seed) {

    public LoadSpec {
        atLeast("concurrency", concurrency, 1);
        atLeast("requests", requests, 1);
        atLeast("inputTokens", inputTokens, 1);
        atLeast("outputTokens", outputTokens, 1);
        atLeast("warmupRequests", warmupRequests, 0);
        if (!(rangeRatio >= 0.0 && rangeRatio < 1.0)) {
            throw new IllegalArgumentException("rangeRatio must be in [0, 1) (0 = fixed lengths), was " + rangeRatio);
        }
    }

    private static void atLeast(String field, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(field + " must be ≥ " + min + ", was " + value);
        }
    }
}
