package dev.profiledrollout.junit.internal;

import dev.profiledrollout.engine.nsys.NsysController;
import dev.profiledrollout.report.AllureSteps;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The files and analysis of an nsys capture: the report {@code profiledrollout.nsys.report} names, and its
 * {@code nsys stats} kernel summary as a one-entry {@link TraceSet}, so the kernel assertions work on nsys captures as
 * on torch traces. The summary has kernel totals only: no device busy time, span or rank.
 */
final class NsysSummaries {

    private NsysSummaries() {
    }

    /** @return the report as the capture's one file, when it is configured and exists; no frontend traces */
    static ProfilerCapture.Collected collect(Optional<Path> report) {
        return new ProfilerCapture.Collected(report.filter(Files::isRegularFile).map(List::of).orElse(List.of()),
                List.of());
    }

    /** @return the report's kernels, or an empty set when no report is configured */
    static TraceSet analyse(NsysController nsys, Optional<Path> report) {
        return AllureSteps.step("analysis: nsys stats", () -> read(nsys, report));
    }

    /** @return the report's kernels, or an empty set when no report is configured */
    static TraceSet read(NsysController nsys, Optional<Path> report) {
        if (report.isEmpty()) {
            return TraceSet.of(List.of());
        }
        List<KernelStats> kernels = nsys.kernelSummary(report.get());
        long events = kernels.stream().mapToLong(KernelStats::count).sum();
        long total = kernels.stream().mapToLong(KernelStats::totalNs).sum();
        return TraceSet.of(List.of(new TraceSummary(report.get(), Optional.empty(), events, 0, kernels.size(), total,
                List.of(), kernels, List.of("kernel totals from nsys stats --report cuda_gpu_kern_sum; no device busy"
                        + " time or span"))));
    }
}
