package dev.profiledrollout.history;

import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apiguardian.api.API;

/**
 * What was run, as far as it decides whether two runs can be compared: the engine and hardware, the parallelism, the
 * load shape and the capture. Two runs are compared only when their {@link #fingerprint()}s are equal.
 *
 * <p>The engine version is recorded but is not part of the fingerprint, like the commit in {@link RunIdentity}: an
 * engine upgrade is one of the changes a history is kept to judge.
 *
 * @param backend       {@code SGLANG}, {@code VLLM} or {@code SIMULATOR}
 * @param engineKind    how the engine was reached: {@code simulator}, {@code attached}, {@code router},
 *                      {@code prefill-decode} or {@code container} (summary.json {@code profiled.kind})
 * @param engineVersion the engine's reported version, or null when unknown (not in the fingerprint)
 * @param model         the served model id, or null when unknown
 * @param gpu           the GPU name from the trace's {@code deviceProperties} (e.g. {@code NVIDIA H100 80GB HBM3}),
 *                      or null when the run captured no GPU trace
 * @param tp            tensor-parallel size, 1 when unknown
 * @param dp            data-parallel size, 1 when unknown
 * @param pp            pipeline-parallel size, 1 when unknown
 * @param ep            expert-parallel size, 1 when unknown
 * @param inputTokens   prompt length (ISL) in tokens
 * @param outputTokens  output length (OSL) in tokens
 * @param concurrency   the load's maximum concurrency
 * @param requestRate   the load's request rate in requests/s, {@link Double#POSITIVE_INFINITY} for closed loop
 * @param numSteps      engine steps captured per profile window, 0 for none
 * @param phase         {@code PREFILL}/{@code DECODE}/... for one phase of a phased test, else null
 * @param extra         further fingerprinted settings (e.g. {@code workers}, {@code endpoint}), sorted by key
 */
@API(status = API.Status.EXPERIMENTAL)
public record RunConfiguration(String backend, String engineKind, String engineVersion, String model, String gpu,
        int tp, int dp, int pp, int ep, int inputTokens, int outputTokens, int concurrency, double requestRate,
        int numSteps, String phase, SortedMap<String, String> extra) {

    /** @throws NullPointerException if {@code backend} or {@code engineKind} is null */
    public RunConfiguration {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(engineKind, "engineKind");
        extra = extra == null ? new TreeMap<>() : new TreeMap<>(extra);
    }

    /**
     * The configuration's fingerprint: the first 16 hex digits of the SHA-256 of its canonical text (every field but
     * {@code engineVersion}, in declaration order, then {@code extra} by key). Stable across JVMs and releases; a new
     * field changes it only when set.
     */
    public String fingerprint() {
        StringBuilder canonical = new StringBuilder();
        append(canonical, "backend", backend);
        append(canonical, "engineKind", engineKind);
        append(canonical, "model", model);
        append(canonical, "gpu", gpu);
        append(canonical, "tp", tp);
        append(canonical, "dp", dp);
        append(canonical, "pp", pp);
        append(canonical, "ep", ep);
        append(canonical, "inputTokens", inputTokens);
        append(canonical, "outputTokens", outputTokens);
        append(canonical, "concurrency", concurrency);
        append(canonical, "requestRate", Double.isInfinite(requestRate) ? "inf" : Double.toString(requestRate));
        append(canonical, "numSteps", numSteps);
        append(canonical, "phase", phase);
        extra.forEach((k, v) -> append(canonical, "extra." + k, v));
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(canonical.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(digest, 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    private static void append(StringBuilder canonical, String key, Object value) {
        if (value != null) {
            canonical.append(key).append('=').append(value).append('\n');
        }
    }
}
