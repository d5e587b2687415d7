/**
 * The public face of Profiled Rollout: {@link dev.profiledrollout.ProfiledRollout} and
 * {@link dev.profiledrollout.RolloutLoad} on a JUnit 5 test class, the {@link dev.profiledrollout.RolloutSession}
 * parameter the test receives, and the {@link dev.profiledrollout.RolloutResult} it asserts on with
 * {@link dev.profiledrollout.assertions.ProfiledRolloutAssertions}.
 *
 * <h2>Configuration</h2>
 * Annotations say what a test measures; where the engine is comes from outside, as a JUnit configuration parameter,
 * a system property, or an environment variable {@code PROFILEDROLLOUT_…}:
 * {@link dev.profiledrollout.ProfiledRolloutKeys} documents every key, its default and where it applies.
 */
package dev.profiledrollout;
