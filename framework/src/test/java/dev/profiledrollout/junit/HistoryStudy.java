package dev.profiledrollout.junit;

import dev.profiledrollout.simulator.SimulatorConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * The detection study of issue 24 §4 with the current default gate ({@code bench/history-study}): per history, a
 * fresh SQLite store, {@code base} runs of {@link RegressionGateTest.GatedTestCase} attached to a fresh simulator with
 * realistic GPU noise (each run its own noise seed, as {@link GateStudy} does), then {@code unchanged} runs each checked
 * by the extension against the runs before it (false alarms), and, per case, on its own copy of the base runs,
 * {@code shifted} runs with the case's slowdown (detection: the first shifted run flagged, or any of them). A run is
 * flagged when any metric of the default {@code @RegressionCheck} gets REGRESSION.
 *
 * <p>The cases are the issue's: decode kernels ×1.10 and ×1.05 ({@code slowDecode}), prefill kernels ×1.10
 * ({@code slowPrefill}), host time between steps ×1.25 ({@code slowHost}, which client latency sees and kernel times
 * do not). A line per history is printed as soon as it is done, so an interrupted study still reports what it reached.
 *
 * <p>Usage: {@code HistoryStudy [histories] [base] [unchanged] [shifted]} (defaults 20, 20, 20, 3).
 */
public final class HistoryStudy {

    private HistoryStudy() {
    }

    private record Case(String name, UnaryOperator<SimulatorConfig.Builder> apply) {
    }

    private static final List<Case> CASES = List.of(
            new Case("decode kernels +10 %", b -> b.slowDecode(1.10)),
            new Case("decode kernels +5 %", b -> b.slowDecode(1.05)),
            new Case("prefill kernels +10 %", b -> b.slowPrefill(1.10)),
            new Case("host time +25 % (latency only)", b -> b.slowHost(1.25)));

    private static boolean flagged(Map<String, String> changes) {
        return changes.containsValue("REGRESSION");
    }

    public static void main(String[] args) throws Exception {
        int histories = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int base = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int unchanged = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        int shifted = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        // kept, so that `bench/history-study replay DIR` can judge other gates on the same runs (HistoryStudyReplay)
        Path work = System.getenv("STUDY_DIR") == null ? Files.createTempDirectory("history-study")
                : Files.createDirectories(Path.of(System.getenv("STUDY_DIR")));
        System.out.println("runs kept in " + work);
        Map<String, int[]> checks = new TreeMap<>(); // metric -> {flagged, checked}, unchanged runs
        int runsFlagged = 0;
        int runsChecked = 0;
        Map<String, int[]> caught = new LinkedHashMap<>(); // case -> {first, within, histories}
        for (int i = 0; i < 3; i++) { // a cold JVM's first runs are slower (JIT): warm up on a throwaway store
            GateStudy.run(work.resolve("warm-up.db"), work.resolve("warm-up"), SimulatorConfig.builder());
        }
        long started = System.nanoTime();
        for (int h = 0; h < histories; h++) {
            Path dir = Files.createDirectories(work.resolve("h" + h));
            Path store = dir.resolve("history.db");
            for (int i = 0; i < base; i++) {
                GateStudy.run(store, dir.resolve("out"), SimulatorConfig.builder());
            }
            Path baseCopy = Files.copy(store, dir.resolve("base.db"));
            int flaggedHere = 0;
            for (int i = 0; i < unchanged; i++) {
                Map<String, String> c = GateStudy.run(store, dir.resolve("out"), SimulatorConfig.builder());
                c.forEach((m, change) -> {
                    int[] n = checks.computeIfAbsent(m, k -> new int[2]);
                    n[0] += change.equals("REGRESSION") ? 1 : 0;
                    n[1]++;
                });
                flaggedHere += flagged(c) ? 1 : 0;
                runsChecked++;
            }
            runsFlagged += flaggedHere;
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "history %d: unchanged runs flagged %d / %d;", h + 1, flaggedHere, unchanged));
            for (Case kase : CASES) {
                Path copy = Files.copy(baseCopy, dir.resolve(kase.name().replaceAll("\\W+", "_") + ".db"));
                int first = 0;
                // every shifted run is made, flagged or not, so that a replay under another gate sees all of them
                for (int i = 1; i <= shifted; i++) {
                    Map<String, String> c = GateStudy.run(copy, dir.resolve("out"),
                            kase.apply().apply(SimulatorConfig.builder()), kase.name());
                    first = first == 0 && flagged(c) ? i : first;
                }
                int[] n = caught.computeIfAbsent(kase.name(), k -> new int[3]);
                n[0] += first == 1 ? 1 : 0;
                n[1] += first > 0 ? 1 : 0;
                n[2]++;
                line.append(' ').append(kase.name()).append(": ")
                        .append(first == 0 ? "missed" : "run " + first).append(';');
            }
            System.out.println(line);
            System.out.flush();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.println("HISTORY STUDY RESULT");
        System.out.printf(Locale.ROOT, "%d histories x (%d base + %d unchanged + %d cases x %d shifted) runs in %.0f s,"
                + " after 3 warm-up runs, realistic GPU noise, the default @RegressionCheck%n%n",
                histories, base, unchanged, CASES.size(), shifted, seconds);
        System.out.printf(Locale.ROOT, "| case | caught at the first shifted run | within %d |%n", shifted);
        System.out.println("|---|---|---|");
        caught.forEach((k, n) -> System.out.printf(Locale.ROOT, "| %s | %d / %d | %d / %d |%n",
                k, n[0], n[2], n[1], n[2]));
        System.out.println();
        System.out.println("| unchanged runs: metric | checks flagged |");
        System.out.println("|---|---|");
        checks.forEach((m, n) -> System.out.printf(Locale.ROOT, "| %s | %d / %d (%.1f %%) |%n",
                m, n[0], n[1], 100.0 * n[0] / Math.max(1, n[1])));
        System.out.printf(Locale.ROOT, "| (any metric: the run fails) | %d / %d (%.1f %%) |%n",
                runsFlagged, runsChecked, 100.0 * runsFlagged / Math.max(1, runsChecked));
    }
}
