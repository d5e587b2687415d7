package dev.profiledrollout.verdict;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.ArrayList;
import java.util.List;
import org.apiguardian.api.API;
import org.opentest4j.MultipleFailuresError;

/**
 * All budget failures of one test (or one soft-assertion block), thrown once after every budget was evaluated.
 *
 * <p>The message is a heading, {@code "N of M budgets failed"} (N failed enforced verdicts, M verdicts recorded) with the
 * measure of each failed one (its scope first, each cut to {@value #MEASURE_CHARS} characters), then each failure's
 * message on its own numbered line, for example:
 * <pre>
 * 2 of 3 budgets failed: p99 TTFT; GPU busy fraction
 *   1) p99 TTFT was 312 ms, budget &lt; 250 ms (+24.8%); 41 of 256 requests above budget
 *   2) GPU busy fraction was 41.0%, budget &gt; 60.0% (-31.7%); busy 1.23 s of 3.00 s GPU span over 1 device(s)
 * </pre>
 * When the body then stopped at an assertion that was not a soft budget, the heading says that later budgets were
 * not evaluated and that assertion is the last failure. {@link #getFailures()} holds the individual errors, so IDEs
 * and opentest4j-aware tools can show each one (with its actual/expected values) on its own.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class BudgetFailuresError extends MultipleFailuresError {

    private static final long serialVersionUID = 1L;

    /** How much of each failed measure the heading shows. */
    static final int MEASURE_CHARS = 80;

    private final String message;

    private BudgetFailuresError(String heading, List<? extends Throwable> failures) {
        super(heading, failures);
        StringBuilder text = new StringBuilder(heading);
        for (int i = 0; i < failures.size(); i++) {
            Throwable f = failures.get(i);
            String m = f.getMessage() == null ? f.getClass().getName() : f.getMessage().strip();
            text.append("\n  ").append(i + 1).append(") ").append(m.replace("\n", "\n     "));
        }
        this.message = text.toString();
    }

    /**
     * @param verdicts  every verdict recorded, for the counts of the heading
     * @param failures  the collected budget failures, in order, not empty
     * @param stoppedBy an assertion failure that ended the body early and is not among {@code failures} (added as the
     *                  last failure), or null
     * @return the combined error
     */
    public static BudgetFailuresError of(List<Verdict> verdicts, List<? extends Throwable> failures,
            Throwable stoppedBy) {
        List<Verdict> failedVerdicts = verdicts.stream().filter(v -> v.outcome() == Verdict.Outcome.FAIL).toList();
        String heading = failedVerdicts.size() + " of " + verdicts.size() + " budgets failed";
        if (!failedVerdicts.isEmpty()) {
            heading += ": " + failedVerdicts.stream().map(BudgetFailuresError::name).distinct()
                    .collect(java.util.stream.Collectors.joining("; "));
        }
        List<Throwable> all = new ArrayList<>(failures);
        if (stoppedBy != null) {
            all.add(stoppedBy);
            heading += "; then the test stopped at an assertion failure, so later budgets were not evaluated";
        }
        return new BudgetFailuresError(heading, all);
    }

    /** {@code [PREFILL] p99 TTFT}: the verdict's scope and measure, cut to {@value #MEASURE_CHARS} characters. */
    private static String name(Verdict v) {
        String name = (v.scope().isEmpty() ? "" : "[" + v.scope() + "] ") + v.measure();
        return name.length() > MEASURE_CHARS ? name.substring(0, MEASURE_CHARS - 1) + "…" : name;
    }

    @Override
    public String getMessage() {
        return message;
    }
}
