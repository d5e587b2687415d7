package dev.profiledrollout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.history.HistoryStore;
import dev.profiledrollout.history.PostgresServer;
import dev.profiledrollout.history.RunIdentity;
import dev.profiledrollout.history.RunRecord;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/** {@code history} against a real PostgreSQL database, with the login given as options. */
class HistoryCommandPostgresTest {

    @RegisterExtension
    static final PostgresServer POSTGRES = new PostgresServer();

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    private List<String> login(String url, String... args) {
        List<String> all = new ArrayList<>(List.of("history", "--db", url));
        if (POSTGRES.user() != null) {
            all.addAll(List.of("--user", POSTGRES.user()));
        }
        if (POSTGRES.password() != null) {
            all.addAll(List.of("--password", POSTGRES.password()));
        }
        all.addAll(List.of(args));
        return all;
    }

    @Test
    void should_list_and_trend_runs_of_a_postgresql_store() throws Exception {
        // GIVEN three runs recorded through the store API
        String url = POSTGRES.newDatabase();
        List<Long> ids = new ArrayList<>();
        try (HistoryStore store = HistoryStore.open(url, POSTGRES.user(), POSTGRES.password())) {
            double[] ttft = {100.0, 101.0, 99.5};
            for (int i = 0; i < ttft.length; i++) {
                RunIdentity identity = new RunIdentity(HistoryCommandTest.TEST,
                        HistoryCommandTest.T0.plusSeconds(60L * i), "c0ffee" + i, "main", null, null, null);
                ids.add(store.record(new RunRecord(0, identity, HistoryCommandTest.configuration(8), "PASSED",
                        new TreeMap<>(Map.of("ttft.p99", ttft[i])), Map.of())).id());
            }
        }
        // WHEN
        int exit = run(login(url, "--format", "json", "list").toArray(String[]::new));
        // THEN newest first
        assertThat(exit).as(err.toString()).isZero();
        JsonNode list = new ObjectMapper().readTree(out.toString());
        assertThat(list.path("runs").findValuesAsText("id")).containsExactly(String.valueOf(ids.get(2)),
                String.valueOf(ids.get(1)), String.valueOf(ids.get(0)));
        assertThat(list.path("store").asText()).doesNotContain(String.valueOf(POSTGRES.password()));
        // AND the trend's third run has the two before it as history
        exit = run(login(url, "trend", "ttft.p99", "--test", HistoryCommandTest.TEST, "--threshold", "t-test")
                .toArray(String[]::new));
        assertThat(exit).as(err.toString()).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines).last().isEqualTo("E-Divisive change points (p <= 0.05): none");
        assertThat(lines).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(120));
        assertThat(lines.get(3)).startsWith(ids.get(2) + " ").contains("NO_CHANGE", "vs mean");
        // AND whole in CSV
        exit = run(login(url, "--format", "csv", "trend", "ttft.p99", "--test", HistoryCommandTest.TEST,
                "--threshold", "t-test").toArray(String[]::new));
        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString().lines().toList().get(3)).startsWith(ids.get(2) + ",").contains("NO_CHANGE",
                "of last 2 runs");
    }
}
