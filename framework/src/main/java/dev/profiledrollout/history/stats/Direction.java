package dev.profiledrollout.history.stats;

import org.apiguardian.api.API;

/**
 * Which way a measure improves: latency ({@code LOWER_IS_BETTER}) or throughput ({@code HIGHER_IS_BETTER}). A value
 * above an upper boundary limit is a regression for the first and an improvement for the second; Bencher's
 * thresholds use the same convention (an upper boundary for latency, a lower one for throughput;
 * https://bencher.dev/docs/explanation/thresholds/).
 */
@API(status = API.Status.EXPERIMENTAL)
public enum Direction {
    LOWER_IS_BETTER,
    HIGHER_IS_BETTER
}
