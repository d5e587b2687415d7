package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.zip.GZIPInputStream;
import org.apiguardian.api.API;

/**
 * Decompresses a gzip stream on its own daemon thread and hands the bytes to the reading thread through a bounded
 * queue ({@value #DEPTH} chunks of {@value #CHUNK} bytes, so at most about 4 MiB in flight), so inflating and
 * parsing use two cores. Chunks the reader has finished with go back to the inflating thread, which allocates a new
 * one only when none is free, so at most {@value #DEPTH} + 2 chunks (4.5 MiB) ever exist. Errors of the inflating
 * thread (a truncated or damaged gzip stream) are rethrown to the reader at the point where the good bytes end.
 * Closing stops the thread and waits for it, then gives the chunks to the reading thread's {@link Recycler}, so the
 * next file read on that thread inflates into the same 4.5 MiB (the 8 files of a rank set read one after another
 * allocated 36 MiB of chunks before). Not thread-safe on the reading side.
 */
@API(status = INTERNAL, since = "0.1")
public final class PipedInflater extends InputStream {

    private static final int CHUNK = 1 << 18;
    private static final int DEPTH = 16;
    /** Longest wait in {@link #close()} for the inflating thread to end. */
    private static final long JOIN_MS = 10_000;
    /** A reading thread's chunks from its last file; a set may hold fewer than DEPTH + 2 (the rest are allocated). */
    private static final Recycler<ArrayDeque<byte[]>> CHUNKS = new Recycler<>(ArrayDeque::new);
    private static final byte[] END = new byte[0];

    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(DEPTH);
    /** Chunks the reader has finished with, reused by the inflating thread (saves allocating and zeroing 1 GB). */
    private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(DEPTH + 2);
    private final Thread thread;
    private volatile boolean closed;
    private byte[] current = new byte[0];
    private int currentLength;
    private int position;
    private boolean ended;

    /**
     * Reads the gzip header of {@code compressed} on the calling thread, then starts inflating on a new thread.
     *
     * @throws IOException when the header is damaged ({@link java.util.zip.ZipException}) or cut short
     */
    public PipedInflater(InputStream compressed) throws IOException {
        GZIPInputStream gzip = new GZIPInputStream(compressed, 1 << 16);
        ArrayDeque<byte[]> recycled = CHUNKS.take();
        while (!recycled.isEmpty()) {
            free.offer(recycled.pop());
        }
        thread = new Thread(() -> pump(gzip), "trace-inflater");
        thread.setDaemon(true);
        thread.start();
    }

    private void pump(InputStream compressed) {
        try (InputStream in = compressed) {
            while (!closed) {
                byte[] chunk = free.poll();
                if (chunk == null) {
                    chunk = new byte[CHUNK];
                }
                int n = in.readNBytes(chunk, 0, CHUNK);
                if (n > 0) {
                    queue.put(n == CHUNK ? chunk : java.util.Arrays.copyOf(chunk, n));
                }
                if (n < CHUNK) {
                    break;
                }
            }
            queue.put(END);
        } catch (IOException e) {
            offerQuietly(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            offerQuietly(new IOException(e));
        }
    }

    private void offerQuietly(IOException e) {
        try {
            queue.put(e);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean fill() throws IOException {
        if (ended) {
            return false;
        }
        Object next;
        try {
            next = queue.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for decompressed trace bytes");
        }
        if (next instanceof IOException e) {
            ended = true;
            throw e;
        }
        byte[] chunk = (byte[]) next;
        if (chunk == END) {
            ended = true;
            return false;
        }
        if (current.length == CHUNK) {
            free.offer(current); // fully read: the inflating thread may fill it again
        }
        current = chunk;
        currentLength = chunk.length;
        position = 0;
        return true;
    }

    @Override
    public int read() throws IOException {
        while (position == currentLength) {
            if (!fill()) {
                return -1;
            }
        }
        return current[position++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (position == currentLength) {
            if (!fill()) {
                return -1;
            }
        }
        int n = Math.min(len, currentLength - position);
        System.arraycopy(current, position, b, off, n);
        position += n;
        return n;
    }

    /**
     * Stops the inflating thread and waits for it (it ends within one chunk's inflate: its file channel's reads are
     * interruptible), then keeps the full-size chunks for the next {@code PipedInflater} of this thread. If the wait
     * is interrupted, or the thread is still running after {@value #JOIN_MS} ms, the chunks are left to the collector,
     * since the inflating thread may still write to one; the interrupt status is kept.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        thread.interrupt();
        try {
            thread.join(JOIN_MS);
        } catch (InterruptedException e) {
            queue.clear();
            Thread.currentThread().interrupt();
            return;
        }
        if (thread.isAlive()) {
            queue.clear();
            return;
        }
        ArrayDeque<byte[]> keep = new ArrayDeque<>(DEPTH + 2);
        for (Object o : queue) {
            if (o instanceof byte[] chunk && chunk.length == CHUNK) {
                keep.push(chunk);
            }
        }
        queue.clear();
        free.drainTo(keep);
        if (current.length == CHUNK) {
            keep.push(current);
        }
        current = new byte[0];
        currentLength = 0;
        position = 0;
        ended = true;
        CHUNKS.give(keep);
    }
}
