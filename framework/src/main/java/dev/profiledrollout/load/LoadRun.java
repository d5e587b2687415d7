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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;

/**
 * A closed-loop run in progress: a fixed set of worker threads, each taking the next request until all are
 * issued. Obtained from {@link LoadGenerator#start()}. Thread-safe.
 */
public final class LoadRun {

    /** Lets a worker publish its in-flight call so that {@link #cancel()} can reach it. */
    interface CallRegistry {
        /** @return false when the run is already cancelled */
        boolean register(Call call);

        void unregister(Call call);
    }

    private final int size;
    private final IntFunction<CompletionRequest> requestAtSlot;
    private final CompletionCall completionCall;
    private final AtomicReferenceArray<RequestRecord> records;
    private final AtomicInteger nextSlot = new AtomicInteger();
    private final AtomicInteger completed = new AtomicInteger();
    private final Set<Call> inFlight = ConcurrentHashMap.newKeySet();
    private final CountDownLatch workersDone;
    private final List<Thread> threads = new ArrayList<>();
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

    LoadRun(int size, IntFunction<CompletionRequest> requestAtSlot, CompletionCall completionCall, int workers,
            AtomicInteger threadNumbers) {
        this.size = size;
        this.requestAtSlot = requestAtSlot;
        this.completionCall = completionCall;
        this.records = new AtomicReferenceArray<>(size);
        this.workersDone = new CountDownLatch(workers);
        for (int i = 0; i < workers; i++) {
            Thread thread = new Thread(this::work, "profiledrollout-load-" + threadNumbers.incrementAndGet());
            thread.setDaemon(false);
            threads.add(thread);
        }
    }

    void startThreads() {
        threads.forEach(Thread::start);
    }

    private void work() {
        try {
            while (!cancelled) {
                int slot = nextSlot.getAndIncrement();
                if (slot >= size) {
                    return;
                }
                records.set(slot, completionCall.execute(requestAtSlot.apply(slot), registry));
                completed.incrementAndGet();
            }
        } finally {
            workersDone.countDown();
        }
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
        for (Call call : inFlight) {
            call.cancel();
        }
    }

    /** Cancels and joins every worker thread. */
    void cancelAndJoin() {
        cancel();
        boolean interrupted = false;
        for (Thread thread : threads) {
            while (thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                    cancel();
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
