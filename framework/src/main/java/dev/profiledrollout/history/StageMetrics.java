package dev.profiledrollout.history;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.history.stats.Direction;
import dev.profiledrollout.history.stats.Measure;
import dev.profiledrollout.report.StageReport;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * The history metrics of a staged load, read from a run directory's {@code stages.json} (written by the report's
 * {@code StageReport}): {@code capacity.request_rate} (req/s) and {@code capacity.concurrency} when a capacity search
 * found a figure, and per stage {@code stage.<key>.throughput.requests}, {@code stage.<key>.goodput.requests},
 * {@code stage.<key>.ttft.p99}, {@code stage.<key>.tpot.p99} and {@code stage.<key>.lag.p99}, where the key is
 * {@code c<concurrency>} or {@code r<rate>} with {@code _} for the decimal point ({@code c16}, {@code r40},
 * {@code r12_5}). They are recorded and gated like any other metric.
 */
@API(status = INTERNAL, since = "0.2")
public final class StageMetrics {

    private static final Pattern STAGE = Pattern.compile(
            "stage\\.(c\\d+|r\\d+(?:_\\d+)?)\\.(throughput\\.requests|goodput\\.requests|ttft\\.p99|tpot\\.p99|lag\\.p99)");

    private StageMetrics() {
    }

    /** @return {@code metrics} with the directory's staged-load metrics added; unchanged without {@code stages.json} */
    static SortedMap<String, Double> with(SortedMap<String, Double> metrics, Path directory) {
        Optional<StageReport.StagesFile> read = StageReport.read(directory);
        if (read.isEmpty()) {
            return metrics; // none, or a damaged stages.json: it loses only the stage metrics
        }
        StageReport.StagesFile root = read.get();
        SortedMap<String, Double> all = new TreeMap<>(metrics);
        StageReport.CapacityBlock c = root.capacity();
        if (c != null && c.lower() != null) {
            put(all, "capacity.request_rate", c.requestRate());
            if ("CONCURRENCY".equals(c.mode())) {
                put(all, "capacity.concurrency", c.lower());
            }
        }
        for (StageReport.Row s : root.stages()) {
            String key = key(s);
            put(all, "stage." + key + ".throughput.requests", s.throughput());
            put(all, "stage." + key + ".goodput.requests", s.goodput());
            put(all, "stage." + key + ".ttft.p99", s.ttftP99Ms());
            put(all, "stage." + key + ".tpot.p99", s.tpotP99Ms());
            put(all, "stage." + key + ".lag.p99", s.lagP99Ms());
        }
        return all;
    }

    /** @return a stage's metric key: {@code c16} or {@code r40} / {@code r12_5} */
    static String key(StageReport.Row stage) {
        double level = stage.level();
        if (stage.closedLoop()) {
            return "c" + Math.round(level);
        }
        String rate = String.format(Locale.ROOT, "%.3f", level).replaceAll("0+$", "").replaceAll("\\.$", "");
        return "r" + rate.replace('.', '_');
    }

    private static void put(SortedMap<String, Double> metrics, String name, Double value) {
        if (value != null && Double.isFinite(value)) {
            metrics.putIfAbsent(name, value);
        }
    }

    /** @return what a staged-load metric measures; empty for any other name */
    static Optional<Measure> measure(String metric) {
        switch (metric) {
            case "capacity.request_rate":
                return Optional.of(new Measure("capacity", "req/s", Direction.HIGHER_IS_BETTER));
            case "capacity.concurrency":
                return Optional.of(new Measure("capacity", "concurrent requests", Direction.HIGHER_IS_BETTER));
            default:
                break;
        }
        Matcher m = STAGE.matcher(metric);
        if (!m.matches()) {
            return Optional.empty();
        }
        String stage = m.group(1).startsWith("c") ? "concurrency " + m.group(1).substring(1)
                : "rate " + m.group(1).substring(1).replace('_', '.') + "/s";
        switch (m.group(2)) {
            case "throughput.requests":
                return Optional.of(new Measure("request throughput at " + stage, "req/s", Direction.HIGHER_IS_BETTER));
            case "goodput.requests":
                return Optional.of(new Measure("request goodput at " + stage, "req/s", Direction.HIGHER_IS_BETTER));
            case "lag.p99":
                return Optional.of(new Measure("p99 schedule lag at " + stage, "ms", Direction.LOWER_IS_BETTER));
            default:
                return Optional.of(new Measure("p99 " + m.group(2).substring(0, 4).toUpperCase(Locale.ROOT) + " at "
                        + stage, "ms", Direction.LOWER_IS_BETTER));
        }
    }
}
