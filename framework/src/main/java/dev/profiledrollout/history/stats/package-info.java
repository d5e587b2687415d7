/**
 * Regression threshold models for performance history: given this run's value (or raw samples) and earlier runs'
 * values (or the previous run's samples), decide {@link dev.profiledrollout.history.stats.Change#REGRESSION},
 * {@code IMPROVEMENT}, {@code NO_CHANGE} or {@code INSUFFICIENT_HISTORY}. The models follow Bencher's thresholds
 * (https://bencher.dev/docs/explanation/thresholds/): relative change
 * ({@link dev.profiledrollout.history.stats.RelativeChange}, at least 1 run of history), z-score
 * ({@link dev.profiledrollout.history.stats.ZScore}, at least 2), Student's t
 * ({@link dev.profiledrollout.history.stats.StudentT}, at least 2) and, on raw samples, Mann–Whitney U
 * ({@link dev.profiledrollout.history.stats.MannWhitney}, at least 8 samples per run) and Welch's t
 * ({@link dev.profiledrollout.history.stats.Welch}, at least 2 samples per run). Definitions and sources:
 * {@code docs/METRICS.md} §8. Pure functions of their inputs: no storage, thread-safe, inputs are not modified.
 *
 * <h2>Usage</h2>
 * <pre>{@code
 * Measure ttft = new Measure("p99 TTFT", "ms", Direction.LOWER_IS_BETTER);
 * ThresholdResult r = new StudentT(20, Boundaries.upper(0.99)).evaluate(ttft, 312, last20P99Ttft);
 * if (r.regressed()) System.out.println(r.describe());
 * }</pre>
 */
package dev.profiledrollout.history.stats;
