package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import org.apiguardian.api.API;

/**
 * The GPU events of one device — {@code (start, end, correlation, external id, tag, name)} records — in bounded memory,
 * replayed once in start order by {@link #replay(Visitor)}.
 *
 * <h2>Bound</h2>
 * Records are buffered in a chunk of {@value #CHUNK} records (44 bytes each, about 5.5 MiB, plus 1.5 MiB of sort
 * buffers; the chunk is recycled for the next timeline of the same thread once this one is closed). A full chunk is
 * sorted by start and written to a temporary file as one sorted run; {@link #replay} merges the runs (k-way, one 64 KiB buffer
 * per run) with the last, in-memory chunk. Memory is therefore O(chunk + runs × 64 KiB), independent of the number
 * of events; disk use is 40 bytes per event beyond the first chunk. Temporary files are deleted by {@link #close()}.
 * Not thread-safe.
 */
@API(status = INTERNAL, since = "0.1")
public final class GpuTimeline implements AutoCloseable {

    /** Records per in-memory chunk. */
    public static final int CHUNK = 1 << 17;
    private static final int IDX_BITS = 17;
    private static final long REL_LIMIT = 1L << (63 - IDX_BITS);
    /** Bytes per spilled record: start, end, correlation, external id (8 each), tag and name (4 each). */
    private static final int RECORD = 40;
    /** Records per write / read block of a run (about 64 KiB). */
    private static final int BLOCK_RECORDS = 1638;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());

    /** The in-memory chunk's columns and sort buffers (about 7 MiB), recycled per thread ({@link Recycler}). */
    private static final class Chunk {
        final long[] starts = new long[CHUNK];
        final long[] ends = new long[CHUNK];
        final long[] corrs = new long[CHUNK];
        final long[] exts = new long[CHUNK];
        final int[] tags = new int[CHUNK];
        final int[] names = new int[CHUNK];
        final long[] sortKeys = new long[CHUNK];
        final int[] sortOrder = new int[CHUNK];
    }

    private static final Recycler<Chunk> CHUNKS = new Recycler<>(Chunk::new);

    private Chunk chunk = CHUNKS.take();
    private long[] starts = chunk.starts;
    private long[] ends = chunk.ends;
    private long[] corrs = chunk.corrs;
    private long[] exts = chunk.exts;
    private int[] tags = chunk.tags;
    private int[] names = chunk.names;
    private final List<Path> runs = new ArrayList<>();
    private int size;
    private long total;

    /** Receives the records in start order (ties in no particular order). */
    @FunctionalInterface
    public interface Visitor {
        void visit(long start, long end, long correlation, long externalId, int tag, int name);
    }

    /**
     * Adds one event; {@code end < start} is clamped to {@code start}.
     *
     * @param name the caller's index of the event's name (kernel name id), or −1
     */
    public void add(long start, long end, long correlation, long externalId, int tag, int name) {
        if (size == checkAt) {
            checkpoint();
        }
        starts[size] = start;
        ends[size] = Math.max(start, end);
        corrs[size] = correlation;
        exts[size] = externalId;
        tags[size] = tag;
        names[size] = name;
        size++;
        total++;
    }

    /**
     * The size at which {@link #add} calls {@link #checkpoint()}: 1, 2, 4, … up to {@link #CHUNK}, where it spills.
     * The early calls do nothing but double it; they make the branch one the JIT's profile has seen taken, so the
     * compiled caller takes the first spill as an ordinary call instead of leaving its compiled code for the
     * interpreter and being compiled again (an "unstable if" deoptimisation of the whole event loop).
     */
    private int checkAt = 1;

    private void checkpoint() {
        if (size == CHUNK) {
            spill();
        } else {
            checkAt = Math.min(CHUNK, checkAt * 2);
        }
    }

    /** Number of records added. */
    public long size() {
        return total;
    }

    /** Number of sorted runs written to disk so far. */
    public int spilledRuns() {
        return runs.size();
    }

    /** Replays every record in start order. May be called more than once. */
    public void replay(Visitor visitor) {
        int[] order = sortedOrder();
        if (runs.isEmpty()) {
            for (int k = 0; k < size; k++) {
                int i = order[k];
                visitor.visit(starts[i], ends[i], corrs[i], exts[i], tags[i], names[i]);
            }
            return;
        }
        List<RunReader> readers = new ArrayList<>();
        try {
            PriorityQueue<RunReader> heap = new PriorityQueue<>((a, b) -> Long.compare(a.start, b.start));
            for (Path run : runs) {
                RunReader r = new RunReader(run);
                readers.add(r);
                if (r.next()) {
                    heap.add(r);
                }
            }
            RunReader memory = new RunReader(order, size);
            if (memory.next()) {
                heap.add(memory);
            }
            RunReader r = heap.poll();
            while (r != null) {
                visitor.visit(r.start, r.end, r.corr, r.ext, r.tag, r.name);
                if (r.next()) {
                    // Runs cover mostly disjoint time ranges: stay on this one while it is still the earliest.
                    RunReader other = heap.peek();
                    if (other == null || r.start <= other.start) {
                        continue;
                    }
                    heap.add(r);
                }
                r = heap.poll();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading a spilled GPU timeline run", e);
        } finally {
            for (RunReader r : readers) {
                r.close();
            }
        }
    }


    /**
     * The chunk's record indexes in start order. The returned array is reused by the next call. GPU events arrive
     * almost in start order (per device, in the order the profiler's activity buffers were flushed), so the keys are
     * first put in order by insertion within a budget of moves, and only a chunk that exceeds it is sorted in full.
     */
    private int[] sortedOrder() {
        int[] order = chunk.sortOrder; // reused by every spill: allocating it each time cost a collection per GB
        if (size == 0) {
            return order;
        }
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        boolean ascending = true;
        for (int i = 0; i < size; i++) {
            long s = starts[i];
            ascending &= i == 0 || s >= starts[i - 1];
            min = Math.min(min, s);
            max = Math.max(max, s);
        }
        if (ascending) {
            for (int i = 0; i < size; i++) {
                order[i] = i;
            }
        } else if (max - min >= 0 && max - min < REL_LIMIT) {
            long[] keys = chunk.sortKeys;
            for (int i = 0; i < size; i++) {
                keys[i] = ((starts[i] - min) << IDX_BITS) | i;
            }
            if (!insertionSort(keys, size, 8L * size)) {
                Arrays.sort(keys, 0, size);
            }
            for (int i = 0; i < size; i++) {
                order[i] = (int) (keys[i] & ((1 << IDX_BITS) - 1));
            }
        } else {
            Integer[] boxed = new Integer[size];
            for (int i = 0; i < size; i++) {
                boxed[i] = i;
            }
            Arrays.sort(boxed, (a, b) -> Long.compare(starts[a], starts[b]));
            for (int i = 0; i < size; i++) {
                order[i] = boxed[i];
            }
        }
        return order;
    }

    /**
     * Sorts {@code keys[0, n)} by insertion unless that would take more than {@code budget} moves; returns false (the
     * keys then hold a permutation of the input, not sorted) when the budget ran out.
     */
    static boolean insertionSort(long[] keys, int n, long budget) {
        long moves = 0;
        for (int i = 1; i < n; i++) {
            long k = keys[i];
            int j = i - 1;
            while (j >= 0 && keys[j] > k) {
                keys[j + 1] = keys[j];
                j--;
                if (++moves > budget) {
                    keys[j + 1] = k;
                    return false;
                }
            }
            keys[j + 1] = k;
        }
        return true;
    }

    private void spill() {
        int[] order = sortedOrder();
        try {
            Path run = Files.createTempFile("gpu-timeline-", ".run");
            run.toFile().deleteOnExit();
            // Records are packed into a byte block with one bulk write per block (DataOutputStream wrote byte by byte).
            byte[] block = new byte[RECORD * BLOCK_RECORDS];
            try (OutputStream out = Files.newOutputStream(run)) {
                int n = 0;
                for (int k = 0; k < size; k++) {
                    int i = order[k];
                    int at = n * RECORD;
                    LONGS.set(block, at, starts[i]);
                    LONGS.set(block, at + 8, ends[i]);
                    LONGS.set(block, at + 16, corrs[i]);
                    LONGS.set(block, at + 24, exts[i]);
                    INTS.set(block, at + 32, tags[i]);
                    INTS.set(block, at + 36, names[i]);
                    if (++n == BLOCK_RECORDS) {
                        out.write(block, 0, n * RECORD);
                        n = 0;
                    }
                }
                out.write(block, 0, n * RECORD);
            }
            runs.add(run);
        } catch (IOException e) {
            throw new UncheckedIOException("spilling the GPU timeline to a temporary file", e);
        }
        size = 0;
    }

    @Override
    public void close() {
        for (Path run : runs) {
            try {
                Files.deleteIfExists(run);
            } catch (IOException ignored) {
                // best effort: deleteOnExit is registered too
            }
        }
        runs.clear();
        if (chunk != null) { // recycled for the next timeline of this thread; this one can no longer be used
            CHUNKS.give(chunk);
            chunk = null;
            starts = null;
            ends = null;
            corrs = null;
            exts = null;
            tags = null;
            names = null;
        }
    }

    private final class RunReader {
        private final InputStream in;
        private final byte[] block;
        private int blockLength;
        private int blockPos;
        private final int[] order;
        private final int orderLength;
        private int pos;
        long start;
        long end;
        long corr;
        long ext;
        int tag;
        int name;

        RunReader(Path run) throws IOException {
            this.in = Files.newInputStream(run);
            this.block = new byte[RECORD * BLOCK_RECORDS];
            this.order = null;
            this.orderLength = 0;
        }

        RunReader(int[] order, int length) {
            this.in = null;
            this.block = null;
            this.order = order;
            this.orderLength = length;
        }

        boolean next() throws IOException {
            if (in == null) {
                if (pos == orderLength) {
                    return false;
                }
                int i = order[pos++];
                start = starts[i];
                end = ends[i];
                corr = corrs[i];
                ext = exts[i];
                tag = tags[i];
                name = names[i];
                return true;
            }
            if (blockPos == blockLength) {
                blockLength = in.readNBytes(block, 0, block.length);
                blockPos = 0;
                if (blockLength % RECORD != 0) {
                    throw new EOFException("a spilled GPU timeline run ends inside a record");
                }
                if (blockLength == 0) {
                    return false;
                }
            }
            int at = blockPos;
            start = (long) LONGS.get(block, at);
            end = (long) LONGS.get(block, at + 8);
            corr = (long) LONGS.get(block, at + 16);
            ext = (long) LONGS.get(block, at + 24);
            tag = (int) INTS.get(block, at + 32);
            name = (int) INTS.get(block, at + 36);
            blockPos = at + RECORD;
            return true;
        }

        void close() {
            if (in != null) {
                try {
                    in.close();
                } catch (IOException ignored) {
                    // read-only temporary file
                }
            }
        }
    }
}
