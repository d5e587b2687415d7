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
 *   <li>{@code profiledrollout.engine}: {@code embedded} (default; the in-process simulator) or {@code attach}</li>
 *   <li>{@code profiledrollout.engine.url}: the SGLang server's base URL, with {@code attach}</li>
 *   <li>{@code profiledrollout.api.key}: bearer token (read from the environment; never logged or reported)</li>
 *   <li>{@code profiledrollout.trace.dir} / {@code profiledrollout.trace.dir.server}: where this machine reads the
 *       traces the server writes under the server path (a shared filesystem)</li>
 *   <li>{@code profiledrollout.output.dir}: reports and collected traces; default {@code target/profiled-rollout}</li>
 *   <li>{@code profiledrollout.trace.timeout}: how long to wait for trace files (ISO-8601 or seconds; default 5 min)</li>
 *   <li>{@code profiledrollout.load.timeout}: how long the load may run (default 10 min)</li>
 * </ul>
 */
package dev.profiledrollout;
