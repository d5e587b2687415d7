package dev.profiledrollout.simulator;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apiguardian.api.API;

/**
 * The profiling environment of a TensorRT-LLM server ({@code trtllm-serve}), read once when it launches: TensorRT-LLM
 * has no HTTP profile routes, so the capture is fixed before the server starts (NVIDIA/TensorRT-LLM
 * {@code tensorrt_llm/_torch/pyexecutor/py_executor.py}, {@code _profiler} and {@code _load_iteration_indexes}, at
 * commit 9521caf; {@code docs/PROTOCOLS.md} §6).
 *
 * <ul>
 *   <li>{@code TLLM_PROFILE_START_STOP}: iteration spans {@code "a-b,c-d"} or single iterations {@code "i,j"}. At the
 *       top of iteration {@code a} the executor calls {@code cudaProfilerStart} (and starts the torch profiler), at the
 *       top of iteration {@code b} {@code cudaProfilerStop}: iterations {@code a … b-1} are captured, {@code b - a} of
 *       them, which is srt-slurm's {@code num_steps = stop_step - start_step}. Warm-up iterations do not count.</li>
 *   <li>{@code TLLM_TORCH_PROFILE_TRACE}: a path; with a range set, a torch profiler (CPU and CUDA activities,
 *       {@code record_shapes}, {@code with_modules}) records the range and exports a Chrome trace to
 *       {@code <path without extension>-rank-<global rank><extension>} when it stops (gzip when the extension is
 *       {@code .gz}, as {@code export_chrome_trace} does). Without a range it is ignored with a warning.</li>
 * </ul>
 *
 * @param profileStartStop  the value of {@code TLLM_PROFILE_START_STOP}, or null
 * @param torchProfileTrace the value of {@code TLLM_TORCH_PROFILE_TRACE}, or null
 */
@API(status = EXPERIMENTAL, since = "0.9")
public record TrtllmEnvironment(String profileStartStop, Path torchProfileTrace) {

    /** The iteration range variable. */
    public static final String PROFILE_START_STOP = "TLLM_PROFILE_START_STOP";
    /** The torch trace path variable. */
    public static final String TORCH_PROFILE_TRACE = "TLLM_TORCH_PROFILE_TRACE";
    /** Neither variable set: nothing is captured. */
    public static final TrtllmEnvironment NONE = new TrtllmEnvironment(null, null);

    /**
     * @throws IllegalArgumentException when the range is malformed, with the variable's name (the executor raises a
     *                                  {@code ValueError} at start then)
     */
    public TrtllmEnvironment {
        if (profileStartStop != null) {
            spans(profileStartStop);
        }
    }

    /** @param env a server's environment */
    public static TrtllmEnvironment of(Map<String, String> env) {
        String range = env.get(PROFILE_START_STOP);
        String trace = env.get(TORCH_PROFILE_TRACE);
        return new TrtllmEnvironment(range == null || range.isBlank() ? null : range,
                trace == null || trace.isBlank() ? null : Path.of(trace));
    }

    /** @return the iterations at whose top a capture starts */
    public Set<Long> starts() {
        return profileStartStop == null ? Set.of() : spans(profileStartStop)[0];
    }

    /** @return the iterations at whose top a capture stops */
    public Set<Long> stops() {
        return profileStartStop == null ? Set.of() : spans(profileStartStop)[1];
    }

    /** @return whether a torch trace is written: both variables set */
    public boolean torchTrace() {
        return profileStartStop != null && torchProfileTrace != null;
    }

    /**
     * @param globalRank the rank
     * @return where that rank's torch trace goes: the rank inserted before the path's last extension
     */
    public Path rankTrace(int globalRank) {
        String name = torchProfileTrace.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String file = dot <= 0 ? name + "-rank-" + globalRank
                : name.substring(0, dot) + "-rank-" + globalRank + name.substring(dot);
        return torchProfileTrace.resolveSibling(file);
    }

    @SuppressWarnings("unchecked")
    private static Set<Long>[] spans(String text) {
        Set<Long> starts = new TreeSet<>();
        Set<Long> stops = new TreeSet<>();
        for (String span : text.split(",")) {
            String s = span.strip();
            try {
                int dash = s.indexOf('-');
                if (dash >= 0) {
                    starts.add(Long.parseLong(s.substring(0, dash).strip()));
                    stops.add(Long.parseLong(s.substring(dash + 1).strip()));
                } else {
                    long it = Long.parseLong(s);
                    starts.add(it);
                    stops.add(it);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Cannot parse span '" + s + "' in " + PROFILE_START_STOP + "='"
                        + text + "': expected start-stop iteration spans or single iterations, comma-separated,"
                        + " e.g. 10-20");
            }
        }
        return new Set[] {starts, stops};
    }
}
