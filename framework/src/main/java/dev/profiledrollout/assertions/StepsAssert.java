package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import dev.profiledrollout.trace.StepStats;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.ToLongFunction;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on the engine steps of one trace ({@link StepStats}: SGLang {@code step[…]}, vLLM {@code execute_…},
 * {@code ProfilerStep#N}), optionally of one stage. Failure messages name the offending step (its index and
 * annotation), the actual value and the budget; every check records a STEPS {@link Verdict}.
 *
 * <pre>{@code
 * assertThat(result.trace().rank(0).orElseThrow()).steps(Stage.DECODE).maxKernelTime().isLessThan(Duration.ofMillis(12));
 * }</pre>
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class StepsAssert extends AbstractAssert<StepsAssert, List<StepStats>> {

    private final String what;
    private final String scope;

    /**
     * @param steps the steps, in start order, not null
     * @param what  which steps, for messages (e.g. {@code "DECODE steps of TP-0"})
     */
    public StepsAssert(List<StepStats> steps, String what) {
        this(steps, what, "");
    }

    /**
     * @param steps the steps, in start order, not null
     * @param what  which steps, for messages (e.g. {@code "DECODE steps of TP-0"})
     * @param scope the verdicts' scope ({@link Verdict#scope()}), e.g. the rank label; not null
     */
    public StepsAssert(List<StepStats> steps, String what, String scope) {
        super(steps, StepsAssert.class);
        this.what = what;
        this.scope = Objects.requireNonNull(scope, "scope");
    }

    /**
     * Fails when there is no step (the engine wrote no step annotations, or none of this stage); records a STEPS
     * verdict {@code "number of <steps>" ≥ 1}.
     */
    public StepsAssert hasSteps() {
        isNotNull();
        Verdicts.check(stepsVerdict(), () -> failure("%s", noSteps()));
        return myself;
    }

    /** Step durations need steps: without any, fail at once (even with soft budgets). */
    private void requireSteps() {
        isNotNull();
        Verdicts.require(stepsVerdict(), false, () -> failure("%s", noSteps()));
    }

    private Verdict stepsVerdict() {
        return Checks.count(Verdict.Kind.STEPS, scope, "number of " + what, "≥", actual.size(), 1,
                actual.isEmpty() ? "no step annotations of this kind (SGLang step[…], vLLM execute_…, ProfilerStep#N)"
                        : "", !actual.isEmpty());
    }

    private String noSteps() {
        return Formats.scoped(scope) + "no " + what + ": the trace has no step annotations of this kind "
                + "(SGLang step[…], vLLM execute_…, ProfilerStep#N)";
    }

    /** Number of steps (a STEPS verdict). */
    public NumberBudgetAssert count() {
        isNotNull();
        return new NumberBudgetAssert(actual.size(), Verdict.Kind.STEPS, scope, "number of " + what, Formats::plain,
                null);
    }

    /** The largest GPU kernel time attributed to one step; the message names that step. */
    public DurationBudgetAssert maxKernelTime() {
        return max(StepStats::kernelNs, "kernel time");
    }

    /** The longest CPU span of one step; the message names that step. */
    public DurationBudgetAssert maxDuration() {
        return max(StepStats::durationNs, "duration");
    }

    /**
     * A percentile (0–100, nearest rank) of the step durations (CPU span).
     *
     * @param percentile for example 50 or 99
     */
    public DurationBudgetAssert durationPercentile(double percentile) {
        requireSteps();
        List<StepStats> sorted = actual.stream().sorted(Comparator.comparingLong(StepStats::durationNs)).toList();
        int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
        StepStats at = sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
        return new DurationBudgetAssert(Duration.ofNanos(at.durationNs()), Verdict.Kind.STEPS, scope,
                "p" + Formats.plain(percentile) + " duration of " + what,
                budget -> sorted.stream().filter(s -> Duration.ofNanos(s.durationNs()).compareTo(budget) > 0).count()
                        + " of " + sorted.size() + " steps above budget; slowest " + describe(sorted.get(sorted.size() - 1)));
    }

    private DurationBudgetAssert max(ToLongFunction<StepStats> measure, String name) {
        requireSteps();
        int worst = 0;
        for (int i = 1; i < actual.size(); i++) {
            if (measure.applyAsLong(actual.get(i)) > measure.applyAsLong(actual.get(worst))) {
                worst = i;
            }
        }
        StepStats step = actual.get(worst);
        int index = worst;
        return new DurationBudgetAssert(Duration.ofNanos(measure.applyAsLong(step)), Verdict.Kind.STEPS, scope,
                name + " of step #" + index + " " + step.name() + " (the largest of " + actual.size() + " " + what + ")",
                budget -> actual.stream().filter(s -> Duration.ofNanos(measure.applyAsLong(s)).compareTo(budget) > 0)
                        .count() + " of " + actual.size() + " steps above budget");
    }

    private static String describe(StepStats s) {
        return s.name() + " (" + Formats.duration(Duration.ofNanos(s.durationNs())) + ", kernels "
                + Formats.duration(Duration.ofNanos(s.kernelNs())) + ")";
    }
}
