package dev.profiledrollout.load;

import dev.profiledrollout.metrics.RequestRecord;
import okhttp3.Call;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;

/**
 * A run in progress, obtained from {@link LoadGenerator#start()}. Thread-safe.
 *
 * <ul>
 *   <li><b>Closed loop</b>: a fixed set of {@code concurrency} worker threads, each taking the next request until
 *       all are issued.</li>
 *   <li><b>Open loop</b>: one pacer thread waits for each precomputed intended send time
 *       {@code t0 + offset_i} on {@link System#nanoTime()} (parking to ~100 µs before it, then spinning, so
 *       lag does not accumulate) and hands the request to a pool: a cached pool of non-daemon threads for an
 *       uncapped run, or {@code maxConcurrency} threads with a FIFO queue for a capped one. The pacer is never
 *       blocked by a slow response; a request's time waiting for a thread counts as schedule lag.</li>
 * </ul>
 * All threads are named {@code profiledrollout-load-N}.
 */
public final class LoadRun {

    /** The longest {@link #cancelAndJoin()} waits for the cancelled worker threads. */
    private static final Duration JOIN_BOUND = Duration.ofSeconds(60);

    /** Lets a worker publish its in-flight call so that {@link #cancel()} can reach it. */
    interface CallRegistry {
        /** @return false when the run is already cancelled */
        boolean register(Call call);

        void unregister(Call call);
    }

    private static final long SPIN_NANOS = 100_000;
    /** The pacer starts its clock this long after the run starts, so that thread start-up is not lag. */
    private static final long PACER_HEAD_START_NANOS = 1_000_000;

    private final int size;
    private final IntFunction<CompletionRequest> requestAtSlot;
    private final CompletionCall completionCall;
    private final AtomicReferenceArray<RequestRecord> records;
    private final AtomicInteger nextSlot = new AtomicInteger();
    private final AtomicInteger completed = new AtomicInteger();
    private final Set<Call> inFlight = ConcurrentHashMap.newKeySet();
    private final CountDownLatch workersDone;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicInteger failed = new AtomicInteger();
    private final ArrivalSchedule schedule;
    private final int maxConcurrency;
    private final long maxDurationNanos;
    private final AtomicInteger threadNumbers;
    private volatile long t0Nanos;
    private volatile boolean cancelled;

    private final CallRegistry registry = new CallRegistry() {
        @Override
        public boolean register(Call call) {
            inFlight.add(call);
            return !cancelled;
        }

        @Override
        public void unregister(Call call) {
            inFlight.remove(call);
        }
    };

    /** A closed loop of {@code workers} threads, bounded by the request count. */
    LoadRun(int size, IntFunction<CompletionRequest> requestAtSlot, CompletionCall completionCall, int workers,
            AtomicInteger threadNumbers) {
        this(size, requestAtSlot, completionCall, workers, threadNumbers, null, 0, null);
    }

    /**
     * @param schedule         null for a closed loop of {@code workers} threads; else the open-loop schedule
     * @param maxConcurrency   open loop: the cap on requests in flight, 0 for none
     * @param maxDuration      no request is issued after this much time from the start; null for no bound
     */
    LoadRun(int size, IntFunction<CompletionRequest> requestAtSlot, CompletionCall completionCall, int workers,
            AtomicInteger threadNumbers, ArrivalSchedule schedule, int maxConcurrency, Duration maxDuration) {
        this.size = size;
        this.requestAtSlot = requestAtSlot;
        this.completionCall = completionCall;
        this.records = new AtomicReferenceArray<>(size);
        this.schedule = schedule;
        this.maxConcurrency = maxConcurrency;
        this.maxDurationNanos = maxDuration == null ? Long.MAX_VALUE : maxDuration.toNanos();
        this.threadNumbers = threadNumbers;
        int starters = schedule == null ? workers : 1;
        this.workersDone = new CountDownLatch(starters);
        for (int i = 0; i < starters; i++) {
            Thread thread = new Thread(schedule == null ? this::work : this::pace,
                    "profiledrollout-load-" + threadNumbers.incrementAndGet());
            thread.setDaemon(false);
            threads.add(thread);
        }
    }

    void startThreads() {
        t0Nanos = System.nanoTime();
        threads.forEach(Thread::start);
    }

    private void work() {
        try {
            while (!cancelled) {
                int slot = nextSlot.getAndIncrement();
                if (slot >= size || System.nanoTime() - t0Nanos > maxDurationNanos) {
                    return;
                }
                end(slot, completionCall.execute(requestAtSlot.apply(slot), registry));
            }
        } finally {
            workersDone.countDown();
        }
    }

    private void end(int slot, RequestRecord record) {
        records.set(slot, record);
        if (!record.succeeded()) {
            failed.incrementAndGet();
        }
        completed.incrementAndGet();
    }

