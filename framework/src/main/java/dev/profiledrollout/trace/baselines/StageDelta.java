package dev.profiledrollout.trace.baselines;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.StepStats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.apiguardian.api.API;

/**
 * One step kind of a {@link BaselineDiff}: the steps each side captured and the kernels attributed to them, compared
 * per unit of work. A window that captured 3 prefills and 7 decodes and one that captured 1 and 15 have different
 * kernel totals for the same code; their kernel time <em>per decode step</em> is what stays put. Immutable.
 *
 * <h2>Unit</h2>
 * Prefill (and mixed) steps are compared per token when both sides know their tokens ({@link #perToken()}): their
 * GEMMs have one row per token and are compute-bound, so their time follows the tokens of the batch, which vary with
 * how many prompts were batched together. Decode steps (and steps of unknown kind) are compared per step: at the batch
 * sizes a profile usually sees, a decode step reads every weight once whatever its batch size, so its time follows the
 * number of steps. (Decode attention itself grows with batch size × context; a decode batch size that differs between
 * baseline and run shows up there.) Token counts come from the step annotations: SGLang writes {@code toks=} on
 * EXTEND steps only, other forward modes (MIXED included) carry just {@code bs=} (sgl-project/sglang
 * {@code python/sglang/srt/utils/profile_utils.py}, {@code build_step_span_name}), so SGLang's mixed steps are
 * compared per step; vLLM's {@code execute_context_N(T)_generation_M(T)} carries tokens for every step.
 *
 * @param stage        the step kind, not null
 * @param baseSteps    steps of this kind in the baseline, 0 when it had none
 * @param steps        steps of this kind in the run, 0 when it had none
 * @param baseTokens   Σ tokens of the baseline's steps, when known
 * @param tokens       Σ tokens of the run's steps, when known
 * @param baseRequests Σ batch size of the baseline's steps, when known
 * @param requests     Σ batch size of the run's steps, when known
 * @param baseKernelNs Σ kernel time of the baseline's steps of this kind, ns
 * @param kernelNs     Σ kernel time of the run's steps of this kind, ns
 * @param kernels      per kernel name, count and time within steps of this kind on either side (window totals of
 *                     this kind, not per step), largest |Δ time per step| first
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record StageDelta(StepStats.Stage stage, long baseSteps, long steps, OptionalLong baseTokens,
                         OptionalLong tokens, OptionalLong baseRequests, OptionalLong requests, long baseKernelNs,
                         long kernelNs, List<KernelDelta> kernels) {

    /**
     * How far the mean batch of a step kind (requests and tokens per step) may differ between the sides before the
     * kind counts as incomparable, relative: 10 %.
     */
    public static final double SHAPE_TOLERANCE = 0.10;

    /** Which sides captured steps of this kind. */
    public enum Presence { BOTH, BASELINE_ONLY, RUN_ONLY }

    public StageDelta {
        Objects.requireNonNull(stage, "stage");
        Objects.requireNonNull(baseTokens, "baseTokens");
        Objects.requireNonNull(tokens, "tokens");
        Objects.requireNonNull(baseRequests, "baseRequests");
        Objects.requireNonNull(requests, "requests");
        kernels = List.copyOf(kernels);
    }

    /** {@link Presence#BOTH} when both sides captured steps of this kind. */
    public Presence presence() {
        return baseSteps > 0 && steps > 0 ? Presence.BOTH : baseSteps > 0 ? Presence.BASELINE_ONLY
                : Presence.RUN_ONLY;
    }

    /**
     * Why the steps of this kind did different work on the two sides, when they did: the mean batch size or tokens per
     * step differ by more than {@link #SHAPE_TOLERANCE} (prefills that batched 1 prompt against 3, decode batches of 4
     * against 2). Batch composition changes which kernels dominate (a prefill's LM head runs once per request, its
     * GEMMs once per token; decode attention grows with the batch), so no one normalisation makes such steps
     * comparable. Empty when both sides captured this kind with a like batch, or the annotations do not say.
     */
    public java.util.Optional<String> shapeDiffers() {
        if (presence() != Presence.BOTH) {
            return java.util.Optional.empty();
        }
        List<String> differ = new ArrayList<>();
        perStep("requests", baseRequests, requests).ifPresent(differ::add);
        perStep("tokens", baseTokens, tokens).ifPresent(differ::add);
        return differ.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(stage + " batches differ: "
                + String.join(", ", differ));
    }

    private java.util.Optional<String> perStep(String what, OptionalLong base, OptionalLong run) {
        if (base.isEmpty() || run.isEmpty() || base.getAsLong() <= 0) {
            return java.util.Optional.empty();
        }
        double b = (double) base.getAsLong() / baseSteps;
        double r = (double) run.getAsLong() / steps;
        return Math.abs(r / b - 1) > SHAPE_TOLERANCE ? java.util.Optional.of(String.format(java.util.Locale.ROOT,
                "%.1f %s per step in the baseline, %.1f in the run", b, what, r)) : java.util.Optional.empty();
    }

    /** Whether this kind can be compared: both sides captured it, with a like batch ({@link #shapeDiffers()}). */
    public boolean comparable() {
        return presence() == Presence.BOTH && shapeDiffers().isEmpty();
    }

    /**
     * Whether this kind is compared per token: a prefill or mixed kind whose tokens both sides know (and are
     * positive); otherwise per step.
     */
    public boolean perToken() {
        return (stage == StepStats.Stage.PREFILL || stage == StepStats.Stage.MIXED) && baseTokens.orElse(0) > 0
                && tokens.orElse(0) > 0;
    }

    /** {@code "token"} when {@link #perToken()}, else {@code "step"}. */
    public String unit() {
        return perToken() ? "token" : "step";
    }

    /** The baseline's tokens when {@link #perToken()}, else its steps. */
    public long baseUnits() {
        return perToken() ? baseTokens.getAsLong() : baseSteps;
    }

    /** The run's tokens when {@link #perToken()}, else its steps. */
    public long units() {
        return perToken() ? tokens.getAsLong() : steps;
    }

    /**
     * Kernel time of this kind per {@link #unit()}: run / baseline − 1 (0 when both are 0, +∞ when only the run has
     * time).
     *
     * @throws IllegalStateException when one side captured no step of this kind
     */
    public double kernelTimeChange() {
        requireBoth();
        return ratioChange(kernelNs, units(), baseKernelNs, baseUnits());
    }

    /**
     * One kernel's time per {@link #unit()} of this kind: run / baseline − 1; 0 when both are 0, +∞ when only the run
     * has time, −1 when only the baseline has.
     *
     * @throws IllegalStateException when one side captured no step of this kind
     */
    public double change(KernelDelta kernel) {
        requireBoth();
        return ratioChange(kernel.totalNs(), units(), kernel.baseTotalNs(), baseUnits());
    }

    /** The kernel's time per {@link #unit()} in the run, ns (0 when the run had no such step). */
    public double nsPerUnit(KernelDelta kernel) {
        return steps == 0 ? 0 : (double) kernel.totalNs() / units();
    }

    /** The kernel's time per {@link #unit()} in the baseline, ns (0 when the baseline had no such step). */
    public double baseNsPerUnit(KernelDelta kernel) {
        return baseSteps == 0 ? 0 : (double) kernel.baseTotalNs() / baseUnits();
    }

    /**
     * One kernel's time per step of this kind: (run time / run steps) / (baseline time / baseline steps) − 1; 0 when
     * both are 0, +∞ when only the run has time, −1 when only the baseline has.
     *
     * @throws IllegalStateException when one side captured no step of this kind (nothing per step to compare)
     */
    public double perStepChange(KernelDelta kernel) {
        requireBoth();
        return ratioChange(kernel.totalNs(), steps, kernel.baseTotalNs(), baseSteps);
    }

    /** Like {@link #perStepChange} but per token; empty unless both sides know a positive token count. */
    public OptionalDouble perTokenChange(KernelDelta kernel) {
        requireBoth();
        if (baseTokens.orElse(0) <= 0 || tokens.orElse(0) <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(ratioChange(kernel.totalNs(), tokens.getAsLong(), kernel.baseTotalNs(),
                baseTokens.getAsLong()));
    }

    /** The kernel's time per step of this kind in the run, ns (0 when the run had no such step). */
    public double nsPerStep(KernelDelta kernel) {
        return steps == 0 ? 0 : (double) kernel.totalNs() / steps;
    }

    /** The kernel's time per step of this kind in the baseline, ns (0 when the baseline had no such step). */
    public double baseNsPerStep(KernelDelta kernel) {
        return baseSteps == 0 ? 0 : (double) kernel.baseTotalNs() / baseSteps;
    }

    private void requireBoth() {
        if (presence() != Presence.BOTH) {
            throw new IllegalStateException(stage + " steps were captured on one side only (baseline " + baseSteps
                    + ", run " + steps + "): nothing per step to compare");
        }
    }

    private static double ratioChange(long ns, long per, long baseNs, long basePer) {
        if (baseNs == 0) {
            return ns == 0 ? 0 : Double.POSITIVE_INFINITY;
        }
        return ((double) ns / per) / ((double) baseNs / basePer) - 1;
    }

    /** Pairs the stages of a baseline and a run; every stage of either side, in {@link StepStats.Stage} order. */
    static List<StageDelta> compare(List<StageKernels> baseline, List<StageKernels> run) {
        List<StageDelta> list = new ArrayList<>();
        for (StepStats.Stage stage : StepStats.Stage.values()) {
            StageKernels b = baseline.stream().filter(s -> s.stage() == stage).findFirst().orElse(null);
            StageKernels r = run.stream().filter(s -> s.stage() == stage).findFirst().orElse(null);
            if (b == null && r == null) {
                continue;
            }
            Map<String, long[]> byName = new LinkedHashMap<>(); // baseCount, count, baseNs, ns
            if (b != null) {
                b.kernels().forEach(k -> {
                    long[] m = byName.computeIfAbsent(k.name(), n -> new long[4]);
                    m[0] += k.count();
                    m[2] += k.totalNs();
                });
            }
            if (r != null) {
                r.kernels().forEach(k -> {
                    long[] m = byName.computeIfAbsent(k.name(), n -> new long[4]);
                    m[1] += k.count();
                    m[3] += k.totalNs();
                });
            }
            long baseSteps = b == null ? 0 : b.steps();
            long steps = r == null ? 0 : r.steps();
            List<KernelDelta> kernels = new ArrayList<>();
            byName.forEach((name, m) -> kernels.add(new KernelDelta(name, m[0], m[1], m[2], m[3])));
            kernels.sort(Comparator.comparingDouble((KernelDelta k) -> -Math.abs(
                    (steps == 0 ? 0 : (double) k.totalNs() / steps)
                            - (baseSteps == 0 ? 0 : (double) k.baseTotalNs() / baseSteps)))
                    .thenComparing(KernelDelta::name));
            list.add(new StageDelta(stage, baseSteps, steps, b == null ? OptionalLong.empty() : b.tokens(),
                    r == null ? OptionalLong.empty() : r.tokens(), b == null ? OptionalLong.empty() : b.requests(),
                    r == null ? OptionalLong.empty() : r.requests(), b == null ? 0 : b.kernelNs(),
                    r == null ? 0 : r.kernelNs(), kernels));
        }
        return list;
    }
}
