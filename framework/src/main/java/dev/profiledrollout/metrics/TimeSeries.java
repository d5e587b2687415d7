package dev.profiledrollout.metrics;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apiguardian.api.API;

/**
 * A per-second time series of a run, from its records: requests started, completed and failed, output tokens,
 * and requests in flight, in 1-second buckets relative to the run's start. Immutable.
 *
 * <p>Output tokens are placed at their chunk times (one per chunk, or the chunk's token count when the endpoint
 * reports it), as vLLM's {@code max_output_tokens_per_s} places them. A request is in flight in a bucket when its
 * [send, end] interval overlaps the bucket, as vLLM's {@code max_concurrent_requests} counts it; that count can exceed
 * the concurrency (a request ending and its successor starting in one second both count), so each bucket also has
 * the time-weighted mean number of requests in flight (Σ overlap time / bucket length, Little's law).
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class TimeSeries {

    /**
     * One bucket.
     *
     * @param second       bucket index: [second, second + 1) s after the run's start
     * @param started      requests sent in the bucket
     * @param completed    requests that ended successfully in the bucket
     * @param failed       requests that ended in failure in the bucket
     * @param outputTokens output tokens received in the bucket
     * @param inFlight     requests whose [send, end] overlaps the bucket
     * @param meanInFlight time-weighted mean of requests in flight over the bucket (the last bucket: over its part
     *                     before the run's end)
     */
    public record Bucket(int second, int started, int completed, int failed, long outputTokens, int inFlight,
                         double meanInFlight) {

        /** A bucket without the time-weighted mean (NaN), e.g. read from an older CSV. */
        public Bucket(int second, int started, int completed, int failed, long outputTokens, int inFlight) {
            this(second, started, completed, failed, outputTokens, inFlight, Double.NaN);
        }
    }

    private final List<Bucket> buckets;

    private TimeSeries(List<Bucket> buckets) {
        this.buckets = List.copyOf(buckets);
    }

    /**
     * @param records    the run's records, not null
     * @param startNanos the run's start ({@link System#nanoTime()}); earlier timestamps fall in bucket 0
     */
    public static TimeSeries of(List<RequestRecord> records, long startNanos) {
        long lastEnd = startNanos;
        for (RequestRecord r : records) {
            lastEnd = Math.max(lastEnd, r.endNanos());
        }
        int n = bucket(lastEnd, startNanos) + 1;
        int[] started = new int[n];
        int[] completed = new int[n];
        int[] failed = new int[n];
        long[] tokens = new long[n];
        int[] inFlight = new int[n];
        long[] busyNanos = new long[n];
        for (RequestRecord r : records) {
            int s = bucket(r.startNanos(), startNanos);
            int e = bucket(r.endNanos(), startNanos);
            started[s]++;
            (r.succeeded() ? completed : failed)[e]++;
            for (int b = s; b <= e; b++) {
                inFlight[b]++;
                long bucketStart = startNanos + b * 1_000_000_000L;
                long from = Math.max(r.startNanos(), bucketStart);
                long to = Math.min(r.endNanos(), bucketStart + 1_000_000_000L);
                busyNanos[b] += Math.max(0, to - from);
            }
            long[] chunks = r.chunkNanos();
            int[] chunkTokens = r.chunkTokens();
            for (int i = 0; i < chunks.length; i++) {
                tokens[bucket(chunks[i], startNanos)] += chunkTokens.length == 0 ? 1 : chunkTokens[i];
            }
        }
        List<Bucket> list = new ArrayList<>(n);
        for (int b = 0; b < n; b++) {
            long length = Math.min(1_000_000_000L, lastEnd - (startNanos + b * 1_000_000_000L));
            double mean = length > 0 ? (double) busyNanos[b] / length : 0;
            list.add(new Bucket(b, started[b], completed[b], failed[b], tokens[b], inFlight[b], mean));
        }
        return new TimeSeries(list);
    }

    private static int bucket(long nanos, long startNanos) {
        return (int) Math.max(0, (nanos - startNanos) / 1_000_000_000L);
    }

    /** @return the buckets, one per second from 0 to the last end; unmodifiable */
    public List<Bucket> buckets() {
        return buckets;
    }

    /** @return the largest in-flight count of any bucket (vLLM's {@code max_concurrent_requests}) */
    public int maxConcurrentRequests() {
        return buckets.stream().mapToInt(Bucket::inFlight).max().orElse(0);
    }

    /** @return the most output tokens of any bucket (vLLM's {@code max_output_tokens_per_s}) */
    public long maxOutputTokensPerSecond() {
        return buckets.stream().mapToLong(Bucket::outputTokens).max().orElse(0);
    }

    /**
     * Writes CSV with the header {@code second,started,completed,failed,output_tokens,in_flight,mean_in_flight}.
     *
     * @throws UncheckedIOException when the writer fails
     */
    public void writeCsv(Writer out) {
        try {
            out.write("second,started,completed,failed,output_tokens,in_flight,mean_in_flight\n");
            for (Bucket b : buckets) {
                out.write(String.format(Locale.ROOT, "%d,%d,%d,%d,%d,%d,%.3f%n", b.second(), b.started(),
                        b.completed(), b.failed(), b.outputTokens(), b.inFlight(), b.meanInFlight()));
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the time series", e);
        }
    }
}
