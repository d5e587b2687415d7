package dev.profiledrollout.history;

import dev.profiledrollout.history.stats.Change;
import dev.profiledrollout.history.stats.Measure;
import dev.profiledrollout.history.stats.ThresholdResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.HdrHistogram.Histogram;
import org.apiguardian.api.API;

/**
 * Regression checks of one run against the earlier runs of its series (same test id and configuration fingerprint)
 * in a {@link HistoryStore}, with one {@link HistoryThreshold}. The history is read once per instance and shared by
 * every metric checked; runs that ended in {@code ERROR} are never history (see {@link HistoryStore#history}).
 *
 * <p>With the single-value models each earlier run contributes its figure of the metric (the latest
 * {@link HistoryThreshold#window()} runs having it). With the two-sample models (Mann–Whitney, Welch) a latency
 * metric ({@code ttft.p99}, {@code itl.mean}, …) compares this run's per-request values with the previous run's, both
 * decoded from their HdrHistograms; other metrics, and runs without stored histograms, fall back to the t-test.
 *
 * <p>Not thread-safe.
 */
@API(status = API.Status.EXPERIMENTAL)
public final class HistoryCheck {

    private final HistoryStore store;
    private final RunRecord current;
    private final HistoryThreshold threshold;
    private final long beforeId;
    private List<RunRecord> history;
    private final Map<String, Optional<Histogram>> histograms = new HashMap<>();

    private HistoryCheck(HistoryStore store, RunRecord current, HistoryThreshold threshold) {
        this.store = Objects.requireNonNull(store, "store");
        this.current = Objects.requireNonNull(current, "current");
        this.threshold = Objects.requireNonNull(threshold, "threshold");
        this.beforeId = current.id() > 0 ? current.id() : Long.MAX_VALUE;
    }

    /**
     * @param current the run to check: recorded (its id > 0: only earlier runs are its history) or not yet recorded
     *                (id 0: every run of the series is)
     */
    public static HistoryCheck of(HistoryStore store, RunRecord current, HistoryThreshold threshold) {
        return new HistoryCheck(store, current, threshold);
    }

    /** The threshold the checks use. */
    public HistoryThreshold threshold() {
        return threshold;
    }

    /**
     * Checks one metric.
     *
     * @return the verdict, or empty when the current run has no figure of that metric
     * @throws IllegalArgumentException for a metric name {@link HistoryMetrics} does not know
     * @throws HistoryStoreException    when the store cannot be read
     */
    public Optional<HistoryVerdict> check(String metric) {
        Measure measure = HistoryMetrics.measure(metric);
        HistoryThreshold threshold = this.threshold.forMetric(metric);
        Double value = current.metrics().get(metric);
        if (value == null || !Double.isFinite(value)) {
            return Optional.empty();
        }
        List<RunRecord> earlier = runsWith(metric, history(), threshold.window());
        String distribution = distribution(metric);
        if (threshold.model().twoSample() && !threshold.floorOnly() && distribution != null && current.histograms().containsKey(distribution)
                && !earlier.isEmpty()) {
            RunRecord previous = earlier.get(earlier.size() - 1);
            Optional<Histogram> previousHistogram = histogram(previous.id(), distribution);
            if (previousHistogram.isPresent()) {
                ThresholdResult result = threshold.twoSample(measure,
                        RunRecords.samplesMs(RunRecords.decode(current.histograms().get(distribution))),
                        RunRecords.samplesMs(previousHistogram.get()));
                if (!result.regressed()) {
                    Optional<ThresholdResult> floor = threshold.relativeFloor(measure, value,
                            earlier.stream().mapToDouble(r -> r.metrics().get(metric)).toArray());
                    if (floor.isPresent()) {
                        return Optional.of(new HistoryVerdict(metric, floor.get(), floorRuns(earlier)));
                    }
                }
                return Optional.of(new HistoryVerdict(metric, result, List.of(ref(previous))));
            }
        }
        double[] values = earlier.stream().mapToDouble(r -> r.metrics().get(metric)).toArray();
        ThresholdResult result = threshold.evaluate(measure, value, values);
        boolean byFloor = threshold.model() != HistoryThreshold.Model.RELATIVE
                && result.model().equals(dev.profiledrollout.history.stats.RelativeChange.NAME);
        return Optional.of(new HistoryVerdict(metric, result, byFloor ? floorRuns(earlier)
                : earlier.stream().map(HistoryCheck::ref).toList()));
    }

