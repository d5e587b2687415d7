package dev.profiledrollout.simulator;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Set;
import org.apiguardian.api.API;

/**
 * vLLM's {@code --profiler-config} JSON, the fields the simulator honours ({@code vllm/config/profiler.py@04b02293},
 * {@code docs/PROTOCOLS.md} §2.2; the {@code proton} kind and its {@code proton_*} fields from the current
 * {@code vllm.config.profiler} reference at docs.vllm.ai). Parsed with {@link #parse(String)}; immutable.
 *
 * <pre>{@code
 * VllmProfilerConfig c = VllmProfilerConfig.parse("{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/tmp/t\","
 *         + "\"max_iterations\":4}");
 * }</pre>
 *
 * @param profiler             {@code "torch"} (trace files), {@code "cuda"} (cudaProfilerStart/Stop: no files) or
 *                             {@code "proton"} (Triton Proton profiles in {@code proton_profiler_dir}; the simulator
 *                             writes none)
 * @param torchProfilerDir     absolute trace directory; required with {@code torch}, null with {@code cuda}
 * @param withStack            {@code torch_profiler_with_stack}, default true (recorded in the trace header)
 * @param useGzip              {@code torch_profiler_use_gzip}, default true: {@code .pt.trace.json.gz}, else {@code .pt.trace.json}
 * @param dumpCudaTimeTotal    {@code torch_profiler_dump_cuda_time_total}, default true: {@code profiler_out_{rank}.txt}
 * @param ignoreFrontend       {@code ignore_frontend}, default false: no {@code .async_llm.} frontend trace
 * @param delayIterations      {@code delay_iterations} ≥ 0, default 0: engine steps skipped after {@code /start_profile}
 * @param maxIterations        {@code max_iterations} ≥ 0, default 0 (unlimited): auto-stop once more steps were profiled
 * @param recordShapes         {@code torch_profiler_record_shapes}, default false ({@code vllm/config/profiler.py}):
 *                             operators in the worker traces carry {@code Input Dims} and the other input fields
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record VllmProfilerConfig(String profiler, Path torchProfilerDir, boolean withStack, boolean useGzip,
                                 boolean dumpCudaTimeTotal, boolean ignoreFrontend, int delayIterations,
                                 int maxIterations, boolean recordShapes) {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> KNOWN = Set.of("profiler", "torch_profiler_dir", "torch_profiler_with_stack",
            "torch_profiler_with_flops", "torch_profiler_use_gzip", "torch_profiler_dump_cuda_time_total",
            "torch_profiler_record_shapes", "torch_profiler_with_memory", "capture_torch_profiler",
            "detailed_trace_annotation", "ignore_frontend", "delay_iterations", "max_iterations",
            "warmup_iterations", "active_iterations", "wait_iterations", "torch_profiler_activities",
            "proton_profiler_dir", "proton_backend", "proton_context", "proton_data", "proton_graph_attribution",
            "proton_hook", "proton_mode", "proton_output_format");
    private static final Set<String> KINDS = Set.of("torch", "cuda", "proton");

    /**
     * Validates the combination, as {@code ProfilerConfig}'s validators do.
     *
     * @throws IllegalArgumentException naming the offending field
     */
    public VllmProfilerConfig {
        if (!KINDS.contains(profiler)) {
            throw new IllegalArgumentException("profiler must be \"torch\", \"cuda\" or \"proton\", was " + profiler);
        }
        if (profiler.equals("torch") && torchProfilerDir == null) {
            throw new IllegalArgumentException("torch_profiler_dir is required when profiler is \"torch\"");
        }
        if (!profiler.equals("torch") && torchProfilerDir != null) {
            throw new IllegalArgumentException("torch_profiler_dir is only applicable when profiler is \"torch\","
                    + " not \"" + profiler + "\"");
        }
        if (delayIterations < 0) {
            throw new IllegalArgumentException("delay_iterations must be >= 0, was " + delayIterations);
        }
        if (maxIterations < 0) {
            throw new IllegalArgumentException("max_iterations must be >= 0, was " + maxIterations);
        }
        if (torchProfilerDir != null) {
            torchProfilerDir = torchProfilerDir.toAbsolutePath();
        }
    }

    /**
     * Parses {@code --profiler-config} JSON. Fields vLLM knows but the simulator does not model (e.g.
     * {@code torch_profiler_with_memory}) are accepted and ignored; unknown fields are rejected, as pydantic's
     * {@code extra="forbid"} does.
     *
     * @param json not null
     * @throws IllegalArgumentException on malformed JSON, an unknown or mistyped field, or an invalid combination
     */
    public static VllmProfilerConfig parse(String json) {
        JsonNode n;
        try {
            n = MAPPER.readTree(json == null ? "" : json);
        } catch (IOException e) {
            throw new IllegalArgumentException("--profiler-config is not valid JSON: " + e.getMessage(), e);
        }
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("--profiler-config must be a JSON object, was " + json);
        }
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!KNOWN.contains(f)) {
                throw new IllegalArgumentException(f + " is not a ProfilerConfig field; known fields: " + KNOWN);
            }
        }
        String dir = text(n, "torch_profiler_dir");
        return new VllmProfilerConfig(text(n, "profiler"), dir == null || dir.isEmpty() ? null : Path.of(dir),
                bool(n, "torch_profiler_with_stack", true), bool(n, "torch_profiler_use_gzip", true),
                bool(n, "torch_profiler_dump_cuda_time_total", true), bool(n, "ignore_frontend", false),
                integer(n, "delay_iterations"), integer(n, "max_iterations"),
                bool(n, "torch_profiler_record_shapes", false));
    }

    /** Writes Kineto trace files (torch), rather than only bracketing a CUDA profiler range (cuda) or Proton (proton). */
    public boolean torch() {
        return profiler.equals("torch");
    }

    /** The same configuration with another trace directory (e.g. one per simulated worker host). */
    public VllmProfilerConfig withTorchProfilerDir(Path dir) {
        return new VllmProfilerConfig(profiler, dir, withStack, useGzip, dumpCudaTimeTotal, ignoreFrontend,
                delayIterations, maxIterations, recordShapes);
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException(field + " must be a string, was " + v);
        }
        return v.asText();
    }

    private static boolean bool(JsonNode n, String field, boolean dflt) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return dflt;
        }
        if (!v.isBoolean()) {
            throw new IllegalArgumentException(field + " must be true or false, was " + v);
        }
        return v.asBoolean();
    }

    private static int integer(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return 0;
        }
        if (!v.canConvertToInt() || !v.isIntegralNumber()) {
            throw new IllegalArgumentException(field + " must be an integer, was " + v);
        }
        return v.asInt();
    }
}
