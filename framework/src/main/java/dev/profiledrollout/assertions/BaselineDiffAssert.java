package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.report.Verdict;
import dev.profiledrollout.report.Verdicts;
import dev.profiledrollout.trace.BaselineDiff;
import dev.profiledrollout.trace.KernelDelta;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions that a run stays within a baseline ({@link dev.profiledrollout.trace.TraceBaseline#diff}): per-kernel
 * time within ± a relative tolerance, total kernel time within ± a tolerance, no new or vanished kernels. Failure
 * messages name each offending kernel with baseline → actual time, its change and the budget. Every check records a
 * BASELINE {@link Verdict}: changes are relative (run / baseline − 1) against {@code ±} the tolerance, new and
 * vanished kernels are counts against a budget of 0.
 *
 * <pre>{@code
 * BaselineDiff diff = TraceBaseline.read(Path.of("baseline.json")).diff(result.trace().traces());
 * assertThat(diff).kernelTimeWithin(0.10, Duration.ofMillis(1)).hasNoNewKernels();
 * }</pre>
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class BaselineDiffAssert extends AbstractAssert<BaselineDiffAssert, BaselineDiff> {

    private static final int LISTED = 5;

    public BaselineDiffAssert(BaselineDiff actual) {
        super(actual, BaselineDiffAssert.class);
    }

    /**
     * Each kernel present in both runs has {@code |Δtime| ≤ tolerance × baseline time}; kernels whose baseline and run
     * times are both below {@code ignoreBelow} are not checked (noise). Records a BASELINE verdict: the checked kernel
     * with the largest |relative change| against {@code ± tolerance}, with {@code "N kernel(s) outside: …"} as detail.
     *
     * @param tolerance relative, e.g. 0.10 for ±10 %
     */
    public BaselineDiffAssert kernelTimeWithin(double tolerance, Duration ignoreBelow) {
        isNotNull();
        long floor = ignoreBelow.toNanos();
        List<KernelDelta> checked = actual.kernels().stream()
                .filter(k -> k.status() == KernelDelta.Status.PRESENT)
                .filter(k -> k.baseTotalNs() >= floor || k.totalNs() >= floor)
                .toList();
        List<KernelDelta> outside = checked.stream().filter(k -> Math.abs(k.relativeChange()) > tolerance).toList();
        KernelDelta worst = checked.stream().max(Comparator.comparingDouble(k -> Math.abs(k.relativeChange())))
                .orElse(null);
        String detail = outside.size() + " kernel(s) outside" + (outside.isEmpty() ? " of " + checked.size()
                + " checked" : ": " + outside.stream().limit(LISTED).map(k -> k.name() + " " + change(k))
                .collect(Collectors.joining(", ")));
        double change = worst == null ? 0 : worst.relativeChange();
        String measure = worst == null ? "kernel time vs baseline (no kernel to compare)"
                : "kernel time of " + worst.name() + " vs baseline";
        Verdicts.check(tolerance(measure, change, tolerance, detail, outside.isEmpty()),
                () -> failure("%s", "kernel time of " + worst.name() + " was " + describe(worst) + ", budget ±"
                        + Formats.percent(tolerance) + " of baseline; " + detail));
        return myself;
    }

    /** Total kernel time within ± {@code tolerance} of the baseline's; records a BASELINE verdict. */
    public BaselineDiffAssert totalKernelTimeWithin(double tolerance) {
        isNotNull();
        double change = actual.kernelTimeChange();
        String totals = Formats.duration(Duration.ofNanos(actual.run().kernelTotalNs())) + " vs baseline "
                + Formats.duration(Duration.ofNanos(actual.baseline().kernelTotalNs()));
        String largest = "largest changes: " + actual.kernels().stream().limit(LISTED)
                .map(k -> k.name() + " " + change(k)).collect(Collectors.joining(", "));
        Verdicts.check(tolerance("total kernel time vs baseline", change, tolerance, totals + "; " + largest,
                Math.abs(change) <= tolerance), () -> failure("%s", "total kernel time was " + totals + " ("
                + String.format(Locale.ROOT, "%+.1f%%", 100 * change) + "), budget ±" + Formats.percent(tolerance)
                + "; " + largest));
        return myself;
    }

    /** Fails when the run has kernels the baseline lacks; records a BASELINE verdict on their count, budget 0. */
    public BaselineDiffAssert hasNoNewKernels() {
        isNotNull();
        List<KernelDelta> fresh = actual.newKernels();
        String listed = fresh.stream().limit(LISTED)
                .map(k -> k.name() + " (" + k.count() + "×, " + Formats.duration(Duration.ofNanos(k.totalNs())) + ")")
                .collect(Collectors.joining(", "));
        Verdicts.check(Checks.count(Verdict.Kind.BASELINE, "", "kernels not in the baseline", "≤", fresh.size(), 0,
                listed, fresh.isEmpty()),
                () -> failure("%s", fresh.size() + " kernel(s) not in the baseline, budget 0: " + listed));
        return myself;
    }

    /** Fails when baseline kernels are missing from the run; records a BASELINE verdict on their count, budget 0. */
    public BaselineDiffAssert hasNoVanishedKernels() {
        isNotNull();
        List<KernelDelta> gone = actual.vanishedKernels();
        String listed = gone.stream().limit(LISTED).map(k -> k.name() + " (baseline " + k.baseCount() + "×, "
                + Formats.duration(Duration.ofNanos(k.baseTotalNs())) + ")").collect(Collectors.joining(", "));
        Verdicts.check(Checks.count(Verdict.Kind.BASELINE, "", "baseline kernels missing from the run", "≤",
                gone.size(), 0, listed, gone.isEmpty()), () -> failure("%s", gone.size()
                + " baseline kernel(s) missing from the run, budget 0: " + listed));
        return myself;
    }

    /** A relative change against {@code ± tolerance}: no relative gap (a tolerance is not a level to exceed). */
    private static Verdict tolerance(String measure, double change, double tolerance, String detail, boolean passed) {
        return new Verdict(Verdict.Kind.BASELINE, "", measure, "±", change, tolerance, "",
                String.format(Locale.ROOT, "%+.1f%%", 100 * change), Formats.percent(tolerance), null, detail, passed,
                true);
    }

    private static String describe(KernelDelta k) {
        return Formats.duration(Duration.ofNanos(k.totalNs())) + " vs baseline "
                + Formats.duration(Duration.ofNanos(k.baseTotalNs())) + " (" + change(k) + ", count "
                + k.baseCount() + " → " + k.count() + ")";
    }

    private static String change(KernelDelta k) {
        return String.format(Locale.ROOT, "%+.1f%%", 100 * k.relativeChange());
    }
}