    private ThreadPoolExecutor newPool() {
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, "profiledrollout-load-" + threadNumbers.incrementAndGet());
            t.setDaemon(false);
            return t;
        };
        if (maxConcurrency > 0) {
            ThreadPoolExecutor capped = new ThreadPoolExecutor(maxConcurrency, maxConcurrency, 10, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(), factory);
            capped.allowCoreThreadTimeOut(true);
            return capped;
        }
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 10, TimeUnit.SECONDS, new SynchronousQueue<>(), factory);
    }

    /** The open-loop pacer: dispatches against the absolute schedule, then waits for the pool to drain. */
    private void pace() {
        ThreadPoolExecutor executor = newPool();
        long t0 = t0Nanos + PACER_HEAD_START_NANOS;
        try {
            for (int slot = 0; slot < size && !cancelled; slot++) {
                long offset = schedule.offsetNanos(slot);
                if (offset > maxDurationNanos) {
                    break;
                }
                long intended = t0 + offset;
                parkUntil(intended);
                if (cancelled) {
                    break;
                }
                CompletionRequest request = requestAtSlot.apply(slot);
                int s = slot;
                executor.execute(() -> {
                    if (!cancelled) {
                        end(s, completionCall.execute(request, registry).withIntendedNanos(intended));
                    }
                });
            }
        } finally {
            executor.shutdown();
            boolean interrupted = false;
            while (!executor.isTerminated()) {
                try {
                    executor.awaitTermination(1, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                    cancel();
                }
            }
            workersDone.countDown();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Parks until ~{@value #SPIN_NANOS} ns before the deadline, then spins: sub-millisecond precision. */
    private void parkUntil(long deadline) {
        while (!cancelled) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return;
            }
            if (remaining > SPIN_NANOS) {
                LockSupport.parkNanos(this, remaining - SPIN_NANOS);
            } else {
                Thread.onSpinWait();
            }
        }
    }

    /** @return the run's start, a {@link System#nanoTime()} reading; 0 before the threads start */
    public long startNanos() {
        return t0Nanos;
    }

    /** @return the number of requests that have ended in failure so far */
    public int failedCount() {
        return failed.get();
    }

    /** @return requests on the wire right now */
    public int inFlightCount() {
        return inFlight.size();
    }

    /** @return the number of requests the run will issue when not cancelled or cut by its duration bound */
    public int size() {
        return size;
    }

    /**
     * Waits for every issued request to end.
     *
     * @param timeout how long to wait, not null
     * @return every record (successes and failures), ordered by index; after {@link #cancel()}, requests never
     *         sent are absent and those cut short are {@code CANCELLED}
     * @throws TimeoutException when requests are still in flight after the timeout (the run keeps going; call
     *                          {@link #cancel()} to stop it)
     */
    public List<RequestRecord> await(Duration timeout) throws InterruptedException, TimeoutException {
        if (!workersDone.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new TimeoutException("load run not finished after " + timeout.toMillis() + " ms: " + completed.get()
                    + " of " + size + " requests ended, " + inFlight.size() + " in flight. Raise the timeout, lower"
                    + " requests or check the server (a stalled stream only ends at the read timeout).");
        }
        return snapshot();
    }

    /** Waits without a bound; used for warm-up, whose requests are bounded by the read timeout. */
    List<RequestRecord> awaitUninterruptibly() {
        boolean interrupted = false;
        while (true) {
            try {
                workersDone.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
                cancel();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return snapshot();
    }

    private List<RequestRecord> snapshot() {
        List<RequestRecord> result = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            RequestRecord r = records.get(i);
            if (r != null) {
                result.add(r);
            }
        }
        result.sort(Comparator.comparingInt(RequestRecord::index));
        return List.copyOf(result);
    }

    /** @return true when every worker has finished (all requests ended, or the run was cancelled and drained) */
    public boolean isDone() {
        return workersDone.getCount() == 0;
    }

    /** @return the number of requests that have ended so far, successfully or not */
    public int completedCount() {
        return completed.get();
    }

    /**
     * Stops issuing requests and cancels the in-flight ones, which are recorded as {@code CANCELLED}. Returns
     * without waiting; {@link #await(Duration)} then returns promptly. Idempotent.
     */
    public void cancel() {
        cancelled = true;
        for (Thread thread : threads) {
            LockSupport.unpark(thread);
        }
        for (Call call : inFlight) {
            call.cancel();
        }
    }

    /** Cancels and joins every worker thread. */
    void cancelAndJoin() {
        cancel();
        boolean interrupted = false;
        long deadline = System.nanoTime() + JOIN_BOUND.toNanos();
        for (Thread thread : threads) {
            while (thread.isAlive() && System.nanoTime() < deadline) {
                try {
                    thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                } catch (InterruptedException e) {
                    interrupted = true;
                    cancel();
                }
            }
            if (thread.isAlive()) {
                System.getLogger(LoadRun.class.getName()).log(System.Logger.Level.WARNING, "load thread "
                        + thread.getName() + " still alive " + JOIN_BOUND.toSeconds() + " s after the run was "
                        + "cancelled (a call that ignores cancellation); leaving it, it is a daemon thread");
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
