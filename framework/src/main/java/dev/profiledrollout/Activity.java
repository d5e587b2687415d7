package dev.profiledrollout;

import static org.apiguardian.api.API.Status.STABLE;

import org.apiguardian.api.API;

/**
 * What the engine's profiler records, as SGLang's {@code activities} field names it ({@code docs/PROTOCOLS.md} §1.3;
 * the values {@code _start_profile} in {@code python/sglang/srt/managers/scheduler_components/profiler_manager.py}
 * acts on).
 *
 * <p>The enum constant's {@link #name()} is the exact wire value sent to {@code /start_profile}.
 */
@API(status = STABLE, since = "0.1")
public enum Activity {

    /** Host-side events: {@code cpu_op}, {@code cuda_runtime} launches, annotations. Torch profiler; {@code .trace.json.gz}. */
    CPU,

    /** Device-side events: kernels, memcpy, memset (CUDA). Torch profiler; {@code .trace.json.gz}. */
    GPU,

    /**
     * Device-side events on Intel GPUs (torch's {@code ProfilerActivity.XPU}). Torch profiler; {@code .trace.json.gz}.
     * A server whose torch has no XPU activity drops it, so with {@code XPU} alone it records nothing.
     */
    XPU,

    /** CUDA memory-history recording; SGLang writes a {@code -memory.pickle} per TP rank with no profile id in its name. */
    MEM,

    /**
     * ROCm rocmProfileData; replaces the torch profiler. Each DP replica's TP rank 0 converts the capture after a
     * barrier, so a capture writes one {@code rpd-{time.time()}-TP-0.trace.json.gz} per replica (and PP stage), not
     * one per rank, with no profile id or prefix in the name.
     */
    RPD,

    /** {@code cudaProfilerStart/Stop} for {@code nsys -c cudaProfilerApi}; the engine writes no file itself. */
    CUDA_PROFILER
}
