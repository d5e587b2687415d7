package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.NSYS_REPORT;

import dev.profiledrollout.Activity;
import dev.profiledrollout.backend.BackendSupport;
import dev.profiledrollout.Profiler;
import dev.profiledrollout.report.CapturedSteps;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether a completed capture holds anything to judge: a window whose profiler started and stopped but that produced
 * no trace file, no kernel event or no step fails, with the reason and the fix, instead of passing every budget on
 * nothing. The checks are {@code CAPTURE} verdicts that are always enforced ({@code steps.strict} only decides whether
 * a step count other than the one asked for, but above zero, fails).
 *
 * <ul>
 *   <li><b>nsys:</b> the engine writes no trace; the kernel summary is {@code nsys stats} of the report
 *       {@code profiledrollout.nsys.report} names. Without it, or when the file is not there, the window fails with
 *       the nsys command line srtctl wraps a profiled SGLang worker in (NVIDIA/srt-slurm
 *       {@code docs/profiling.md}, "nsys-specific behavior").</li>
 *   <li><b>Trace files:</b> a torch or RPD capture that asked for CPU or GPU activity and left no rank file.</li>
 *   <li><b>Kernel events:</b> a capture that asked for GPU activity and whose files hold no kernel.</li>
 *   <li><b>Steps:</b> an SGLang capture with the CPU activity whose every rank holds no {@code step[…]} span: no
 *       batch ran while it recorded, e.g. a {@code start_step} past the steps the load produced. (vLLM traces without
 *       {@code execute_…} spans may come from a version that does not annotate steps: their kernels decide.)</li>
 * </ul>
 */
final class CaptureEvidence {

    /**
     * The nsys command line that records a capture SGLang delimits with {@code cudaProfilerStart/Stop}, as srtctl
     * wraps a profiled worker (NVIDIA/srt-slurm {@code docs/profiling.md}, "nsys-specific behavior").
     */
    static final String NSYS_COMMAND = "nsys profile -t cuda,nvtx --cuda-graph-trace=node -c cudaProfilerApi "
            + "--capture-range-end stop -o <report> python3 -m sglang.launch_server …";

    private CaptureEvidence() {
    }

    /**
     * @param steps the steps counted in the capture's traces, empty when its files hold no step annotations to count
     * @param phase the {@code @RolloutPhase} of the capture, null for a whole window
     * @return the first missing piece of evidence as a failed, enforced CAPTURE verdict; empty when the capture holds
     *         data
     */
    static Optional<Verdict> missing(WindowSpec spec, Settings settings, ProfilerCapture.Collected files,
            TraceSet trace, Optional<CapturedSteps> steps, String phase) {
        return check(spec, settings, files, trace, steps).map(v -> phase == null ? v : v.withScope(phase));
    }

    private static Optional<Verdict> check(WindowSpec spec, Settings settings, ProfilerCapture.Collected files,
            TraceSet trace, Optional<CapturedSteps> steps) {
        if (spec.profiler() == Profiler.NSYS) {
            Optional<Path> report = settings.nsysReport();
            if (report.isEmpty()) {
                return Optional.of(fail("nsys kernel summary", 0, NSYS_REPORT + " is not set, so the nsys capture has "
                        + "no report to summarise and no kernel to judge. Set " + NSYS_REPORT + " to the report file "
                        + "nsys writes for this server (the -o of its nsys command), e.g. a server started as: "
                        + NSYS_COMMAND + "; or run a container engine that wraps the server in nsys"));
            }
            if (!Files.isRegularFile(report.get())) {
                return Optional.of(fail("nsys kernel summary", 0, "the nsys report " + report.get() + " ("
                        + NSYS_REPORT + ") does not exist after the window: nsys writes it when its capture range "
                        + "ends (--capture-range-end stop) and the server process exits or is told to stop; check "
                        + "the -o of the server's nsys command and that this machine sees the same path"));
            }
        }
        if (spec.writesTraceFiles() && files.rankFiles().isEmpty()) {
            return Optional.of(fail("trace files", 0, "the profiler was started and stopped but wrote no trace file "
                    + "(activities " + spec.activities() + "): check that the engine can write to its output "
                    + "directory, and for a window with startStep that the load reached that step"));
        }
        boolean kernelsAsked = spec.activities().contains(Activity.GPU) || spec.profiler() == Profiler.NSYS;
        long kernels = trace == null ? 0 : trace.traces().stream().mapToLong(TraceSummary::kernelEvents).sum();
        if (kernelsAsked && trace != null && !trace.traces().isEmpty() && kernels == 0) {
            return Optional.of(fail("kernel events", 0, trace.traces().size() + " trace file(s) without a single "
                    + "GPU kernel: no batch ran while the profiler recorded"
                    + (spec.startStep() != null ? ", e.g. start_step " + spec.startStep() + " lies past the steps "
                            + "the load produced" : "") + "; raise the load or lower the start step"));
        }
        // Where the backend always annotates its steps (SGLang with the CPU activity; count() is empty otherwise), no
        // step means no batch; vLLM versions differ in whether they annotate.
        if (steps.isPresent() && steps.get().max() == 0
                && BackendSupport.of(spec.backend()).stepAnnotationsGuaranteed()) {
            Integer start = spec.startStep();
            return Optional.of(fail("steps captured", 0, "no rank's trace holds an engine step (SGLang step[…], "
                    + "vLLM execute_…): no batch ran while the profiler recorded"
                    + (start != null ? "; start_step " + start + " may lie past the steps the load produced: raise "
                            + "the load (requests, outputTokens) or lower the start step" : "")));
        }
        return Optional.empty();
    }

    private static Verdict fail(String measure, long actual, String detail) {
        return Verdict.of(Verdict.Kind.CAPTURE, measure, "≥", actual, 1, "", String.valueOf(actual), "1", detail,
                false);
    }
}
