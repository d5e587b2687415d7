package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What every request of a load carries besides its prompt and {@code max_tokens}: {@code ignore_eos} and the
 * sampling parameters. Immutable.
 *
 * <p>On the OpenAI endpoints both go at the top level of the body, as {@code vllm bench serve} merges its sampling
 * parameters into the request (vllm-project/vllm {@code vllm/benchmarks/serve.py}: {@code sampling_params} merged
 * into {@code extra_body}); on SGLang's native {@code /generate} they go into {@code sampling_params}, whose field
 * names are the same ({@code temperature}, {@code top_p}, {@code top_k}, {@code min_p}, {@code frequency_penalty},
 * {@code presence_penalty}, {@code repetition_penalty}, {@code ignore_eos}: sgl-project/sglang
 * {@code python/sglang/srt/sampling/sampling_params.py}, {@code SamplingParams}).
 *
 * @param ignoreEos whether to send {@code ignore_eos: true} (generation runs to {@code max_tokens}); false sends
 *                  nothing, leaving the server's default (stop at EOS)
 * @param sampling  sampling parameters by their wire name, e.g. {@code temperature → 0.0}, in the order given; empty
 *                  leaves every one to the server's default; not null, no null keys or values
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record RequestParameters(boolean ignoreEos, Map<String, Number> sampling) {

    /** The framework's load: greedy ({@code temperature 0}) and {@code ignore_eos}, so outputs have exactly OSL tokens. */
    public static final RequestParameters GREEDY_IGNORE_EOS = new RequestParameters(true, Map.of("temperature", 0.0));

    public RequestParameters {
        Objects.requireNonNull(sampling, "sampling");
        LinkedHashMap<String, Number> copy = new LinkedHashMap<>();
        sampling.forEach((k, v) -> {
            if (k == null || k.isBlank() || v == null) {
                throw new IllegalArgumentException("sampling parameters need a name and a value, had " + k + "=" + v);
            }
            copy.put(k, v);
        });
        sampling = Collections.unmodifiableMap(copy);
    }
}
