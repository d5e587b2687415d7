package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.simulator.CostModel;
import dev.profiledrollout.simulator.KernelCost;
import dev.profiledrollout.simulator.SimulatorConfig;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * The continuous-batching scheduler: one thread ({@code simulator-scheduler}) that runs one batch per step.
 *
 * <p>Like SGLang's default policy, waiting requests are admitted first, as one prefill (EXTEND) batch of at most
 * {@link #MAX_PREFILL_TOKENS} prompt tokens while fewer than {@code maxRunningRequests} run; otherwise all running
 * requests form a decode batch. A prefill yields each request's first token, a decode one more token. Each step
 * really takes its simulated time (the thread parks until the step's deadline), so clients measure real latencies.
 * An idle scheduler blocks and does not step.
 */
@API(status = INTERNAL, since = "0.1")
public final class Scheduler {

    /** SGLang's default {@code --max-prefill-tokens}. */
    public static final int MAX_PREFILL_TOKENS = 16384;

    private static final System.Logger LOG = System.getLogger(Scheduler.class.getName());

    private final SimulatorConfig config;
    private final CostModel costModel;
    private final StepHook profiler;
    private final EpochClock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition workArrived = lock.newCondition();
    private final Deque<SimRequest> waiting = new ArrayDeque<>();
    private final List<SimRequest> running = new ArrayList<>();
    private final AtomicLong forwardCount = new AtomicLong();
    private final AtomicLong finishedRequests = new AtomicLong();
    private final AtomicLong nextId = new AtomicLong();
    private final Random lengthRandom;
    /** GPU noise: the per-run clock factor is drawn first, then one jitter factor per kernel launch. */
    private final Random noiseRandom;
    private final double clockFactor;
    private final Map<String, Double> kernelFactorCache = new ConcurrentHashMap<>();
    private final List<Map.Entry<Pattern, Double>> kernelPatterns = new ArrayList<>();
    private final Thread thread;
    private volatile boolean closed;
    private volatile double lastGenThroughput;
    /** Epoch ns at which the last step's GPU work ended on the simulated timeline; only the scheduler thread uses it. */
    private long lastStepEndEpochNs;

    public Scheduler(SimulatorConfig config, CostModel costModel, StepHook profiler, EpochClock clock) {
        this.config = config;
        this.costModel = costModel;
        this.profiler = profiler;
        this.clock = clock;
        this.lengthRandom = new Random(config.seed());
        this.noiseRandom = new Random(config.noiseSeed());
        this.clockFactor = config.clockSpread() == 0 ? 1.0
                : Math.exp(config.clockSpread() * noiseRandom.nextGaussian());
        for (Map.Entry<String, Double> e : config.kernelSlowdowns().entrySet()) {
            kernelPatterns.add(Map.entry(Pattern.compile(e.getKey()), e.getValue()));
        }
        this.thread = new Thread(this::loop, "simulator-scheduler");
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /** Steps completed since start, the warm-up included (SGLang {@code forward_ct}). */
    public long forwardCount() {
        return forwardCount.get();
    }

    /** Requests that generated their last token since start, the warm-up included. */
    public long finishedRequests() {
        return finishedRequests.get();
    }

    /** Output tokens per second over the last decode step. */
    public double lastGenThroughput() {
        return lastGenThroughput;
    }

    /** This run's GPU clock factor ({@link SimulatorConfig#clockSpread()}): every kernel duration is multiplied by it. */
    public double clockFactor() {
        return clockFactor;
    }

    /** @return requests queued and not yet admitted to a batch (SGLang's {@code waiting_queue_size}) */
    public int waitingCount() {
        lock.lock();
        try {
            return waiting.size();
        } finally {
            lock.unlock();
        }
    }

    /** @return requests admitted and not yet finished (SGLang's {@code running_batch_size}) */
    public int runningCount() {
        lock.lock();
        try {
            return running.size();
        } finally {
            lock.unlock();
        }
    }

    /** True when no request is waiting or running. */
    public boolean idle() {
        lock.lock();
        try {
            return waiting.isEmpty() && running.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Queues a request.
     *
     * @param promptTokens at least 1
     * @param maxNewTokens at least 1
     * @param ignoreEos    true: exactly {@code maxNewTokens}; false: a seeded random length in [1, maxNewTokens]
     * @throws IllegalStateException after {@link #close()}
     */
    public SimRequest submit(int promptTokens, int maxNewTokens, boolean ignoreEos) {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the simulator is shutting down");
            }
            int target = ignoreEos ? maxNewTokens : 1 + lengthRandom.nextInt(maxNewTokens);
            String reason = target == maxNewTokens ? "length" : "stop";
            long id = nextId.incrementAndGet();
            SimRequest r = new SimRequest(id, Math.max(1, promptTokens), target, reason, clock.nowEpochNs(),
                    config.seed() * 31 + id);
            waiting.add(r);
            workArrived.signalAll();
            return r;
        } finally {
            lock.unlock();
        }
    }

    /** Stops the thread, aborts every request still queued or running, and joins. Idempotent. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            workArrived.signalAll();
        } finally {
            lock.unlock();
        }
        thread.interrupt();
        boolean interrupted = false;
        try {
            thread.join(30_000); // interrupted above; a step sleeps a few ms
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (thread.isAlive()) {
            System.getLogger(Scheduler.class.getName()).log(System.Logger.Level.WARNING,
                    "simulator-scheduler still alive 30 s after close; leaving it (daemon)");
        }
        lock.lock();
        try {
            for (SimRequest r : waiting) {
                r.abort("The server is shutting down");
            }
            for (SimRequest r : running) {
                r.abort("The server is shutting down");
            }
            waiting.clear();
            running.clear();
        } finally {
            lock.unlock();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        try {
            while (true) {
                List<SimRequest> batch = new ArrayList<>();
                boolean extend;
                lock.lock();
                try {
                    while (!closed && waiting.isEmpty() && running.isEmpty()) {
                        workArrived.await();
                    }
                    if (closed) {
                        return;
                    }
                    extend = admit(batch);
                    if (!extend) {
                        batch.addAll(running);
                    }
                } finally {
                    lock.unlock();
                }
                if (!runStep(batch, extend)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "simulator scheduler crashed", e);
        }
    }

    /** Moves waiting requests into {@code batch}; returns true when that makes a prefill batch. Holds the lock. */
    private boolean admit(List<SimRequest> batch) {
        long tokens = 0;
        while (!waiting.isEmpty() && running.size() + batch.size() < config.maxRunningRequests()) {
            SimRequest next = waiting.peekFirst();
            if (!batch.isEmpty() && tokens + next.promptTokens() > MAX_PREFILL_TOKENS) {
                break;
            }
            batch.add(waiting.pollFirst());
            tokens += next.promptTokens();
        }
        return !batch.isEmpty();
    }

    private boolean runStep(List<SimRequest> batch, boolean extend) throws InterruptedException {
        long stepNumber = forwardCount.get() + 1;
        boolean recorded = profiler.beforeBatch(stepNumber, extend);
        int[] shape = new int[batch.size()];
        long tokens = 0;
        for (int i = 0; i < shape.length; i++) {
            shape[i] = extend ? batch.get(i).promptTokens() : batch.get(i).contextTokens();
            tokens += extend ? shape[i] : 1;
        }
        List<KernelCost> kernels = extend ? costModel.extendStep(shape) : costModel.decodeStep(shape);
        long[][] durations = new long[config.tpSize()][kernels.size()];
        double jitter = config.kernelJitter();
        long maxBusy = 0;
        for (int tp = 0; tp < durations.length; tp++) {
            double rankFactor = config.rankSlowdowns().getOrDefault(tp, 1.0)
                    * (extend ? config.prefillSlowdown() : config.decodeSlowdown()) * clockFactor;
            long busy = 0;
            for (int k = 0; k < kernels.size(); k++) {
                KernelCost kc = kernels.get(k);
                double noise = jitter == 0 ? 1.0 : Math.exp(jitter * noiseRandom.nextGaussian());
                durations[tp][k] = Math.max(1, Math.round(kc.durationNs() * rankFactor * kernelFactor(kc.name())
                        * noise));
                busy += durations[tp][k];
            }
            maxBusy = Math.max(maxBusy, busy);
        }
        // slowHost: the whole step takes hostSlowdown times its normal wall time, the extra spent on the host before
        // the first kernel (SimulatorConfig.Builder#slowHost).
        long hostNs = CostModel.CPU_OVERHEAD_NS
                + Math.round((config.hostSlowdown() - 1) * (CostModel.CPU_OVERHEAD_NS + maxBusy));
        long start = stepStart(batch, extend);
        StepRecord step = new StepRecord(stepNumber, start, hostNs, extend, batch.size(), tokens, kernels, durations);
        lastStepEndEpochNs = start + step.durationNs();
        long deadline = clock.toNanoTime(start + step.durationNs());
        long remaining;
        while ((remaining = deadline - System.nanoTime()) > 0) {
            if (closed) {
                profiler.afterBatch(null);
                return false;
            }
            LockSupport.parkNanos(this, remaining);
        }
        forwardCount.set(stepNumber);
        profiler.afterBatch(recorded ? step : null);
        if (!extend) {
            lastGenThroughput = batch.size() * 1e9 / step.durationNs();
        }
        lock.lock();
        try {
            for (SimRequest r : batch) {
                if (r.nextTokenIsLast()) {
                    finishedRequests.incrementAndGet(); // counted before the client can see the last token
                }
                boolean done = r.emitToken();
                if (extend && !done) {
                    running.add(r);
                } else if (!extend && done) {
                    running.remove(r);
                }
            }
        } finally {
            lock.unlock();
        }
        return true;
    }

    /**
     * When the step starts on the simulated engine: as soon as its work was ready (the previous step's end for a
     * decode step, the last admitted request's arrival for a prefill), but never later than now. The simulated engine
     * stands for one on a host of its own: when this JVM's scheduler thread wakes late because the machine it shares
     * with the test is busy, that delay belongs to the test's machine, not to the engine's timeline, so the step's
     * recorded start and its end (the next wake-up deadline) do not move with it. A client still sees the late wake-up
     * in when its token arrives, once; it does not accumulate from step to step.
     */
    private long stepStart(List<SimRequest> batch, boolean extend) {
        long now = clock.nowEpochNs();
        long ready = lastStepEndEpochNs;
        if (extend) {
            for (SimRequest r : batch) {
                ready = Math.max(ready, r.receivedEpochNs());
            }
        }
        return Math.min(now, ready);
    }

    private double kernelFactor(String name) {
        if (kernelPatterns.isEmpty()) {
            return 1.0;
        }
        return kernelFactorCache.computeIfAbsent(name, n -> {
            double f = 1.0;
            for (Map.Entry<Pattern, Double> e : kernelPatterns) {
                if (e.getKey().matcher(n).find()) {
                    f *= e.getValue();
                }
            }
            return f;
        });
    }
}
