package dev.profiledrollout;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.apiguardian.api.API;

/**
 * Chooses a named engine profile for a {@link ProfiledRollout} class (or one method): its profiled tests read
 * {@code profiledrollout.profiles.<name>.<key>} before the global {@code profiledrollout.<key>}, so one build holds
 * tests against several deployments.
 *
 * <pre>{@code
 * # junit-platform.properties (or -D…, or PROFILEDROLLOUT_PROFILES_VLLM_A100_ENGINE_URL=… in the environment)
 * profiledrollout.profiles.vllm-a100.engine=attach
 * profiledrollout.profiles.vllm-a100.engine.url=http://gpu-a:8000
 * profiledrollout.profiles.vllm-a100.trace.dir=/mnt/gpu-a/traces
 * profiledrollout.profiles.pd-router.engine=attach
 * profiledrollout.profiles.pd-router.router.url=http://pd-router:8000
 *
 * @EngineProfile("vllm-a100")
 * @ProfiledRollout(backend = VLLM)
 * class VllmDecodeTest { ... }
 * }</pre>
 *
 * <h2>Resolution</h2>
 * <ul>
 *   <li>Every key the profile sets overrides the global key for this class; keys it does not set fall back to the
 *       global ones ({@code ProfiledRolloutKeys.PROFILE_KEY_PATTERN}).</li>
 *   <li>A profile that sets any of {@code engine}, {@code engine.url}, {@code router.url}, {@code prefill.url} or
 *       {@code decode.url} names the whole deployment: the global values of those five are not read.</li>
 *   <li>A profile that sets {@code engine} to {@code embedded} or {@code attach} takes precedence over the class's
 *       {@link RolloutEngine @RolloutEngine}.</li>
 *   <li>A profile is defined when any key {@code profiledrollout.profiles.<name>.*} of a known key is set in any
 *       source. An undefined name fails the class's profiled tests with the profiles found and the fix, unless
 *       {@link #optional()}.</li>
 * </ul>
 * The engines are opened once per test class and chosen engine; the closest annotation wins (method, class,
 * enclosing class).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@API(status = EXPERIMENTAL, since = "0.1")
public @interface EngineProfile {

    /** The profile's name: letters, digits, {@code '-'} and {@code '_'}. */
    String value();

    /**
     * {@code true}: when no such profile is defined, the class runs on what it would run on without this annotation
     * (its {@link RolloutEngine @RolloutEngine} stand-in, or the global keys). Lets a suite that starts its own
     * stand-ins be pointed, class by class, at real deployments. Default {@code false}: an undefined profile is an
     * error.
     */
    boolean optional() default false;
}
