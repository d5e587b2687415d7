package dev.profiledrollout.simulator;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/**
 * The shape of a dense decoder-only transformer, as the {@link CostModel} needs it.
 *
 * <p>All sizes are element counts, not bytes; {@code bytesPerParam} converts parameters to bytes (2 for bf16).
 * The numbers of {@link #LLAMA_3_1_8B} come from the model's Hugging Face {@code config.json}: 32 layers, hidden
 * 4096, 8 KV heads, bf16 weights ≈ 16 GB.
 *
 * @param name             model name for reports, e.g. {@code "meta-llama/Llama-3.1-8B-Instruct"}; not null
 * @param layers           decoder layers
 * @param hiddenSize       hidden (model) dimension
 * @param intermediateSize MLP intermediate dimension (gate and up projections each have this width)
 * @param attentionHeads   query heads
 * @param kvHeads          key/value heads (grouped-query attention)
 * @param headDim          dimension per head
 * @param vocabSize        vocabulary size (embedding and LM head rows)
 * @param bytesPerParam    bytes per weight and per KV-cache element
 * @throws IllegalArgumentException if a size is not positive or {@code name} is null
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record ModelSpec(String name, int layers, int hiddenSize, int intermediateSize, int attentionHeads, int kvHeads,
                        int headDim, int vocabSize, int bytesPerParam) {

    /** Llama 3.1 8B in bf16: about 8.03 B parameters, 16.1 GB of weights. */
    public static final ModelSpec LLAMA_3_1_8B =
            new ModelSpec("meta-llama/Llama-3.1-8B-Instruct", 32, 4096, 14336, 32, 8, 128, 128256, 2);

    public ModelSpec {
        if (name == null) {
            throw new IllegalArgumentException("ModelSpec name must not be null");
        }
        if (layers <= 0 || hiddenSize <= 0 || intermediateSize <= 0 || attentionHeads <= 0 || kvHeads <= 0
                || headDim <= 0 || vocabSize <= 0 || bytesPerParam <= 0) {
            throw new IllegalArgumentException("every ModelSpec size must be positive: " + name);
        }
    }

    /** Parameters of one decoder layer (attention and MLP projections; norms are negligible and left out). */
    public long paramsPerLayer() {
        long qkv = (long) hiddenSize * (attentionHeads + 2L * kvHeads) * headDim;
        long o = (long) attentionHeads * headDim * hiddenSize;
        long mlp = 3L * hiddenSize * intermediateSize;
        return qkv + o + mlp;
    }

    /** All parameters: layers plus untied embedding and LM head. */
    public long totalParams() {
        return layers * paramsPerLayer() + 2L * vocabSize * hiddenSize;
    }

    /** KV-cache bytes per token over all layers (keys and values). */
    public long kvBytesPerToken() {
        return 2L * layers * kvHeads * headDim * bytesPerParam;
    }
}
