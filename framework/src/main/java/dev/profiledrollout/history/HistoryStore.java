package dev.profiledrollout.history;

import dev.profiledrollout.history.internal.JdbcHistoryStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
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
     * Opens the store at a JDBC URL, creating its tables or migrating them to this version's schema (Flyway, one
     * migration at a time even when several processes open a fresh database at once).
     *
     * @param jdbcUrl  {@code jdbc:sqlite:<file>} (parent directories are created; the file runs in WAL mode and a
     *                 {@code <file>.lock} beside it serialises migrations) or
     *                 {@code jdbc:postgresql://<host>[:<port>]/<database>} (the database must exist)
     * @param user     the database user, null or empty for none (SQLite needs none)
     * @param password the password, null or empty for none
     * @throws HistoryStoreException naming the store without credentials and the fix, when the URL is not a JDBC URL
     *                               or names no driver or database this supports, the server cannot be reached or
     *                               refuses the login, the file or directory is not writable, or the database holds a
     *                               newer schema than this version knows
     */
    static HistoryStore open(String jdbcUrl, String user, String password) {
        return JdbcHistoryStore.open(jdbcUrl, user, password);
    }

    /**
     * Opens (or creates) the SQLite store in a file, as {@link #open open("jdbc:sqlite:" + file, null, null)}.
     *
     * @throws HistoryStoreException as {@link #open}
     */
    static HistoryStore sqlite(Path file) {
        return open("jdbc:sqlite:" + file, null, null);
    }

    /**
     * Stores a run with its metrics and histograms in one transaction. Metric values that are not finite are not
     * stored (SQLite has no NaN, and no threshold model can use one).
     *
     * @return the run with its new id and the metrics stored
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

    /**
     * The legend of the top-kernel metric ids: every {@code kernel.K<hash>.ms} ({@link HistoryMetrics#kernelMetric})
     * a recorded run carried, with the kernel's full name, sorted by id.
     *
     * @throws HistoryStoreException if the database cannot be read
     */
    SortedMap<String, String> kernelNames();

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
