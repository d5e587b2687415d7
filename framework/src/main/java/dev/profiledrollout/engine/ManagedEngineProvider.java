package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.Backend;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;
import org.apiguardian.api.API;

/**
 * Creates the engine used when {@code profiledrollout.engine=container} and the test class declares no
 * {@link dev.profiledrollout.RolloutEngine} field. Found with {@link java.util.ServiceLoader}; the
 * {@code profiled-rollout-containers} module provides one that builds an {@code SglangContainer} or
 * {@code VllmContainer} from {@code profiledrollout.container.*} keys.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public interface ManagedEngineProvider {

    /**
     * @param backend      the backend the test profiles
     * @param settings     reads a configuration key (JUnit parameter, system property or environment), empty when unset
     * @param profilerRoot a directory under the test output that the engine's profiler directory may be created in
     * @return a new, not yet started engine
     * @throws IllegalArgumentException when a key has an invalid value; the message names the key
     */
    ManagedEngine create(Backend backend, Function<String, Optional<String>> settings, Path profilerRoot);
}
