package dev.profiledrollout.trace.baselines;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.StepStats;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apiguardian.api.API;

/**
 * A run compared with a {@link TraceBaseline}: per-kernel Δcount and Δtime over the whole window, new and vanished
 * kernels, the change of total kernel time, and the same per engine step kind ({@link StageDelta}). Immutable.
 *
 * <h2>Like with like</h2>
 * A profile window captures a fixed number of engine steps, but how many of them are prefills (SGLang EXTEND) and how
 * many decodes depends on timing, so window totals of unchanged code differ from run to run. When both sides have
 * per-step-kind figures ({@link #byStage()}), compare those: kernel time per step (or per token) of each kind
 * ({@link StageDelta#change}), and the run's kernel time against what the baseline's per-step times predict for
 * the run's own mix ({@link #kernelTimeByStageChange()}). A step kind captured by one side only cannot be compared
 * ({@link #incomparable()}); when the mixes differ ({@link #mixDiffers()}), window totals ({@link #kernels()},
 * {@link #kernelTimeChange()}) mislead.
 *
 * @param baseline the reference, not null
 * @param run      the run, reduced to the same shape, not null
 * @param kernels  every kernel of either side, window totals, largest |Δtime| first
 * @param stages   every step kind either side captured, in {@link StepStats.Stage} order (empty when either side has
 *                 no per-step-kind figures)
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record BaselineDiff(TraceBaseline baseline, TraceBaseline run, List<KernelDelta> kernels,
                           List<StageDelta> stages) {

    public BaselineDiff {
        Objects.requireNonNull(baseline, "baseline");
        Objects.requireNonNull(run, "run");
        kernels = List.copyOf(kernels);
        stages = baseline.stages().isEmpty() || run.stages().isEmpty() ? List.of() : List.copyOf(stages);
    }

    /** A diff of window totals only. */
    public BaselineDiff(TraceBaseline baseline, TraceBaseline run, List<KernelDelta> kernels) {
        this(baseline, run, kernels, List.of());
    }

    /** Whether both sides have per-step-kind figures, so that {@link #stages()} can be compared. */
    public boolean byStage() {
        return !stages.isEmpty();
    }

    /**
     * Why this diff has window totals only although one side has per-step-kind figures: the baseline lacks them (a
     * baseline file of format version 1, one read from {@code summary.json} or {@code analyze} output, or one
     * recorded without engine step annotations), or the run does (captured without CPU activity, which carries the
     * step annotations). Empty when both sides have them ({@link #byStage()}) or neither does.
     */
    public Optional<String> windowTotalsOnly() {
        if (byStage() || baseline.stages().isEmpty() && run.stages().isEmpty()) {
            return Optional.empty();
        }
        if (baseline.stages().isEmpty()) {
            return Optional.of("the baseline holds window totals only (no per-step-kind figures: an older baseline file,"
                    + " or one recorded without engine step annotations); re-record it to compare per step kind");
        }
        return Optional.of("the run has no engine step annotations (capture CPU activity with GPU), so only window"
                + " totals can be compared");
    }

    /** Step kinds both sides captured with a like batch ({@link StageDelta#comparable()}): those that are compared. */
    public List<StageDelta> comparedStages() {
        return stages.stream().filter(StageDelta::comparable).toList();
    }

    /**
     * Why some or all kernel time cannot be compared per step kind: a step kind captured by one side only (its kernels
     * have no per-step reference), or one whose batches differ ({@link StageDelta#shapeDiffers()}). Empty when every
     * captured kind is comparable, or without per-step-kind figures.
     */
    public Optional<String> incomparable() {
        List<String> reasons = new java.util.ArrayList<>();
        for (StageDelta s : stages) {
            if (s.presence() != StageDelta.Presence.BOTH) {
                reasons.add(s.stage() + " steps in the " + (s.baseSteps() > 0 ? "baseline (" + s.baseSteps()
                        + ") but none in the run" : "run (" + s.steps() + ") but none in the baseline"));
            } else {
                s.shapeDiffers().ifPresent(reasons::add);
            }
        }
        return reasons.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", reasons)
                + ": the step mix differs, so those steps' kernels are not compared");
    }

    /** Whether the two windows captured step kinds in different proportions (window totals then mislead). */
    public boolean mixDiffers() {
        long baseTotal = stages.stream().mapToLong(StageDelta::baseSteps).sum();
        long total = stages.stream().mapToLong(StageDelta::steps).sum();
        return stages.stream().anyMatch(s -> s.baseSteps() * total != s.steps() * baseTotal);
    }

    /** The captured step mix of both sides, e.g. {@code "baseline 1 PREFILL + 15 DECODE steps, run 3 PREFILL + 7 DECODE"}. */
    public String mix() {
        if (!byStage()) {
            return "step mix unknown";
        }
        return "baseline " + mix(true) + ", run " + mix(false);
    }

    private String mix(boolean base) {
        String parts = stages.stream().filter(s -> (base ? s.baseSteps() : s.steps()) > 0)
                .map(s -> (base ? s.baseSteps() : s.steps()) + " " + s.stage()).collect(Collectors.joining(" + "));
        return parts.isEmpty() ? "no steps" : parts + " steps";
    }

    /**
     * The run's kernel time in the step kinds both sides captured, against what the baseline's kernel time per unit of
     * each kind ({@link StageDelta#unit()}: token or step) predicts for the run's own units: {@code Σ run kernelNs /
     * Σ (baseline kernelNs per unit × run units) − 1}. Independent of the step mix; 0 when nothing is compared, +∞
     * when only the run has time.
     */
    public double kernelTimeByStageChange() {
        double expected = 0;
        long actual = 0;
        for (StageDelta s : comparedStages()) {
            expected += (double) s.baseKernelNs() / s.baseUnits() * s.units();
            actual += s.kernelNs();
        }
        if (expected == 0) {
            return actual == 0 ? 0 : Double.POSITIVE_INFINITY;
        }
        return actual / expected - 1;
    }

    /** Kernels of the run that the baseline lacks. */
    public List<KernelDelta> newKernels() {
        return kernels.stream().filter(k -> k.status() == KernelDelta.Status.NEW).toList();
    }

    /** Kernels of the baseline that the run lacks. */
    public List<KernelDelta> vanishedKernels() {
        return kernels.stream().filter(k -> k.status() == KernelDelta.Status.VANISHED).toList();
    }

    /** {@code run.kernelTotalNs / baseline.kernelTotalNs − 1}; 0 when both are 0, +∞ when only the baseline is. */
    public double kernelTimeChange() {
        if (baseline.kernelTotalNs() == 0) {
            return run.kernelTotalNs() == 0 ? 0 : Double.POSITIVE_INFINITY;
        }
        return (double) run.kernelTotalNs() / baseline.kernelTotalNs() - 1;
    }
}
