package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.metrics.RequestRecord;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ConnectTimeoutException;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apiguardian.api.API;

/**
 * A run in progress, obtained from {@link LoadGenerator#start()}. Thread-safe.
 *
 * <ul>
 *   <li><b>Closed loop</b>: {@code concurrency} lanes, each a keep-alive connection that sends the next request as
 *       soon as its previous one ended, until all are issued: exactly {@code concurrency} requests on the wire
 *       while the queue lasts.</li>
 *   <li><b>Open loop</b>: one pacer thread waits for each precomputed intended send time {@code t0 + offset_i} on
 *       {@link System#nanoTime()} (parking to ~100 µs before it, then spinning, so lag does not accumulate) and
 *       hands the request to an idle connection or a new one. The pacer is never blocked by a slow response. With
 *       {@code maxConcurrency} set, a request finding that many in flight waits in a FIFO queue, and that wait
 *       counts as schedule lag.</li>
 * </ul>
 * Responses are read by the generator's event loop ({@link StreamTransport}); the only other thread is the
 * open-loop pacer, named {@code profiledrollout-load-N} like the loop threads.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class LoadRun {

    /** The longest {@link #cancelAndJoin()} waits for the pacer thread. */
    private static final Duration JOIN_BOUND = Duration.ofSeconds(60);
    private static final long SPIN_NANOS = 100_000;
    /** The pacer starts its clock this long after the run starts, so that thread start-up is not lag. */
    private static final long PACER_HEAD_START_NANOS = 1_000_000;

    /** An open-loop request waiting for the concurrency cap. */
    private record Pending(int slot, CompletionRequest request, long intendedNanos) {
    }

    private final int size;
    private final IntFunction<CompletionRequest> requestAtSlot;
    private final StreamTransport transport;
    private final AtomicReferenceArray<RequestRecord> records;
    private final AtomicInteger nextSlot = new AtomicInteger();
    private final AtomicInteger completed = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    /** Requests sent and not yet ended, with the connections they are on. */
    private final Set<StreamConnection> active = ConcurrentHashMap.newKeySet();
    /** Connections being opened for a request. */
    private final Set<ChannelFuture> connecting = ConcurrentHashMap.newKeySet();
    private final CountDownLatch workersDone;
    private final int lanes;
    private final Thread pacer;
    private final ArrivalSchedule schedule;
    private final int maxConcurrency;
    private final long maxDurationNanos;
    // open loop
    private final Queue<StreamConnection> idle = new ConcurrentLinkedQueue<>();
    private final Queue<Pending> waiting = new ArrayDeque<>();
    private int capped;
    private final AtomicInteger outstanding = new AtomicInteger();
    private final AtomicBoolean drained = new AtomicBoolean();
    private volatile boolean pacingDone;
    private volatile long t0Nanos;
    private volatile boolean cancelled;
    /** No further request is issued; those in flight run to their end ({@link #stopIssuing()}). */
    private volatile boolean issuingStopped;
    // stage hand-over (StageRunner): the run started on the thread that ends this one, and the connections it inherits
    /** Workers not yet finished; the one that finishes last starts {@link #next}. */
    private final AtomicInteger workersLeft;
    /** Guards {@link #next} and {@link #finished}. */
    private final Object handOver = new Object();
    private LoadRun next;
    /** Instead of {@link #next}: picks the run to start from this run's records, on the thread that ends it. */
    private java.util.function.Function<List<RequestRecord>, LoadRun> chooser;
    /** Idle lane connections kept for the run {@link #chooser} picks. */
    private final Queue<StreamConnection> parked = new ConcurrentLinkedQueue<>();
    private boolean finished;
    /** Idle keep-alive connections a previous run's lanes left to this run's lanes. */
    private final Queue<StreamConnection> inherited = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean started = new AtomicBoolean();

    /** A closed loop of {@code lanes} connections, bounded by the request count. */
    LoadRun(int size, IntFunction<CompletionRequest> requestAtSlot, StreamTransport transport, int lanes,
            AtomicInteger threadNumbers) {
        this(size, requestAtSlot, transport, lanes, threadNumbers, null, 0, null);
    }

    /**
     * @param schedule       null for a closed loop of {@code lanes} connections; else the open-loop schedule
     * @param maxConcurrency open loop: the cap on requests in flight, 0 for none
     * @param maxDuration    no request is issued after this much time from the start; null for no bound
     */
    LoadRun(int size, IntFunction<CompletionRequest> requestAtSlot, StreamTransport transport, int lanes,
            AtomicInteger threadNumbers, ArrivalSchedule schedule, int maxConcurrency, Duration maxDuration) {
        this.size = size;
        this.requestAtSlot = requestAtSlot;
        this.transport = transport;
        this.records = new AtomicReferenceArray<>(size);
        this.schedule = schedule;
        this.maxConcurrency = maxConcurrency;
        this.maxDurationNanos = maxDuration == null ? Long.MAX_VALUE : maxDuration.toNanos();
        this.lanes = schedule == null ? lanes : 0;
        this.workersDone = new CountDownLatch(schedule == null ? lanes : 1);
        this.workersLeft = new AtomicInteger(schedule == null ? lanes : 1);
        if (schedule != null) {
            pacer = new Thread(this::pace, "profiledrollout-load-" + threadNumbers.incrementAndGet());
            pacer.setDaemon(false);
        } else {
            pacer = null;
        }
    }

    void startThreads() {
        if (!started.compareAndSet(false, true)) {
            return;
        }
        t0Nanos = System.nanoTime();
        if (pacer != null) {
            pacer.start();
        }
        for (int i = 0; i < lanes; i++) {
            StreamConnection connection = inherited.poll();
            if (connection != null && connection.channel().eventLoop().inEventLoop()) {
                // a stage hand-over on this connection's own loop (see startNextWhenDone): its decoding is done, so
                // the first request goes out now rather than after a task hop
                firstInLane(connection);
            } else {
                nextInLane(connection);
            }
        }
        for (StreamConnection left; (left = inherited.poll()) != null; ) {
            left.channel().close();
        }
    }

    /**
     * Starts {@code following} (not yet started) on the thread that finishes this run's last worker, right after its
     * last request ended, with no thread hand-off in between; at once when this run has already finished. Until then,
     * the idle keep-alive connections of this closed loop's lanes are handed to {@code following}'s lanes instead of
     * being closed, so that its first requests need no new connection. {@link StageRunner} chains its stages so.
     */
    void startNextWhenDone(LoadRun following) {
        boolean now;
        synchronized (handOver) {
            now = finished;
            if (!now) {
                next = following;
            }
        }
        if (now) {
            following.startThreads();
        }
    }

    /**
     * As {@link #startNextWhenDone}, with the following run picked when this one ends: {@code choose} gets this run's
     * records (every request ended) on the thread that ends its last request and returns the run to start there,
     * not yet started, or null for none. Meanwhile the lanes' idle keep-alive connections are kept, and handed to the
     * chosen run's lanes when it is a closed loop (closed otherwise). For stages chosen from the previous stage's
     * result (a capacity search), so that they too start without a thread hand-off.
     */
    void startChosenWhenDone(java.util.function.Function<List<RequestRecord>, LoadRun> choose) {
        boolean now;
        synchronized (handOver) {
            now = finished;
            if (!now) {
                chooser = choose;
            }
        }
        if (now) {
            LoadRun following = choose.apply(snapshot());
            if (following != null) {
                following.startThreads();
            }
        }
    }

    /** A lane or the pacer finished; the last one starts the chained run, then the waiters are released. */
    private void workerDone() {
        if (workersLeft.decrementAndGet() == 0) {
            LoadRun following;
            java.util.function.Function<List<RequestRecord>, LoadRun> choose;
            synchronized (handOver) {
                finished = true;
                following = next;
                next = null;
                choose = chooser;
                chooser = null;
            }
            if (choose != null) {
                try {
                    following = choose.apply(snapshot());
                } catch (RuntimeException e) {
                    following = null;
                    System.getLogger(LoadRun.class.getName()).log(System.Logger.Level.WARNING,
                            "the next stage could not be chosen: " + e);
                }
                for (StreamConnection c; (c = parked.poll()) != null; ) {
                    if (following != null && following.schedule == null && !following.cancelled) {
                        following.inherited.add(c);
                    } else {
                        c.channel().close();
                    }
                }
            }
            if (following != null) {
                try {
                    following.startThreads();
                } catch (RuntimeException e) {
                    System.getLogger(LoadRun.class.getName()).log(System.Logger.Level.WARNING,
                            "the next stage could not be started: " + e);
                }
            }
        }
        workersDone.countDown();
    }

    /** Hands an idle connection of an ending lane to the chained closed-loop run; false when there is none. */
    private boolean handOver(StreamConnection connection) {
        synchronized (handOver) {
            if (chooser != null && !cancelled) {
                parked.add(connection);
                return true;
            }
            if (next == null || next.schedule != null || cancelled || next.cancelled) {
                return false;
            }
            next.inherited.add(connection);
            return true;
        }
    }

    /** Closed loop: the lane's next request on its connection (null: open one), or the lane's end. */
    private void nextInLane(StreamConnection connection) {
        int slot = cancelled || issuingStopped ? size : nextSlot.getAndIncrement();
        if (slot >= size || System.nanoTime() - t0Nanos > maxDurationNanos) {
            if (connection != null && !handOver(connection)) {
                connection.channel().close();
            }
            workerDone();
            return;
        }
        issue(slot, requestAtSlot.apply(slot), 0, connection, this::nextInLane);
    }

    /** Closed loop: a lane's first request, sent at once on an inherited connection of this thread's loop. */
    private void firstInLane(StreamConnection connection) {
        int slot = cancelled ? size : nextSlot.getAndIncrement();
        if (slot >= size) {
            connection.channel().close();
            workerDone();
            return;
        }
        sendOrConnect(slot, requestAtSlot.apply(slot), 0, connection, this::nextInLane);
    }

    /**
     * Sends a request on {@code connection} when it is idle, else on a new connection; {@code then} gets the
     * connection back (null when it was closed) on its event loop once the request ended and was recorded.
     *
     * @param intendedNanos the open-loop intended send time, 0 in a closed loop
     */
    private void issue(int slot, CompletionRequest request, long intendedNanos, StreamConnection connection,
                       Consumer<StreamConnection> then) {
        if (connection == null) {
            connectAndSend(slot, request, intendedNanos, then);
        } else {
            // a task even on the loop: the requests that follow responses read in one I/O round go out after all of
            // those responses were decoded, so that no request's TTFT clock runs while other responses are decoded
            connection.channel().eventLoop().execute(
                    () -> sendOrConnect(slot, request, intendedNanos, connection, then));
        }
    }

    private void sendOrConnect(int slot, CompletionRequest request, long intendedNanos, StreamConnection connection,
                               Consumer<StreamConnection> then) {
        if (connection.isIdle()) {
            send(connection, slot, request, System.nanoTime(), intendedNanos, then);
        } else {
            connection.channel().close();
            connectAndSend(slot, request, intendedNanos, then);
        }
    }

    private void connectAndSend(int slot, CompletionRequest request, long intendedNanos,
                                Consumer<StreamConnection> then) {
        connectAndSend(slot, request, System.nanoTime(), intendedNanos, then);
    }

    /** @param start when the request began: now, or the first attempt's start when a stale connection is retried */
    private void connectAndSend(int slot, CompletionRequest request, long start, long intendedNanos,
                                Consumer<StreamConnection> then) {
        if (cancelled || !transport.isOpen()) { // never sent: no record, as for requests the pacer never issued
            if (schedule != null) {
                settled();
            }
            then.accept(null);
            return;
        }
        ChannelFuture future = transport.connect();
        connecting.add(future);
        future.addListener(f -> {
            connecting.remove(future);
            if (f.isSuccess() && !cancelled) {
                send(StreamTransport.connectionOf(future.channel()), slot, request, start, intendedNanos, then);
                return;
            }
            long now = System.nanoTime();
            StreamRecorder recorder = new StreamRecorder(request, transport.cumulativeStream());
            recorder.started(start, intendedNanos);
            if (!cancelled) {
                recorder.failure(now, f.cause() instanceof ConnectTimeoutException, f.cause());
            }
            future.channel().close();
            record(slot, recorder.toRecord(now, cancelled));
            then.accept(null);
        });
    }

    private void send(StreamConnection connection, int slot, CompletionRequest request, long start,
                      long intendedNanos, Consumer<StreamConnection> then) {
        active.add(connection);
        if (cancelled) {
            connection.channel().eventLoop().execute(connection::cancel);
        }
        connection.send(request, start, intendedNanos, new StreamConnection.Ended() {
            @Override
            public void ended(StreamConnection c, RequestRecord record, boolean reusable) {
                active.remove(c);
                record(slot, record);
                then.accept(reusable ? c : null);
            }

            @Override
            public void stale(StreamConnection c) {
                active.remove(c);
                connectAndSend(slot, request, start, intendedNanos, then);
            }
        });
    }

    private void record(int slot, RequestRecord record) {
        records.set(slot, record);
        if (!record.succeeded()) {
            failed.incrementAndGet();
        }
        completed.incrementAndGet();
        if (schedule != null) {
            settled();
        }
    }

    /** Open loop: one dispatched request ended or was dropped; the run is done when pacing is and none remain. */
    private void settled() {
        if (outstanding.decrementAndGet() == 0 && pacingDone && drained.compareAndSet(false, true)) {
            workerDone();
        }
    }

    /** The open-loop pacer: dispatches against the absolute schedule. */
    private void pace() {
        long t0 = t0Nanos + PACER_HEAD_START_NANOS;
        try {
            for (int slot = 0; slot < size && !cancelled && !issuingStopped; slot++) {
                long offset = schedule.offsetNanos(slot);
                if (offset > maxDurationNanos) {
                    break;
                }
                long intended = t0 + offset;
                parkUntil(intended);
                if (cancelled || issuingStopped) {
                    break;
                }
                dispatch(new Pending(slot, requestAtSlot.apply(slot), intended));
            }
        } finally {
            pacingDone = true;
            outstanding.incrementAndGet();
            settled(); // counts the latch down now if nothing is in flight
        }
    }

    private void dispatch(Pending p) {
        outstanding.incrementAndGet();
        synchronized (waiting) {
            if (maxConcurrency > 0 && capped >= maxConcurrency) {
                waiting.add(p);
                return;
            }
            capped++;
        }
        issue(p.slot(), p.request(), p.intendedNanos(), idle.poll(), this::released);
    }

    /** Open loop: a request ended; its connection serves the next queued request or goes back to the pool. */
    private void released(StreamConnection connection) {
        Pending next;
        synchronized (waiting) {
            next = cancelled || issuingStopped ? null : waiting.poll();
            if (next == null) {
                capped--;
            }
        }
        if (next != null) {
            issue(next.slot(), next.request(), next.intendedNanos(), connection, this::released);
        } else if (connection != null) {
            idle.add(connection);
            if (cancelled) {
                connection.channel().close();
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
        return active.size() + connecting.size();
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
                    + " of " + size + " requests ended, " + inFlightCount() + " in flight. Raise the timeout"
                    + " (" + ProfiledRolloutKeys.LOAD_TIMEOUT + " in the JUnit extension), lower"
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

    /**
     * @return the records of the requests that have ended so far, ordered by index, without waiting: for a caller
     *         that cannot wait for {@link #await(Duration)} (a JVM shutdown hook)
     */
    public List<RequestRecord> recordsSoFar() {
        return snapshot();
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
     * Stops issuing requests and cancels the in-flight ones, which are recorded as {@code CANCELLED}; open-loop
     * requests still waiting for the concurrency cap are dropped (never sent, no record). Returns without waiting;
     * {@link #await(Duration)} then returns promptly. Idempotent.
     */
    public void cancel() {
        cancelled = true;
        wakePacerAndDropWaiting();
        for (StreamConnection connection : active) {
            connection.channel().eventLoop().execute(connection::cancel);
        }
        for (ChannelFuture future : connecting) {
            future.channel().close();
        }
        for (StreamConnection connection : idle) {
            connection.channel().close();
        }
        for (StreamConnection connection : parked) {
            connection.channel().close();
        }
    }

    /**
     * Issues no further request, and lets those in flight run to their end (they are recorded as usual): the run then
     * ends with fewer requests than it planned, and the engine holds none of them any more. Requests waiting for the
     * concurrency cap are dropped without a record, as those the pacer never issued. Idempotent.
     */
    public void stopIssuing() {
        issuingStopped = true;
        wakePacerAndDropWaiting();
    }

    /** Wakes the pacer to see the stop; drops the requests waiting for the concurrency cap (never sent, no record). */
    private void wakePacerAndDropWaiting() {
        if (pacer != null) {
            LockSupport.unpark(pacer);
        }
        List<Pending> dropped;
        synchronized (waiting) {
            dropped = new ArrayList<>(waiting);
            waiting.clear();
        }
        dropped.forEach(p -> settled());
    }

    /**
     * Cancels, joins the pacer thread and waits for the cancelled requests to be recorded (the event loop belongs to
     * the generator and outlives the run).
     */
    void cancelAndJoin() {
        cancel();
        startThreads(); // a chained run that was never started ends at once, cancelled

        boolean interrupted = false;
        long deadline = System.nanoTime() + JOIN_BOUND.toNanos();
        while (workersDone.getCount() > 0 && System.nanoTime() < deadline) {
            try {
                workersDone.await(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (pacer == null) {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        while (pacer.isAlive() && System.nanoTime() < deadline) {
            try {
                pacer.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                interrupted = true;
                cancel();
            }
        }
        if (pacer.isAlive()) {
            System.getLogger(LoadRun.class.getName()).log(System.Logger.Level.WARNING, "load pacer "
                    + pacer.getName() + " still alive " + JOIN_BOUND.toSeconds() + " s after the run was cancelled");
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
