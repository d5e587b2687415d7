package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.ScheduleReport;
import dev.profiledrollout.metrics.Slo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import org.apiguardian.api.API;

/**
 * Runs the stages of a staged load back to back on one {@link LoadGenerator} (one event loop, one keep-alive
 * connection pool), measuring each stage on its own.
 *
 * <p><b>No gap between stages.</b> A stage ends when its last response has been read. In {@link #run(LoadSweep)} the
 * next stage is prepared while the current one runs and started by the event-loop thread that read that last
 * response, right after it, with no hand-off to another thread; a closed loop's lanes take over the previous stage's
 * idle keep-alive connections, so its first requests need no new connection. The measured gap is
 * {@link StageResult#gapBefore()}; an open loop's schedule starts then. A stage with a warm-up of its own starts with
 * that warm-up, chained the same way (its requests go out on the previous stage's connections), and its measured run
 * is chained to the warm-up's end; the warm-up is excluded from every metric. Stages chosen from the previous stage's
 * result, as a search chooses them ({@link #run(LoadStage, java.util.function.Function)}), are chosen and started by
 * that same thread. Stages never share a workload index, so no prompt is sent twice.
 *
 * <p>Not thread-safe: one sweep at a time. {@link #close()} closes the generator.
 */
@API(status = EXPERIMENTAL, since = "0.2")
public final class StageRunner implements AutoCloseable {

