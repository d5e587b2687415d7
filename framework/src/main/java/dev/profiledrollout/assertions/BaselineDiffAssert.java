package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.baselines.BaselineDiff;
import dev.profiledrollout.trace.baselines.KernelDelta;
import dev.profiledrollout.trace.baselines.StageDelta;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions that a run stays within a baseline ({@link dev.profiledrollout.trace.baselines.TraceBaseline#diff}): per-kernel
 * time within ± a relative tolerance, total kernel time within ± a tolerance, no new or vanished kernels. With
 * per-step-kind figures on both sides ({@link BaselineDiff#byStage()}) times are compared per step of each kind
 * (prefill/EXTEND, decode, mixed), so a window that captured a different step mix is not taken for a change, and a
 * kind captured by one side only is reported as incomparable; otherwise window totals are compared. Failure
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
     * Each kernel present in both runs takes as long as in the baseline, within {@code ± tolerance}; kernels whose
     * baseline and run times are both below {@code ignoreBelow} are not checked (noise).
     *
     * <p>When both sides have per-step-kind figures ({@link BaselineDiff#byStage()}), a kernel is compared per step
     * (or token) of each kind that is comparable ({@link StageDelta#comparable()}: captured by both with a like batch;
     * {@code ignoreBelow} applies to its time within that kind), so a window that captured a different mix of prefill
     * and decode steps passes when nothing got slower. Kinds not comparable are named in the detail as incomparable;
     * if none is comparable, the check records an incomparable WARN verdict (not failing the test: there was nothing
     * to compare). Otherwise window totals are compared, and the detail says so. Records a BASELINE verdict:
     * the checked kernel with the largest |relative change| against {@code ± tolerance}, with {@code "N kernel(s)
     * outside: …"} as detail.
     *
     * @param tolerance relative, e.g. 0.10 for ±10 %
     */
    public BaselineDiffAssert kernelTimeWithin(double tolerance, Duration ignoreBelow) {
        isNotNull();
        if (actual.byStage()) {
            return kernelTimePerStepWithin(tolerance, ignoreBelow.toNanos());
        }
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
                .collect(Collectors.joining(", "))) + windowTotalsNote();
        double change = worst == null ? 0 : worst.relativeChange();
        String measure = worst == null ? "kernel time vs baseline (no kernel to compare)"
                : "kernel time of " + worst.name() + " vs baseline";
        Verdicts.check(tolerance(measure, change, tolerance, detail, outside.isEmpty()),
                () -> failure("%s", "kernel time of " + worst.name() + " was " + describe(worst) + ", budget ±"
                        + Formats.percent(tolerance) + " of baseline; " + detail));
        return myself;
    }

    /** One kernel in one step kind both sides captured. */
    private record PerStep(StageDelta stage, KernelDelta kernel, double change) {
        String label() {
            return kernel.name() + " per " + stage.stage() + " " + stage.unit();
        }
    }

    private BaselineDiffAssert kernelTimePerStepWithin(double tolerance, long floor) {
        List<PerStep> checked = actual.comparedStages().stream()
                .flatMap(s -> s.kernels().stream()
                        .filter(k -> k.status() == KernelDelta.Status.PRESENT)
                        .filter(k -> k.baseTotalNs() >= floor || k.totalNs() >= floor)
                        .map(k -> new PerStep(s, k, s.change(k))))
                .toList();
        List<PerStep> outside = checked.stream().filter(p -> Math.abs(p.change()) > tolerance).toList();
        PerStep worst = checked.stream().max(Comparator.comparingDouble(p -> Math.abs(p.change()))).orElse(null);
        String detail = outside.size() + " kernel(s) outside" + (outside.isEmpty() ? " of " + checked.size()
                + " checked" : ": " + outside.stream().limit(LISTED).map(p -> p.label() + " " + percent(p.change()))
                .collect(Collectors.joining(", "))) + "; per step kind (" + actual.mix() + ")"
                + actual.incomparable().map(i -> "; incomparable: " + i).orElse("");
        boolean nothingComparable = actual.comparedStages().isEmpty();
        double change = worst == null ? 0 : worst.change();
        String measure = nothingComparable ? "kernel time per step vs baseline (incomparable step mix)"
                : worst == null ? "kernel time per step vs baseline (no kernel to compare)"
                : "kernel time of " + worst.label() + " vs baseline";
        if (nothingComparable) {
            Verdicts.check(incomparable(measure, tolerance, "no step kind is comparable (" + actual.mix() + "); "
                    + actual.incomparable().orElse("") + ". Capture more steps (numSteps), or a load whose batches"
                    + " do not depend on timing (e.g. concurrency 1), or re-record the baseline under the same load"),
                    () -> failure("%s", "unreachable: an incomparable check only warns"));
            return myself;
        }
        Verdicts.check(tolerance(measure, change, tolerance, detail, outside.isEmpty()),
                () -> failure("%s", "kernel time of " + worst.label() + " was " + describe(worst) + ", budget ±"
                        + Formats.percent(tolerance) + " of baseline; " + detail));
        return myself;
    }

    /**
     * Total kernel time within ± {@code tolerance} of the baseline's; records a BASELINE verdict. With per-step-kind
     * figures on both sides ({@link BaselineDiff#byStage()}) the run's kernel time in the step kinds both captured is
     * compared with what the baseline's time per step of each kind predicts for the run's step counts
     * ({@link BaselineDiff#kernelTimeByStageChange()}), so a different step mix alone does not fail it; when no step
     * kind is comparable it records an incomparable WARN verdict instead of failing. Otherwise window totals are compared, and the detail says so.
     */
    public BaselineDiffAssert totalKernelTimeWithin(double tolerance) {
        isNotNull();
        if (actual.byStage()) {
            return totalKernelTimePerStepWithin(tolerance);
        }
        double change = actual.kernelTimeChange();
        String totals = Formats.duration(Duration.ofNanos(actual.run().kernelTotalNs())) + " vs baseline "
                + Formats.duration(Duration.ofNanos(actual.baseline().kernelTotalNs()));
        String largest = "largest changes: " + actual.kernels().stream().limit(LISTED)
                .map(k -> k.name() + " " + change(k)).collect(Collectors.joining(", ")) + windowTotalsNote();
        Verdicts.check(tolerance("total kernel time vs baseline", change, tolerance, totals + "; " + largest,
                Math.abs(change) <= tolerance), () -> failure("%s", "total kernel time was " + totals + " ("
                + percent(change) + "), budget ±" + Formats.percent(tolerance) + "; " + largest));
        return myself;
    }

    private BaselineDiffAssert totalKernelTimePerStepWithin(double tolerance) {
        boolean nothingComparable = actual.comparedStages().isEmpty();
        double change = actual.kernelTimeByStageChange();
        String perStage = actual.comparedStages().stream()
                .map(s -> s.stage() + " " + Formats.duration(Duration.ofNanos(Math.round(
                        (double) s.kernelNs() / s.units()))) + "/" + s.unit() + " vs baseline "
                        + Formats.duration(Duration.ofNanos(Math.round((double) s.baseKernelNs() / s.baseUnits())))
                        + "/" + s.unit() + " (" + percent(s.kernelTimeChange()) + ")")
                .collect(Collectors.joining(", "));
        String detail = (perStage.isEmpty() ? "no step kind in common" : perStage) + "; " + actual.mix()
                + actual.incomparable().map(i -> "; incomparable: " + i).orElse("");
        if (nothingComparable) {
            Verdicts.check(incomparable("kernel time per step vs baseline (incomparable step mix)", tolerance, detail
                    + ". Capture more steps (numSteps), or a load whose batches do not depend on timing (e.g."
                    + " concurrency 1), or re-record the baseline under the same load"),
                    () -> failure("%s", "unreachable: an incomparable check only warns"));
            return myself;
        }
        Verdicts.check(tolerance("kernel time per step kind vs baseline (run's step mix)", change, tolerance, detail,
                        Math.abs(change) <= tolerance),
                () -> failure("%s", "kernel time per step kind was " + percent(change)
                                + " against the baseline weighted by this run's step mix, budget ±"
                                + Formats.percent(tolerance) + "; " + detail));
        return myself;
    }

    /**
     * Fails when the run has kernels the baseline lacks; records a BASELINE verdict on their count, budget 0. With
     * per-step-kind figures, a kernel that ran only in steps of kinds not compared (not captured by the baseline, or
     * batched differently: {@link StageDelta#comparable()}) is not new but incomparable, named in the detail.
     */
    public BaselineDiffAssert hasNoNewKernels() {
        isNotNull();
        List<String> excused = new java.util.ArrayList<>();
        List<KernelDelta> fresh = actual.newKernels().stream()
                .filter(k -> !onlyIncomparable(k.name(), excused)).toList();
        String listed = fresh.stream().limit(LISTED)
                .map(k -> k.name() + " (" + k.count() + "×, " + Formats.duration(Duration.ofNanos(k.totalNs())) + ")")
                .collect(Collectors.joining(", ")) + excusedNote(excused, "the baseline");
        Verdicts.check(Checks.count(Verdict.Kind.BASELINE, "", "kernels not in the baseline", "≤", fresh.size(), 0,
                listed, fresh.isEmpty()),
                () -> failure("%s", fresh.size() + " kernel(s) not in the baseline, budget 0: " + listed));
        return myself;
    }

    /**
     * Fails when baseline kernels are missing from the run; records a BASELINE verdict on their count, budget 0. With
     * per-step-kind figures, a kernel that ran only in steps of kinds not compared (not captured by the run, or
     * batched differently: {@link StageDelta#comparable()}) is not missing but incomparable, named in the detail.
     */
    public BaselineDiffAssert hasNoVanishedKernels() {
        isNotNull();
        List<String> excused = new java.util.ArrayList<>();
        List<KernelDelta> gone = actual.vanishedKernels().stream()
                .filter(k -> !onlyIncomparable(k.name(), excused)).toList();
        String listed = gone.stream().limit(LISTED).map(k -> k.name() + " (baseline " + k.baseCount() + "×, "
                + Formats.duration(Duration.ofNanos(k.baseTotalNs())) + ")").collect(Collectors.joining(", "))
                + excusedNote(excused, "this run");
        Verdicts.check(Checks.count(Verdict.Kind.BASELINE, "", "baseline kernels missing from the run", "≤",
                gone.size(), 0, listed, gone.isEmpty()), () -> failure("%s", gone.size()
                + " baseline kernel(s) missing from the run, budget 0: " + listed));
        return myself;
    }

    /** Whether the kernel ran only in step kinds that are not compared (then adds it to {@code excused}). */
    private boolean onlyIncomparable(String kernel, List<String> excused) {
        List<StageDelta> with = actual.stages().stream()
                .filter(s -> s.kernels().stream().anyMatch(k -> k.name().equals(kernel)
                        && (k.count() > 0 || k.baseCount() > 0)))
                .toList();
        boolean only = !with.isEmpty() && with.stream().noneMatch(StageDelta::comparable);
        if (only) {
            excused.add(kernel + " (" + with.stream().map(s -> s.stage().name()).collect(Collectors.joining("/"))
                    + ")");
        }
        return only;
    }

    private static String excusedNote(List<String> excused, String side) {
        return excused.isEmpty() ? "" : "; incomparable, not counted: " + excused.size() + " kernel(s) only in step"
                + " kinds not compared (not in " + side + ", or batched differently): " + excused.stream().limit(LISTED)
                .collect(Collectors.joining(", "));
    }

    private String windowTotalsNote() {
        return actual.windowTotalsOnly().map(w -> "; window totals, not per step kind: " + w).orElse("");
    }

    /**
     * A comparison that could not be made (no step kind comparable): a WARN verdict, not enforced, since there is
     * nothing to hold the run to; the detail says why and what to change.
     */
    private static Verdict incomparable(String measure, double tolerance, String detail) {
        return new Verdict(Verdict.Kind.BASELINE, "", measure, "±", 0, tolerance, "", "incomparable",
                Formats.percent(tolerance), null, "incomparable: " + detail, false, false);
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

    private static String describe(PerStep p) {
        StageDelta s = p.stage();
        KernelDelta k = p.kernel();
        return Formats.duration(Duration.ofNanos(Math.round(s.nsPerUnit(k)))) + " per " + s.stage() + " " + s.unit()
                + " vs baseline " + Formats.duration(Duration.ofNanos(Math.round(s.baseNsPerUnit(k)))) + " ("
                + percent(p.change())
                + ", count per step " + String.format(Locale.ROOT, "%.2f → %.2f", (double) k.baseCount()
                / s.baseSteps(), (double) k.count() / s.steps()) + ", " + s.stage() + " steps " + s.baseSteps()
                + " → " + s.steps() + ")";
    }

    private static String change(KernelDelta k) {
        return percent(k.relativeChange());
    }

    private static String percent(double change) {
        return String.format(Locale.ROOT, "%+.1f%%", 100 * change);
    }
}
