/**
 * AssertJ assertions on profiled rollouts, reached through {@link dev.profiledrollout.assertions.ProfiledRolloutAssertions}:
 * latency percentiles against {@link java.time.Duration} budgets, kernel selections (count, total and mean time,
 * share of GPU kernel time), GPU busy fraction and busy imbalance across ranks. Failure messages name the measure,
 * the actual value, the budget and the gap.
 */
package dev.profiledrollout.assertions;
