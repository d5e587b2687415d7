package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One budget check's outcome as a budget assertion recorded it: what was measured, how it was compared, the measured
 * value and the budget, and whether it passed.
 *
 * <p>Written to {@code summary.json} as an element of {@code verdicts}:
 * {@code {"measure":"p99 TTFT","relation":"<","actual":312.4,"budget":250.0,"unit":"ms","actualText":"312 ms",
 * "budgetText":"250 ms","passed":false}}.
 *
 * @param measure    what was measured, e.g. {@code "p99 TTFT"}, not null
 * @param relation   {@code <}, {@code ≤}, {@code >}, {@code ≥} or {@code =}, not null
 * @param actual     the measured value in {@code unit}
 * @param budget     the budget (or floor) in {@code unit}
 * @param unit       {@code ms} for durations, empty for plain numbers (shares and fractions are 0..1), not null
 * @param actualText the measured value as the failure message prints it, not null
 * @param budgetText the budget as the failure message prints it, not null
 * @param passed     whether the comparison held
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record Verdict(String measure, String relation, double actual, double budget, String unit, String actualText,
                      String budgetText, boolean passed) {

    public Verdict {
        Objects.requireNonNull(measure, "measure");
        Objects.requireNonNull(relation, "relation");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(actualText, "actualText");
        Objects.requireNonNull(budgetText, "budgetText");
    }

    /** @return one line for consoles and step names, e.g. {@code "FAIL p99 TTFT: 312 ms, budget < 250 ms"} */
    public String describe() {
        return (passed ? "PASS " : "FAIL ") + measure + ": " + actualText + ", budget " + relation + " " + budgetText;
    }
}
