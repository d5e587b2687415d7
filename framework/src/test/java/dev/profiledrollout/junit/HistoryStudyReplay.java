package dev.profiledrollout.junit;

import dev.profiledrollout.history.HistoryCheck;
import dev.profiledrollout.history.HistoryMetrics;
import dev.profiledrollout.history.HistoryStore;
import dev.profiledrollout.history.HistoryThreshold;
import dev.profiledrollout.history.HistoryVerdict;
import dev.profiledrollout.history.RunRecord;
import dev.profiledrollout.history.stats.Change;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Replays the runs a {@link HistoryStudy} stored under other gates ({@code bench/history-study replay DIR}): every
 * candidate is a choice of metric families and a threshold per family (Student's t at a boundary, or the relative
 * floor alone), and each is judged on the same runs with the
 * same code the extension uses ({@link HistoryCheck}), so the models that lose are reported beside the one chosen. A
 * study directory holds, per history {@code h<N>}, {@code history.db} (the base runs, then the unchanged runs) and one
 * store per case (the base runs, then the shifted runs).
 *
 * <p>Families: {@code latency} (mean TPOT and mean E2E, the client's figures), {@code gpu} (GPU ms per decode step by
 * batch bucket), {@code prefill-ratio} or {@code prefill-fit} (GPU µs per prefill token, plain or at 1,024 tokens) and
 * {@code interval} (the engine's decode step interval by batch bucket).
 *
 * <p>Usage: {@code HistoryStudyReplay DIR BASE [SHIFTED [robust]]} (the study's base and shifted counts; defaults 20,
 * 3). With {@code robust}, the gates compared are the default's families with the trace metrics' t-test over every
 * run of the window or over the runs the Hampel identifier keeps (cut-offs 3 to 6), instead of the 72 gates.
 */
public final class HistoryStudyReplay {

    private HistoryStudyReplay() {
    }

    /** A gate: which metric (after expansion) gets which threshold; absent metrics are not checked. */
    record Gate(String name, Function<String, HistoryThreshold> thresholdOf) {
    }

    static final String TEST_ID = "dev.profiledrollout.junit.RegressionGateTest$GatedTestCase#run()";

    static String family(String metric) {
        if (metric.equals("tpot.mean") || metric.equals("e2e.mean")) {
            return "latency";
        }
        if (metric.startsWith("kernel.decode.ms_per_step.bs")) {
            return "gpu";
        }
        if (metric.equals(HistoryMetrics.PREFILL_US_PER_TOKEN)) {
            return "prefill-ratio";
        }
        if (metric.equals(HistoryMetrics.PREFILL_US_PER_TOKEN_FIT)) {
            return "prefill-fit";
        }
        if (metric.startsWith("step.decode.interval_ms.bs")) {
            return "interval";
        }
        return null;
    }

    /**
     * A gate checking each family at a probability (Student's t, window 20, the default relative floor), NaN: not
     * checked; GPU time per prefill token as the plain ratio or the fit at 1,024 tokens, at the GPU probability.
     */
    static Gate gate(double latency, double gpu, double interval, boolean prefillFit) {
        return gate(latency, gpu, interval, prefillFit, Double.POSITIVE_INFINITY);
    }

    /**
     * As {@link #gate(double, double, double, boolean)}, the t-test's mean and spread taken over the window's runs
     * that the Hampel identifier with cut-off {@code outlierCutoff} keeps (infinite: every run, the gate before it).
     */
    static Gate gate(double latency, double gpu, double interval, boolean prefillFit, double outlierCutoff) {
        Map<String, Double> p = new LinkedHashMap<>();
        p.put("latency", latency);
        p.put("gpu", gpu);
        p.put(prefillFit ? "prefill-fit" : "prefill-ratio", gpu);
        p.put("interval", interval);
        String name = String.format(Locale.ROOT, "latency %s, GPU %s (prefill %s), interval %s%s", label(latency),
                label(gpu), prefillFit ? "fit" : "ratio", label(interval), Double.isInfinite(outlierCutoff) ? ""
                        : String.format(Locale.ROOT, "; Hampel k = %s", outlierCutoff));
        return new Gate(name, metric -> {
            String f = family(metric);
            Double v = f == null ? null : p.get(f);
            return v == null || Double.isNaN(v) ? null
                    : HistoryThreshold.DEFAULT.withBoundary(v).withOutlierCutoff(outlierCutoff);
        });
    }

    private static String label(double p) {
        return Double.isNaN(p) ? "off" : p == HistoryThreshold.FLOOR_ONLY ? "floor only" : String.valueOf(p);
    }

    private static List<RunRecord> runs(Path db) {
        try (HistoryStore store = HistoryStore.sqlite(db)) {
            List<RunRecord> all = new ArrayList<>(store.list("%", Integer.MAX_VALUE));
            all.sort(Comparator.comparingLong(RunRecord::id));
            return all;
        }
    }

    /** Whether the gate flags the run (REGRESSION on any checked metric); counts per family into {@code perFamily}. */
    private static boolean flagged(HistoryStore store, RunRecord run, Gate gate, Map<String, int[]> perFamily) {
        boolean any = false;
        Map<String, Boolean> families = new LinkedHashMap<>();
        List<String> metrics = HistoryMetrics.expand(List.of("tpot.mean", "e2e.mean", HistoryMetrics.DECODE_BUCKETS,
                HistoryMetrics.PREFILL_US_PER_TOKEN, HistoryMetrics.PREFILL_US_PER_TOKEN_FIT,
                HistoryMetrics.DECODE_INTERVAL_BUCKETS), run.metrics().keySet());
        for (String metric : metrics) {
            HistoryThreshold t = gate.thresholdOf().apply(metric);
            if (t == null) {
                continue;
            }
            var verdict = HistoryCheck.of(store, run, t).check(metric).map(HistoryVerdict::change);
            if (verdict.isEmpty() || verdict.get() == Change.INSUFFICIENT_HISTORY) {
                continue;
            }
            boolean r = verdict.get() == Change.REGRESSION;
            families.merge(family(metric), r, Boolean::logicalOr);
            if (perFamily != null) {
                int[] c = perFamily.computeIfAbsent(metric.replaceAll("\\.bs[0-9-]+$", ".bs*"), k -> new int[2]);
                c[0] += r ? 1 : 0;
                c[1]++;
            }
            any |= r;
        }
        return any;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int base = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int shifted = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        List<Path> histories;
        try (Stream<Path> s = Files.list(dir)) {
            histories = s.filter(p -> p.getFileName().toString().matches("h\\d+") && Files.exists(p.resolve("history.db")))
                    .sorted(Comparator.comparingInt(p -> Integer.parseInt(p.getFileName().toString().substring(1))))
                    .toList();
        }
        List<String> cases = new ArrayList<>();
        try (Stream<Path> s = Files.list(histories.get(0))) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".db") && !n.equals("history.db")
                    && !n.equals("base.db")).sorted().forEach(n -> cases.add(n.substring(0, n.length() - 3)));
        }
        boolean robust = args.length > 3 && args[3].equals("robust");
        List<Gate> gates = new ArrayList<>();
        double off = Double.NaN;
        if (robust) {
            // the default's families (latency by the floor alone, prefill fit, interval at 0.999), the trace
            // metrics at three boundaries, each with every run of the window and with the Hampel identifier
            for (double gpu : new double[] {0.995, 0.999, 0.9999}) {
                for (double k : new double[] {Double.POSITIVE_INFINITY, 3.0, 3.5, 4.0, 5.0, 6.0}) {
                    gates.add(gate(HistoryThreshold.FLOOR_ONLY, gpu, 0.999, true, k));
                }
            }
            for (double k : new double[] {Double.POSITIVE_INFINITY, 3.5, 5.0}) {
                gates.add(gate(0.9999, 0.999, 0.999, true, k));
            }
        }
        for (double lat : robust ? new double[0] : new double[] {HistoryThreshold.FLOOR_ONLY, 0.9999, off}) {
            for (double gpu : new double[] {0.99, 0.995, 0.999, 0.9999}) {
                for (double interval : new double[] {off, 0.999, 0.9999}) {
                    for (boolean fit : new boolean[] {false, true}) {
                        gates.add(gate(lat, gpu, interval, fit));
                    }
                }
            }
        }
        System.out.printf(Locale.ROOT, "%d histories in %s, %d base and %d shifted runs each; cases %s%n%n",
                histories.size(), dir, base, shifted, cases);
        StringBuilder header = new StringBuilder("| gate (Student's t per family, window 20, floor 1.5x) | unchanged runs"
                + " flagged | per check: latency / decode GPU / prefill GPU / interval |");
        for (String c : cases) {
            header.append(' ').append(c).append(": first / within ").append(shifted).append(" |");
        }
        System.out.println(header);
        System.out.println("|---|---|---|" + "---|".repeat(cases.size()));
        System.out.flush();
        for (Gate gate : gates) {
            int runsFlagged = 0;
            int runsChecked = 0;
            Map<String, int[]> perFamily = new LinkedHashMap<>();
            Map<String, int[]> caught = new LinkedHashMap<>();
            for (Path h : histories) {
                List<RunRecord> unchanged = runs(h.resolve("history.db"));
                try (HistoryStore store = HistoryStore.sqlite(h.resolve("history.db"))) {
                    for (RunRecord run : unchanged.subList(Math.min(base, unchanged.size()), unchanged.size())) {
                        runsFlagged += flagged(store, run, gate, perFamily) ? 1 : 0;
                        runsChecked++;
                    }
                }
                for (String c : cases) {
                    Path db = h.resolve(c + ".db");
                    List<RunRecord> all = runs(db);
                    int first = 0;
                    try (HistoryStore store = HistoryStore.sqlite(db)) {
                        for (int i = base; i < all.size() && i < base + shifted && first == 0; i++) {
                            first = flagged(store, all.get(i), gate, null) ? i - base + 1 : 0;
                        }
                    }
                    int[] n = caught.computeIfAbsent(c, k -> new int[3]);
                    n[0] += first == 1 ? 1 : 0;
                    n[1] += first > 0 ? 1 : 0;
                    n[2]++;
                }
            }
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "| %s | %d / %d (%.1f %%) | ",
                    gate.name(), runsFlagged, runsChecked, 100.0 * runsFlagged / Math.max(1, runsChecked)));
            List<String> families = List.of("latency", "gpu", "prefill", "interval");
            for (String f : families) {
                int[] sum = new int[2];
                perFamily.forEach((m, c) -> {
                    String fam = family(m.replace(".bs*", ".bs1"));
                    if (fam != null && fam.startsWith(f)) {
                        sum[0] += c[0];
                        sum[1] += c[1];
                    }
                });
                line.append(sum[1] == 0 ? "–" : String.format(Locale.ROOT, "%.2f %%", 100.0 * sum[0] / sum[1]))
                        .append(f.equals("interval") ? " |" : " / ");
            }
            caught.forEach((c, n) -> line.append(String.format(Locale.ROOT, " %d / %d, %d / %d |", n[0], n[2], n[1],
                    n[2])));
            System.out.println(line);
        }
    }
}
