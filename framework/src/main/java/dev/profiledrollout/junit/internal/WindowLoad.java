package dev.profiledrollout.junit.internal;

import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.load.LoadGenerator;
import dev.profiledrollout.load.LoadRun;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.report.AllureSteps;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The load of one capture: the warm-up before the profile window, the run inside it, and its end when the window
 * fails or the JVM stops. The test's thread drives it; the shutdown hook's thread may cancel it and take its records.
 */
final class WindowLoad implements AutoCloseable {

    /** How long a cancelled run may take to end its requests before the records are taken as they are. */
    private static final Duration DRAIN = Duration.ofSeconds(30);

    private final EngineHandle engine;
    private final WindowSpec spec;
    private final Settings settings;
    private volatile LoadGenerator generator;
    private volatile LoadRun run;
    private long startMillis = -1;

    WindowLoad(EngineHandle engine, WindowSpec spec, Settings settings) {
        this.engine = engine;
        this.spec = spec;
        this.settings = settings;
    }

    /**
     * Sends the warm-up requests.
     *
     * @throws ProfiledRolloutException when any of them failed: the engine does not serve the load
     */
    void warmUp() {
        generator = new LoadGenerator(engine.loadClient().loadTarget(), engine.model(), spec.load(),
                spec.dataset().workload(spec.load(), LoadGenerator.DEFAULT_VOCAB_SIZE), spec.load().endpoint(),
                settings.readTimeout());
        List<RequestRecord> warmup = AllureSteps.step("warm-up", generator::warmup);
        List<RequestRecord> failed = warmup.stream().filter(r -> !r.succeeded()).toList();
        if (!failed.isEmpty()) {
            RequestRecord first = failed.get(0);
            throw new ProfiledRolloutException(failed.size() + " of " + warmup.size() + " warm-up requests to "
                    + engine.baseUri() + " failed before the profile window opened (first: " + first.error() + ": "
                    + first.errorMessage() + "); the profiler was not started. Check that the engine serves "
                    + "/v1/completions for model '" + engine.model() + "'.");
        }
    }

    /** Starts the measured run; {@link #warmUp()} came first. */
    void start() {
        startMillis = System.currentTimeMillis();
        run = generator.start();
    }

    /** @return when the run started (epoch ms), -1 before */
    long startMillis() {
        return startMillis;
    }

    /** @return whether the run was started */
    boolean started() {
        return run != null;
    }

    /**
     * Waits for the run to end, within {@code profiledrollout.load.timeout}.
     *
     * @param endEarly  when the run did not end: given the reason, cancels it, stops the profiler, writes what was
     *                  measured to {@code written} and returns the records
     * @param written   where the measured requests are written
     * @return every request's record
     * @throws ProfiledRolloutException after {@code endEarly}, when the run timed out or this thread was interrupted
     *                                  (the interrupt stays set)
     */
    List<RequestRecord> await(Function<String, List<RequestRecord>> endEarly, Path written) {
        try {
            return run.await(settings.loadTimeout());
        } catch (TimeoutException e) {
            endEarly.apply("load did not finish within " + settings.loadTimeout());
            throw new ProfiledRolloutException("The load of " + spec.load().requests() + " requests did not finish "
                    + "within " + settings.loadTimeout() + " (" + run.completedCount() + " done); the profiler was "
                    + "stopped and the finished requests were written to " + written
                    + ". Lower @RolloutLoad(requests) or raise " + ProfiledRolloutKeys.LOAD_TIMEOUT + ".");
        } catch (InterruptedException e) {
            List<RequestRecord> records = endEarly.apply("interrupted while waiting for the load");
            Thread.currentThread().interrupt();
            throw new ProfiledRolloutException("Interrupted while waiting for the load (" + records.size()
                    + " requests ended); the profiler was stopped and the finished requests were written to "
                    + written, e);
        }
    }

    /** Cancels the run, if started: no request is sent any more and those in flight are ended. */
    void cancel() {
        LoadRun r = run;
        if (r != null) {
            r.cancel();
        }
    }

    /**
     * The records of the cancelled run, waiting at most 30 s for it to end, even when this thread was interrupted
     * (the interrupt stays set).
     */
    List<RequestRecord> drain() {
        boolean interrupted = Thread.interrupted();
        try {
            return run.await(DRAIN);
        } catch (TimeoutException e) {
            return List.of();
        } catch (InterruptedException e) {
            interrupted = true;
            return List.of();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The cancelled run's records once it ended, or those ended by {@code deadlineNanos}; none when not started. */
    List<RequestRecord> recordsUntil(long deadlineNanos) {
        LoadRun r = run;
        if (r == null) {
            return List.of();
        }
        try {
            return r.await(Duration.ofNanos(Math.max(1, deadlineNanos - System.nanoTime())));
        } catch (TimeoutException e) {
            return r.recordsSoFar();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return r.recordsSoFar();
        }
    }

    /** Closes the load's connections (the engine then sees its requests end) and joins its threads. */
    @Override
    public void close() {
        LoadGenerator g = generator;
        if (g != null) {
            g.close();
        }
    }
}
