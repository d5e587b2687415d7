package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.StepStats;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apiguardian.api.API;

/**
 * The engine steps one capture holds, per rank trace, against the number the test asked for: {@code summary.json}'s
 * {@code steps}, e.g. {@code {"requested":10,"captured":{"TP-0":9,"TP-1":9},"min":9,"max":9,"strict":false}}.
 *
 * <p>A step is one engine iteration as {@link StepStats} recognises it in the trace (SGLang {@code step[…]} spans,
 * vLLM {@code execute_…} spans, else torch's {@code ProfilerStep#N}). That is the unit both engines bound a capture
 * in: SGLang's {@code num_steps} counts scheduler forward batches ({@code forward_ct}; sgl-project/sglang
 * {@code python/sglang/srt/managers/scheduler_profiler_mixin.py}, per stage with {@code profile_by_stage} in
 * {@code python/sglang/srt/utils/profile_utils.py}), vLLM's {@code max_iterations} counts worker steps after
 * {@code delay_iterations} (vllm-project/vllm {@code vllm/profiler/wrapper.py}, {@code vllm/config/profiler.py}).
 *
 * @param requested the steps asked for ({@code @ProfiledRollout(numSteps)}), null when the capture had no step bound
 * @param captured  steps per rank trace, keyed by the trace's label, in trace order; unmodifiable, never null (null,
 *                  as read from a file without it, becomes empty)
 * @param min       the fewest steps over ranks, 0 without traces
 * @param max       the most steps over ranks, 0 without traces
 * @param strict    whether a mismatch fails the test ({@code @ProfiledRollout(strictSteps)} or
 *                  {@code profiledrollout.steps.strict}) rather than warns
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record CapturedSteps(Integer requested, Map<String, Integer> captured, int min, int max, boolean strict) {

    public CapturedSteps {
        captured = captured == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(captured));
    }

    /**
     * @param requested the steps asked for, or null
     * @param captured  steps per rank trace label, in trace order
     * @param strict    whether a mismatch fails the test
     * @return the counts with their minimum and maximum
     */
    public static CapturedSteps of(Integer requested, Map<String, Integer> captured, boolean strict) {
        int min = captured.values().stream().mapToInt(Integer::intValue).min().orElse(0);
        int max = captured.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        return new CapturedSteps(requested, captured, min, max, strict);
    }

    /** @return whether a step bound was asked for and every rank holds exactly that many steps */
    public boolean exact() {
        return requested != null && !captured.isEmpty() && min == requested && max == requested;
    }
}
