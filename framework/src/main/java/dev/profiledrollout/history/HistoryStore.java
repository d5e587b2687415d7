package dev.profiledrollout.history;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.HdrHistogram.Histogram;
import org.apiguardian.api.API;

/**
 * Where runs are kept: a SQLite file by default, any JDBC database for teams. A <em>series</em> is the runs of one
 * test id with one configuration fingerprint; only runs of the same series are compared. Implementations are safe
 * for several threads and for several processes writing the same database at once: a recorded run is either
 * entirely stored or not at all.
 */
@API(status = API.Status.EXPERIMENTAL)
public interface HistoryStore extends AutoCloseable {

    /**
     * Stores a run with its metrics and histograms in one transaction.
     *
     * @return the run with its new id
     * @throws HistoryStoreException if the database cannot be written
     */
    RunRecord record(RunRecord run);

    /** One run with its metrics and histograms, or empty when no run has that id. */
    Optional<RunRecord> run(long id);

    /**
     * The latest runs of a series recorded before {@code beforeId}, oldest first, with their metrics but without
     * histograms; runs whose outcome is {@code ERROR} are left out.
     *
     * @param limit    at most this many runs, {@code > 0}
     * @param beforeId only runs with a smaller id; {@link Long#MAX_VALUE} for all
     */
    List<RunRecord> history(String testId, String fingerprint, int limit, long beforeId);

    /**
     * One metric over the latest runs of a series recorded before {@code beforeId}, oldest first, skipping runs
     * without the metric and runs whose outcome is {@code ERROR}. This is the query a regression check makes.
     */
    double[] values(String testId, String fingerprint, String metric, int limit, long beforeId);

    /** A run's raw histogram of one distribution ({@code ttft}, {@code itl}, {@code tpot}, {@code e2e}), values in ns. */
    Optional<Histogram> histogram(long runId, String distribution);

    /**
     * The latest runs of all series, newest first, without histograms.
     *
     * @param testIdLike a SQL {@code LIKE} pattern on the test id ({@code %} for all)
     * @param limit      at most this many
     */
    List<RunRecord> list(String testIdLike, int limit);

    /** Every series with its run count and first and last start, ordered by test id. */
    List<SeriesInfo> series();

    /**
     * Deletes runs: all but the latest {@code keepPerSeries} of each series, and every run started before
     * {@code olderThan} (null for no age limit).
     *
     * @return how many runs were deleted
     */
    int prune(int keepPerSeries, Instant olderThan);

    /** Where the store is, with credentials removed, for messages and reports. */
    String location();

    /** Releases the connection(s); the database itself stays. */
    @Override
    void close();

    /**
     * One series of the store.
     *
     * @param testId      the test id
     * @param fingerprint the configuration fingerprint
     * @param runs        how many runs it holds
     * @param first       when its first run started
     * @param last        when its latest run started
     */
    @API(status = API.Status.EXPERIMENTAL)
    record SeriesInfo(String testId, String fingerprint, int runs, Instant first, Instant last) {
    }
}
