package dev.profiledrollout;

/**
 * What the engine's profiler records, as SGLang's {@code activities} field names it ({@code docs/PROTOCOLS.md} §1.3).
 *
 * <p>The enum constant's {@link #name()} is the exact wire value sent to {@code /start_profile}.
 */
public enum Activity {

    /** Host-side events: {@code cpu_op}, {@code cuda_runtime} launches, annotations. Torch profiler; {@code .trace.json.gz}. */
    CPU,

    /** Device-side events: kernels, memcpy, memset (CUDA). Torch profiler; {@code .trace.json.gz}. */
    GPU,

    /** CUDA memory-history recording; SGLang writes a {@code -memory.pickle} per TP rank with no profile id in its name. */
    MEM,

    /** ROCm rocmProfileData; replaces the torch profiler and writes {@code rpd-{time}-TP-{tp}.trace.json.gz}. */
    RPD,

    /** {@code cudaProfilerStart/Stop} for {@code nsys -c cudaProfilerApi}; the engine writes no file itself. */
    CUDA_PROFILER
}
