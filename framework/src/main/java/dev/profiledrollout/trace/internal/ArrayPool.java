package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.lang.ref.SoftReference;
import java.util.ArrayDeque;
import org.apiguardian.api.API;

/**
 * Per-thread free lists of the trace reader's per-file {@code long[]} and {@code int[]} working arrays (stream queues,
 * roofline call columns, sort orders), by power-of-two length, so that the files read one after another on a thread
 * reuse them instead of allocating each file's arrays anew.
 *
 * <p>Why: the 8 files of a training rank set, read by {@code analyze} in one JVM, allocated about 277 MiB in all
 * (JFR allocation samples, bench/README.md, issue 27 sixth round), most of it in arrays that grow by doubling and die
 * with their file. Under plain {@code java -jar} on a large host, G1 spreads that allocation over eden regions it has
 * not touched before, so it becomes resident memory.
 *
 * <p>Rules: an array's length is a power of two of at least {@value #MIN_LENGTH}; its content is whatever its last
 * user left ({@link #zeroedLongs} when zeros are needed); an array given back must no longer be used, nor be reachable
 * from a result. Arrays longer than 2<sup>{@value #MAX_BITS}</sup> elements are allocated at the length asked and
 * never kept. A thread keeps at most {@value #PER_LENGTH} arrays per length and type and {@value #MAX_KEPT_MIB} MiB
 * in all, softly referenced, so the collector may take them back under memory pressure.
 */
@API(status = INTERNAL, since = "0.2")
public final class ArrayPool {

    static final int MIN_LENGTH = 64;
    private static final int MIN_BITS = 6;
    static final int MAX_BITS = 24;
    static final int PER_LENGTH = 8;
    static final int MAX_KEPT_MIB = 64;

    private static final ThreadLocal<ArrayPool> POOLS = ThreadLocal.withInitial(ArrayPool::new);

    @SuppressWarnings("unchecked")
    private final ArrayDeque<SoftReference<long[]>>[] longs = new ArrayDeque[MAX_BITS + 1];
    @SuppressWarnings("unchecked")
    private final ArrayDeque<SoftReference<int[]>>[] ints = new ArrayDeque[MAX_BITS + 1];
    /** Bytes of the arrays on the lists (counted when given, uncounted when taken, also if the collector cleared it). */
    private long keptBytes;

    private ArrayPool() {
        for (int bits = MIN_BITS; bits <= MAX_BITS; bits++) {
            longs[bits] = new ArrayDeque<>();
            ints[bits] = new ArrayDeque<>();
        }
    }

    /** log2 of the pooled length for {@code minLength}, or −1 when it is too long to pool. */
    static int bits(int minLength) {
        if (minLength < 0) {
            throw new NegativeArraySizeException(String.valueOf(minLength));
        }
        if (minLength <= MIN_LENGTH) {
            return MIN_BITS;
        }
        int bits = 32 - Integer.numberOfLeadingZeros(minLength - 1);
        return bits <= MAX_BITS ? bits : -1;
    }

    /** A {@code long[]} of at least {@code minLength} elements (length a power of two), content unspecified. */
    public static long[] longs(int minLength) {
        int bits = bits(minLength);
        if (bits < 0) {
            return new long[minLength];
        }
        ArrayPool pool = POOLS.get();
        long[] array = pool.pop(pool.longs[bits], 8L << bits);
        return array != null ? array : new long[1 << bits];
    }

    /** {@link #longs(int)} with every element 0. */
    public static long[] zeroedLongs(int minLength) {
        long[] array = longs(minLength);
        java.util.Arrays.fill(array, 0L);
        return array;
    }

    /** An {@code int[]} of at least {@code minLength} elements (length a power of two), content unspecified. */
    public static int[] ints(int minLength) {
        int bits = bits(minLength);
        if (bits < 0) {
            return new int[minLength];
        }
        ArrayPool pool = POOLS.get();
        int[] array = pool.pop(pool.ints[bits], 4L << bits);
        return array != null ? array : new int[1 << bits];
    }

    /** The newest array on {@code list} the collector has not cleared, or null. */
    private <T> T pop(ArrayDeque<SoftReference<T>> list, long bytes) {
        while (!list.isEmpty()) {
            keptBytes -= bytes;
            T array = list.pop().get();
            if (array != null) {
                return array;
            }
        }
        return null;
    }

    /**
     * A pooled array of at least {@code minLength} elements that starts with the first {@code used} elements of
     * {@code array}; {@code array} is given back.
     */
    public static long[] grow(long[] array, int used, int minLength) {
        long[] bigger = longs(Math.max(minLength, used));
        System.arraycopy(array, 0, bigger, 0, used);
        give(array);
        return bigger;
    }

    /** {@link #grow(long[], int, int)} for {@code int[]}. */
    public static int[] grow(int[] array, int used, int minLength) {
        int[] bigger = ints(Math.max(minLength, used));
        System.arraycopy(array, 0, bigger, 0, used);
        give(array);
        return bigger;
    }

    /** Gives {@code array} back to this thread's list; arrays of other lengths, or over the limits, are dropped. */
    public static void give(long[] array) {
        int bits = pooledBits(array.length);
        if (bits >= 0) {
            ArrayPool pool = POOLS.get();
            pool.keep(pool.longs[bits], array, 8L << bits);
        }
    }

    /** {@link #give(long[])} for {@code int[]}. */
    public static void give(int[] array) {
        int bits = pooledBits(array.length);
        if (bits >= 0) {
            ArrayPool pool = POOLS.get();
            pool.keep(pool.ints[bits], array, 4L << bits);
        }
    }

    private <T> void keep(ArrayDeque<SoftReference<T>> list, T array, long bytes) {
        if (list.size() < PER_LENGTH && keptBytes + bytes <= (long) MAX_KEPT_MIB << 20) {
            list.push(new SoftReference<>(array));
            keptBytes += bytes;
        }
    }

    /** log2 of {@code length} when arrays of that length are pooled, else −1. */
    private static int pooledBits(int length) {
        if (Integer.bitCount(length) != 1) {
            return -1;
        }
        int bits = Integer.numberOfTrailingZeros(length);
        return bits >= MIN_BITS && bits <= MAX_BITS ? bits : -1;
    }

    /** Bytes kept on the calling thread's lists (for tests). */
    static long keptBytes() {
        return POOLS.get().keptBytes;
    }
}