    private final LoadGenerator generator;
    private final LoadSpec base;
    private final Slo slo;
    private final Duration stageTimeout;
    private final Duration lagBound;
    private int nextIndex;
    private int nextWarmupIndex;
    private long lastEndNanos;
    private int stagesRun;
    private volatile Pending current;
    /** The next stage, chained to start when {@link #current} ends; null when none is. */
    private volatile Pending upcoming;
    private volatile boolean cancelled;
    private final List<RequestRecord> finished = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * @param target       where to send, not null
     * @param model        the {@code model} field, not null
     * @param base         the request shape every stage shares (token lengths, prefix, seed, endpoint), not null
     * @param slo          the goodput SLO of every stage's {@link LatencyReport}, not null ({@link Slo#none()})
     * @param stageTimeout how long one stage may take before it fails with a {@link TimeoutException}, not null
     * @param lagBound     the lag p99 above which an open-loop stage counts as not driven, not null
     *                     ({@link LoadFidelity#DEFAULT_LAG_BOUND})
     */
    public StageRunner(LoadTarget target, String model, LoadSpec base, Slo slo, Duration stageTimeout,
                       Duration lagBound) {
        this(new LoadGenerator(target, model, base), base, slo, stageTimeout, lagBound);
    }

    /** @param generator a generator built from {@code base}; this runner closes it */
    public StageRunner(LoadGenerator generator, LoadSpec base, Slo slo, Duration stageTimeout, Duration lagBound) {
        this.generator = Objects.requireNonNull(generator, "generator");
        this.base = Objects.requireNonNull(base, "base");
        this.slo = Objects.requireNonNull(slo, "slo");
        this.stageTimeout = Objects.requireNonNull(stageTimeout, "stageTimeout");
        this.lagBound = Objects.requireNonNull(lagBound, "lagBound");
    }

    /** @return the request shape the stages share */
    public LoadSpec base() {
        return base;
    }

    /**
     * Runs every stage of {@code sweep} in order.
     *
     * @throws TimeoutException when a stage outlives the stage timeout (it is cancelled first)
     */
    public SweepResult run(LoadSweep sweep) throws InterruptedException, TimeoutException {
        return run(sweep, () -> false, "");
    }

    /**
     * Runs the stages of {@code sweep} in order until {@code enough} says the rest is not needed: it is asked each
     * time a stage has ended (its last response read), before the next stage counts. When it answers true, the next
     * stage (already started on that last response, see the class comment) is cancelled, its records dropped, and it
     * and every later stage are reported as {@link SweepResult#notRun()}. The stages that ran are measured as in
     * {@link #run(LoadSweep)}.
     *
     * @param enough asked on the calling thread after each stage but the last; e.g. a recipe's "every window's
     *               traces are in" ({@code dev.profiledrollout.recipe.SweepCutoff})
     * @param why    why the stages not run were not run, for {@link SweepResult#notRunNote()}
     * @throws TimeoutException when a stage outlives the stage timeout (it is cancelled first)
     */
    public SweepResult run(LoadSweep sweep, java.util.function.BooleanSupplier enough, String why)
            throws InterruptedException, TimeoutException {
        Objects.requireNonNull(enough, "enough");
        Objects.requireNonNull(why, "why");
        List<StageResult> results = new ArrayList<>();
        List<LoadStage> stages = sweep.stages();
        Pending previous = null;
        Pending current = begin(stages.get(0));
        for (int i = 0; i < stages.size(); i++) {
            // the next stage (its warm-up first, when it has one) is chained to this one: the event-loop thread that
            // reads this stage's last response starts it, on this stage's idle connections (LoadRun#startNextWhenDone)
            Pending next = i + 1 < stages.size() ? chain(current, stages.get(i + 1)) : null;
            // the previous stage is measured while this one runs, so that nothing but the hand-over lies between
            if (previous != null) {
                results.add(finish(previous));
            }
            try {
                current.await(stageTimeout);
            } catch (TimeoutException | InterruptedException e) {
                if (next != null) {
                    next.cancel(); // started by the cancelled stage's end, it ends at once without sending
                }
                throw e;
            }
            previous = current;
            if (next != null && enough.getAsBoolean()) {
                upcoming = null;
                next.cancel(); // chained: it may have started on this stage's last response; it does not count
                next.head().await(stageTimeout);
                next.run.await(stageTimeout);
                results.add(finish(previous));
                return new SweepResult(results, stages.subList(i + 1, stages.size()), why);
            }
            if (next != null) {
                current = next;
                this.current = current;
                upcoming = null;
                if (cancelled) {
                    current.cancel();
                }
            }
        }
        results.add(finish(previous));
        return new SweepResult(results);
    }

    /**
     * Runs stages chosen one after the other from the previous stage's result, as a capacity search does: {@code then}
     * gets each stage's result, on the thread that read the stage's last response, and returns the stage to run next
     * (or empty to stop), which that thread starts at once, on the ended stage's idle keep-alive connections when both
     * are closed loops: the same hand-over as {@link #run(LoadSweep)} without knowing the next stage beforehand.
     * {@code then} must be quick (it delays the next stage's start) and must not block.
     *
     * @param first the first stage
     * @param then  the next stage after a stage's result, or empty for none; a RuntimeException it throws ends the
     *              run and is rethrown here
     * @return every stage run, in order
     * @throws TimeoutException when a stage outlives the stage timeout (it is cancelled first)
     * @throws java.util.concurrent.CancellationException after {@link #cancel()}
     */
    public SweepResult run(LoadStage first, java.util.function.Function<StageResult, java.util.Optional<LoadStage>> then)
            throws InterruptedException, TimeoutException {
        return run(first, then, r -> { });
    }

    /**
     * As {@link #run(LoadStage, java.util.function.Function)}, telling {@code ended} of each stage's result on the
     * calling thread (for progress output, which would delay the hand-over on the loop thread).
     */
    public SweepResult run(LoadStage first, java.util.function.Function<StageResult, java.util.Optional<LoadStage>> then,
            java.util.function.Consumer<StageResult> ended) throws InterruptedException, TimeoutException {
        return run(first, then, ended, (stage, records) -> false);
    }

    /** At most this many looks at a stage's ended requests in {@link #run(LoadStage, java.util.function.BiPredicate)}. */
    public static final int LOOKS_PER_STAGE = 7;

    /** How often {@link #run(LoadStage, java.util.function.Function, java.util.function.Consumer,
     * java.util.function.BiPredicate)} looks at the running stage's ended requests. */
    private static final long LOOK_EVERY_NANOS = 50_000_000L;

    /**
     * As {@link #run(LoadStage, java.util.function.Function, java.util.function.Consumer)}, with stages that may end
     * before their last request: while a stage runs, {@code decided} is asked on the calling thread (about every
     * 50 ms, and only when more of its requests have ended since the last time) with the stage and its ended
     * requests; when it answers true, the stage sends no further request ({@link LoadRun#stopIssuing()}): the
     * requests in flight run to their end, so that the engine holds none of them when the next stage starts, and the
     * stage is measured with what it holds and handed to {@code then} as usual. For a search whose verdict on a
     * stage is already decided (a sequential test).
     *
     * @param decided whether the running stage's verdict is already decided, from its requests ended so far
     */
    public SweepResult run(LoadStage first, java.util.function.Function<StageResult, java.util.Optional<LoadStage>> then,
            java.util.function.Consumer<StageResult> ended,
            java.util.function.BiPredicate<LoadStage, List<RequestRecord>> decided)
            throws InterruptedException, TimeoutException {
        Objects.requireNonNull(decided, "decided");
        Objects.requireNonNull(ended, "ended");
        Objects.requireNonNull(first, "first");
        Objects.requireNonNull(then, "then");
        java.util.concurrent.BlockingQueue<Object> queue = new java.util.concurrent.LinkedBlockingQueue<>();
        List<StageResult> results = new ArrayList<>();
        Pending p = prepare(first);
        chooseAfter(p, then, queue);
        this.current = p;
        p.head().startThreads();
        if (cancelled) {
            p.cancel();
        }
        long deadline = System.nanoTime() + stageTimeout.toNanos();
        Pending looked = null;
        int endedWhenLooked = 0;
        while (true) {
            Object o = queue.poll(Math.min(LOOK_EVERY_NANOS, Math.max(1, deadline - System.nanoTime())),
                    java.util.concurrent.TimeUnit.NANOSECONDS);
            if (o == null && System.nanoTime() < deadline) {
                Pending running = this.current;
                int endedNow = running.run.completedCount();
                if (running != looked || endedNow > endedWhenLooked) {
                    if (running != looked) {
                        looked = running;
                        endedWhenLooked = 0;
                    }
                    if (endedNow > endedWhenLooked && !running.run.isDone()) {
                        endedWhenLooked = endedNow;
                        if (decided.test(running.stage, running.run.recordsSoFar())) {
                            running.run.stopIssuing();
                        }
                    }
                }
                continue;
            }
            if (o == null) {
                Pending running = this.current;
                cancel(); // no stage is chosen after this one
                running.cancel();
                throw new TimeoutException("stage " + running.stage.label() + " did not end within " + stageTimeout
                        + " (" + running.run.completedCount() + " requests ended)");
            }
            if (o instanceof RuntimeException e) {
                throw e;
            }
            if (o == END) {
                return new SweepResult(results);
            }
            deadline = System.nanoTime() + stageTimeout.toNanos();
            results.add((StageResult) o);
            ended.accept((StageResult) o);
        }
    }

    /** Marks the end of {@link #run(LoadStage, java.util.function.Function)}'s stages in its queue. */
    private static final Object END = new Object();

    /** Has the thread that ends {@code p} measure it, post its result to {@code ended} and start the chosen next. */
    private void chooseAfter(Pending p, java.util.function.Function<StageResult, java.util.Optional<LoadStage>> then,
            java.util.concurrent.BlockingQueue<Object> ended) {
        p.run.startChosenWhenDone(records -> {
            try {
                p.records = records;
                p.warmup = p.warmupRun == null ? List.of() : p.warmupRun.recordsSoFar();
                finished.addAll(records);
                StageResult r = finish(p);
                ended.add(r);
                if (cancelled) {
                    ended.add(new java.util.concurrent.CancellationException("the staged load was cancelled"));
                    return null;
                }
                java.util.Optional<LoadStage> following = then.apply(r);
                if (following.isEmpty()) {
                    ended.add(END);
                    return null;
                }
                Pending q = prepare(following.get());
                chooseAfter(q, then, ended);
                this.current = q;
                return q.head();
            } catch (RuntimeException e) {
                ended.add(e);
                return null;
            }
        });
    }

    /**
     * Prepares {@code stage} (its warm-up, then its measured run) to start on the thread that ends {@code running}'s
     * last request.
     */
    private Pending chain(Pending running, LoadStage stage) {
        Pending p = prepare(stage);
        upcoming = p;
        running.run.startNextWhenDone(p.head());
        if (cancelled) {
            p.cancel();
        }
        return p;
    }

    /**
     * Runs one stage, right after whatever this runner ran before.
     *
     * @return the stage's result; its {@link StageResult#index()} counts the stages this runner has run
     * @throws TimeoutException when the stage outlives the stage timeout (it is cancelled first)
     */
    public StageResult run(LoadStage stage) throws InterruptedException, TimeoutException {
        Pending p = begin(stage);
        p.await(stageTimeout);
        return finish(p);
    }

    /**
     * As {@link #run(LoadStage)}, ending the stage early when its verdict is decided: {@code decided} is asked on the
     * calling thread each time another eighth of the stage's requests has ended ({@link #LOOKS_PER_STAGE} times at
     * most; in between this thread only reads a counter, every 50 ms), with the stage and its ended requests; when it
     * answers true the stage sends no further request ({@link LoadRun#stopIssuing()}), its requests in flight run to
     * their end, and it is measured with what it holds.
     *
     * @throws TimeoutException when the stage outlives the stage timeout (it is cancelled first)
     */
    public StageResult run(LoadStage stage, java.util.function.BiPredicate<LoadStage, List<RequestRecord>> decided)
            throws InterruptedException, TimeoutException {
        Objects.requireNonNull(decided, "decided");
        Pending p = begin(stage);
        long deadline = System.nanoTime() + stageTimeout.toNanos();
        int every = Math.max(1, stage.spec().requests() / (LOOKS_PER_STAGE + 1));
        int nextLook = every;
        boolean stopped = false;
        while (!p.run.isDone() && System.nanoTime() < deadline) {
            if (p.warmupRun != null && !p.warmupRun.isDone()) {
                Thread.sleep(LOOK_EVERY_NANOS / 1_000_000);
                continue;
            }
            int endedNow = p.run.completedCount();
            if (!stopped && endedNow >= nextLook) {
                nextLook = (endedNow / every + 1) * every;
                if (decided.test(stage, p.run.recordsSoFar())) {
                    p.run.stopIssuing();
                    stopped = true;
                }
            }
            try {
                p.run.await(Duration.ofNanos(Math.min(LOOK_EVERY_NANOS, Math.max(1, deadline - System.nanoTime()))));
            } catch (TimeoutException e) {
                // not ended yet: look again
            }
        }
        p.await(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        return finish(p);
    }

    /** A stage prepared or started, not yet measured: its warm-up run (if any), chained to its measured run. */
    private final class Pending {
        final LoadStage stage;
        final LoadRun warmupRun;
        final LoadRun run;
        List<RequestRecord> warmup = List.of();
        List<RequestRecord> records;

        Pending(LoadStage stage, LoadRun warmupRun, LoadRun run) {
            this.stage = stage;
            this.warmupRun = warmupRun;
            this.run = run;
        }

        /** @return the run that starts the stage: its warm-up, or its measured run */
        LoadRun head() {
            return warmupRun != null ? warmupRun : run;
        }

        void cancel() {
            if (warmupRun != null) {
                warmupRun.cancel();
            }
            run.cancel();
        }

        void await(Duration timeout) throws InterruptedException, TimeoutException {
            try {
                records = run.await(timeout);
                warmup = warmupRun == null ? List.of() : warmupRun.await(timeout);
            } catch (TimeoutException | InterruptedException e) {
                cancel();
                throw e;
            }
            finished.addAll(records);
        }
    }

    /** Registers {@code stage}'s runs (its warm-up chained before its measured run) without starting them. */
    private Pending prepare(LoadStage stage) {
        if (cancelled) {
            throw new java.util.concurrent.CancellationException("the staged load was cancelled");
        }
        LoadSpec s = stage.spec();
        LoadRun warm = generator.prepareWarmup(s, nextWarmupIndex);
        nextWarmupIndex += s.warmupRequests();
        LoadRun run = generator.prepareStage(s, nextIndex);
        nextIndex += s.requests();
        if (warm != null) {
            warm.startNextWhenDone(run);
        }
        return new Pending(stage, warm, run);
    }

    private Pending begin(LoadStage stage) {
        Pending p = prepare(stage);
        current = p;
        p.head().startThreads();
        if (cancelled) {
            p.cancel();
        }
        return p;
    }

    private StageResult finish(Pending p) {
        List<RequestRecord> records = p.records;
        // the stage's first send: its warm-up's when it has one (the warm-up runs in the gap, excluded from metrics)
        long firstStart = java.util.stream.Stream.concat(p.warmup.stream(), records.stream())
                .mapToLong(RequestRecord::startNanos).min().orElse(p.run.startNanos());
        Duration gap = stagesRun == 0 || lastEndNanos == 0 ? Duration.ZERO
                : Duration.ofNanos(Math.max(0, firstStart - lastEndNanos));
        lastEndNanos = records.stream().mapToLong(r -> Math.max(r.endNanos(), r.startNanos())).max()
                .orElse(lastEndNanos);
        LatencyReport latency = LatencyReport.of(records, slo, p.stage.label());
        ScheduleReport schedule = ScheduleReport.of(records);
        LoadFidelity fidelity = LoadFidelity.of(p.stage.spec(), records, schedule, lagBound);
        return new StageResult(stagesRun++, p.stage, p.warmup, latency, schedule, fidelity, gap);
    }

    /**
     * GuideLLM's {@code sweep} profile: a synchronous stage (one request at a time), a maximum-throughput stage (every
     * request of the stage in flight at once, or {@code maxInFlight} when &gt; 0), then {@code sweepSize − 2}
     * constant-rate stages at rates evenly spaced from the synchronous stage's measured throughput (excluded) to the
     * throughput stage's (included). As in GuideLLM, {@code sweepSize} counts every stage, the rates are the measured
     * request throughputs, and the sweep stops early when a rate is not positive. Source: vllm-project/guidellm
     * {@code src/guidellm/benchmark/profiles.py} ({@code SweepProfile.next_strategy}: {@code linspace(synchronous,
     * throughput, sweep_size − 1)[1:]}); documented at https://blog.vllm.ai/guidellm/main/getting-started/benchmark
     * ({@code --rate-type sweep}, the default).
     *
     * @param sweepSize   stages in all, ≥ 3
     * @param maxInFlight the throughput and constant stages' cap on requests in flight, 0 for none
     * @throws IllegalArgumentException when {@code sweepSize < 3}
     * @throws TimeoutException         when a stage outlives the stage timeout
     */
    public SweepResult guideLlmSweep(int sweepSize, int maxInFlight) throws InterruptedException, TimeoutException {
        if (sweepSize < 3) {
            throw new IllegalArgumentException("sweepSize must be ≥ 3 (synchronous, throughput and at least one rate),"
                    + " was " + sweepSize);
        }
        List<StageResult> results = new ArrayList<>();
        StageResult synchronous = run(LoadStage.closedLoop(base, 1));
        results.add(synchronous);
        int throughputLanes = maxInFlight > 0 ? maxInFlight : base.requests();
        StageResult throughput = run(LoadStage.closedLoop(base, throughputLanes).withWarmup(0));
        results.add(throughput);
        double low = synchronous.throughput();
        double high = throughput.throughput();
        int rates = sweepSize - 2;
        for (int i = 1; i <= rates; i++) {
            double rate = low + (high - low) * i / rates;
            if (!(rate > 0) || Double.isInfinite(rate)) {
                break;
            }
            results.add(run(LoadStage.atRate(base, ArrivalProcess.constant(rate), maxInFlight).withWarmup(0)));
        }
        return new SweepResult(results);
    }

    /**
     * Stops the staged load from another thread: the current stage's run is cancelled (its in-flight requests end as
     * {@code CANCELLED}) and no further stage starts ({@link #run(LoadStage)} then throws
     * {@link java.util.concurrent.CancellationException}). Idempotent.
     */
    public void cancel() {
        cancelled = true;
        Pending run = current;
        if (run != null) {
            run.cancel();
        }
        Pending next = upcoming;
        if (next != null) {
            next.cancel();
        }
    }

    /**
     * @return the records of every stage that ended, then those of the current stage that ended so far, without
     *         waiting; for a caller that must report a load cut short
     */
    public List<RequestRecord> recordsSoFar() {
        List<RequestRecord> all = new ArrayList<>(finished);
        Pending p = current;
        LoadRun run = p == null ? null : p.run;
        if (run != null && !run.isDone()) {
            all.addAll(run.recordsSoFar());
        }
        Pending n = upcoming;
        LoadRun next = n == null ? null : n.run;
        if (next != null && next != run && next.startNanos() > 0) {
            all.addAll(next.recordsSoFar()); // started by the current stage's end, not yet taken up by the sweep
        }
        return all;
    }

    /** Closes the generator: cancels what is in flight and joins its threads. */
    @Override
    public void close() {
        generator.close();
    }
}
