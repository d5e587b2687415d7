import dev.profiledrollout.history.HistoryMetrics;
import dev.profiledrollout.history.HistoryStore;
import dev.profiledrollout.history.RunConfiguration;
import dev.profiledrollout.history.RunIdentity;
import dev.profiledrollout.history.RunRecord;
import dev.profiledrollout.history.stats.Boundaries;
import dev.profiledrollout.history.stats.StudentT;
import dev.profiledrollout.history.stats.ThresholdResult;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * History store benchmark (see history.sh).
 *
 * <pre>
 * build URL USER PASSWORD RUNS SERIES   records RUNS runs round-robin over SERIES series, ~30 metrics and 4 histograms each
 * check URL USER PASSWORD REPEATS       times a regression check of the latest run of each series (values() of the
 *                                        last 20 runs for the 5 key metrics + Student's t) against one primary-key
 *                                        lookup on a plain JDBC connection; prints medians in ms and their ratio
 * </pre>
 * USER and PASSWORD are "-" for none.
 */
public class HistoryBench {

    static final List<String> DISTRIBUTIONS = List.of("ttft", "itl", "tpot", "e2e");
    static final List<String> STATS = List.of("p50", "p90", "p99", "mean", "max");

    public static void main(String[] args) throws Exception {
        String url = args[1];
        String user = args[2].equals("-") ? null : args[2];
        String password = args[3].equals("-") ? null : args[3];
        switch (args[0]) {
            case "build" -> build(url, user, password, Integer.parseInt(args[4]), Integer.parseInt(args[5]));
            case "check" -> check(url, user, password, Integer.parseInt(args[4]));
            default -> throw new IllegalArgumentException("mode is build or check, not " + args[0]);
        }
    }

    static RunConfiguration configuration(int series) {
        return new RunConfiguration("SIMULATOR", "simulator", "0.4.1", "llama-3-8b", "NVIDIA H100 80GB HBM3", 1 << (series % 3),
                1, 1, 1, 1024, 128, 8 << (series % 4), Double.POSITIVE_INFINITY, 3, null, new TreeMap<>());
    }

    static void build(String url, String user, String password, int runs, int series) throws Exception {
        Random random = new Random(42);
        Instant start = Instant.parse("2026-01-01T00:00:00Z");
        long t0 = System.nanoTime();
        try (HistoryStore store = HistoryStore.open(url, user, password)) {
            for (int i = 0; i < runs; i++) {
                int s = i % series;
                Map<String, Double> metrics = new HashMap<>();
                Map<String, byte[]> histograms = new HashMap<>();
                for (String d : DISTRIBUTIONS) {
                    Histogram h = new Histogram(3);
                    double scale = d.equals("ttft") || d.equals("e2e") ? 200e6 : 8e6;
                    for (int r = 0; r < 200; r++) {
                        h.recordValue((long) (scale * (1 + 0.2 * Math.abs(random.nextGaussian()))));
                    }
                    for (String stat : STATS) {
                        double ms = switch (stat) {
                            case "p50" -> h.getValueAtPercentile(50);
                            case "p90" -> h.getValueAtPercentile(90);
                            case "p99" -> h.getValueAtPercentile(99);
                            case "mean" -> h.getMean();
                            default -> h.getMaxValue();
                        } / 1e6;
                        metrics.put(d + "." + stat, ms);
                    }
                    ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
                    int length = h.encodeIntoCompressedByteBuffer(buffer);
                    histograms.put(d, Arrays.copyOf(buffer.array(), length));
                }
                metrics.put("throughput.requests", 50 + random.nextGaussian());
                metrics.put("throughput.output_tokens", 6400 + 100 * random.nextGaussian());
                metrics.put("goodput.requests", 48 + random.nextGaussian());
                metrics.put("errors.fraction", 0.0);
                metrics.put("trace.kernel_ms", 900 + 10 * random.nextGaussian());
                metrics.put("trace.gpu_busy_fraction", 0.8 + 0.01 * random.nextGaussian());
                metrics.put("trace.rank_imbalance", 1.05 + 0.01 * random.nextGaussian());
                for (String category : List.of("GEMM", "ATTENTION", "COMMUNICATION")) {
                    metrics.put("kernel.category." + category + ".ms", 300 + 5 * random.nextGaussian());
                }
                RunIdentity identity = new RunIdentity("bench.HistoryBench#series" + s, start.plusSeconds(60L * i),
                        Integer.toHexString(i), "main", Integer.toString(i), null, "bench");
                store.record(new RunRecord(0, identity, configuration(s), "PASSED", new TreeMap<>(metrics), histograms));
            }
        }
        System.out.printf("built %d runs of %d series, ~30 metrics and 4 histograms each, in %.1f s%n", runs, series,
                (System.nanoTime() - t0) / 1e9);
    }

    static void check(String url, String user, String password, int repeats) throws Exception {
        long open0 = System.nanoTime();
        HistoryStore.open(url, user, password).close();
        double openMs = (System.nanoTime() - open0) / 1e6;
        long reopen0 = System.nanoTime();
        HistoryStore store = HistoryStore.open(url, user, password);
        double reopenMs = (System.nanoTime() - reopen0) / 1e6;
        try (store; Connection plain = DriverManager.getConnection(url, user, password);
                PreparedStatement pk = plain.prepareStatement("SELECT started_at FROM runs WHERE id = ?")) {
            List<HistoryStore.SeriesInfo> series = store.series();
            StudentT model = new StudentT(20, Boundaries.upper(Boundaries.DEFAULT_PROBABILITY));
            long maxId = store.list("%", 1).get(0).id();
            double firstCheckMs = -1;
            double firstStoreMs = -1;
            double[] checks = new double[repeats];
            double[] lookups = new double[repeats];
            int regressions = 0;
            // warm-up rounds (JIT, statement caches) are measured and dropped
            for (int r = -repeats / 5; r < repeats; r++) {
                HistoryStore.SeriesInfo s = series.get(Math.floorMod(r, series.size()));
                long t0 = System.nanoTime();
                // the current run is the series' latest; its values come from the run being recorded
                RunRecord current = store.history(s.testId(), s.fingerprint(), 1, Long.MAX_VALUE).get(0);
                long t1 = System.nanoTime();
                long storeNs = 0;
                for (String metric : HistoryMetrics.KEY_METRICS) {
                    long v0 = System.nanoTime();
                    double[] history = store.values(s.testId(), s.fingerprint(), metric, 20, current.id());
                    storeNs += System.nanoTime() - v0;
                    ThresholdResult result = model.evaluate(HistoryMetrics.measure(metric),
                            current.metrics().get(metric), history);
                    if (result.change().name().equals("REGRESSION")) {
                        regressions++;
                    }
                }
                long t2 = System.nanoTime();
                pk.setLong(1, 1 + Math.floorMod(r * 7919L, maxId));
                try (ResultSet rows = pk.executeQuery()) {
                    rows.next();
                    rows.getString(1);
                }
                long t3 = System.nanoTime();
                if (firstCheckMs < 0) {
                    firstCheckMs = (t2 - t1) / 1e6;
                    firstStoreMs = storeNs / 1e6;
                }
                if (r >= 0) {
                    checks[r] = (t2 - t1) / 1e6;
                    lookups[r] = (t3 - t2) / 1e6;
                }
                if (r == 0) {
                    System.out.printf("first check after warm-up: %d history values per metric%n",
                            store.values(s.testId(), s.fingerprint(), "ttft.p99", 20, current.id()).length);
                }
            }
            double check = median(checks);
            double lookup = median(lookups);
            System.out.printf("store open: first in the JVM %.1f ms, again %.1f ms; first regression check (cold JVM) "
                    + "%.1f ms (of which values() %.1f ms); regression check (5 key metrics x values() of 20 runs + t-test) median %.3f ms, "
                    + "p90 %.3f ms; primary-key lookup median %.3f ms; ratio check/lookup %.1fx; %d runs; "
                    + "%d of %d checks flagged a regression%n", openMs, reopenMs, firstCheckMs, firstStoreMs, check,
                    percentile(checks, 0.9), lookup,
                    check / lookup, series.stream().mapToInt(HistoryStore.SeriesInfo::runs).sum(), regressions,
                    (repeats + repeats / 5) * HistoryMetrics.KEY_METRICS.size());
        }
    }

    static double median(double[] values) {
        return percentile(values, 0.5);
    }

    static double percentile(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }
}
