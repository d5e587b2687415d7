package dev.profiledrollout.history;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A second process for {@link HistoryConcurrencyTest}: prints {@code ready}, waits for a line on standard input so
 * that every writer starts at once, then opens the store (migrating a fresh one) and records runs.
 *
 * <p>Arguments: JDBC URL, user ({@code -} for none), password ({@code -} for none), test id, number of runs.
 */
public final class HistoryWriter {

    private HistoryWriter() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String user = args[1].equals("-") ? null : args[1];
        String password = args[2].equals("-") ? null : args[2];
        String testId = args[3];
        int runs = Integer.parseInt(args[4]);
        System.out.println("ready");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        write(url, user, password, testId, runs);
        System.out.println("done");
    }

    /** Opens the store and records {@code runs} runs of {@code testId}, each with two metrics and a histogram. */
    static void write(String url, String user, String password, String testId, int runs) {
        try (HistoryStore store = HistoryStore.open(url, user, password)) {
            for (int i = 0; i < runs; i++) {
                store.record(HistoryStoreTest.run(testId, 16, i, "PASSED", Map.of("ttft.p99", 100.0 + i,
                        "itl.p99", (double) i), Map.of("ttft", HistoryStoreTest.compressed(
                        HistoryStoreTest.latencies(i + 1)))));
            }
        }
    }
}
