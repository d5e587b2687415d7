package dev.profiledrollout.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two other JVMs and two stores in this one write the same fresh (unmigrated) database at the same moment: every run
 * arrives whole, ids are unique, the schema is migrated once and (SQLite) the file passes its integrity check.
 */
class HistoryConcurrencyTest {

    @RegisterExtension
    static final PostgresServer POSTGRES = new PostgresServer();

    private static final int RUNS = 120;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void writers_in_several_processes_lose_no_run(String kind) throws Exception {
        boolean sqlite = kind.equals("sqlite");
        String url = sqlite ? "jdbc:sqlite:" + dir.resolve("ci-cache/history.db") : POSTGRES.newDatabase();
        String user = sqlite ? null : POSTGRES.user();
        String password = sqlite ? null : POSTGRES.password();

        List<Process> children = new ArrayList<>();
        try {
            for (int p = 0; p < 2; p++) {
                children.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp", System.getProperty("java.class.path"), HistoryWriter.class.getName(), url,
                        user == null ? "-" : user, password == null ? "-" : password, "com.acme.Process" + p + "#run",
                        Integer.toString(RUNS))
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start());
            }
            List<BufferedReader> outputs = new ArrayList<>();
            for (Process child : children) {
                BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                        StandardCharsets.UTF_8));
                assertThat(out.readLine()).isEqualTo("ready");
                outputs.add(out);
            }
            CountDownLatch go = new CountDownLatch(1);
            List<CompletableFuture<Void>> here = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                String testId = "com.acme.Thread" + t + "#run";
                here.add(CompletableFuture.runAsync(() -> {
                    awaitQuietly(go);
                    HistoryWriter.write(url, user, password, testId, RUNS);
                }));
            }
            for (Process child : children) {
                Writer in = new java.io.OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8);
                in.write("go\n");
                in.flush();
            }
            go.countDown();
            for (CompletableFuture<Void> writer : here) {
                writer.get(5, TimeUnit.MINUTES);
            }
            for (int p = 0; p < children.size(); p++) {
                assertThat(children.get(p).waitFor(5, TimeUnit.MINUTES)).as("writer process %d finished", p).isTrue();
                assertThat(children.get(p).exitValue()).as("writer process %d exit status", p).isZero();
                assertThat(outputs.get(p).readLine()).isEqualTo("done");
            }
        } finally {
            children.forEach(Process::destroyForcibly);
        }

        try (HistoryStore store = HistoryStore.open(url, user, password)) {
            List<RunRecord> all = store.list("%", 10 * RUNS);
            assertThat(all).hasSize(4 * RUNS);
            Set<Long> ids = new HashSet<>();
            all.forEach(r -> ids.add(r.id()));
            assertThat(ids).hasSize(4 * RUNS);
            assertThat(store.series()).extracting(HistoryStore.SeriesInfo::runs).containsExactly(RUNS, RUNS, RUNS, RUNS);
            for (String testId : List.of("com.acme.Process0#run", "com.acme.Process1#run", "com.acme.Thread0#run",
                    "com.acme.Thread1#run")) {
                double[] ttft = store.values(testId, HistoryStoreTest.configuration(16).fingerprint(), "ttft.p99",
                        RUNS, Long.MAX_VALUE);
                assertThat(ttft).as(testId).hasSize(RUNS);
                for (int i = 0; i < RUNS; i++) {
                    assertThat(ttft[i]).as(testId + " run " + i).isEqualTo(100.0 + i);
                }
            }
            RunRecord last = all.get(0);
            assertThat(store.histogram(last.id(), "ttft")).isPresent();
        }
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement()) {
            assertThat(count(s, "SELECT COUNT(*) FROM profiled_rollout_schema_history")).as("each migration once")
                    .isEqualTo(2);
            assertThat(count(s, "SELECT COUNT(*) FROM run_metrics")).isEqualTo(2 * 4 * RUNS);
            assertThat(count(s, "SELECT COUNT(*) FROM run_histograms")).isEqualTo(4 * RUNS);
            if (sqlite) {
                try (ResultSet check = s.executeQuery("PRAGMA integrity_check")) {
                    check.next();
                    assertThat(check.getString(1)).isEqualTo("ok");
                }
            }
        }
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rows = s.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
