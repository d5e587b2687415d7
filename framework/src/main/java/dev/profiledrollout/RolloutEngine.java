package dev.profiledrollout;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.apiguardian.api.API;

/**
 * Marks the static member holding the engine a {@link ProfiledRollout} class runs against: a field, or a no-argument
 * method called once for the class, of one of two types.
 *
 * <ul>
 *   <li>A {@link dev.profiledrollout.engine.ManagedEngine}, typically a Testcontainers engine from the
 *       {@code profiled-rollout-containers} module. The extension starts it once for the class when it is not already
 *       running and stops it after the class (an engine the test started itself is left to the test).
 * <pre>{@code
 * @ProfiledRollout(numSteps = 10)
 * class DecodeOnH100Test {
 *     @RolloutEngine
 *     static SglangContainer engine = new SglangContainer("lmsysorg/sglang:v0.5.5")
 *             .withModel("Qwen/Qwen3-8B").withGpus().withProfilerDirectory(Path.of("target/profiles"));
 *     ...
 * }
 * }</pre></li>
 *   <li>An {@link dev.profiledrollout.engine.EngineTarget}: an engine, router or prefill/decode deployment the class
 *       started itself (a simulator on a free port), as the keys that name it.
 * <pre>{@code
 * @RolloutEngine
 * static EngineTarget router() throws IOException {
 *     RouterSimulator router = RouterSimulator.builder().workers(2).start();
 *     return EngineTarget.router(router.baseUri()).closeAfterClass(router);
 * }
 * }</pre></li>
 * </ul>
 *
 * The member is the class's engine unless the configuration names one itself: {@code profiledrollout.engine} set to
 * {@code embedded} or {@code attach}, globally or in the class's {@link EngineProfile} (then a method is not called and
 * a container not started), so a suite's stand-ins can be replaced by real deployments from the command line. With
 * {@code profiledrollout.engine=container} a declared container is used rather than a default one. A class declares at
 * most one such member.
 */
@Target({ElementType.FIELD, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@API(status = EXPERIMENTAL, since = "0.1")
public @interface RolloutEngine {
}
