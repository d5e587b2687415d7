package dev.profiledrollout.junit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * The default regression gate measured end to end ({@code bench/gate-study}): per history, a fresh SQLite store,
 * {@code base} runs of {@link RegressionGateTest.GatedTestCase} attached to a fresh simulator with realistic GPU noise
 * (each run its own noise seed), then {@code unchanged} more runs, each checked by the extension against the runs
 * before it (false alarms), and, each against its own copy of the base runs, one run per fault: every kernel ×2,
 * decode kernels ×2, host time ×2, decode kernels ×1.2 (detection at the first run). Prints, in markdown, per metric
 * of the default checks, how many unchanged runs got REGRESSION and how many faulted runs did.
 *
 * <p>Usage: {@code GateStudy [histories] [base] [unchanged] [noisy|exact]} (defaults 3, 5, 10, noisy; {@code exact}:
 * the simulator's default exact kernel durations, no GPU noise).
 */
public final class GateStudy {

    private GateStudy() {
    }

    private record Fault(String name, UnaryOperator<SimulatorConfig.Builder> apply) {
    }

    private static final List<Fault> FAULTS = List.of(
            new Fault("every kernel x2", b -> b.slowKernel(".*", 2.0)),
            new Fault("decode kernels x2", b -> b.slowDecode(2.0)),
            new Fault("host time x2", b -> b.slowHost(2.0)),
            new Fault("decode kernels x1.2", b -> b.slowDecode(1.2)));

    private static long seeds = 1000;
    /** Whether runs get {@code realisticGpuNoise()}; the 4th argument {@code exact} runs without (the simulator's default). */
    private static boolean NOISE = true;
    private static final List<String> MISSED = new ArrayList<>();

    static Map<String, String> run(Path store, Path output, SimulatorConfig.Builder config) throws Exception {
        return run(store, output, config, null);
    }

    static Map<String, String> run(Path store, Path output, SimulatorConfig.Builder config, String fault)
            throws Exception {
        SimulatorConfig.Builder b = NOISE ? config.realisticGpuNoise().noiseSeed(seeds++) : config;
        try (EngineSimulator sim = EngineSimulator.start(b.build())) {
            ProfiledTestKit.attach(RegressionGateTest.GatedTestCase.class, output, sim.baseUri(),
                    "profiledrollout.history.url", "jdbc:sqlite:" + store);
        }
        JsonNode h = ProfiledTestKit.summary(output.resolve("RegressionGateTest$GatedTestCase/run")).path("history");
        Map<String, String> changes = new TreeMap<>();
        h.path("verdicts").forEach(v -> changes.put(v.path("metric").asText(), v.path("change").asText()));
        if (fault == null) {
            h.path("verdicts").forEach(v -> {
                if (v.path("change").asText().equals("REGRESSION")) {
                    MISSED.add("false alarm: " + v.path("description").asText());
                }
            });
        }
        if (fault != null) {
            h.path("verdicts").forEach(v -> {
                if (!v.path("change").asText().equals("REGRESSION")) {
                    MISSED.add("missed (" + fault + "): " + v.path("description").asText());
                }
            });
        }
        return changes;
    }

    /** Folds the decode buckets into one row: the gate flags a run when any bucket regressed. */
    private static String row(String metric) {
        return metric.startsWith("kernel.decode.ms_per_step.bs") ? "kernel.decode.ms_per_step.bs* (any)" : metric;
    }

    private static Map<String, Boolean> flags(Map<String, String> changes) {
        Map<String, Boolean> out = new TreeMap<>();
        changes.forEach((m, c) -> out.merge(row(m), c.equals("REGRESSION"), Boolean::logicalOr));
        return out;
    }

    public static void main(String[] args) throws Exception {
        int histories = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int base = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int unchanged = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        NOISE = !(args.length > 3 && args[3].equals("exact"));
        Path work = Files.createTempDirectory("gate-study");
        Map<String, int[]> falseAlarms = new TreeMap<>(); // metric -> {flagged, checked}
        int runsFlagged = 0;
        int runsChecked = 0;
        Map<String, Map<String, int[]>> detection = new TreeMap<>();
        // a cold JVM's first runs are slower than the rest (JIT): warm up on a throwaway store
        for (int i = 0; i < 3; i++) {
            run(work.resolve("warm-up.db"), work.resolve("warm-up"), SimulatorConfig.builder());
        }
        long started = System.nanoTime();
        for (int h = 0; h < histories; h++) {
            Path dir = Files.createDirectories(work.resolve("h" + h));
            Path store = dir.resolve("history.db");
            for (int i = 0; i < base; i++) {
                run(store, dir.resolve("out"), SimulatorConfig.builder());
            }
            Path baseCopy = Files.copy(store, dir.resolve("base.db"));
            for (int i = 0; i < unchanged; i++) {
                Map<String, Boolean> f = flags(run(store, dir.resolve("out"), SimulatorConfig.builder()));
                f.forEach((m, flagged) -> {
                    int[] c = falseAlarms.computeIfAbsent(m, k -> new int[2]);
                    c[0] += flagged ? 1 : 0;
                    c[1]++;
                });
                runsFlagged += f.containsValue(true) ? 1 : 0;
                runsChecked++;
            }
            for (Fault fault : FAULTS) {
                Path copy = Files.copy(baseCopy, dir.resolve(fault.name().replace(' ', '_') + ".db"));
                Map<String, Boolean> f = flags(run(copy, dir.resolve("out"), fault.apply().apply(SimulatorConfig.builder()),
                        fault.name()));
                Map<String, int[]> byMetric = detection.computeIfAbsent(fault.name(), k -> new TreeMap<>());
                f.forEach((m, flagged) -> {
                    int[] c = byMetric.computeIfAbsent(m, k -> new int[2]);
                    c[0] += flagged ? 1 : 0;
                    c[1]++;
                });
                int[] any = byMetric.computeIfAbsent("(any metric)", k -> new int[2]);
                any[0] += f.containsValue(true) ? 1 : 0;
                any[1]++;
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.println("GATE STUDY RESULT");
        System.out.printf(Locale.ROOT, "%d histories x (%d base + %d unchanged + %d faulted) runs in %.0f s, after 3 "
                + "warm-up runs, GPU noise " + (NOISE ? "on" : "off") + "%n%n",
                histories, base, unchanged, FAULTS.size(), seconds);
        System.out.println("| metric | unchanged runs flagged |");
        System.out.println("|---|---|");
        falseAlarms.forEach((m, c) -> System.out.printf(Locale.ROOT, "| %s | %d / %d |%n", m, c[0], c[1]));
        System.out.printf(Locale.ROOT, "| (any metric: the run fails) | %d / %d |%n%n", runsFlagged, runsChecked);
        List<String> metrics = new ArrayList<>(falseAlarms.keySet());
        metrics.add("(any metric)");
        StringBuilder header = new StringBuilder("| fault, first run |");
        StringBuilder rule = new StringBuilder("|---|");
        for (String m : metrics) {
            header.append(' ').append(m).append(" |");
            rule.append("---|");
        }
        System.out.println(header);
        System.out.println(rule);
        for (Fault fault : FAULTS) {
            StringBuilder line = new StringBuilder("| " + fault.name() + " |");
            Map<String, int[]> byMetric = detection.getOrDefault(fault.name(), Map.of());
            for (String m : metrics) {
                int[] c = byMetric.get(m);
                line.append(' ').append(c == null ? "–" : c[0] + " / " + c[1]).append(" |");
            }
            System.out.println(line);
        }
        System.out.println();
        MISSED.forEach(System.out::println);
    }
}
