package dev.profiledrollout.containers;

import java.util.ArrayList;
import java.util.List;
import org.apiguardian.api.API;

/**
 * How an engine container runs under Nsight Systems ({@code docs/PROTOCOLS.md} §4), with the {@code .nsys-rep} reports
 * written into the mounted profiler directory.
 *
 * <ul>
 *   <li>{@link #interactive(String)}: {@code nsys profile --start-later=true --session-new=NAME …}; collection
 *       starts and stops with {@code nsys start/stop --session=NAME}, run inside the container
 *       ({@code execInContainer}).</li>
 *   <li>{@link #cudaProfilerApi()}: {@code nsys profile -c cudaProfilerApi --capture-range-end repeat …}; the
 *       engine's own {@code cudaProfilerStart/Stop} (SGLang's {@code CUDA_PROFILER} activity, vLLM's
 *       {@code "profiler":"cuda"}) delimits each report.</li>
 * </ul>
 * Both use {@code --trace-fork-before-exec=true} (engines fork workers) and {@code --cuda-graph-trace=node} (without
 * it, CUDA-graph replays record no per-kernel rows).
 *
 * @param mode        interactive session or CUDA profiler API capture range
 * @param sessionName the {@code --session-new} name (interactive only)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1")
public record NsysCapture(Mode mode, String sessionName) {

    /** The capture trigger. */
    public enum Mode { INTERACTIVE, CUDA_PROFILER_API }

    public static NsysCapture interactive(String sessionName) {
        if (sessionName == null || !sessionName.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("nsys session name must be letters, digits, '_', '.', '-': "
                    + sessionName);
        }
        return new NsysCapture(Mode.INTERACTIVE, sessionName);
    }

    public static NsysCapture cudaProfilerApi() {
        return new NsysCapture(Mode.CUDA_PROFILER_API, null);
    }

    /** @return {@code nsys profile … <launch>} writing {@code <dir>/nsys-%p.nsys-rep} */
    public List<String> wrap(List<String> launch, String reportDirectory) {
        List<String> command = new ArrayList<>(List.of("nsys", "profile", "--trace-fork-before-exec=true",
                "--cuda-graph-trace=node", "--trace=cuda,nvtx", "-o", reportDirectory + "/nsys-%p"));
        if (mode == Mode.INTERACTIVE) {
            command.add("--start-later=true");
            command.add("--session-new=" + sessionName);
        } else {
            command.add("--capture-range=cudaProfilerApi");
            command.add("--capture-range-end=repeat");
        }
        command.addAll(launch);
        return command;
    }

    /** @return the command that starts collection in an interactive session, to run inside the container */
    public List<String> startCommand() {
        requireInteractive();
        return List.of("nsys", "start", "--session=" + sessionName);
    }

    /** @return the command that stops collection and writes a report, leaving the engine running */
    public List<String> stopCommand() {
        requireInteractive();
        return List.of("nsys", "stop", "--session=" + sessionName);
    }

    private void requireInteractive() {
        if (mode != Mode.INTERACTIVE) {
            throw new IllegalStateException("nsys start/stop apply to interactive sessions; a cudaProfilerApi "
                    + "capture is started and stopped by the engine's profiler");
        }
    }
}
