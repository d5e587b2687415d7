package dev.profiledrollout.history;

import dev.profiledrollout.history.stats.Boundaries;
import dev.profiledrollout.history.stats.Change;
import dev.profiledrollout.history.stats.Direction;
import dev.profiledrollout.history.stats.MannWhitney;
import dev.profiledrollout.history.stats.Measure;
import dev.profiledrollout.history.stats.RelativeChange;
import dev.profiledrollout.history.stats.StudentT;
import dev.profiledrollout.history.stats.Welch;
import dev.profiledrollout.history.stats.ZScore;
import dev.profiledrollout.cli.bench.LoadTest;
import dev.profiledrollout.cli.bench.LoadTestResult;
import dev.profiledrollout.metrics.LatencyDistribution;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The synthetic detection study: histories of runs of one small fixed load against the real simulator, with a known
 * shift injected (decode made slower with {@link SimulatorConfig.Builder#slowDecode}) or none, scored by every
 * threshold model of {@code history.stats}.
 *
 * <p>A history (one seed) is {@code base} unchanged runs, then {@code noise} more unchanged runs (the false-alarm
 * runs, each tested against the runs before it) and, branching off after the base runs, {@code shifted} runs with
 * decode slower by the shift factor (each tested against the base runs and the shifted runs before it, as the
 * history store would hold them). The two branches share the base runs, so one seed gives both kinds of history;
 * their runs are interleaved in time so that the machine's load drifts over both alike. Every run starts a fresh
 * simulator and a fresh load generator on the same configuration and seed, as a rerun of a test does, so the noise
 * between runs is what the simulator and the machine really give (thread wake-ups, the HTTP stack, other processes).
 *
 * <p>A run is flagged by a model when any of the scored metrics gets {@link Change#REGRESSION}. Detection rate: the
 * fraction of seeds whose first shifted run is flagged, and the fraction with any of its shifted runs flagged.
 * False-alarm rate: the fraction of noise runs flagged.
 *
 * <p>Run by {@code bench/history-study}: {@code main(histories, shift, base, noise, shifted, csv)}; prints a markdown
 * table. {@link DetectionStudyTest} runs a small version.
 */
public final class DetectionStudy {

    /** The metrics a check scores by default ({@link HistoryMetrics#KEY_METRICS}). */
    static final List<String> METRICS = HistoryMetrics.KEY_METRICS;
    /** The metrics recorded per run: the scored ones and a few to look at. */
    static final List<String> RECORDED = List.of("ttft.p99", "ttft.mean", "itl.p99", "itl.mean", "tpot.p99",
            "tpot.mean", "e2e.p99", "e2e.mean", "throughput.output_tokens");
    /** The recommended defaults the study picks: Student's t at 0.9999 on the regression side, window 20. */
    static final Detector RECOMMENDED = single("t-test 0.9999", 20, b -> new StudentT(20, b)::evaluate, 0.9999);
    /** The metrics the recommended defaults check. */
    static final List<String> RECOMMENDED_METRICS = List.of("tpot.mean", "e2e.mean");
    /** The second metric set the study scores: the mean latencies, which a slow request moves much less. */
    static final List<String> MEANS = List.of("ttft.mean", "tpot.mean", "e2e.mean");

    /** The fixed load of every run: a Poisson schedule fixed by the seed, fixed prompt and output lengths. */
    record Load(int requests, double rate, int concurrency, int inputTokens, int outputTokens) {
        static final Load SMALL = new Load(24, 40, 8, 128, 16);
    }

    /** One run: the recorded metric values and the raw per-request samples (ms) of each latency distribution. */
    record Run(Map<String, Double> metrics, Map<String, double[]> samples) {
    }

    /** One seed's runs: the shared base, the unchanged continuation and the shifted branch. */
    record History(long seed, List<Run> base, List<Run> noise, List<Run> shifted) {
    }

    /** A threshold model under test: a name and a verdict on one metric of the current run against earlier runs. */
    record Detector(String name, Verdict verdict) {
    }

    @FunctionalInterface
    interface Verdict {
        /** @param earlier runs before {@code current}, oldest first */
        Change judge(String metric, Run current, List<Run> earlier);
    }

    /** Detection and false-alarm counts of one detector. */
    record Score(String detector, int histories, int firstRunHits, int withinHits, int noiseRuns, int falseAlarms,
                 Map<String, Integer> firstRunHitsByMetric, Map<String, Integer> falseAlarmsByMetric) {
        double detection() {
            return (double) firstRunHits / histories;
        }

        double detectionWithin() {
            return (double) withinHits / histories;
        }

        double falseAlarmRate() {
            return (double) falseAlarms / noiseRuns;
        }
    }

    private DetectionStudy() {
    }

    /** Runs one history: {@code base} runs, then {@code noise} unchanged and {@code shifted} slowed runs interleaved. */
    static History history(long seed, Load load, double decodeFactor, int base, int noise, int shifted)
            throws Exception {
        List<Run> baseRuns = new ArrayList<>();
        for (int i = 0; i < base; i++) {
            baseRuns.add(run(seed, load, 1.0));
        }
        List<Run> noiseRuns = new ArrayList<>();
        List<Run> shiftedRuns = new ArrayList<>();
        while (noiseRuns.size() < noise || shiftedRuns.size() < shifted) {
            if (noiseRuns.size() < noise) {
                noiseRuns.add(run(seed, load, 1.0));
            }
            if (shiftedRuns.size() < shifted) {
                shiftedRuns.add(run(seed, load, decodeFactor));
            }
        }
        return new History(seed, baseRuns, noiseRuns, shiftedRuns);
    }

    /** One run: a fresh simulator (decode slowed by {@code decodeFactor}) and a fresh load generator. */
    static Run run(long seed, Load load, double decodeFactor) throws Exception {
        SimulatorConfig config = SimulatorConfig.builder().seed(seed).slowDecode(decodeFactor).build();
        try (EngineSimulator sim = EngineSimulator.start(config)) {
            LoadTestResult result = LoadTest.builder().baseUri(sim.baseUri()).model("m").backend("sglang")
                    .requestRate(load.rate()).maxConcurrency(load.concurrency()).requests(load.requests())
                    .randomTokens(load.inputTokens(), load.outputTokens(), 0.0).seed(seed)
                    .timeout(Duration.ofMinutes(2)).build().run();
            LatencyReport latency = result.latency();
            if (latency.failed() > 0 || latency.completed() != load.requests()) {
                throw new IllegalStateException("a study run lost requests: " + latency.completed() + " of "
                        + load.requests() + " completed, errors " + latency.errors());
            }
            Map<String, Double> metrics = new LinkedHashMap<>();
            Map<String, double[]> samples = new LinkedHashMap<>();
            Map<String, LatencyDistribution> distributions = Map.of("ttft", latency.ttft(), "itl", latency.itl(),
                    "tpot", latency.tpot(), "e2e", latency.e2e());
            for (String name : HistoryMetrics.DISTRIBUTIONS) {
                LatencyDistribution d = distributions.get(name);
                // the figures summary.json carries (ResultsModule): HdrHistogram percentiles, exact mean
                metrics.put(name + ".p99", ms(d.percentile(99)));
                metrics.put(name + ".mean", ms(d.mean()));
                samples.put(name, Arrays.stream(d.valuesNanos()).mapToDouble(ns -> ns / 1e6).toArray());
            }
            metrics.put("throughput.output_tokens", latency.outputTokenThroughput());
            return new Run(metrics, samples);
        }
    }

    private static double ms(Duration d) {
        return d.toNanos() / 1e6;
    }

    /** The detectors of the study table, each on the regression side only, window {@code window}. */
    static List<Detector> detectors(int window) {
        List<Detector> out = new ArrayList<>();
        for (double fraction : new double[] {0.05, 0.10, 0.15, 0.25}) {
            out.add(single(String.format(Locale.ROOT, "relative %.0f %%", fraction * 100), window,
                    b -> new RelativeChange(RelativeChange.Baseline.MEAN, window, b)::evaluate, fraction));
        }
        for (double p : new double[] {0.99, 0.999, 0.9999}) {
            out.add(single("z-score " + p, window, b -> new ZScore(window, b)::evaluate, p));
        }
        for (double p : new double[] {0.95, 0.99, 0.999, 0.9999, 0.99999}) {
            out.add(single("t-test " + p, window, b -> new StudentT(window, b)::evaluate, p));
        }
        for (double p : new double[] {0.99, 0.9999}) {
            out.add(twoSample("Mann-Whitney " + p, b -> new MannWhitney(b)::evaluate, p));
        }
        for (double p : new double[] {0.99, 0.9999}) {
            out.add(twoSample("Welch " + p, b -> new Welch(b)::evaluate, p));
        }
        return out;
    }

    @FunctionalInterface
    interface SingleValue {
        dev.profiledrollout.history.stats.ThresholdResult evaluate(Measure m, double current, double[] history);
    }

    @FunctionalInterface
    interface TwoSample {
        dev.profiledrollout.history.stats.ThresholdResult evaluate(Measure m, double[] current, double[] previous);
    }

    static Detector single(String name, int window, Function<Boundaries, SingleValue> model, double boundary) {
        SingleValue lowerIsBetter = model.apply(Boundaries.regressionSide(Direction.LOWER_IS_BETTER, boundary));
        SingleValue higherIsBetter = model.apply(Boundaries.regressionSide(Direction.HIGHER_IS_BETTER, boundary));
        return new Detector(name, (metric, current, earlier) -> {
            Measure measure = HistoryMetrics.measure(metric);
            SingleValue m = measure.direction() == Direction.LOWER_IS_BETTER ? lowerIsBetter : higherIsBetter;
            List<Run> last = earlier.subList(Math.max(0, earlier.size() - window), earlier.size());
            double[] history = last.stream().mapToDouble(r -> r.metrics().get(metric)).toArray();
            return m.evaluate(measure, current.metrics().get(metric), history).change();
        });
    }

    /** Two-sample tests compare raw samples against the previous run; metrics without samples are not tested. */
    static Detector twoSample(String name, Function<Boundaries, TwoSample> model, double boundary) {
        TwoSample test = model.apply(Boundaries.regressionSide(Direction.LOWER_IS_BETTER, boundary));
        return new Detector(name, (metric, current, earlier) -> {
            String distribution = metric.substring(0, metric.indexOf('.'));
            if (!current.samples().containsKey(distribution) || earlier.isEmpty()) {
                return Change.INSUFFICIENT_HISTORY;
            }
            return test.evaluate(HistoryMetrics.measure(metric), current.samples().get(distribution),
                    earlier.get(earlier.size() - 1).samples().get(distribution)).change();
        });
    }

    /** Scores one detector over the histories, flagging a run when any of {@code metrics} regressed. */
    static Score score(Detector detector, List<History> histories, List<String> metrics) {
        int first = 0;
        int within = 0;
        int noiseRuns = 0;
        int alarms = 0;
        Map<String, Integer> firstByMetric = new LinkedHashMap<>();
        Map<String, Integer> alarmsByMetric = new LinkedHashMap<>();
        for (String m : metrics) {
            firstByMetric.put(m, 0);
            alarmsByMetric.put(m, 0);
        }
        for (History h : histories) {
            List<Run> earlier = new ArrayList<>(h.base());
            boolean caught = false;
            for (int i = 0; i < h.shifted().size(); i++) {
                Run current = h.shifted().get(i);
                List<String> flagged = flagged(detector, current, earlier, metrics);
                if (i == 0) {
                    first += flagged.isEmpty() ? 0 : 1;
                    flagged.forEach(m -> firstByMetric.merge(m, 1, Integer::sum));
                }
                caught |= !flagged.isEmpty();
                earlier.add(current);
            }
            within += caught ? 1 : 0;
            earlier = new ArrayList<>(h.base());
            for (Run current : h.noise()) {
                List<String> flagged = flagged(detector, current, earlier, metrics);
                noiseRuns++;
                alarms += flagged.isEmpty() ? 0 : 1;
                flagged.forEach(m -> alarmsByMetric.merge(m, 1, Integer::sum));
                earlier.add(current);
            }
        }
        return new Score(detector.name(), histories.size(), first, within, noiseRuns, alarms, firstByMetric,
                alarmsByMetric);
    }

    static List<String> flagged(Detector detector, Run current, List<Run> earlier, List<String> metrics) {
        List<String> out = new ArrayList<>();
        for (String m : metrics) {
            if (detector.verdict().judge(m, current, earlier) == Change.REGRESSION) {
                out.add(m);
            }
        }
        return out;
    }

    /** The study table in markdown: one row per detector. */
    static String table(List<Score> scores, int shiftedRuns) {
        StringBuilder sb = new StringBuilder();
        sb.append("| model | detected at the first shifted run | detected within ").append(shiftedRuns)
                .append(" shifted runs | false alarms per unchanged run |\n|---|---|---|---|\n");
        for (Score s : scores) {
            sb.append(String.format(Locale.ROOT, "| %s | %d / %d (%.0f %%) | %d / %d (%.0f %%) | %d / %d (%.1f %%) |%n",
                    s.detector(), s.firstRunHits(), s.histories(), 100 * s.detection(), s.withinHits(), s.histories(),
                    100 * s.detectionWithin(), s.falseAlarms(), s.noiseRuns(), 100 * s.falseAlarmRate()));
        }
        return sb.toString();
    }

    /** Per metric, for each detector: first-run detections and false alarms (a metric's own share of the table). */
    static String metricTable(List<Score> scores, List<String> metrics) {
        StringBuilder sb = new StringBuilder("| model |");
        for (String m : metrics) {
            sb.append(' ').append(m).append(" |");
        }
        sb.append("\n|---|").append("---|".repeat(metrics.size())).append('\n');
        for (Score s : scores) {
            sb.append("| ").append(s.detector()).append(" |");
            for (String m : metrics) {
                sb.append(String.format(Locale.ROOT, " %d / %d |", s.firstRunHitsByMetric().get(m),
                        s.falseAlarmsByMetric().get(m)));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** Median and spread of each recorded metric over every unchanged run, and the shifted runs' median change. */
    static String noiseTable(List<History> histories) {
        StringBuilder sb = new StringBuilder("| metric | median of unchanged runs | run-to-run CV (median over seeds) "
                + "| shifted / unchanged median |\n|---|---|---|---|\n");
        for (String m : RECORDED) {
            List<Double> cvs = new ArrayList<>();
            List<Double> all = new ArrayList<>();
            List<Double> ratios = new ArrayList<>();
            for (History h : histories) {
                double[] v = concat(h.base(), h.noise()).stream().mapToDouble(r -> r.metrics().get(m)).toArray();
                double mean = Arrays.stream(v).average().orElse(Double.NaN);
                double sd = Math.sqrt(Arrays.stream(v).map(x -> (x - mean) * (x - mean)).sum() / (v.length - 1));
                cvs.add(sd / mean);
                Arrays.stream(v).forEach(all::add);
                double med = median(Arrays.stream(v).boxed().toList());
                double shiftedMed = median(h.shifted().stream().map(r -> r.metrics().get(m)).toList());
                ratios.add(shiftedMed / med);
            }
            sb.append(String.format(Locale.ROOT, "| %s | %.2f | %.1f %% | %.3f |%n", m, median(all),
                    100 * median(cvs), median(ratios)));
        }
        return sb.toString();
    }

    private static List<Run> concat(List<Run> a, List<Run> b) {
        List<Run> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** One CSV line per run: seed, branch, index, then the recorded metrics. */
    static void writeCsv(List<History> histories, Path file) throws IOException {
        StringBuilder sb = new StringBuilder("seed,branch,index," + String.join(",", RECORDED) + "\n");
        for (History h : histories) {
            appendCsv(sb, h.seed(), "base", h.base());
            appendCsv(sb, h.seed(), "noise", h.noise());
            appendCsv(sb, h.seed(), "shifted", h.shifted());
        }
        Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
    }

    private static void appendCsv(StringBuilder sb, long seed, String branch, List<Run> runs) {
        for (int i = 0; i < runs.size(); i++) {
            sb.append(seed).append(',').append(branch).append(',').append(i);
            for (String m : RECORDED) {
                sb.append(',').append(String.format(Locale.ROOT, "%.4f", runs.get(i).metrics().get(m)));
            }
            sb.append('\n');
        }
    }

    /**
     * {@code histories shift base noise shifted [csv]}, defaults {@code 20 1.08 20 20 3}: runs the study and prints
     * the tables in markdown, with the cost per run.
     */
    public static void main(String[] args) throws Exception {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        double shift = args.length > 1 ? Double.parseDouble(args[1]) : 1.08;
        int base = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        int noise = args.length > 3 ? Integer.parseInt(args[3]) : 20;
        int shifted = args.length > 4 ? Integer.parseInt(args[4]) : 3;
        Path csv = args.length > 5 ? Path.of(args[5]) : null;
        PrintStream out = System.out;
        Load load = Load.SMALL;
        // JIT warm-up, not scored: a fresh JVM's first runs are slower than the rest
        for (int i = 0; i < 10; i++) {
            run(-1, load, 1.0);
        }
        List<History> histories = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int s = 0; s < count; s++) {
            histories.add(history(s, load, shift, base, noise, shifted));
            System.err.printf(Locale.ROOT, "history %d / %d done, %.0f s%n", s + 1, count,
                    (System.nanoTime() - t0) / 1e9);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        int runs = count * (base + noise + shifted);
        if (csv != null) {
            writeCsv(histories, csv);
        }
        out.printf(Locale.ROOT, "load: %d requests, Poisson %.0f req/s, max concurrency %d, ISL %d, OSL %d; "
                        + "decode x%.2f from run %d; %d histories of %d + %d unchanged and %d shifted runs; "
                        + "window 20; metrics %s%n",
                load.requests(), load.rate(), load.concurrency(), load.inputTokens(), load.outputTokens(), shift,
                base + 1, count, base, noise, shifted, String.join(", ", METRICS));
        out.printf(Locale.ROOT, "cost: %d runs in %.0f s, %.2f s per run%n%n", runs, seconds, seconds / runs);
        for (List<String> metrics : List.of(METRICS, MEANS)) {
            List<Score> scores = new ArrayList<>();
            for (Detector d : detectors(20)) {
                scores.add(score(d, histories, metrics));
            }
            out.println("Flagged = any of " + String.join(", ", metrics) + " got REGRESSION:");
            out.println();
            out.println(table(scores, shifted));
            out.println("Per metric: first-shifted-run detections / false alarms");
            out.println();
            out.println(metricTable(scores, metrics));
        }
        out.println(noiseTable(histories));
    }
}
