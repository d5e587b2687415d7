/**
 * The JUnit 5 extension behind {@code @ProfiledRollout}; configuration keys and lifecycle are documented on
 * {@link dev.profiledrollout.junit.ProfiledRolloutExtension}. Types under {@code junit.internal} are not API.
 */
package dev.profiledrollout.junit;
