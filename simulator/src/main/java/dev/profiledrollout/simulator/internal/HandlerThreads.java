package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apiguardian.api.API;

/**
 * The handler threads of one simulated server ({@code <prefix>-N}, daemons): an executor for
 * {@code HttpServer.setExecutor} whose {@link #close()} returns only when every thread it made has ended.
 *
 * <p>{@link ExecutorService#awaitTermination} alone is not enough for that: a pool reports termination from its last
 * worker thread while that thread is still on its way out, so a caller could still see it alive.
 */
@API(status = INTERNAL, since = "0.1")
public final class HandlerThreads implements AutoCloseable {

    private static final long GIVE_UP_NS = TimeUnit.SECONDS.toNanos(60);

    private final String prefix;
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final ExecutorService executor;

    public HandlerThreads(String prefix) {
        this.prefix = prefix;
        AtomicInteger ids = new AtomicInteger();
        this.executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, prefix + "-" + ids.incrementAndGet());
            t.setDaemon(true);
            threads.add(t);
            return t;
        });
    }

    public ExecutorService executor() {
        return executor;
    }

    /**
     * Interrupts the handlers and joins every thread, for at most 60 s: a handler that ignores interruption is then
     * left running (its thread is a daemon) and a warning is logged. Keeps the caller's interrupt status.
     */
    @Override
    public void close() {
        executor.shutdownNow();
        boolean interrupted = false;
        long deadline = System.nanoTime() + GIVE_UP_NS;
        for (Thread t : threads) {
            while (t.isAlive()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    System.getLogger(HandlerThreads.class.getName()).log(System.Logger.Level.WARNING,
                            prefix + " threads still running 60 s after close; leaving them");
                    restoreInterrupt(interrupted);
                    return;
                }
                try {
                    t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        restoreInterrupt(interrupted);
    }

    private static void restoreInterrupt(boolean interrupted) {
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
