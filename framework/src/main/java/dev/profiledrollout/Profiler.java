package dev.profiledrollout;

import static org.apiguardian.api.API.Status.STABLE;

import org.apiguardian.api.API;

/**
 * Which profiler records the window of a {@link ProfiledRollout} test.
 */
@API(status = STABLE, since = "0.1")
public enum Profiler {

    /**
     * The engine's torch profiler, driven over HTTP ({@code /start_profile}, {@code /stop_profile}); per-rank Kineto
     * traces are read from the trace directory. The default.
     */
    TORCH,

    /**
     * Nsight Systems ({@code docs/PROTOCOLS.md} §4), for an engine launched under {@code nsys profile}:
     * <ul>
     *   <li>without {@link Activity#CUDA_PROFILER}: an interactive session started with {@code --start-later}. The
     *       window runs {@code nsys start --session=<s>} and {@code nsys stop --session=<s>} (the session from
     *       {@code profiledrollout.nsys.session}, else discovered with {@code nsys sessions list}); no profile call
     *       goes to the engine, so the torch-profiler attributes of {@link ProfiledRollout} ({@code numSteps},
     *       {@code startStep}, {@code activities}, {@code withStack}, …) do not apply: set, they are a configuration
     *       error.</li>
     *   <li>with {@link Activity#CUDA_PROFILER} (SGLang): a {@code -c cudaProfilerApi} capture. The window sends
     *       {@code /start_profile} with {@code activities=["CUDA_PROFILER"]}, so the engine calls
     *       {@code cudaProfilerStart/Stop} and nsys records in between.</li>
     * </ul>
     * When {@code profiledrollout.nsys.report} names the report file, the window runs
     * {@code nsys stats --report cuda_gpu_kern_sum --format csv} on it and the kernel summary becomes the result's
     * trace. The nsys executable is {@code profiledrollout.nsys.path} (default {@code nsys}).
     */
    NSYS
}
