/**
 * The public face of Profiled Rollout: {@link dev.profiledrollout.ProfiledRollout} and
 * {@link dev.profiledrollout.RolloutLoad} on a JUnit 5 test class, the {@link dev.profiledrollout.RolloutSession}
 * parameter the test receives, and the {@link dev.profiledrollout.RolloutResult} it asserts on with
 * {@link dev.profiledrollout.assertions.ProfiledRolloutAssertions}.
 *
 * <h2>Configuration</h2>
 * Annotations say what a test measures; where the engine is comes from outside, as a JUnit configuration parameter,
 * a system property, or an environment variable {@code PROFILEDROLLOUT_…} (upper case, dots as underscores):
 * <ul>
 *   <li>{@code profiledrollout.engine}: {@code embedded} (default; the in-process simulator), {@code attach}, or
 *       {@code container} (a Testcontainers engine from {@code profiledrollout.container.*}; see
 *       {@link dev.profiledrollout.RolloutEngine} for declaring one in code)</li>
 *   <li>{@code profiledrollout.engine.url}: one or more comma-separated engine base URLs, with {@code attach};
 *       {@code profiledrollout.router.url}: a router whose {@code /workers} are profiled;
 *       {@code profiledrollout.prefill.url} / {@code .decode.url}: prefill/decode engines</li>
 *   <li>{@code profiledrollout.api.key}: bearer token (read from the environment; never logged or reported)</li>
 *   <li>{@code profiledrollout.trace.dir} / {@code profiledrollout.trace.dir.server}: where this machine reads the
 *       traces the server writes under the server path (a shared filesystem)</li>
 *   <li>{@code profiledrollout.output.dir}: reports and collected traces; default {@code target/profiled-rollout}</li>
 *   <li>{@code profiledrollout.trace.timeout}, {@code .load.timeout}, {@code .health.timeout}, {@code .stop.timeout},
 *       {@code .read.timeout}: the bounds of every wait (ISO-8601 or seconds)</li>
 *   <li>{@code profiledrollout.baseline.dir} / {@code .baseline.update}: per-test kernel baselines</li>
 * </ul>
 * The README's configuration table lists every key with its default.
 */
package dev.profiledrollout;
