package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.STEPS_STRICT;

import dev.profiledrollout.Backend;
import dev.profiledrollout.backend.BackendSupport;
import dev.profiledrollout.report.CapturedSteps;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * The engine steps a capture holds against {@code @ProfiledRollout(numSteps)}: the counts {@code summary.json} shows
 * ({@link CapturedSteps}) and the {@code CAPTURE} verdict {@code "steps captured"}.
 *
 * <p>Both engines bound a capture in engine iterations, and their traces annotate each one: SGLang's {@code num_steps}
 * counts scheduler forward batches (sgl-project/sglang {@code python/sglang/srt/managers/scheduler_profiler_mixin.py}:
 * the capture stops once {@code forward_ct} passes the target; per stage with {@code profile_by_stage},
 * {@code python/sglang/srt/utils/profile_utils.py}), each a {@code step[…]} span; vLLM's {@code max_iterations} counts
 * worker steps once {@code delay_iterations} have passed (vllm-project/vllm {@code vllm/profiler/wrapper.py},
 * {@code vllm/config/profiler.py}), each an {@code execute_…} span. So the steps a trace holds are its
 * {@link dev.profiledrollout.trace.StepStats}.
 */
final class CaptureSteps {

    private CaptureSteps() {
    }

    /**
     * @param strictSteps {@code @ProfiledRollout(strictSteps)}
     * @return whether a step mismatch fails the test: the annotation, else {@link
     *         dev.profiledrollout.ProfiledRolloutKeys#STEPS_STRICT}
     * @throws ExtensionConfigurationException when the key is neither {@code true} nor {@code false}
     */
    static boolean strict(boolean strictSteps, Settings settings) {
        Optional<String> value = settings.get(STEPS_STRICT);
        if (value.isPresent() && !value.get().equalsIgnoreCase("true") && !value.get().equalsIgnoreCase("false")) {
            throw new ExtensionConfigurationException("Invalid " + STEPS_STRICT + "='" + value.get() + "': expected "
                    + "true (a capture with another number of steps than numSteps fails the test) or false (it is a "
                    + "warning)");
        }
        return strictSteps || value.map(Boolean::parseBoolean).orElse(false);
    }

    /**
     * @return the steps per rank trace, empty when the capture's files hold no step annotations to count (an nsys
     *         capture, a capture without trace files, SGLang without the {@code CPU} activity that records the spans)
     */
    static Optional<CapturedSteps> count(WindowSpec spec, TraceSet trace, boolean strict) {
        if (!spec.writesTraceFiles() || trace == null || trace.traces().isEmpty()
                || !BackendSupport.of(spec.backend()).annotatesSteps(spec.activities())) {
            return Optional.empty();
        }
        Map<String, Integer> captured = new LinkedHashMap<>();
        for (TraceSummary t : trace.traces()) {
            String label = trace.rankLabel(t);
            captured.put(captured.containsKey(label) ? label + " " + t.file().getFileName() : label,
                    t.details().steps().size());
        }
        return Optional.of(CapturedSteps.of(spec.numSteps(), captured, strict));
    }

    /**
     * @param phase the {@code @RolloutPhase} of the capture, null for a whole window
     * @return the verdict, empty when the capture had no step bound ({@code numSteps} unset)
     */
    static Optional<Verdict> verdict(CapturedSteps steps, Backend backend, String phase) {
        if (steps.requested() == null) {
            return Optional.empty();
        }
        int requested = steps.requested();
        boolean passed = steps.exact();
        String actualText = steps.min() == steps.max() ? String.valueOf(steps.min())
                : steps.min() + " (" + steps.max() + " on the busiest rank)";
        Verdict verdict = Verdict.of(Verdict.Kind.CAPTURE, "steps captured", "=", steps.min(), requested, "steps",
                actualText, String.valueOf(requested), detail(steps, backend), passed);
        if (phase != null) {
            verdict = verdict.withScope(phase);
        }
        return Optional.of(steps.strict() ? verdict : verdict.asWarning());
    }

    /** Per-rank counts, then what to change for each way the counts missed. */
    private static String detail(CapturedSteps steps, Backend backend) {
        int n = steps.requested();
        StringBuilder text = new StringBuilder("per rank: ").append(steps.captured().entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")));
        if (steps.min() == 0) {
            text.append("; a trace without steps has no step annotations (SGLang step[…], vLLM execute_…,"
                    + " ProfilerStep#N): no batch ran while it recorded, or the engine does not annotate its steps");
        }
        if (steps.min() < n) {
            text.append("; the load ended before ").append(n).append(" steps: raise @RolloutLoad(requests) or"
                    + " outputTokens, or lower numSteps");
        }
        if (steps.max() > n) {
            text.append("; ").append(BackendSupport.of(backend).overCaptureFix(n));
        }
        return text.toString();
    }

    /** The console line for a verdict that did not pass. */
    static String warning(Verdict verdict, String testName) {
        return String.format(Locale.ROOT, "%s: %s", testName, verdict.describe());
    }
}