    /**
     * The trend of each metric the current run has: the latest {@link HistoryThreshold#window()} earlier runs having
     * it and the current run, oldest first, each point with the threshold model's verdict for that run against the
     * runs before it (REGRESSION / IMPROVEMENT mark change points).
     *
     * @param currentRunId the current run's id once recorded, else 0
     * @throws HistoryStoreException when the store cannot be read
     */
    public List<Trend> trends(List<String> metrics, long currentRunId) {
        List<RunRecord> longer = store.history(current.identity().testId(), current.fingerprint(),
                2 * threshold.window(), beforeId);
        List<Trend> trends = new ArrayList<>();
        for (String metric : metrics) {
            Double value = current.metrics().get(metric);
            if (value == null || !Double.isFinite(value)) {
                continue;
            }
            Measure measure = HistoryMetrics.measure(metric);
            List<RunRecord> series = new ArrayList<>(runsWith(metric, longer, Integer.MAX_VALUE));
            series.add(current.withId(currentRunId));
            int from = Math.max(0, series.size() - 1 - threshold.window());
            List<Trend.Point> points = new ArrayList<>();
            for (int i = from; i < series.size(); i++) {
                RunRecord run = series.get(i);
                boolean isCurrent = i == series.size() - 1;
                Change change = pointChange(metric, measure, series, i, isCurrent);
                points.add(new Trend.Point(run.id(), run.identity().startedAt(), run.identity().commit(),
                        run.metrics().get(metric), change, isCurrent));
            }
            trends.add(new Trend(metric, measure, points));
        }
        return trends;
    }

    private Change pointChange(String metric, Measure measure, List<RunRecord> series, int i, boolean isCurrent) {
        RunRecord run = series.get(i);
        HistoryThreshold threshold = this.threshold.forMetric(metric);
        String distribution = distribution(metric);
        if (threshold.model().twoSample() && !threshold.floorOnly() && distribution != null && i > 0) {
            Optional<Histogram> now = isCurrent
                    ? Optional.ofNullable(current.histograms().get(distribution)).map(RunRecords::decode)
                    : histogram(run.id(), distribution);
            Optional<Histogram> before = histogram(series.get(i - 1).id(), distribution);
            if (now.isPresent() && before.isPresent()) {
                return threshold.twoSample(measure, RunRecords.samplesMs(now.get()),
                        RunRecords.samplesMs(before.get())).change();
            }
        }
        double[] before = series.subList(Math.max(0, i - threshold.window()), i).stream()
                .mapToDouble(r -> r.metrics().get(metric)).toArray();
        return threshold.evaluate(measure, run.metrics().get(metric), before).change();
    }

    private List<RunRecord> history() {
        if (history == null) {
            history = store.history(current.identity().testId(), current.fingerprint(), threshold.window(), beforeId);
        }
        return history;
    }

    private Optional<Histogram> histogram(long runId, String distribution) {
        return histograms.computeIfAbsent(runId + "/" + distribution, k -> store.histogram(runId, distribution));
    }

    private static List<RunRecord> runsWith(String metric, List<RunRecord> runs, int limit) {
        List<RunRecord> with = runs.stream().filter(r -> {
            Double v = r.metrics().get(metric);
            return v != null && Double.isFinite(v);
        }).toList();
        return with.subList(Math.max(0, with.size() - limit), with.size());
    }

    /** {@code ttft} for {@code ttft.p99}, null for metrics that are not a latency distribution's. */
    static String distribution(String metric) {
        int dot = metric.indexOf('.');
        String head = dot < 0 ? metric : metric.substring(0, dot);
        return HistoryMetrics.DISTRIBUTIONS.contains(head) ? head : null;
    }

    /** The runs the relative floor compared with: the last {@link HistoryThreshold#RELATIVE_LIMIT_MINIMUM_RUNS}. */
    private static List<HistoryVerdict.RunRef> floorRuns(List<RunRecord> earlier) {
        return earlier.subList(Math.max(0, earlier.size() - HistoryThreshold.RELATIVE_LIMIT_MINIMUM_RUNS),
                earlier.size()).stream().map(HistoryCheck::ref).toList();
    }

    private static HistoryVerdict.RunRef ref(RunRecord run) {
        return new HistoryVerdict.RunRef(run.id(), run.identity().startedAt(), run.identity().commit());
    }

    /**
     * One metric over the latest runs.
     *
     * @param metric  the metric name
     * @param measure its label, unit and direction
     * @param points  oldest first, the current run last
     */
    @API(status = API.Status.EXPERIMENTAL)
    public record Trend(String metric, Measure measure, List<Point> points) {

        public Trend {
            points = List.copyOf(points);
        }

        /**
         * One run of a trend.
         *
         * @param runId     the store's id (0 if the current run could not be recorded)
         * @param startedAt when it started
         * @param commit    its commit, or null
         * @param value     its figure
         * @param change    the threshold model's verdict for it against the runs before it
         * @param current   whether it is the run being reported
         */
        @API(status = API.Status.EXPERIMENTAL)
        public record Point(long runId, Instant startedAt, String commit, double value, Change change,
                boolean current) {
        }
    }
}
