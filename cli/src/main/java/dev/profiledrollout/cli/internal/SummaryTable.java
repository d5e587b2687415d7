package dev.profiledrollout.cli.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.TemporalBreakdown;
import java.io.PrintWriter;
import java.util.Locale;
import org.apiguardian.api.API;

/** Prints one {@link TraceSummary} as {@code analyze}'s human-readable table: header lines and the top kernels. */
@API(status = INTERNAL, since = "0.1")
public final class SummaryTable {

    /** How many kernels the table lists. */
    public static final int TOP_KERNELS = 15;

    private static final int NAME_WIDTH = 80;

    private SummaryTable() {
    }

    /** Prints {@code summary} under the heading {@code fileLabel}, followed by a blank line. */
    public static void print(PrintWriter out, String fileLabel, TraceSummary summary) {
        header(out, fileLabel, summary);
        if (!summary.kernels().isEmpty()) {
            out.printf(Locale.ROOT, "  %8s %11s %11s %7s  %s%n", "count", "total ms", "mean µs", "share", "kernel");
            for (KernelStats kernel : summary.kernels().subList(0, Math.min(TOP_KERNELS, summary.kernels().size()))) {
                double share = summary.kernelTotalNs() == 0 ? 0 : 100.0 * kernel.totalNs() / summary.kernelTotalNs();
                out.printf(Locale.ROOT, "  %8d %11.3f %11.3f %6.1f%%  %s%n", kernel.count(), ms(kernel.totalNs()),
                        kernel.meanNs() / 1_000, share, truncate(kernel.name()));
            }
        }
        out.println();
    }

    /** The header lines of {@link #print}: file, counts, devices, HTA-style breakdown, warnings. */
    public static void header(PrintWriter out, String fileLabel, TraceSummary summary) {
        out.println(fileLabel + summary.rank().map(r -> "  [" + r.label() + "]").orElse(""));
        out.printf(Locale.ROOT, "  %d kernel events, %d memcpy/memset events, %d distinct kernels, kernel time %.3f ms%n",
                summary.kernelEvents(), summary.memoryEvents(), summary.distinctKernels(), ms(summary.kernelTotalNs()));
        for (DeviceStats device : summary.devices()) {
            out.printf(Locale.ROOT, "  device %s: busy %.3f ms of %.3f ms span (%.1f %% busy)%n",
                    device.id(), ms(device.busyNs()), ms(device.spanNs()), 100 * device.busyFraction());
        }
        TemporalBreakdown t = summary.details().exact();
        if (t.kernelTimeNs() > 0) {
            out.printf(Locale.ROOT, "  temporal (HTA definitions, exact ns): compute %.1f %%, non-compute %.1f %%, "
                            + "idle %.1f %% of %.3f ms%s%n", 100 * t.computeFraction(), 100 * t.nonComputeFraction(),
                    100 * t.idleFraction(), ms(t.kernelTimeNs()), Double.isNaN(t.overlapPercent()) ? ""
                            : String.format(Locale.ROOT, "; comm/compute overlap %.2f %%", t.overlapPercent()));
        }
        for (String warning : summary.warnings()) {
            out.println("  warning: " + warning);
        }
    }

    private static double ms(long ns) {
        return ns / 1_000_000.0;
    }

    private static String truncate(String name) {
        return name.length() <= NAME_WIDTH ? name : name.substring(0, NAME_WIDTH - 1) + "…";
    }
}
