package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.simulator.KernelCost;

import java.util.List;
import org.apiguardian.api.API;

/**
 * One recorded scheduler step, kept by a capture until it is exported.
 *
 * @param batch         the step number ({@code forward_ct} after the step)
 * @param startEpochNs  when the step's CPU work began, epoch ns
 * @param cpuOverheadNs CPU scheduling time before the first kernel, ns
 * @param extend        prefill (EXTEND) rather than DECODE
 * @param batchSize     requests in the batch
 * @param tokens        tokens in the forward (prompt tokens for EXTEND, batch size for DECODE)
 * @param kernels       the step's kernels, in launch order, with unscaled durations
 * @param durationsNs   {@code [tp][kernel]}: durations after fault injection, ns
 */
@API(status = INTERNAL, since = "0.1")
public record StepRecord(long batch, long startEpochNs, long cpuOverheadNs, boolean extend, int batchSize,
                         long tokens, List<KernelCost> kernels, long[][] durationsNs) {

    /**
     * SGLang's step span name ({@code docs/TRACES.md} §2): {@code step[EXTEND bs=N toks=M]} or
     * {@code step[DECODE bs=N]}.
     */
    public String spanName() {
        return extend ? "step[EXTEND bs=" + batchSize + " toks=" + tokens + "]" : "step[DECODE bs=" + batchSize + "]";
    }

    /**
     * vLLM's per-step annotation ({@code docs/TRACES.md} §2, {@code vllm/v1/worker/gpu_model_runner.py}):
     * {@code execute_context_{nCtxReqs}({nCtxTokens})_generation_{nGenReqs}({nGenTokens})}. A simulated step is
     * either all prefill or all decode, so one half is always {@code 0(0)}.
     */
    public String vllmAnnotationName() {
        return extend ? "execute_context_" + batchSize + "(" + tokens + ")_generation_0(0)"
                : "execute_context_0(0)_generation_" + batchSize + "(" + tokens + ")";
    }

    /** GPU-busy time of one rank, ns. */
    public long busyNs(int tp) {
        long sum = 0;
        for (long d : durationsNs[tp]) {
            sum += d;
        }
        return sum;
    }

    /** Whole step: CPU overhead plus the slowest rank's busy time, ns. */
    public long durationNs() {
        long max = 0;
        for (int tp = 0; tp < durationsNs.length; tp++) {
            max = Math.max(max, busyNs(tp));
        }
        return cpuOverheadNs + max;
    }
}
