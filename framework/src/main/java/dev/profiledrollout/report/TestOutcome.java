package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.verdict.BudgetFailuresError;
import dev.profiledrollout.verdict.Verdict;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * How one profiled test ended, as {@code summary.json}'s top-level {@code outcome} states it:
 * {@code {"status":"PASSED"|"FAILED"|"ERROR","verdicts":M,"failed":F,"warnings":W,"message":"…"}}.
 *
 * @param status   {@link Status#PASSED}, {@link Status#FAILED} (assertions or budget verdicts failed) or
 *                 {@link Status#ERROR} (the test ended with an exception that is not an assertion failure: the engine
 *                 did not start, a configuration error, a failed profile window, an exception in the body)
 * @param verdicts number of verdicts recorded (M)
 * @param failed   verdicts with outcome {@link Verdict.Outcome#FAIL} (F)
 * @param warnings verdicts with outcome {@link Verdict.Outcome#WARN} (W)
 * @param message  the first line of the failure the test reported (an exception's simple class name first when it is
 *                 not an assertion failure), saying when later budgets were not evaluated; {@code ""} when passed
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record TestOutcome(Status status, int verdicts, int failed, int warnings, String message) {

    /** How the test ended. */
    @API(status = EXPERIMENTAL, since = "0.1")
    public enum Status {
        /** No failure. Warnings may exist. */
        PASSED,
        /** An assertion or a budget failed. */
        FAILED,
        /** An exception that is not an assertion failure ended the test. */
        ERROR
    }

    public TestOutcome {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(message, "message");
    }

    /**
     * @param verdicts    the verdicts recorded, not null
     * @param failure     what the test reported, or null when it passed
     * @param bodyStopped whether {@code failure} was thrown by the test body, so that budgets after it were not
     *                    evaluated (not said again for a {@link BudgetFailuresError}, whose heading says so)
     * @return the outcome
     */
    public static TestOutcome of(List<Verdict> verdicts, Throwable failure, boolean bodyStopped) {
        int failed = (int) verdicts.stream().filter(v -> v.outcome() == Verdict.Outcome.FAIL).count();
        int warnings = (int) verdicts.stream().filter(v -> v.outcome() == Verdict.Outcome.WARN).count();
        if (failure == null) {
            if (failed == 0) {
                return new TestOutcome(Status.PASSED, verdicts.size(), 0, warnings, "");
            }
            String first = verdicts.stream().filter(v -> v.outcome() == Verdict.Outcome.FAIL).findFirst()
                    .orElseThrow().describe();
            return new TestOutcome(Status.FAILED, verdicts.size(), failed, warnings, first);
        }
        boolean assertion = failure instanceof AssertionError;
        String line = firstLine(failure.getMessage());
        // Our own exceptions and JUnit's configuration errors say what failed in their message; anything else (an
        // IndexOutOfBoundsException in the body) needs its type to be understood.
        boolean selfExplaining = assertion || !line.isEmpty() && (failure.getClass().getName()
                .startsWith("dev.profiledrollout.") || failure.getClass().getName().startsWith("org.junit."));
        String message = selfExplaining ? line
                : failure.getClass().getSimpleName() + (line.isEmpty() ? "" : ": " + line);
        if (bodyStopped && !(failure instanceof BudgetFailuresError)) {
            message += " (the test stopped here: budgets after this point were not evaluated)";
        }
        return new TestOutcome(assertion ? Status.FAILED : Status.ERROR, verdicts.size(), failed, warnings, message);
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        String stripped = text.strip();
        int newline = stripped.indexOf('\n');
        return (newline < 0 ? stripped : stripped.substring(0, newline)).strip();
    }
}
