package dev.profiledrollout.trace.reading;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apiguardian.api.API;

/**
 * Reads several trace files at once, one reader per core, the way both {@code TraceSet.read} and the {@code analyze}
 * command read theirs. With as many readers as cores, each reader inflates gzip on its own thread ({@code pipe =
 * false}): every core is already busy, and the hand-over between threads cost about 5 % of the CPU time of an 8-file
 * rank set (bench/README.md). With fewer, each reader gets a second thread for the inflate ({@code pipe = true}); a
 * lone reader runs on the calling thread.
 */
@API(status = INTERNAL, since = "0.2")
public final class ParallelReads {

    /** Reads one input; {@code pipe} as in {@link KinetoTraceReader#read(java.nio.file.Path,
     * dev.profiledrollout.trace.analysis.KernelCategories, boolean, boolean)}. */
    @FunctionalInterface
    public interface Read<I, T> {
        T read(I input, boolean pipe) throws IOException;
    }

    private ParallelReads() {
    }

    /**
     * Reads every input and returns the results in input order, handing each to {@code inOrder} (on the calling
     * thread, in input order) as soon as it and those before it are done. The pool is shut down and its threads have
     * ended before this returns, also when it throws.
     *
     * @throws IOException the first failure in input order (an {@link UncheckedIOException}'s cause included);
     *                     runtime exceptions and errors of a reader are rethrown as they are
     */
    public static <I, T> List<T> map(List<I> inputs, String threadName, Read<I, T> read, Consumer<T> inOrder)
            throws IOException {
        int cores = Runtime.getRuntime().availableProcessors();
        int threads = Math.max(1, Math.min(inputs.size(), cores));
        boolean pipe = threads < cores;
        List<T> results = new ArrayList<>();
        if (threads == 1) {
            for (I input : inputs) {
                T result = read.read(input, pipe);
                results.add(result);
                inOrder.accept(result);
            }
            return results;
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (I input : inputs) {
                futures.add(pool.submit(() -> read.read(input, pipe)));
            }
            for (Future<T> future : futures) {
                T result = await(future);
                results.add(result);
                inOrder.accept(result);
            }
            return results;
        } finally {
            pool.shutdownNow();
            try {
                while (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
                    pool.shutdownNow();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static <T> T await(Future<T> future) throws IOException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading traces", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof UncheckedIOException io) {
                throw io.getCause();
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IOException(cause);
        }
    }
}
