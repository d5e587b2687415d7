/**
 * AssertJ assertions on profiled rollouts, reached through {@link dev.profiledrollout.assertions.ProfiledRolloutAssertions}:
 * latency percentiles against {@link java.time.Duration} budgets, kernel selections (count, total and mean time,
 * share of GPU kernel time), GPU busy fraction and busy imbalance across ranks, engine steps, goodput against an SLO
 * and comparisons with a baseline. Failure messages name the measure, the actual value, the budget and the gap.
 *
 * <h2>Verdicts and soft budgets</h2>
 * Every check records a {@link dev.profiledrollout.verdict.Verdict} (its kind, the scope of the report or rank it came
 * from, actual, budget, gap and a detail line) through {@link dev.profiledrollout.verdict.Verdicts}; the extension
 * writes them to {@code summary.json}. Inside a profiled test budgets are soft: a missed budget does not throw, and
 * the test fails once after its body with all of them ({@link dev.profiledrollout.verdict.BudgetFailuresError};
 * {@code @ProfiledRollout(softBudgets = false)} to fail fast). Checks that later ones depend on (samples, traces, a
 * rank, an SLO) fail at once. {@link dev.profiledrollout.assertions.ProfiledRolloutSoftAssertions} gives the same
 * idiom outside the extension; elsewhere a missed budget throws at once.
 */
package dev.profiledrollout.assertions;
