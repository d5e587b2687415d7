package dev.profiledrollout.trace.baselines;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;
import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TraceSummary;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import org.apiguardian.api.API;

/**
 * The kernels that ran inside the engine steps of one {@link StepStats.Stage stage} (step kind): how many steps of that
 * kind were captured, how many tokens they processed when the step annotations say, and per kernel name the count and
 * time attributed to those steps (attribution as {@link StepStats} describes). Kernels outside every step are in no
 * stage. Immutable.
 *
 * <p>Dividing by {@link #steps()} (or {@link #tokens()}) gives figures that do not depend on how many steps of each
 * kind a profile window happened to capture, which is what makes two runs comparable ({@link TraceBaseline#diff}).
 *
 * @param stage    the step kind, not null
 * @param steps    steps of this kind captured, ≥ 1
 * @param tokens   Σ tokens over those steps when every step's annotation carries a token count ({@link StepStats#tokens()};
 *                 SGLang {@code toks=}, vLLM {@code (T)} counts), else empty
 * @param requests Σ batch size over those steps when every step's annotation carries one ({@link StepStats#batchSize()}),
 *                 else empty
 * @param kernelNs Σ kernel time attributed to those steps, ns
 * @param kernels  per kernel name: count and totalNs within those steps (min/max −1), largest totalNs first
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record StageKernels(StepStats.Stage stage, long steps, OptionalLong tokens, OptionalLong requests, long kernelNs,
                           List<KernelStats> kernels) {

    public StageKernels {
        Objects.requireNonNull(stage, "stage");
        Objects.requireNonNull(tokens, "tokens");
        Objects.requireNonNull(requests, "requests");
        if (steps < 1) {
            throw new IllegalArgumentException("a stage needs at least one step, got " + steps);
        }
        kernels = List.copyOf(kernels);
    }

    /** {@link #kernelNs()} / {@link #steps()}, ns. */
    public double kernelNsPerStep() {
        return (double) kernelNs / steps;
    }

    /**
     * Kernel stats of several traces (for example the TP ranks of one run) merged per stage: steps, tokens, counts and
     * times add up, so per-step figures are averages over ranks. Tokens stay known only if every trace knows them.
     *
     * @return per stage present in any trace, in {@link StepStats.Stage} order
     */
    public static List<StageKernels> merge(Collection<TraceSummary> traces) {
        Map<StepStats.Stage, List<StageKernels>> byStage = new EnumMap<>(StepStats.Stage.class);
        for (TraceSummary t : traces) {
            for (StageKernels s : t.details().stageKernels()) {
                byStage.computeIfAbsent(s.stage(), k -> new ArrayList<>()).add(s);
            }
        }
        List<StageKernels> merged = new ArrayList<>();
        byStage.forEach((stage, parts) -> merged.add(merge(stage, parts)));
        return merged;
    }

    static StageKernels merge(StepStats.Stage stage, List<StageKernels> parts) {
        long steps = 0;
        long ns = 0;
        long tokens = 0;
        boolean tokensKnown = true;
        long requests = 0;
        boolean requestsKnown = true;
        Map<String, long[]> kernels = new LinkedHashMap<>();
        for (StageKernels p : parts) {
            steps += p.steps();
            ns += p.kernelNs();
            tokensKnown &= p.tokens().isPresent();
            tokens += p.tokens().orElse(0);
            requestsKnown &= p.requests().isPresent();
            requests += p.requests().orElse(0);
            for (KernelStats k : p.kernels()) {
                long[] m = kernels.computeIfAbsent(k.name(), n -> new long[2]);
                m[0] += k.count();
                m[1] += k.totalNs();
            }
        }
        return new StageKernels(stage, steps, tokensKnown ? OptionalLong.of(tokens) : OptionalLong.empty(),
                requestsKnown ? OptionalLong.of(requests) : OptionalLong.empty(), ns,
                toStats(kernels));
    }

    @API(status = INTERNAL, since = "0.2")
    public static List<KernelStats> toStats(Map<String, long[]> merged) {
        List<KernelStats> list = new ArrayList<>();
        merged.forEach((name, m) -> list.add(new KernelStats(name, m[0], m[1], -1, -1)));
        list.sort(KernelStats.BY_TOTAL_DESCENDING);
        return list;
    }

    /**
     * Kernel time per engine step, in ms, per step kind, of a run's traces (ranks merged as {@link #merge}): the
     * figure behind the history metrics {@code kernel.extend|decode|mixed.ms_per_step} (EXTEND = {@code PREFILL}).
     * Empty when the traces have no engine step annotations (capture CPU activity to get them).
     */
    public static Map<StepStats.Stage, Double> kernelMsPerStep(Collection<TraceSummary> traces) {
        Map<StepStats.Stage, Double> perStep = new EnumMap<>(StepStats.Stage.class);
        for (StageKernels s : merge(traces)) {
            perStep.put(s.stage(), s.kernelNsPerStep() / 1e6);
        }
        return perStep;
    }
}
