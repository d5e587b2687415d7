package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Objects;
import java.util.SplittableRandom;
import org.apiguardian.api.API;

/**
 * Random-token prompts with vLLM's {@code RandomDataset} length law ({@code docs/METRICS.md} §5), deterministic per
 * (seed, index). Immutable and thread-safe.
 *
 * <ul>
 *   <li>input length ~ U_int[⌊in·(1−r)⌋, ⌈in·(1+r)⌉], raised to at least 1;</li>
 *   <li>output length ~ U_int[max(1, ⌊out·(1−r)⌋), max(1, ⌈out·(1+r)⌉)];</li>
 *   <li>tokens, as in vLLM: {@code (offset + index + j) mod vocabSize} with {@code offset ~ U[0, vocabSize)};</li>
 *   <li>a shared prefix of {@code spec.prefixTokens()} random ids (one draw from the seed, the same for every
 *       request) before the body, as vLLM's {@code --random-prefix-len}.</li>
 * </ul>
 * Unlike vLLM, no special tokens are excluded (the vocabulary is not known here) and the prompt is sent as ids,
 * so there is no decode/encode drift; check the server's {@code usage.prompt_tokens}.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class RandomTokenWorkload implements Workload {

    private static final long INDEX_MIX = 0x9E3779B97F4A7C15L;

    private final LoadSpec spec;
    private final int vocabSize;

    /**
     * @param spec      lengths, range ratio and seed, not null
     * @param vocabSize token ids are drawn from [0, vocabSize); ≥ 1, at most the model's vocabulary size
     */
    public RandomTokenWorkload(LoadSpec spec, int vocabSize) {
        this.spec = Objects.requireNonNull(spec, "spec");
        if (vocabSize < 1) {
            throw new IllegalArgumentException("vocabSize must be ≥ 1, was " + vocabSize);
        }
        this.vocabSize = vocabSize;
    }

    /**
     * @param index any int; the run uses 0…requests−1, warm-up uses negative indices
     * @return the request, identical for the same seed and index
     */
    @Override
    public CompletionRequest request(int index) {
        SplittableRandom random = new SplittableRandom(spec.seed() ^ ((index + 1L) * INDEX_MIX));
        double r = spec.rangeRatio();
        int inputLength = Math.max(1, uniform(random, (long) Math.floor(spec.inputTokens() * (1 - r)),
                (long) Math.ceil(spec.inputTokens() * (1 + r))));
        int outputLength = uniform(random, Math.max(1, (long) Math.floor(spec.outputTokens() * (1 - r))),
                Math.max(1, (long) Math.ceil(spec.outputTokens() * (1 + r))));
        long offset = random.nextInt(vocabSize);
        int prefix = spec.prefixTokens();
        int[] ids = new int[prefix + inputLength];
        if (prefix > 0) {
            SplittableRandom shared = new SplittableRandom(spec.seed() ^ 0x5DEECE66DL);
            for (int j = 0; j < prefix; j++) {
                ids[j] = shared.nextInt(vocabSize);
            }
        }
        for (int j = 0; j < inputLength; j++) {
            ids[prefix + j] = (int) Math.floorMod(offset + index + j, (long) vocabSize);
        }
        return new CompletionRequest(index, ids, outputLength);
    }

    /** @return the vocabulary bound token ids are drawn below */
    public int vocabSize() {
        return vocabSize;
    }

    private static int uniform(SplittableRandom random, long lowInclusive, long highInclusive) {
        return (int) (lowInclusive == highInclusive ? lowInclusive : random.nextLong(lowInclusive, highInclusive + 1));
    }
}
