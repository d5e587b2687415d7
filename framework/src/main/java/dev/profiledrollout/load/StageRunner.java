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
 * {@link StageResult#gapBefore()}; an open loop's schedule starts then. A stage with a warm-up of its own is started
 * by the sweep's thread after that warm-up instead; the warm-up runs in the gap and is excluded from every metric. Stages never share a
 * workload index, so no prompt is sent twice.
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
    private volatile LoadRun current;
    /** The next stage's run, chained to start when {@link #current} ends; null when none is. */
    private volatile LoadRun upcoming;
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
            // the next stage (without a warm-up of its own) is chained to this one: the event-loop thread that reads
            // this stage's last response starts it, on this stage's idle connections (see LoadRun#startNextWhenDone)
            Pending next = i + 1 < stages.size() && stages.get(i + 1).spec().warmupRequests() == 0
                    ? chain(current, stages.get(i + 1)) : null;
            // the previous stage is measured while this one runs, so that nothing but the hand-over lies between
            if (previous != null) {
                results.add(finish(previous));
            }
            try {
                current.await(stageTimeout);
            } catch (TimeoutException | InterruptedException e) {
                if (next != null) {
                    next.run.cancel(); // started by the cancelled stage's end, it ends at once without sending
                }
                throw e;
            }
            previous = current;
            if (i + 1 < stages.size() && enough.getAsBoolean()) {
                if (next != null) {
                    upcoming = null;
                    next.run.cancel(); // chained: it may have started on this stage's last response; it counts not
                    next.run.await(stageTimeout);
                }
                results.add(finish(previous));
                return new SweepResult(results, stages.subList(i + 1, stages.size()), why);
            }
            if (i + 1 < stages.size()) {
                current = next != null ? next : begin(stages.get(i + 1));
                this.current = current.run;
                upcoming = null;
                if (cancelled) {
                    current.run.cancel();
                }
            }
        }
        results.add(finish(previous));
        return new SweepResult(results);
    }

    /** Prepares {@code stage} to start on the thread that ends {@code running}'s last request. */
    private Pending chain(Pending running, LoadStage stage) {
        if (cancelled) {
            throw new java.util.concurrent.CancellationException("the staged load was cancelled");
        }
        LoadSpec s = stage.spec();
        LoadRun run = generator.prepareStage(s, nextIndex);
        nextIndex += s.requests();
        upcoming = run;
        running.run.startNextWhenDone(run);
        if (cancelled) {
            run.cancel();
        }
        return new Pending(stage, List.of(), run);
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

    /** A stage started and not yet measured. */
    private final class Pending {
        final LoadStage stage;
        final List<RequestRecord> warmup;
        final LoadRun run;
        List<RequestRecord> records;

        Pending(LoadStage stage, List<RequestRecord> warmup, LoadRun run) {
            this.stage = stage;
            this.warmup = warmup;
            this.run = run;
        }

        void await(Duration timeout) throws InterruptedException, TimeoutException {
            try {
                records = run.await(timeout);
            } catch (TimeoutException | InterruptedException e) {
                run.cancel();
                throw e;
            }
            finished.addAll(records);
        }
    }

    private Pending begin(LoadStage stage) {
        if (cancelled) {
            throw new java.util.concurrent.CancellationException("the staged load was cancelled");
        }
        LoadSpec s = stage.spec();
        List<RequestRecord> warmup = generator.warmupStage(s, nextWarmupIndex);
        nextWarmupIndex += s.warmupRequests();
        LoadRun run = generator.startStage(s, nextIndex);
        current = run;
        if (cancelled) {
            run.cancel();
        }
        nextIndex += s.requests();
        return new Pending(stage, warmup, run);
    }

    private StageResult finish(Pending p) {
        List<RequestRecord> records = p.records;
        long firstStart = records.stream().mapToLong(RequestRecord::startNanos).min().orElse(p.run.startNanos());
        Duration gap = stagesRun == 0 || lastEndNanos == 0 ? Duration.ZERO
                : Duration.ofNanos(Math.max(0, firstStart - lastEndNanos));
        lastEndNanos = records.stream().mapToLong(r -> Math.max(r.endNanos(), r.startNanos())).max()
                .orElse(lastEndNanos);
        LatencyReport latency = LatencyReport.of(records, slo).withScope(p.stage.label());
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
        LoadRun run = current;
        if (run != null) {
            run.cancel();
        }
        LoadRun next = upcoming;
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
        LoadRun run = current;
        if (run != null && !run.isDone()) {
            all.addAll(run.recordsSoFar());
        }
        LoadRun next = upcoming;
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
