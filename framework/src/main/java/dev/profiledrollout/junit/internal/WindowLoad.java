package dev.profiledrollout.junit.internal;

import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.capacity.Capacity;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.load.LoadGenerator;
import dev.profiledrollout.load.LoadFidelity;
import dev.profiledrollout.load.LoadRun;
import dev.profiledrollout.load.StageResult;
import dev.profiledrollout.load.StageRunner;
import dev.profiledrollout.load.SweepResult;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.recipe.SweepCutoff;
import dev.profiledrollout.report.AllureSteps;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
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
    // a staged load (@RolloutSweep): its stages run on their own thread, back to back, inside the window
    private volatile StageRunner staged;
    private volatile Thread sweepThread;
    private volatile SweepResult stages;
    private volatile Capacity capacity;
    private volatile Exception sweepFailure;
    private long sweepStartNanos;
    // an srtctl recipe's sweep: when every window's traces are in (null: run every stage)
    private volatile SweepCutoff cutoff;
    // the records of a run that ended, kept for the other windows that share this load (a recipe's phases armed at once)
    private volatile List<RequestRecord> awaited;

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

    /**
     * A recipe's sweep ({@code LoadSweep.untilTracesIn()}) stops once {@code cutoff} answers true after a stage; the
     * stages left are the result's {@code SweepResult.notRun()}. Ignored for any other load. Set before
     * {@link #start()}.
     */
    void stopOnceIn(SweepCutoff cutoff) {
        this.cutoff = cutoff;
    }

    /** Starts the measured run; {@link #warmUp()} came first. */
    void start() {
        startMillis = System.currentTimeMillis();
        if (spec.sweep() == null && spec.capacity() == null) {
            run = generator.start();
            return;
        }
        sweepStartNanos = System.nanoTime();
        StageRunner runner = new StageRunner(generator, spec.load(), spec.goodput(), settings.loadTimeout(),
                spec.stageLagBound() != null ? spec.stageLagBound() : LoadFidelity.DEFAULT_LAG_BOUND);
        staged = runner;
        Thread t = new Thread(() -> {
            try {
                if (spec.capacity() != null) {
                    Capacity found = spec.capacity().run(spec.load(), runner);
                    capacity = found;
                    stages = found.stages();
                } else if (spec.sweep().untilTracesIn() && cutoff != null) {
                    stages = runner.run(spec.sweep(), cutoff, SweepCutoff.WHY);
                    if (!stages.notRun().isEmpty()) {
                        System.out.println("=== " + SweepCutoff.skipped(stages.notRun().size(),
                                "@RolloutRecipe(fullSweep = true)"));
                    }
                } else {
                    stages = runner.run(spec.sweep());
                }
            } catch (Exception e) {
                sweepFailure = e;
            }
        }, "profiledrollout-sweep");
        sweepThread = t;
        t.start();
    }

    /** @return the capacity of a capacity search once it ended; empty otherwise */
    Optional<Capacity> capacity() {
        return Optional.ofNullable(capacity);
    }

    /**
     * @return the load-fidelity verdict of a staged load: how many stages were not driven, and by whom; a warning
     *         unless the test asked for strict fidelity ({@code @RolloutCapacity(strict = true)}); empty for a single
     *         load
     */
    Optional<Verdict> fidelityVerdict() {
        SweepResult s = stages;
        if (s == null) {
            return Optional.empty();
        }
        List<StageResult> undriven = s.stages().stream().filter(x -> !x.fidelity().driven()).toList();
        String detail = (undriven.isEmpty() ? "all " + s.stages().size() + " stages driven"
                : undriven.stream().map(x -> x.label() + ": " + x.fidelity().message())
                .collect(java.util.stream.Collectors.joining("; "))) + s.notRunNote();
        Verdict v = Verdict.of(Verdict.Kind.THROUGHPUT, "stages not driven (load fidelity)", "≤", undriven.size(), 0,
                "", String.valueOf(undriven.size()), "0", detail, undriven.isEmpty());
        return Optional.of(spec.strictFidelity() ? v : v.asWarning());
    }

    /** @return the stages of a staged load once it ended; empty for a single load or before its end */
    Optional<SweepResult> stages() {
        return Optional.ofNullable(stages);
    }

    /** @return when the staged load started on {@link System#nanoTime()}, matching {@link #startMillis()} */
    long sweepStartNanos() {
        return sweepStartNanos;
    }

    /** @return when the run started (epoch ms), -1 before */
    long startMillis() {
        return startMillis;
    }

    /** @return whether the run was started */
    boolean started() {
        return run != null || sweepThread != null;
    }

    /**
     * Waits for the run to end, within {@code profiledrollout.load.timeout}; once it ended, returns the same records
     * at once (the windows of a recipe's phases armed together share one load).
     *
     * @param endEarly  when the run did not end: given the reason, cancels it, stops the profiler, writes what was
     *                  measured to {@code written} and returns the records
     * @param written   where the measured requests are written
     * @return every request's record
     * @throws ProfiledRolloutException after {@code endEarly}, when the run timed out or this thread was interrupted
     *                                  (the interrupt stays set)
     */
    List<RequestRecord> await(Function<String, List<RequestRecord>> endEarly, Path written) {
        List<RequestRecord> done = awaited;
        if (done != null) {
            return done;
        }
        if (sweepThread != null) {
            awaited = awaitStages(endEarly, written);
            return awaited;
        }
        try {
            awaited = run.await(settings.loadTimeout());
            return awaited;
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

    /** The staged load's {@link #await}: every stage's records, one Allure step per stage. */
    private List<RequestRecord> awaitStages(Function<String, List<RequestRecord>> endEarly, Path written) {
        int stageCount = spec.capacity() != null ? spec.capacity().maxStages() : spec.sweep().size();
        Duration bound = settings.loadTimeout().multipliedBy(stageCount);
        try {
            sweepThread.join(bound.toMillis());
        } catch (InterruptedException e) {
            List<RequestRecord> records = endEarly.apply("interrupted while waiting for the load");
            Thread.currentThread().interrupt();
            throw new ProfiledRolloutException("Interrupted while waiting for the staged load (" + records.size()
                    + " requests ended); the profiler was stopped and the finished requests were written to "
                    + written, e);
        }
        if (sweepThread.isAlive() || sweepFailure != null) {
            String why = sweepThread.isAlive() ? "the " + stageCount + " stages did not finish within "
                    + bound : "a stage did not finish: " + sweepFailure.getMessage();
            endEarly.apply(why);
            throw new ProfiledRolloutException("The staged load failed: " + why + "; the profiler was stopped and the"
                    + " finished requests were written to " + written + ". Lower @RolloutSweep(requestsPerStage) or"
                    + " raise " + ProfiledRolloutKeys.LOAD_TIMEOUT + " (per stage).", sweepFailure);
        }
        for (StageResult s : stages.stages()) {
            long first = s.latency().records().stream().mapToLong(RequestRecord::startNanos).min()
                    .orElse(sweepStartNanos);
            long stageMillis = startMillis + (first - sweepStartNanos) / 1_000_000;
            AllureSteps.step(String.format(Locale.ROOT, "stage %s: %d requests, %.2f req/s done, TTFT p99 %s, %s",
                    s.label(), s.latency().completed() + s.failures(), s.throughput(),
                    s.latency().ttft().count() == 0 ? "-" : s.latency().ttft().percentile(99).toMillis() + " ms",
                    s.fidelity().driven() ? "driven" : s.fidelity().limit().name().toLowerCase(Locale.ROOT)
                            + "-limited"), stageMillis, () -> s);
        }
        return stages.stages().stream().flatMap(s -> s.latency().records().stream())
                .sorted(Comparator.comparingInt(RequestRecord::index)).toList();
    }

    /** Cancels the run, if started: no request is sent any more and those in flight are ended. */
    void cancel() {
        StageRunner st = staged;
        if (st != null) {
            st.cancel();
        }
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
        if (sweepThread != null) {
            try {
                sweepThread.join(DRAIN.toMillis());
            } catch (InterruptedException e) {
                interrupted = true;
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return staged.recordsSoFar();
        }
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
        if (sweepThread != null) {
            try {
                sweepThread.join(Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return staged.recordsSoFar();
        }
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
