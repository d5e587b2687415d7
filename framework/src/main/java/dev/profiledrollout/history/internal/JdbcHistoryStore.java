package dev.profiledrollout.history.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.history.HistoryMetrics;
import dev.profiledrollout.history.HistoryStore;
import dev.profiledrollout.history.HistoryStoreException;
import dev.profiledrollout.history.RunConfiguration;
import dev.profiledrollout.history.RunIdentity;
import dev.profiledrollout.history.RunRecord;
import dev.profiledrollout.history.RunRecords;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import org.HdrHistogram.Histogram;
import org.apiguardian.api.API;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * A {@link HistoryStore} on plain JDBC: SQLite (the embedded default) or PostgreSQL, the schema migrated by Flyway
 * from {@code db/history/V*.sql} when the store is opened ({@link HistoryDatabase} opens and migrates).
 *
 * <p>Tables: {@code runs} (one row per run: identity, configuration columns, {@code extra} as a JSON object, outcome),
 * {@code run_metrics (run_id, name, value)} and {@code run_histograms (run_id, distribution, compressed)}, both
 * deleted with their run. The index {@code runs_series (test_id, fingerprint, id)} makes {@link #history} and
 * {@link #values} one range scan.
 *
 * <p>One connection per store, used by one thread at a time. Several stores, in one process or several, may write
 * the same database at once: a SQLite file runs in WAL mode with a busy timeout, writes take the write lock when
 * their transaction begins ({@code BEGIN IMMEDIATE}), and an operation that still meets {@code SQLITE_BUSY} or
 * {@code SQLITE_LOCKED} is retried after a short random pause.
 *
 * <p>Metric values that are not finite (NaN, infinities) are not stored: SQLite has no NaN, and neither is a figure a
 * regression check can use.
 */
@API(status = INTERNAL)
public final class JdbcHistoryStore implements HistoryStore {

    private static final int BUSY_ATTEMPTS = 40;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<TreeMap<String, String>> EXTRA = new TypeReference<>() {
    };
    /** Fixed width, so that text order is time order in every database. */
    private static final DateTimeFormatter STARTED_AT =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'").withZone(ZoneOffset.UTC);
    private static final String RUN_COLUMNS = "id, test_id, fingerprint, started_at, commit_id, branch, build_id, "
            + "build_url, host, backend, engine_kind, engine_version, model, gpu, tp, dp, pp, ep, input_tokens, "
            + "output_tokens, concurrency, request_rate, num_steps, phase, extra, outcome";
    private static final String INSERT_RUN = "INSERT INTO runs (test_id, fingerprint, started_at, commit_id, branch, "
            + "build_id, build_url, host, backend, engine_kind, engine_version, model, gpu, tp, dp, pp, ep, "
            + "input_tokens, output_tokens, concurrency, request_rate, num_steps, phase, extra, outcome) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id";
    private static final String SERIES_BEFORE = "test_id = ? AND fingerprint = ? AND id < ? AND outcome <> 'ERROR'";

    private final Connection connection;
    private final String location;
    private final boolean sqlite;

    JdbcHistoryStore(Connection connection, String location, boolean sqlite) {
        this.connection = connection;
        this.location = location;
        this.sqlite = sqlite;
    }

    /**
     * Opens (creating and migrating as needed) the store at a JDBC URL.
     *
     * @param jdbcUrl  {@code jdbc:sqlite:<file>} or {@code jdbc:postgresql://host[:port]/database}
     * @param user     the database user, null or empty for none
     * @param password the password, null or empty for none
     * @throws HistoryStoreException naming the store (without credentials) and the fix
     */
    public static JdbcHistoryStore open(String jdbcUrl, String user, String password) {
        return HistoryDatabase.open(jdbcUrl, user, password);
    }

    @Override
    public synchronized RunRecord record(RunRecord run) {
        SortedMap<String, Double> metrics = new TreeMap<>();
        SortedMap<String, String> kernelNames = new TreeMap<>(run.kernelNames());
        run.metrics().forEach((name, value) -> {
            if (value != null && Double.isFinite(value)) {
                // an old top-kernel id (kernel.top.<name>.ms) is stored under its short id, as V2 migrated them
                String id = HistoryMetrics.canonical(name);
                if (!id.equals(name)) {
                    kernelNames.putIfAbsent(id, name.substring("kernel.top.".length(), name.length() - ".ms".length()));
                }
                metrics.put(id, value);
            }
        });
        long id = inTransaction("record a run", () -> {
            long newId;
            try (PreparedStatement insert = connection.prepareStatement(INSERT_RUN)) {
                bindRun(insert, run);
                try (ResultSet keys = insert.executeQuery()) {
                    keys.next();
                    newId = keys.getLong(1);
                }
            }
            if (!metrics.isEmpty()) {
                try (PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO run_metrics (run_id, name, value) VALUES (?, ?, ?)")) {
                    for (Map.Entry<String, Double> m : metrics.entrySet()) {
                        insert.setLong(1, newId);
                        insert.setString(2, m.getKey());
                        insert.setDouble(3, m.getValue());
                        insert.addBatch();
                    }
                    insert.executeBatch();
                }
            }
            if (!kernelNames.isEmpty()) {
                // the legend: one row per id, whichever run named it first (the id is a hash of the name)
                try (PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO kernel_names (metric, name) VALUES (?, ?) ON CONFLICT (metric) DO NOTHING")) {
                    for (Map.Entry<String, String> k : kernelNames.entrySet()) {
                        insert.setString(1, k.getKey());
                        insert.setString(2, k.getValue());
                        insert.addBatch();
                    }
                    insert.executeBatch();
                }
            }
            if (!run.histograms().isEmpty()) {
                try (PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO run_histograms (run_id, distribution, compressed) VALUES (?, ?, ?)")) {
                    for (Map.Entry<String, byte[]> h : new TreeMap<>(run.histograms()).entrySet()) {
                        insert.setLong(1, newId);
                        insert.setString(2, h.getKey());
                        insert.setBytes(3, h.getValue());
                        insert.addBatch();
                    }
                    insert.executeBatch();
                }
            }
            return newId;
        });
        return new RunRecord(id, run.identity(), run.configuration(), run.outcome(), metrics, run.histograms(),
                kernelNames);
    }

    @Override
    public synchronized SortedMap<String, String> kernelNames() {
        return read("read the kernel names", () -> {
            SortedMap<String, String> names = new TreeMap<>();
            try (Statement select = connection.createStatement();
                    ResultSet rows = select.executeQuery("SELECT metric, name FROM kernel_names")) {
                while (rows.next()) {
                    names.put(rows.getString(1), rows.getString(2));
                }
            }
            return names;
        });
    }

    @Override
    public synchronized Optional<RunRecord> run(long id) {
        return read("read run " + id, () -> {
            List<RunRecord> runs = runs("SELECT " + RUN_COLUMNS + " FROM runs WHERE id = ?", id);
            if (runs.isEmpty()) {
                return Optional.<RunRecord>empty();
            }
            Map<String, byte[]> histograms = new HashMap<>();
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT distribution, compressed FROM run_histograms WHERE run_id = ?")) {
                select.setLong(1, id);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        histograms.put(rows.getString(1), rows.getBytes(2));
                    }
                }
            }
            RunRecord run = runs.get(0);
            return Optional.of(new RunRecord(run.id(), run.identity(), run.configuration(), run.outcome(),
                    run.metrics(), histograms));
        });
    }

    @Override
    public synchronized List<RunRecord> history(String testId, String fingerprint, int limit, long beforeId) {
        requirePositive(limit);
        return read("read the history of " + testId, () -> {
            List<RunRecord> newestFirst = runs("SELECT " + RUN_COLUMNS + " FROM runs WHERE " + SERIES_BEFORE
                    + " ORDER BY id DESC LIMIT ?", testId, fingerprint, beforeId, limit);
            List<RunRecord> oldestFirst = new ArrayList<>(newestFirst);
            Collections.reverse(oldestFirst);
            return oldestFirst;
        });
    }

    @Override
    public synchronized double[] values(String testId, String fingerprint, String metric, int limit, long beforeId) {
        requirePositive(limit);
        return read("read " + metric + " of " + testId, () -> {
            double[] newestFirst = new double[limit];
            int n = 0;
            try (PreparedStatement select = connection.prepareStatement("SELECT m.value FROM runs r "
                    + "JOIN run_metrics m ON m.run_id = r.id AND m.name = ? "
                    + "WHERE r.test_id = ? AND r.fingerprint = ? AND r.id < ? AND r.outcome <> 'ERROR' "
                    + "ORDER BY r.id DESC LIMIT ?")) {
                select.setString(1, HistoryMetrics.canonical(metric));
                select.setString(2, testId);
                select.setString(3, fingerprint);
                select.setLong(4, beforeId);
                select.setInt(5, limit);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        newestFirst[n++] = rows.getDouble(1);
                    }
                }
            }
            double[] oldestFirst = new double[n];
            for (int i = 0; i < n; i++) {
                oldestFirst[i] = newestFirst[n - 1 - i];
            }
            return oldestFirst;
        });
    }

    @Override
    public synchronized Optional<Histogram> histogram(long runId, String distribution) {
        return read("read the " + distribution + " histogram of run " + runId, () -> {
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT compressed FROM run_histograms WHERE run_id = ? AND distribution = ?")) {
                select.setLong(1, runId);
                select.setString(2, distribution);
                try (ResultSet rows = select.executeQuery()) {
                    if (!rows.next()) {
                        return Optional.<Histogram>empty();
                    }
                    byte[] compressed = rows.getBytes(1);
                    try {
                        return Optional.of(RunRecords.decode(compressed));
                    } catch (IllegalArgumentException e) {
                        Throwable cause = e.getCause() == null ? e : e.getCause();
                        throw new HistoryStoreException("The " + distribution + " histogram of run " + runId
                                + " in " + location + " is not an HdrHistogram in compressed form ("
                                + cause.getMessage() + "): delete the run (prune) or re-record it", e);
                    }
                }
            }
        });
    }

    @Override
    public synchronized List<RunRecord> list(String testIdLike, int limit) {
        requirePositive(limit);
        return read("list runs", () -> runs("SELECT " + RUN_COLUMNS
                + " FROM runs WHERE test_id LIKE ? ORDER BY id DESC LIMIT ?", testIdLike, limit));
    }

    @Override
    public synchronized List<SeriesInfo> series() {
        return read("list series", () -> {
            List<SeriesInfo> series = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement("SELECT test_id, fingerprint, COUNT(*), "
                    + "MIN(started_at), MAX(started_at) FROM runs GROUP BY test_id, fingerprint "
                    + "ORDER BY test_id, fingerprint");
                    ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    series.add(new SeriesInfo(rows.getString(1), rows.getString(2), rows.getInt(3),
                            Instant.parse(rows.getString(4)), Instant.parse(rows.getString(5))));
                }
            }
            return series;
        });
    }

    @Override
    public synchronized int prune(int keepPerSeries, Instant olderThan) {
        if (keepPerSeries < 0) {
            throw new IllegalArgumentException("prune keepPerSeries is " + keepPerSeries
                    + ": give how many runs of each series to keep (0 or more)");
        }
        return inTransaction("prune runs", () -> {
            String sql = "DELETE FROM runs WHERE id IN (SELECT id FROM (SELECT id, ROW_NUMBER() OVER "
                    + "(PARTITION BY test_id, fingerprint ORDER BY id DESC) AS newer FROM runs) ranked "
                    + "WHERE newer > ?)" + (olderThan == null ? "" : " OR started_at < ?");
            try (PreparedStatement delete = connection.prepareStatement(sql)) {
                delete.setInt(1, keepPerSeries);
                if (olderThan != null) {
                    delete.setString(2, STARTED_AT.format(olderThan));
                }
                return delete.executeUpdate();
            }
        });
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public synchronized void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            throw new HistoryStoreException("Could not close the history store " + location + ": "
                    + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "JdbcHistoryStore[" + location + "]";
    }

    private static void requirePositive(int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit is " + limit + ": ask for at least one run");
        }
    }

    private void bindRun(PreparedStatement insert, RunRecord run) throws SQLException {
        RunIdentity id = run.identity();
        RunConfiguration c = run.configuration();
        int i = 1;
        insert.setString(i++, id.testId());
        insert.setString(i++, c.fingerprint());
        insert.setString(i++, STARTED_AT.format(id.startedAt()));
        insert.setString(i++, id.commit());
        insert.setString(i++, id.branch());
        insert.setString(i++, id.buildId());
        insert.setString(i++, id.buildUrl());
        insert.setString(i++, id.host());
        insert.setString(i++, c.backend());
        insert.setString(i++, c.engineKind());
        insert.setString(i++, c.engineVersion());
        insert.setString(i++, c.model());
        insert.setString(i++, c.gpu());
        insert.setInt(i++, c.tp());
        insert.setInt(i++, c.dp());
        insert.setInt(i++, c.pp());
        insert.setInt(i++, c.ep());
        insert.setInt(i++, c.inputTokens());
        insert.setInt(i++, c.outputTokens());
        insert.setInt(i++, c.concurrency());
        if (Double.isFinite(c.requestRate())) {
            insert.setDouble(i++, c.requestRate());
        } else {
            insert.setNull(i++, Types.DOUBLE);
        }
        insert.setInt(i++, c.numSteps());
        insert.setString(i++, c.phase());
        try {
            insert.setString(i++, JSON.writeValueAsString(c.extra()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a map of strings always serialises", e);
        }
        insert.setString(i, run.outcome());
    }

    /** Runs of a query on {@link #RUN_COLUMNS} in its order, with their metrics. */
    private List<RunRecord> runs(String sql, Object... parameters) throws SQLException {
        Map<Long, RunRecord> byId = new LinkedHashMap<>();
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            for (int p = 0; p < parameters.length; p++) {
                select.setObject(p + 1, parameters[p]);
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    RunRecord run = run(rows);
                    byId.put(run.id(), run);
                }
            }
        }
        if (byId.isEmpty()) {
            return List.of();
        }
        Map<Long, SortedMap<String, Double>> metrics = new HashMap<>();
        List<Long> ids = new ArrayList<>(byId.keySet());
        for (int from = 0; from < ids.size(); from += 500) {
            List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + 500));
            String in = String.join(", ", Collections.nCopies(chunk.size(), "?"));
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT run_id, name, value FROM run_metrics WHERE run_id IN (" + in + ")")) {
                for (int p = 0; p < chunk.size(); p++) {
                    select.setLong(p + 1, chunk.get(p));
                }
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        metrics.computeIfAbsent(rows.getLong(1), k -> new TreeMap<>())
                                .put(rows.getString(2), rows.getDouble(3));
                    }
                }
            }
        }
        List<RunRecord> runs = new ArrayList<>(byId.size());
        for (RunRecord run : byId.values()) {
            runs.add(new RunRecord(run.id(), run.identity(), run.configuration(), run.outcome(),
                    metrics.getOrDefault(run.id(), new TreeMap<>()), Map.of()));
        }
        return runs;
    }

    private RunRecord run(ResultSet rows) throws SQLException {
        RunIdentity identity = new RunIdentity(rows.getString("test_id"), Instant.parse(rows.getString("started_at")),
                rows.getString("commit_id"), rows.getString("branch"), rows.getString("build_id"),
                rows.getString("build_url"), rows.getString("host"));
        double rate = rows.getDouble("request_rate");
        if (rows.wasNull()) {
            rate = Double.POSITIVE_INFINITY;
        }
        TreeMap<String, String> extra;
        try {
            extra = JSON.readValue(rows.getString("extra"), EXTRA);
        } catch (JsonProcessingException e) {
            throw new HistoryStoreException("Run " + rows.getLong("id") + " in " + location
                    + " has an extra column that is not a JSON object of strings (" + e.getOriginalMessage()
                    + "): fix or delete the row", e);
        }
        RunConfiguration configuration = new RunConfiguration(rows.getString("backend"),
                rows.getString("engine_kind"), rows.getString("engine_version"), rows.getString("model"),
                rows.getString("gpu"), rows.getInt("tp"), rows.getInt("dp"), rows.getInt("pp"), rows.getInt("ep"),
                rows.getInt("input_tokens"), rows.getInt("output_tokens"), rows.getInt("concurrency"), rate,
                rows.getInt("num_steps"), rows.getString("phase"), extra);
        return new RunRecord(rows.getLong("id"), identity, configuration, rows.getString("outcome"), null, null);
    }

    @FunctionalInterface
    interface Work<T> {
        T run() throws SQLException;
    }

    private <T> T read(String what, Work<T> work) {
        return retrying(what, work);
    }

    private <T> T inTransaction(String what, Work<T> work) {
        return retrying(what, () -> {
            try {
                connection.setAutoCommit(false);
                T result = work.run();
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                try {
                    connection.rollback();
                } catch (SQLException rollback) {
                    e.addSuppressed(rollback);
                }
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        });
    }

    private <T> T retrying(String what, Work<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return work.run();
            } catch (SQLException e) {
                if (attempt < BUSY_ATTEMPTS && isBusy(e, sqlite)) {
                    pause(attempt);
                    continue;
                }
                throw new HistoryStoreException("Could not " + what + " in the history store " + location + ": "
                        + e.getMessage() + HistoryDatabase.fixFor(e, location), e);
            }
        }
    }

    /** SQLite's busy and locked results; PostgreSQL's serialization failure and deadlock. */
    static boolean isBusy(SQLException e, boolean sqlite) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLiteException s) {
                SQLiteErrorCode code = s.getResultCode();
                int primary = code == null ? s.getErrorCode() & 0xff : code.code & 0xff;
                return primary == SQLiteErrorCode.SQLITE_BUSY.code || primary == SQLiteErrorCode.SQLITE_LOCKED.code;
            }
            if (!sqlite && t instanceof SQLException q && q.getSQLState() != null) {
                return q.getSQLState().equals("40001") || q.getSQLState().equals("40P01");
            }
        }
        return false;
    }

    /** Random, growing pause so that writers that collided do not collide again in step. */
    static void pause(int attempt) {
        long bound = Math.min(200, 5L << Math.min(attempt, 6));
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, bound + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HistoryStoreException("Interrupted while waiting for the history store's write lock", e);
        }
    }
}
