package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.Backend;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * An engine whose lifecycle the test owns, such as {@code SglangContainer} or {@code VllmContainer} from the
 * {@code profiled-rollout-containers} module: the extension starts it when it is not running, talks to
 * {@link #engineUri()}, and reads the traces the engine writes through {@link #traceDirectory()}.
 *
 * <p>Declared on a test class as a static field annotated {@link dev.profiledrollout.RolloutEngine}.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public interface ManagedEngine {

    /** @return the wire protocol the engine speaks */
    Backend backend();

    /** Starts the engine and returns once it answers {@code /health}; a no-op when already running. */
    void start();

    /** @return whether {@link #start()} completed and the engine has not been stopped */
    boolean isRunning();

    /** Stops the engine; idempotent. */
    void stop();

    /** @return the engine's base URI as reachable from the test JVM, e.g. {@code http://127.0.0.1:32771} */
    URI engineUri();

    /**
     * @return the profiler output directory as the engine sees it ({@code serverPath}) and as the test JVM reads it
     *         ({@code localPath}), when the engine writes to a directory shared with this machine (a bind mount)
     */
    Optional<TraceDirectory> traceDirectory();

    /**
     * A profiler directory seen from both sides of a mount.
     *
     * @param serverPath the path inside the engine's filesystem, sent as SGLang's {@code output_dir}
     * @param localPath  the same directory on this machine
     */
    record TraceDirectory(String serverPath, Path localPath) {
    }
}
