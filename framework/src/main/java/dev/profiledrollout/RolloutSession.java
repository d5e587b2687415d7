package dev.profiledrollout;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;
import static org.apiguardian.api.API.Status.STABLE;

import java.net.URI;
import java.nio.file.Path;
import org.apiguardian.api.API;

/**
 * The profile window of one {@link ProfiledRollout} test, handed to the test method as a parameter.
 *
 * <p>When the test body starts, the profiler has been started and the load is running.
 * {@link #awaitResult()} finishes the window: it waits for the load, stops the profiler, waits for every rank's trace
 * file and reads them. A body that never calls it gets the same treatment after it returns.
 *
 * <p>Instances are used from the test's thread; {@link #awaitResult()} is idempotent.
 */
@API(status = STABLE, since = "0.1")
public interface RolloutSession {

    /**
     * Finishes the window and returns its result; later calls return the same instance.
     *
     * <p>EXPERIMENTAL, unlike the rest of this interface: a method is only as stable as what it returns, and
     * {@link RolloutResult} (with the {@link dev.profiledrollout.metrics.LatencyReport} and
     * {@link dev.profiledrollout.trace.TraceSet} it holds) is EXPERIMENTAL while the run model settles.
     *
     * @return latency histograms, the analysed traces and the paths of everything written
     * @throws dev.profiledrollout.engine.EngineException when the engine refuses to stop or answers with an error
     * @throws ProfiledRolloutException when the trace files do not appear in time or cannot be read; the message names
     *                                  what was waited for and how to fix it, and the partial results are written
     */
    @API(status = EXPERIMENTAL, since = "0.1")
    RolloutResult awaitResult();

    /** @return the base URI of the engine the load is sent to, for example {@code http://127.0.0.1:30000} */
    URI engineUri();

    /** @return this test's output directory, {@code <profiledrollout.output.dir>/<Class>/<method>} */
    Path outputDirectory();
}
