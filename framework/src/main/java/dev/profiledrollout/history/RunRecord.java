package dev.profiledrollout.history;

import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apiguardian.api.API;

/**
 * One recorded run: who, what, and its figures.
 *
 * @param id            the store's id, increasing in the order runs were recorded; 0 before the run is recorded
 * @param identity      which run this was
 * @param configuration what was run
 * @param outcome       {@code PASSED}, {@code FAILED} or {@code ERROR} (summary.json {@code outcome.status}); runs
 *                      that ended in {@code ERROR} are kept but never used as history
 * @param metrics       figures by metric name ({@link HistoryMetrics} lists the names, units and directions), sorted
 * @param histograms    raw latency histograms by distribution name ({@code ttft}, {@code itl}, {@code tpot},
 *                      {@code e2e}), values in nanoseconds, each in HdrHistogram's compressed form
 *                      ({@code Histogram.encodeIntoCompressedByteBuffer}); empty when not loaded
 * @param kernelNames   the full kernel name of each top-kernel metric id among the metrics
 *                      ({@link HistoryMetrics#kernelMetric}), sorted; the store keeps them as its legend
 *                      ({@link HistoryStore#kernelNames()}); empty when the run has none or they were not loaded
 */
@API(status = API.Status.EXPERIMENTAL)
public record RunRecord(long id, RunIdentity identity, RunConfiguration configuration, String outcome,
        SortedMap<String, Double> metrics, Map<String, byte[]> histograms, SortedMap<String, String> kernelNames) {

    /** @throws NullPointerException if identity, configuration or outcome is null */
    public RunRecord {
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(configuration, "configuration");
        Objects.requireNonNull(outcome, "outcome");
        metrics = metrics == null ? new TreeMap<>() : new TreeMap<>(metrics);
        histograms = histograms == null ? Map.of() : Map.copyOf(histograms);
        kernelNames = kernelNames == null ? new TreeMap<>() : new TreeMap<>(kernelNames);
    }

    /** A run without kernel names ({@code kernelNames} empty). */
    public RunRecord(long id, RunIdentity identity, RunConfiguration configuration, String outcome,
            SortedMap<String, Double> metrics, Map<String, byte[]> histograms) {
        this(id, identity, configuration, outcome, metrics, histograms, null);
    }

    /** The configuration's fingerprint. */
    public String fingerprint() {
        return configuration.fingerprint();
    }

    /** The same run with the store's id. */
    public RunRecord withId(long newId) {
        return new RunRecord(newId, identity, configuration, outcome, metrics, histograms, kernelNames);
    }
}
