package dev.profiledrollout;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.apiguardian.api.API;

/**
 * Marks the static field holding the engine a {@link ProfiledRollout} class runs against, typically a Testcontainers
 * engine from the {@code profiled-rollout-containers} module:
 *
 * <pre>{@code
 * @ProfiledRollout(numSteps = 10)
 * class DecodeOnH100Test {
 *     @RolloutEngine
 *     static SglangContainer engine = new SglangContainer("lmsysorg/sglang:v0.5.5")
 *             .withModel("Qwen/Qwen3-8B").withGpus().withProfilerDirectory(Path.of("target/profiles"));
 *     ...
 * }
 * }</pre>
 *
 * The field's type must implement {@link dev.profiledrollout.engine.ManagedEngine}. The extension starts the engine
 * once for the class when it is not already running and stops it after the class (an engine the test started itself
 * is left to the test). It takes precedence over {@code profiledrollout.engine}.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@API(status = EXPERIMENTAL, since = "0.1")
public @interface RolloutEngine {
}
