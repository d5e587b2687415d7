package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import org.apiguardian.api.API;

/**
 * Stable sort of the indexes 0 … n − 1 of columns held elsewhere (the reader keeps its rows as parallel primitive
 * arrays, so there is no object to sort): a bottom-up merge sort that leaves a pair of neighbouring runs alone when
 * the first's last index already comes no later than the second's first, which is the common case for ids and
 * times that arrive almost in order. Indexes that compare equal keep their order, as {@code Arrays.sort} on objects
 * (TimSort) keeps it, so a caller that sorted boxed indexes gets the same order.
 */
@API(status = INTERNAL, since = "0.2")
public final class IndexMergeSort {

    /** The order to sort by. */
    @FunctionalInterface
    public interface Before {
        /** Whether index {@code a} sorts strictly before index {@code b}. */
        boolean before(int a, int b);
    }

    private IndexMergeSort() {
    }

    /**
     * The indexes 0 … n − 1 in {@code order}'s order, in the first {@code n} elements of an {@link ArrayPool} array
     * that the caller gives back when done.
     */
    public static int[] sort(int n, Before order) {
        int[] indexes = ArrayPool.ints(n);
        int[] buffer = ArrayPool.ints(n);
        for (int i = 0; i < n; i++) {
            indexes[i] = i;
        }
        for (int width = 1; width < n; width *= 2) {
            for (int lo = 0; lo < n - width; lo += 2 * width) {
                int mid = lo + width;
                int hi = Math.min(lo + 2 * width, n);
                if (!order.before(indexes[mid], indexes[mid - 1])) {
                    continue; // already in order
                }
                int i = lo;
                int j = mid;
                int k = lo;
                while (i < mid && j < hi) {
                    buffer[k++] = order.before(indexes[j], indexes[i]) ? indexes[j++] : indexes[i++]; // ties: left
                }
                while (i < mid) {
                    buffer[k++] = indexes[i++];
                }
                while (j < hi) {
                    buffer[k++] = indexes[j++];
                }
                System.arraycopy(buffer, lo, indexes, lo, hi - lo);
            }
        }
        ArrayPool.give(buffer);
        return indexes;
    }
}
