package dev.profiledrollout.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The JDBC history store, the same cases on a SQLite file and on a real PostgreSQL database. */
class HistoryStoreTest {

    @RegisterExtension
    static final PostgresServer POSTGRES = new PostgresServer();

    static final Instant T0 = Instant.parse("2026-11-20T10:00:00.123456789Z");

    @TempDir
    Path dir;

    /** A fresh database's URL. */
    private String url(String kind) {
        return kind.equals("sqlite") ? "jdbc:sqlite:" + dir.resolve("sub/history.db") : POSTGRES.newDatabase();
    }

    private HistoryStore open(String url) {
        return url.startsWith("jdbc:sqlite:") ? HistoryStore.open(url, null, null)
                : HistoryStore.open(url, POSTGRES.user(), POSTGRES.password());
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void a_store_of_schema_1_with_long_kernel_ids_is_migrated_to_short_ids_and_their_legend(String kind)
            throws SQLException {
        String longName = "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x1_tn_align8>"
                + "(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x1_tn_align8::Params)";
        String url = url(kind);
        long id;
        try (HistoryStore store = open(url)) {
            id = store.record(run("com.acme.FooTest#bar", 16, 0, "PASSED", Map.of("tpot.mean", 8.0), Map.of())).id();
        }
        // back to what schema 1 held: the long id in run_metrics, no legend table, version 2 not applied
        try (Connection c = url.startsWith("jdbc:sqlite:") ? DriverManager.getConnection(url)
                : DriverManager.getConnection(url, POSTGRES.user(), POSTGRES.password());
                Statement sql = c.createStatement()) {
            sql.executeUpdate("INSERT INTO run_metrics (run_id, name, value) VALUES (" + id + ", 'kernel.top."
                    + longName + ".ms', 41.5)");
            sql.executeUpdate("INSERT INTO run_metrics (run_id, name, value) VALUES (" + id + ", 'kernel.top.a_b.ms', 2)");
            sql.execute("DROP TABLE kernel_names");
            sql.executeUpdate("DELETE FROM profiled_rollout_schema_history WHERE version = '2'");
        }
        try (HistoryStore store = open(url)) {
            String longId = HistoryMetrics.kernelMetric(longName);
            assertThat(longId).hasSize(19).matches("kernel\\.K[0-9a-f]{8}\\.ms");
            assertThat(store.run(id).orElseThrow().metrics()).containsOnlyKeys("tpot.mean", longId,
                    HistoryMetrics.kernelMetric("a_b"));
            assertThat(store.kernelNames()).containsExactlyInAnyOrderEntriesOf(Map.of(longId, longName,
                    HistoryMetrics.kernelMetric("a_b"), "a_b"));
            assertThat(HistoryMetrics.measure(longId).unit()).isEqualTo("ms");
        }
    }

    static RunConfiguration configuration(int concurrency) {
        TreeMap<String, String> extra = new TreeMap<>(Map.of("workers", "2", "endpoint", "/v1/completions"));
        return new RunConfiguration("SIMULATOR", "simulator", "0.4.1", "llama-3-8b", "NVIDIA H100 80GB HBM3", 2, 1, 1,
                1, 1024, 128, concurrency, Double.POSITIVE_INFINITY, 3, null, extra);
    }

    static RunRecord run(String testId, int concurrency, int minute, String outcome, Map<String, Double> metrics,
            Map<String, byte[]> histograms) {
        RunIdentity identity = new RunIdentity(testId, T0.plusSeconds(60L * minute), "abc1234", "main", "build-7",
                "https://ci.example/7", "runner-1");
        return new RunRecord(0, identity, configuration(concurrency), outcome, new TreeMap<>(metrics), histograms);
    }

    static Histogram latencies(long seed) {
        Histogram h = new Histogram(3);
        for (long i = 1; i <= 500; i++) {
            h.recordValue(1_000_000L + (i * 7919L * seed) % 50_000_000L);
        }
        return h;
    }

    static byte[] compressed(Histogram h) {
        ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int length = h.encodeIntoCompressedByteBuffer(buffer);
        byte[] bytes = new byte[length];
        buffer.flip();
        buffer.get(bytes);
        return bytes;
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void a_recorded_run_reads_back_whole(String kind) {
        Histogram ttft = latencies(3);
        Histogram itl = latencies(5);
        RunRecord original = run("com.acme.FooTest#bar", 16, 0, "PASSED",
                Map.of("ttft.p99", 251.5, "itl.p50", 7.25, "kernel.top.ampere_sgemm_128x64.ms", 3.0,
                        "goodput.requests", Double.NaN),
                Map.of("ttft", compressed(ttft), "itl", compressed(itl)));
        try (HistoryStore store = open(url(kind))) {
            RunRecord recorded = store.record(original);
            assertThat(recorded.id()).isPositive();
            assertThat(recorded.metrics()).as("NaN is not stored").doesNotContainKey("goodput.requests");

            RunRecord read = store.run(recorded.id()).orElseThrow();
            assertThat(read.id()).isEqualTo(recorded.id());
            assertThat(read.identity()).isEqualTo(original.identity());
            assertThat(read.configuration()).isEqualTo(original.configuration());
            assertThat(read.fingerprint()).isEqualTo(original.fingerprint());
            assertThat(read.outcome()).isEqualTo("PASSED");
            String kernel = HistoryMetrics.kernelMetric("ampere_sgemm_128x64");
            assertThat(read.metrics()).as("an old top-kernel id is stored under its short id")
                    .containsExactlyEntriesOf(new TreeMap<>(Map.of("ttft.p99", 251.5, "itl.p50", 7.25, kernel, 3.0)));
            assertThat(store.kernelNames()).containsExactlyEntriesOf(Map.of(kernel, "ampere_sgemm_128x64"));
            assertThat(store.values("com.acme.FooTest#bar", original.fingerprint(), "kernel.top.ampere_sgemm_128x64.ms",
                    10, Long.MAX_VALUE)).as("the old id still reads").containsExactly(3.0);
            assertThat(read.histograms()).containsOnlyKeys("ttft", "itl");
            assertThat(read.histograms().get("ttft")).isEqualTo(original.histograms().get("ttft"));

            assertThat(store.histogram(recorded.id(), "ttft")).contains(ttft);
            assertThat(store.histogram(recorded.id(), "itl")).contains(itl);
            assertThat(store.histogram(recorded.id(), "e2e")).isEmpty();
            assertThat(store.run(recorded.id() + 1000)).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void history_and_values_are_the_latest_runs_of_a_series_oldest_first_without_errors(String kind) {
        try (HistoryStore store = open(url(kind))) {
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String outcome = i == 5 ? "ERROR" : i == 6 ? "FAILED" : "PASSED";
                Map<String, Double> metrics = i == 2 ? Map.of("itl.p99", 9.0) : Map.of("ttft.p99", 100.0 + i);
                ids.add(store.record(run("com.acme.FooTest#bar", 16, i, outcome, metrics, Map.of())).id());
                // another series (other concurrency, so another fingerprint) and another test, interleaved
                store.record(run("com.acme.FooTest#bar", 32, i, "PASSED", Map.of("ttft.p99", 900.0), Map.of()));
                store.record(run("com.acme.OtherTest#baz", 16, i, "PASSED", Map.of("ttft.p99", 800.0), Map.of()));
            }
            String fp = configuration(16).fingerprint();
            assertThat(ids).isSorted().doesNotHaveDuplicates();

            List<RunRecord> all = store.history("com.acme.FooTest#bar", fp, 100, Long.MAX_VALUE);
            assertThat(all).extracting(RunRecord::id)
                    .containsExactly(ids.get(0), ids.get(1), ids.get(2), ids.get(3), ids.get(4), ids.get(6), ids.get(7));
            assertThat(all.get(0).metrics()).containsExactly(Map.entry("ttft.p99", 100.0));
            assertThat(all.get(0).histograms()).isEmpty();
            assertThat(all.get(5).outcome()).isEqualTo("FAILED");

            assertThat(store.history("com.acme.FooTest#bar", fp, 3, ids.get(7))).extracting(RunRecord::id)
                    .containsExactly(ids.get(3), ids.get(4), ids.get(6));

            assertThat(store.values("com.acme.FooTest#bar", fp, "ttft.p99", 100, Long.MAX_VALUE))
                    .containsExactly(100, 101, 103, 104, 106, 107);
            assertThat(store.values("com.acme.FooTest#bar", fp, "ttft.p99", 3, ids.get(7)))
                    .as("the limit counts runs, so a run without the metric leaves a gap").containsExactly(103, 104, 106);
            assertThat(store.values("com.acme.FooTest#bar", fp, "ttft.p99", 3, ids.get(3)))
                    .containsExactly(100, 101);
            assertThat(store.values("com.acme.FooTest#bar", fp, "e2e.p99", 10, Long.MAX_VALUE)).isEmpty();
            assertThat(store.values("com.acme.FooTest#bar", configuration(32).fingerprint(), "ttft.p99", 3,
                    Long.MAX_VALUE)).containsExactly(900, 900, 900);

            assertThatThrownBy(() -> store.history("com.acme.FooTest#bar", fp, 0, Long.MAX_VALUE))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("limit is 0");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void list_series_and_prune(String kind) {
        try (HistoryStore store = open(url(kind))) {
            List<Long> foo = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                foo.add(store.record(run("com.acme.FooTest#bar", 16, i, "PASSED", Map.of("ttft.p99", 1.0 * i),
                        Map.of("ttft", compressed(latencies(i + 1))))).id());
                store.record(run("com.acme.OtherTest#baz", 16, 10 + i, "PASSED", Map.of(), Map.of()));
            }

            List<RunRecord> listed = store.list("com.acme.Foo%", 3);
            assertThat(listed).extracting(RunRecord::id).containsExactly(foo.get(4), foo.get(3), foo.get(2));
            assertThat(listed.get(0).metrics()).containsEntry("ttft.p99", 4.0);
            assertThat(store.list("%", 100)).hasSize(10);

            String fp = configuration(16).fingerprint();
            assertThat(store.series()).containsExactly(
                    new HistoryStore.SeriesInfo("com.acme.FooTest#bar", fp, 5, T0, T0.plusSeconds(4 * 60)),
                    new HistoryStore.SeriesInfo("com.acme.OtherTest#baz", fp, 5, T0.plusSeconds(10 * 60),
                            T0.plusSeconds(14 * 60)));

            assertThat(store.prune(3, null)).isEqualTo(4);
            assertThat(store.history("com.acme.FooTest#bar", fp, 100, Long.MAX_VALUE)).extracting(RunRecord::id)
                    .containsExactly(foo.get(2), foo.get(3), foo.get(4));
            assertThat(store.run(foo.get(0))).isEmpty();
            assertThat(store.histogram(foo.get(0), "ttft")).as("histograms go with their run").isEmpty();
            assertThat(store.histogram(foo.get(2), "ttft")).isPresent();

            // all FooTest runs started before minute 10; OtherTest's kept runs at minutes 12..14 stay
            assertThat(store.prune(Integer.MAX_VALUE, T0.plusSeconds(10 * 60))).isEqualTo(3);
            assertThat(store.series()).extracting(HistoryStore.SeriesInfo::testId, HistoryStore.SeriesInfo::runs)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("com.acme.OtherTest#baz", 3));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void opening_a_migrated_store_again_changes_nothing(String kind) throws SQLException {
        String url = url(kind);
        long id;
        try (HistoryStore store = open(url)) {
            id = store.record(run("com.acme.FooTest#bar", 16, 0, "PASSED", Map.of("ttft.p99", 1.0), Map.of())).id();
        }
        try (HistoryStore store = open(url)) {
            assertThat(store.run(id)).isPresent();
            assertThat(store.record(run("com.acme.FooTest#bar", 16, 1, "PASSED", Map.of(), Map.of())).id())
                    .isGreaterThan(id);
        }
        try (Connection c = DriverManager.getConnection(url, credential(url, true), credential(url, false));
                Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SELECT version, success FROM profiled_rollout_schema_history")) {
            List<String> versions = new ArrayList<>();
            while (rows.next()) {
                assertThat(rows.getBoolean(2)).isTrue();
                versions.add(rows.getString(1));
            }
            assertThat(versions).containsExactly("1", "2");
        }
    }

    private static String credential(String url, boolean user) {
        if (url.startsWith("jdbc:sqlite:")) {
            return null;
        }
        return user ? POSTGRES.user() : POSTGRES.password();
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void a_store_with_a_newer_schema_is_refused(String kind) throws SQLException {
        String url = url(kind);
        open(url).close();
        try (Connection c = DriverManager.getConnection(url, credential(url, true), credential(url, false));
                Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO profiled_rollout_schema_history (installed_rank, version, description, type, "
                    + "script, checksum, installed_by, execution_time, success) VALUES (3, '99', 'from the future', "
                    + "'SQL', 'V99__from_the_future.sql', 0, 'test', 1, true)");
        }
        assertThatThrownBy(() -> open(url)).isInstanceOf(HistoryStoreException.class)
                .hasMessageContaining("has schema version 99, newer than this Profiled Rollout knows (2)")
                .hasMessageContaining("profiledrollout.history.url");
    }

    @Test
    void values_is_a_range_scan_of_the_series_index_on_sqlite() throws SQLException {
        String url = url("sqlite");
        open(url).close();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                ResultSet plan = s.executeQuery("EXPLAIN QUERY PLAN SELECT m.value FROM runs r "
                        + "JOIN run_metrics m ON m.run_id = r.id AND m.name = 'ttft.p99' "
                        + "WHERE r.test_id = 'a' AND r.fingerprint = 'b' AND r.id < 10 AND r.outcome <> 'ERROR' "
                        + "ORDER BY r.id DESC LIMIT 20")) {
            List<String> steps = new ArrayList<>();
            while (plan.next()) {
                steps.add(plan.getString("detail"));
            }
            assertThat(steps).anySatisfy(step -> assertThat(step)
                    .contains("USING INDEX runs_series (test_id=? AND fingerprint=? AND id<?)"));
            assertThat(steps).noneSatisfy(step -> assertThat(step).contains("TEMP B-TREE"));
        }
    }

    @Test
    void sqlite_runs_in_wal_mode() throws SQLException {
        String url = url("sqlite");
        open(url).close();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                ResultSet mode = s.executeQuery("PRAGMA journal_mode")) {
            mode.next();
            assertThat(mode.getString(1)).isEqualToIgnoringCase("wal");
        }
    }

    @Test
    void bad_urls_get_clear_errors_without_credentials() throws Exception {
        assertThatThrownBy(() -> HistoryStore.open("postgresql://u:secret@db/history", null, null))
                .isInstanceOf(HistoryStoreException.class)
                .hasMessageContaining("'postgresql://db/history' is not a JDBC URL")
                .hasMessageContaining("jdbc:sqlite:<file>")
                .hasMessageNotContaining("secret");

        assertThatThrownBy(() -> HistoryStore.open("jdbc:mysql://u:secret@db:3306/history?password=secret", "u",
                "secret"))
                .isInstanceOf(HistoryStoreException.class)
                .hasMessageContaining("No JDBC driver on the classpath accepts the history store URL "
                        + "jdbc:mysql://db:3306/history")
                .hasMessageContaining("profiledrollout.history.url")
                .hasMessageNotContaining("secret")
                .hasNoCause();

        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        String unreachable = "jdbc:postgresql://127.0.0.1:" + closedPort + "/history?password=secret";
        assertThatThrownBy(() -> HistoryStore.open(unreachable, "u", "secret"))
                .isInstanceOf(HistoryStoreException.class)
                .hasMessageStartingWith("Could not open the history store jdbc:postgresql://127.0.0.1:" + closedPort
                        + "/history: ")
                .hasMessageContaining("pg_isready")
                .hasMessageNotContaining("secret");

        Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
        assertThatThrownBy(() -> HistoryStore.sqlite(file.resolve("history.db")))
                .isInstanceOf(HistoryStoreException.class)
                .hasMessageContaining("Cannot create the directory " + file)
                .hasMessageContaining("somewhere writable");

        Path notSqlite = Files.writeString(dir.resolve("notes.db"), "x".repeat(4096));
        assertThatThrownBy(() -> HistoryStore.sqlite(notSqlite))
                .isInstanceOf(HistoryStoreException.class)
                .hasMessageContaining(notSqlite.toString())
                .hasMessageContaining("not a (sound) SQLite database");

        assertThatThrownBy(() -> HistoryStore.open("jdbc:sqlite::memory:", null, null))
                .isInstanceOf(HistoryStoreException.class).hasMessageContaining("not a SQLite file");
    }

    @Test
    void location_has_no_credentials() {
        try (HistoryStore store = HistoryStore.open("jdbc:sqlite:" + dir.resolve("h.db") + "?busy_timeout=1000",
                null, null)) {
            assertThat(store.location()).isEqualTo("jdbc:sqlite:" + dir.resolve("h.db"));
        }
        String url = POSTGRES.newDatabase();
        String withSecret = url + (url.contains("?") ? "&" : "?") + "ApplicationName=history-test";
        try (HistoryStore store = HistoryStore.open(withSecret, POSTGRES.user(), POSTGRES.password())) {
            assertThat(store.location()).isEqualTo(url.replaceAll("\\?.*", "").replaceAll("//[^/@]*@", "//"));
        }
    }
}
