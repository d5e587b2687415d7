package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.history.stats.Change;
import dev.profiledrollout.metrics.TimeSeries;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.apiguardian.api.API;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

/**
 * Builds the report's XChart charts from a {@link ReportData}; rendering them to PNG is {@link ReportRenderer}'s job,
 * so tests can inspect titles, axis titles and series before anything is drawn.
 *
 * <p>Charts, each only when its data exists: {@code ttft-percentiles}, {@code itl-percentiles} (ITL and TPOT),
 * {@code e2e-percentiles} (from {@code latency.hlog}, HdrHistogram recorded values, the same ones
 * {@code summary.json} reports, on HdrHistogram's percentile axis: log10(1/(1 − p)), so whole decades are the ticks
 * {@code 0%}, {@code 90%}, {@code 99%}, {@code 99.9%}, …, with the points {@link #curve} gives), {@code latency-over-time} (per request, from {@code requests.jsonl}),
 * {@code throughput-over-time} (output tokens/s on the left axis, completed requests/s and the time-weighted mean of
 * requests in flight on the right axis, in the shortest of 10 ms, 20 ms, 25 ms, 50 ms, 100 ms, … 10 min buckets that
 * gives the run fewer than {@value #MAX_POINTS} of them, from {@code requests.jsonl}: a request's first output token at its first chunk, the
 * others spread evenly up to its end, since the file keeps no per-chunk times; a file without end times falls back to
 * {@code timeseries.csv}'s exact per-second series when there is one), {@code top-kernels} (top {@value #TOP_KERNELS} by total time over
 * all ranks, bars labelled {@code K1}… as the kernel table numbers its rows), {@code time-by-category} (when the
 * trace summary has categories), {@code baseline-diff} (when a baseline was compared, bars labelled {@code B1}…),
 * {@code rank-busy} (GPU busy time per rank, labelled with {@code trace.ranks[].label}; with two or more ranks the
 * straggler as its own series), {@code step-timeline} (per rank set of {@code trace.stepTimeline}: GPU busy time per
 * step, one line per rank, each step's straggler marked; {@code step-timeline-<worker>} for the sets of several
 * workers), {@code roofline} (when {@code trace.ranks[].roofline} has timed GEMM/attention
 * ops: each op and shape at its arithmetic intensity and median achieved TFLOPS/s, one series per op name, on
 * log-log axes, under the compute and HBM roofs of the first rank's device from {@code GpuPeaks.defaults()} for the
 * precision with the most kernel time; without a known device the points alone).
 *
 * <p>With a {@code history} block in {@code summary.json}, {@link #withTrends} adds one {@code trend-<metric>} chart per
 * trend ({@link #trends}).
 *
 * <p>Every chart is {@value #WIDTH} × {@value #HEIGHT} px with padding for its axis titles and explicit tick
 * formats (no tick label carries more decimals than its axis's range needs).
 */
@API(status = INTERNAL, since = "0.1")
public final class Charts {

    /** Kernels in the top-kernels chart. */
    public static final int TOP_KERNELS = 10;
    /** Chart width, px. */
    public static final int WIDTH = 640;
    /** Chart height, px. */
    public static final int HEIGHT = 400;
    /** Most buckets of the throughput series: enough to show a ramp, few enough to keep the noise readable. */
    public static final int MAX_POINTS = 50;
    /** Percentile levels per halving of the distance to 100%, as HdrHistogram's percentile output uses by default. */
    public static final int TICKS_PER_HALF_DISTANCE = 5;
    private static final long[] BUCKET_NANOS = {10_000_000L, 20_000_000L, 25_000_000L, 50_000_000L, 100_000_000L,
        200_000_000L, 250_000_000L, 500_000_000L, 1_000_000_000L, 2_000_000_000L, 5_000_000_000L, 10_000_000_000L,
        15_000_000_000L, 30_000_000_000L, 60_000_000_000L, 120_000_000_000L, 300_000_000_000L, 600_000_000_000L};
    private static final java.awt.Font TITLE_FONT = new java.awt.Font(java.awt.Font.SANS_SERIF, java.awt.Font.BOLD,
            14);
    private static final java.awt.Font TEXT_FONT = new java.awt.Font(java.awt.Font.SANS_SERIF, java.awt.Font.PLAIN,
            11);

    /**
     * A chart and the file it renders to.
     *
     * @param name  the file name without extension under {@code charts/}, e.g. {@code ttft-percentiles}
     * @param chart the XChart chart; its title, axis titles and series are final
     */
    public record NamedChart(String name, Chart<?, ?> chart) {

        /** @return the chart's title */
        public String title() {
            return chart.getTitle();
        }
    }

    private Charts() {
    }

    static {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    /** @return the charts {@code data} supports, in report order; never null */
    public static List<NamedChart> build(ReportData data) {
        List<NamedChart> charts = new ArrayList<>();
        percentiles(data, "ttft-percentiles", "TTFT percentile distribution", List.of("TTFT")).ifPresent(charts::add);
        percentiles(data, "itl-percentiles", "ITL and TPOT percentile distribution", List.of("ITL", "TPOT"))
                .ifPresent(charts::add);
        percentiles(data, "e2e-percentiles", "E2E latency percentile distribution", List.of("E2E"))
                .ifPresent(charts::add);
        latencyOverTime(data).ifPresent(charts::add);
        throughputOverTime(data).ifPresent(charts::add);
        topKernels(data).ifPresent(charts::add);
        categories(data).ifPresent(charts::add);
        rankBusy(data).ifPresent(charts::add);
        charts.addAll(stepTimelines(data));
        baselineDiff(data).ifPresent(charts::add);
        roofline(data).ifPresent(charts::add);
        return charts;
    }

    /**
     * @return {@link #build} followed by the trend charts of {@code summary.json}'s {@code history} block
     *         ({@link #trends}), the charts a report renders
     */
    public static List<NamedChart> withTrends(ReportData data) {
        List<NamedChart> charts = build(data);
        data.history().ifPresent(h -> charts.addAll(trends(h)));
        return charts;
    }

    /** Prefix of the trend charts' names ({@code trend-ttft-p99}, …), which the report shows under History. */
    public static final String TREND_PREFIX = "trend-";
    /** Series names of a trend chart, so tests and readers find the change points. */
    static final String VALUE_SERIES = "per run";
    static final String REGRESSION_SERIES = "regression";
    static final String IMPROVEMENT_SERIES = "improvement";
    static final String UNCHECKED_SERIES = "too few runs";
    static final String CURRENT_SERIES = "this run";
    static final String MEAN_SERIES = "earlier mean";
    private static final Color TREND_LINE = new Color(0x4C72B0);
    private static final Color REGRESSION_COLOR = new Color(0xC62828);
    private static final Color IMPROVEMENT_COLOR = new Color(0x1A7F37);
    private static final Color CURRENT_COLOR = new Color(0xF28E2B);

    /** @return whether {@code chart} is a trend chart of the history block */
    public static boolean isTrend(NamedChart chart) {
        return chart.name().startsWith(TREND_PREFIX);
    }

    /**
     * One chart per trend of {@code history} with at least one point, named {@code trend-<metric>} (non-alphanumerics
     * as {@code -}): the metric's value per run on a line, x = run order (1 = oldest) with ticks labelled by the run's
     * store id and short commit, the current run as an orange vertical line, change points as their own series (REGRESSION
     * red diamonds, IMPROVEMENT green up-triangles), runs the model could not yet judge (INSUFFICIENT_HISTORY, "too few runs") grey,
     * and a dashed line at the mean of the runs before the current one ("earlier mean", when there are two or more).
     */
    static List<NamedChart> trends(ReportData.History history) {
        List<NamedChart> charts = new ArrayList<>();
        java.util.Set<String> names = new java.util.HashSet<>();
        for (ReportData.Trend t : history.trends()) {
            if (t.points().isEmpty()) {
                continue;
            }
            String name = TREND_PREFIX + t.metric().replaceAll("[^A-Za-z0-9]+", "-").replaceAll("^-|-$", "");
            for (int i = 2; !names.add(name); i++) {
                name = name.replaceAll("~\\d+$", "") + "~" + i;
            }
            charts.add(new NamedChart(name, trend(t)));
        }
        return charts;
    }

    private static XYChart trend(ReportData.Trend t) {
        List<ReportData.Point> points = t.points();
        int n = points.size();
        long regressions = points.stream().filter(p -> p.change() == Change.REGRESSION).count();
        long improvements = points.stream().filter(p -> p.change() == Change.IMPROVEMENT).count();
        String marks = regressions + improvements == 0 ? "" : " (" + java.util.stream.Stream.of(
                regressions == 0 ? null : regressions + (regressions == 1 ? " regression" : " regressions"),
                improvements == 0 ? null : improvements + (improvements == 1 ? " improvement" : " improvements"))
                .filter(java.util.Objects::nonNull).collect(java.util.stream.Collectors.joining(", ")) + ")";
        String unit = t.unit().isEmpty() ? "" : " (" + t.unit() + ")";
        XYChart chart = xy("Trend of " + t.label() + " over " + n + (n == 1 ? " run" : " runs") + marks,
                "run (store id, commit), oldest first", t.label() + unit);
        double[] x = new double[n];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = i + 1;
            y[i] = points.get(i).value();
        }
        XYSeries line = chart.addSeries(VALUE_SERIES, x, y);
        line.setLineColor(TREND_LINE);
        line.setMarkerColor(TREND_LINE);
        line.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.CIRCLE);
        int earlier = (int) points.stream().filter(p -> !p.current()).count();
        if (earlier >= 2) {
            double mean = points.stream().filter(p -> !p.current()).mapToDouble(ReportData.Point::value).average()
                    .orElse(0);
            XYSeries m = chart.addSeries(MEAN_SERIES, new double[] {1, n}, new double[] {mean, mean});
            m.setLineColor(Color.GRAY);
            m.setLineStyle(org.knowm.xchart.style.lines.SeriesLines.DASH_DASH);
            m.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE);
        }
        marks(chart, points, p -> p.change() == Change.INSUFFICIENT_HISTORY, UNCHECKED_SERIES, Color.LIGHT_GRAY,
                org.knowm.xchart.style.markers.SeriesMarkers.CIRCLE);
        double lo = java.util.Arrays.stream(y).min().orElse(0);
        double hi = java.util.Arrays.stream(y).max().orElse(0);
        // headroom, so a flat history still gets a y range with ticks and the markers stay inside the plot
        double pad = Math.max((hi - lo) * 0.1, Math.max(Math.abs(hi) * 0.02, 1e-9));
        double bottom = lo - pad >= 0 || lo < 0 ? lo - pad : 0.0;
        double top = hi + pad;
        for (int i = 0; i < n; i++) {
            if (points.get(i).current()) {
                // a vertical line through the whole plot: a marker would hide under a change point's
                XYSeries current = chart.addSeries(CURRENT_SERIES, new double[] {i + 1, i + 1},
                        new double[] {bottom, top});
                current.setLineColor(CURRENT_COLOR);
                current.setLineWidth(2f);
                current.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE);
                break;
            }
        }
        marks(chart, points, p -> p.change() == Change.REGRESSION, REGRESSION_SERIES, REGRESSION_COLOR,
                org.knowm.xchart.style.markers.SeriesMarkers.DIAMOND);
        marks(chart, points, p -> p.change() == Change.IMPROVEMENT, IMPROVEMENT_SERIES, IMPROVEMENT_COLOR,
                org.knowm.xchart.style.markers.SeriesMarkers.TRIANGLE_UP);
        chart.getStyler().setMarkerSize(7);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        // no explicit x range: XChart 3.8.8 then computes no ticks between its ends for a labelling function
        // one tick per run: the plot is about WIDTH − 100 px wide, and a rotated label needs ~14 px
        chart.getStyler().setXAxisTickMarkSpacingHint(Math.max(14, Math.min(74, (WIDTH - 100) / Math.max(1, n))));
        chart.getStyler().setXAxisLabelRotation(90);
        List<String> labels = points.stream().map(Charts::runLabel).toList();
        chart.getStyler().setxAxisTickLabelsFormattingFunction(v -> {
            double run = Math.rint(v);
            return Math.abs(v - run) < 1e-9 && run >= 1 && run <= n ? labels.get((int) run - 1) : "";
        });
        chart.getStyler().setYAxisMin(bottom);
        chart.getStyler().setYAxisMax(top);
        yPattern(chart, (hi - lo) > 0 && (hi - lo) < 1 && hi < 10 ? hi - lo : hi);
        return chart;
    }

    /** Adds the points of {@code points} that {@code which} selects as a markers-only series; none, no series. */
    private static void marks(XYChart chart, List<ReportData.Point> points,
            java.util.function.Predicate<ReportData.Point> which, String name, Color color,
            org.knowm.xchart.style.markers.Marker marker) {
        List<Double> x = new ArrayList<>();
        List<Double> y = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            if (which.test(points.get(i))) {
                x.add(i + 1.0);
                y.add(points.get(i).value());
            }
        }
        if (x.isEmpty()) {
            return;
        }
        XYSeries s = chart.addSeries(name, x, y);
        s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        s.setMarker(marker).setMarkerColor(color);
    }

    /** @return a trend tick: {@code #<run id> <short commit>}, either part left out when unknown */
    static String runLabel(ReportData.Point p) {
        String commit = p.commit() == null || p.commit().isBlank() ? ""
                : p.commit().substring(0, Math.min(7, p.commit().length()));
        String id = p.runId() == null ? "" : "#" + p.runId();
        String label = (id + " " + commit).trim();
        return label.isEmpty() ? "?" : label;
    }

    /** Kernel time of this run next to the baseline's, for the kernels that changed most ({@code summary.baseline}). */
    private static java.util.Optional<NamedChart> baselineDiff(ReportData data) {
        RunHeader.Baseline baseline = data.head().baseline();
        List<RunHeader.BaselineKernel> kernels = baseline == null ? null : baseline.kernels();
        if (kernels == null || kernels.isEmpty()) {
            return java.util.Optional.empty();
        }
        double change = baseline.kernelTimeChange() == null ? 0 : baseline.kernelTimeChange();
        CategoryChart chart = bars(String.format(java.util.Locale.ROOT,
                "Kernel time vs baseline (total %+.1f%%): largest changes", 100 * change),
                "kernel (B1… in the baseline table)", "total time (ms)");
        List<String> names = new ArrayList<>();
        List<Number> base = new ArrayList<>();
        List<Number> run = new ArrayList<>();
        int i = 0;
        for (RunHeader.BaselineKernel k : kernels) {
            if (i++ == TOP_KERNELS) {
                break;
            }
            names.add("B" + i);
            base.add(k.baseTotalNs() / 1e6);
            run.add(k.totalNs() / 1e6);
        }
        yPattern(chart, java.util.stream.Stream.concat(base.stream(), run.stream()).mapToDouble(Number::doubleValue)
                .max().orElse(0));
        chart.addSeries("baseline", names, base);
        chart.addSeries("this run", names, run);
        return java.util.Optional.of(new NamedChart("baseline-diff", chart));
    }

    private static java.util.Optional<NamedChart> percentiles(ReportData data, String name, String title,
            List<String> tags) {
        XYChart chart = xy(title, "percentile (%), on a log scale of 1/(1 − p)", "latency (ms)");
        RunHeader.Latency latency = data.head().latency();
        double max = 0;
        double right = 1;
        for (String tag : tags) {
            Histogram h = data.histograms().get(tag);
            if (h == null || h.getTotalCount() == 0) {
                continue;
            }
            RunHeader.Distribution d = latency == null ? null
                    : latency.distribution(tag.toLowerCase(java.util.Locale.ROOT));
            Curve curve = curve(h, d == null ? null : d.maxMs());
            chart.addSeries(tag, java.util.Arrays.stream(curve.x()).map(Math::log10).toArray(), curve.ms());
            max = Math.max(max, curve.ms()[curve.ms().length - 1]);
            right = Math.max(right, curve.x()[curve.x().length - 1]);
        }
        if (chart.getSeriesMap().isEmpty()) {
            return java.util.Optional.empty();
        }
        // XChart 3.8.8 hands a tick-label function linear ticks even on a logarithmic axis, so the series carry
        // log10(1/(1 − p)) on a linear axis: the same picture as a log axis, with decades labelled 90%, 99%, …
        int decades = (int) Math.max(1, Math.ceil(Math.log10(right) + 1e-9));
        chart.getStyler().setXAxisMin(0.0);
        chart.getStyler().setXAxisMax((double) decades);
        // at least one tick per decade, so every decade label shows
        chart.getStyler().setXAxisTickMarkSpacingHint(Math.min(74, (WIDTH - 120) / (decades + 1)));
        chart.getStyler().setxAxisTickLabelsFormattingFunction(Charts::decadeLabel);
        chart.getStyler().setYAxisMin(0.0);
        yPattern(chart, max);
        return java.util.Optional.of(new NamedChart(name, chart));
    }

    /**
     * A percentile curve in HdrHistogram's plot coordinates.
     *
     * @param x  {@code 1/(1 - p/100)} for each plotted percentile p, ascending; the last is the recorded count
     * @param ms the latency at each x, ms
     */
    record Curve(double[] x, double[] ms) {
    }

    /**
     * The curve HdrHistogram's percentile plot draws: x = 1/(1 − p) (p as a fraction), the "1/(1-Percentile)" column
     * of {@code outputPercentileDistribution}, at the levels {@code percentiles(}{@value #TICKS_PER_HALF_DISTANCE}
     * {@code )} iterates to (HdrHistogram/HdrHistogram, {@code src/main/java/org/HdrHistogram/AbstractHistogram.java}
     * {@code outputPercentileDistribution}, {@code src/main/java/org/HdrHistogram/PercentileIterator.java}) plus
     * the levels reports name (50, 90, 99, 99.9, 99.99), each only while 1/(1 − p) is below the recorded count n:
     * n samples cannot tell a higher level from the maximum. The last point is the maximum at x = n, i.e. at
     * p = 1 − 1/n, the share of the other samples below it. Each y is the value summary.json reports for that
     * percentile ({@code getValueAtPercentile} clamped by {@code metrics.HistogramPercentile} to HdrHistogram's minimum
     * and the exact maximum).
     *
     * @param h     the histogram, ns, with at least one value
     * @param maxMs summary.json's exact maximum, ms, or null or non-finite (then HdrHistogram's maximum)
     * @return the curve, at least one point
     */
    static Curve curve(Histogram h, Double maxMs) {
        double n = h.getTotalCount();
        java.util.TreeSet<Double> levels = new java.util.TreeSet<>(List.of(50.0, 90.0, 99.0, 99.9, 99.99));
        for (org.HdrHistogram.HistogramIterationValue v : h.percentiles(TICKS_PER_HALF_DISTANCE)) {
            levels.add(v.getPercentileLevelIteratedTo());
        }
        // summary.json keeps no exact minimum: HdrHistogram's (its bucket's lowest equivalent value) bounds p0
        long min = h.getMinValue();
        long max = maxMs != null && Double.isFinite(maxMs) ? Math.round(maxMs * 1e6) : h.getMaxValue();
        List<double[]> points = new ArrayList<>();
        for (double p : levels) {
            double x = 1 / (1 - p / 100);
            // 1/(1 − p) for p = 100(1 − 1/n) comes out a rounding error below n: that level is the maximum's own
            if (x >= n * (1 - 1e-9)) {
                break;
            }
            points.add(new double[] {x, dev.profiledrollout.metrics.HistogramPercentile.valueAt(h, p, min, max) / 1e6});
        }
        points.add(new double[] {n, max / 1e6});
        return new Curve(points.stream().mapToDouble(pt -> pt[0]).toArray(),
                points.stream().mapToDouble(pt -> pt[1]).toArray());
    }

    /** @return the percentile at {@code x} = 1/(1 − p) on the percentile axis, e.g. {@code 99.9%} at 1000 */
    static String percentileLabel(double x) {
        java.text.DecimalFormat format = new java.text.DecimalFormat("0.#####",
                java.text.DecimalFormatSymbols.getInstance(java.util.Locale.ROOT));
        return format.format(100 * (1 - 1 / x)) + "%";
    }

    /**
     * @return the label of a tick at {@code log10x} = log10(1/(1 − p)) on the percentile axis: the percentile at
     *         whole decades ({@code 0%}, {@code 90%}, {@code 99%}, …), blank between them
     */
    static String decadeLabel(double log10x) {
        double decade = Math.rint(log10x);
        return Math.abs(log10x - decade) < 1e-9 && decade >= 0 ? percentileLabel(Math.pow(10, decade)) : "";
    }

    private static java.util.Optional<NamedChart> latencyOverTime(ReportData data) {
        List<Double> sendTtft = new ArrayList<>();
        List<Double> ttft = new ArrayList<>();
        List<Double> sendE2e = new ArrayList<>();
        List<Double> e2e = new ArrayList<>();
        for (ReportData.Request r : data.requests()) {
            if (r.ttftNs() >= 0) {
                sendTtft.add(r.sendNs() / 1e9);
                ttft.add(r.ttftNs() / 1e6);
            }
            if (r.e2eNs() >= 0) {
                sendE2e.add(r.sendNs() / 1e9);
                e2e.add(r.e2eNs() / 1e6);
            }
        }
        if (ttft.isEmpty() && e2e.isEmpty()) {
            return java.util.Optional.empty();
        }
        XYChart chart = xy("Latency over time (per request, by send time)", "send time (s)", "latency (ms)");
        chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        if (!ttft.isEmpty()) {
            chart.addSeries("TTFT", sendTtft, ttft);
        }
        if (!e2e.isEmpty()) {
            chart.addSeries("E2E", sendE2e, e2e);
        }
        xPattern(chart, java.util.stream.Stream.concat(sendTtft.stream(), sendE2e.stream()).mapToDouble(d -> d)
                .max().orElse(0));
        yPattern(chart, java.util.stream.Stream.concat(ttft.stream(), e2e.stream()).mapToDouble(d -> d).max()
                .orElse(0));
        return java.util.Optional.of(new NamedChart("latency-over-time", chart));
    }

    private static java.util.Optional<NamedChart> throughputOverTime(ReportData data) {
        Series series = series(data);
        if (series.x().length == 0) {
            return java.util.Optional.empty();
        }
        String width = HtmlReport.compact(series.bucketSeconds() * (series.bucketSeconds() < 1 ? 1000 : 1))
                + (series.bucketSeconds() < 1 ? " ms" : " s");
        XYChart chart = xy("Throughput and requests in flight (" + width + " buckets)", "time (s)",
                "output tokens/s");
        chart.addSeries("output tokens/s", series.x(), series.tokens());
        chart.addSeries("completed requests/s", series.x(), series.completed()).setYAxisGroup(1);
        chart.addSeries("requests in flight (time-weighted mean)", series.x(), series.inFlight()).setYAxisGroup(1);
        chart.setYAxisGroupTitle(0, "output tokens/s");
        chart.setYAxisGroupTitle(1, "requests/s, in flight");
        chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setYAxisMin(0, 0.0);
        chart.getStyler().setYAxisMin(1, 0.0);
        xPattern(chart, series.x()[series.x().length - 1]);
        chart.getStyler().putYAxisGroupDecimalPatternMap(0, pattern(max(series.tokens())));
        chart.getStyler().putYAxisGroupDecimalPatternMap(1, pattern(Math.max(max(series.completed()),
                max(series.inFlight()))));
        return java.util.Optional.of(new NamedChart("throughput-over-time", chart));
    }

    /**
     * The throughput series a chart draws.
     *
     * @param bucketSeconds bucket width, s
     * @param x             bucket starts, s from the first intended send
     * @param tokens        output tokens per second in the bucket
     * @param completed     requests completed per second in the bucket
     * @param inFlight      time-weighted mean of requests in flight over the bucket
     */
    record Series(double bucketSeconds, double[] x, double[] tokens, double[] completed, double[] inFlight) {
    }

    /** @return the bucket width, ns, that gives a run of {@code durationNs} at most {@value #MAX_POINTS} buckets */
    static long bucketNanos(long durationNs) {
        for (long b : BUCKET_NANOS) {
            if (durationNs / b < MAX_POINTS) {
                return b;
            }
        }
        return Math.max(1, durationNs / MAX_POINTS + 1);
    }

    /** @return the throughput series from {@code requests.jsonl}, else from {@code timeseries.csv}; empty without */
    static Series series(ReportData data) {
        List<ReportData.Request> requests = data.requests();
        // requests.jsonl without end times (an older file) has no token counts either: the CSV is exact per second
        boolean ends = requests.stream().anyMatch(r -> r.endNs() > 0);
        if (!ends && !data.timeSeries().isEmpty()) {
            List<TimeSeries.Bucket> buckets = data.timeSeries();
            double[] x = new double[buckets.size()];
            double[] tokens = new double[x.length];
            double[] completed = new double[x.length];
            double[] inFlight = new double[x.length];
            for (int i = 0; i < x.length; i++) {
                TimeSeries.Bucket b = buckets.get(i);
                x[i] = b.second();
                tokens[i] = b.outputTokens();
                completed[i] = b.completed();
                inFlight[i] = Double.isNaN(b.meanInFlight()) ? b.inFlight() : b.meanInFlight();
            }
            return new Series(1, x, tokens, completed, inFlight);
        }
        if (requests.isEmpty()) {
            return new Series(1, new double[0], new double[0], new double[0], new double[0]);
        }
        long last = requests.stream().mapToLong(ReportData.Request::end).max().orElse(0);
        long width = bucketNanos(last);
        int n = (int) (last / width) + 1;
        double[] tokens = new double[n];
        double[] completed = new double[n];
        double[] busy = new double[n];
        for (ReportData.Request r : requests) {
            long end = r.end();
            spread(busy, width, r.sendNs(), end, end - r.sendNs());
            if (r.error() == null && r.e2eNs() >= 0) {
                completed[(int) (end / width)]++;
            }
            int out = r.outputTokens();
            if (r.ttftNs() >= 0 && out > 0) {
                long first = r.sendNs() + r.ttftNs();
                tokens[(int) (Math.min(first, last) / width)]++;
                spread(tokens, width, first, Math.max(first, end), out - 1);
            }
        }
        double seconds = width / 1e9;
        double[] x = new double[n];
        double[] inFlight = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = i * seconds;
            long length = Math.min(width, last - (long) i * width);
            inFlight[i] = length > 0 ? busy[i] / length : 0;
            tokens[i] /= seconds;
            completed[i] /= seconds;
        }
        return new Series(seconds, x, tokens, completed, inFlight);
    }

    /** Adds {@code amount} to the buckets of width {@code width} that [from, to] overlaps, by overlap. */
    private static void spread(double[] buckets, long width, long from, long to, double amount) {
        if (amount <= 0) {
            return;
        }
        if (to <= from) {
            buckets[(int) Math.min(buckets.length - 1, from / width)] += amount;
            return;
        }
        for (long b = from / width; b <= Math.min(buckets.length - 1, to / width); b++) {
            long overlap = Math.min(to, (b + 1) * width) - Math.max(from, b * width);
            buckets[(int) b] += amount * Math.max(0, overlap) / (to - from);
        }
    }

    private static double max(double[] values) {
        double m = 0;
        for (double v : values) {
            m = Math.max(m, v);
        }
        return m;
    }

    /** @return a DecimalFormat pattern for ticks on an axis up to {@code max}: no more decimals than it needs */
    static String pattern(double max) {
        double abs = Math.abs(max);
        return abs >= 100 ? "#,##0" : abs >= 10 ? "#,##0.#" : abs >= 1 ? "0.##" : abs >= 0.01 ? "0.###" : "0.#####";
    }

    private static void xPattern(XYChart chart, double max) {
        chart.getStyler().setXAxisDecimalPattern(pattern(max));
    }

    private static void yPattern(org.knowm.xchart.internal.chartpart.Chart<? extends org.knowm.xchart.style
            .AxesChartStyler, ?> chart, double max) {
        chart.getStyler().setYAxisDecimalPattern(pattern(max));
    }

    /** @return the label of the {@code index}-th (0-based) kernel in the top-kernels chart and the kernel table */
    static String kernelLabel(int index) {
        return "K" + (index + 1);
    }

    private static java.util.Optional<NamedChart> topKernels(ReportData data) {
        List<ReportData.Kernel> kernels = data.kernels().stream().limit(TOP_KERNELS).toList();
        if (kernels.isEmpty()) {
            return java.util.Optional.empty();
        }
        CategoryChart chart = bars("Top " + kernels.size() + " kernels by total GPU time (all ranks)",
                "kernel (K1… in the kernel table)", "total time (ms)");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < kernels.size(); i++) {
            names.add(kernelLabel(i));
        }
        chart.getStyler().setLegendVisible(false);
        yPattern(chart, kernels.get(0).totalNs() / 1e6);
        chart.addSeries("total time", names, kernels.stream().map(k -> (Number) (k.totalNs() / 1e6)).toList());
        return java.util.Optional.of(new NamedChart("top-kernels", chart));
    }

    private static java.util.Optional<NamedChart> categories(ReportData data) {
        Map<String, Long> categories = data.categories();
        if (categories.isEmpty()) {
            return java.util.Optional.empty();
        }
        CategoryChart chart = bars("GPU time by kernel category (all ranks)", "category", "total time (ms)");
        chart.getStyler().setLegendVisible(false);
        chart.getStyler().setXAxisLabelRotation(30);
        yPattern(chart, categories.values().stream().mapToLong(v -> v).max().orElse(0) / 1e6);
        chart.addSeries("total time", new ArrayList<>(categories.keySet()),
                categories.values().stream().map(v -> (Number) (v / 1e6)).toList());
        return java.util.Optional.of(new NamedChart("time-by-category", chart));
    }

    private static java.util.Optional<NamedChart> rankBusy(ReportData data) {
        List<ReportData.RankBusy> ranks = data.rankBusy();
        if (ranks.isEmpty()) {
            return java.util.Optional.empty();
        }
        String straggler = data.straggler().orElse(null);
        CategoryChart chart = bars(straggler == null ? "GPU busy time per rank"
                : "GPU busy time per rank (straggler highlighted)", "rank", "busy time (ms)");
        // the straggler's bar in its own series, drawn in the same slot as the others'
        chart.getStyler().setOverlapped(true);
        if (ranks.size() > 4) {
            chart.getStyler().setXAxisLabelRotation(30);
        }
        List<String> labels = ranks.stream().map(ReportData.RankBusy::label).toList();
        List<Number> busy = new ArrayList<>();
        List<Number> highlighted = new ArrayList<>();
        for (ReportData.RankBusy r : ranks) {
            boolean isStraggler = r.label().equals(straggler);
            busy.add(isStraggler ? 0.0 : r.busyNs() / 1e6);
            highlighted.add(isStraggler ? r.busyNs() / 1e6 : 0.0);
        }
        double busiest = ranks.stream().mapToLong(ReportData.RankBusy::busyNs).max().orElse(0) / 1e6;
        yPattern(chart, busiest);
        if (busiest > 0) {
            // XChart spans equal bars exactly [0, max] with ticks at the two ends only; headroom gives it ticks
            chart.getStyler().setYAxisMax(busiest * 1.1);
        }
        chart.addSeries("busy", labels, busy).setFillColor(new Color(0x4C72B0));
        if (straggler == null) {
            chart.getStyler().setLegendVisible(false);
        } else {
            chart.addSeries("straggler (busiest rank)", labels, highlighted).setFillColor(new Color(0xC44E52));
            chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
            chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        }
        return java.util.Optional.of(new NamedChart("rank-busy", chart));
    }

    /** Straggler markers of the step timeline. */
    private static final Color STRAGGLER = new Color(0xC44E52);

    /**
     * Steps × ranks, one chart per rank set of {@code trace.stepTimeline}: x the matched step's index, y its GPU busy
     * time on each rank (a line per rank), and a marker on each step's straggler.
     */
    private static List<NamedChart> stepTimelines(ReportData data) {
        List<NamedChart> charts = new ArrayList<>();
        for (ReportData.StepTimelineSet set : data.trace().stepTimeline()) {
            List<ReportData.TimelineStep> steps = set.steps();
            List<String> ranks = new ArrayList<>();
            List<String> labels = set.ranks();
            // series names must be unique: a repeated label (hand-edited file) gets its position
            labels.forEach(label -> {
                String r = label == null ? "" : label;
                ranks.add(ranks.contains(r) ? r + " #" + (ranks.size() + 1) : r);
            });
            if (steps.isEmpty() || ranks.isEmpty()) {
                continue;
            }
            String worker = set.worker();
            XYChart chart = xy("GPU busy time per step and rank" + (worker.isEmpty() ? "" : " (" + worker + ")")
                    + (ranks.size() > 1 ? ", straggler marked" : ""), "step", "GPU busy time (ms)");
            chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
            chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
            List<Double> x = new ArrayList<>();
            List<List<Double>> busy = new ArrayList<>();
            ranks.forEach(r -> busy.add(new ArrayList<>()));
            List<Double> stragglerX = new ArrayList<>();
            List<Double> stragglerY = new ArrayList<>();
            double max = 0;
            for (ReportData.TimelineStep step : steps) {
                double index = step.index();
                x.add(index);
                for (int r = 0; r < ranks.size(); r++) {
                    double ms = step.busyNs(r) / 1e6;
                    busy.get(r).add(ms);
                    max = Math.max(max, ms);
                }
                int straggler = ranks.indexOf(step.straggler() == null ? "" : step.straggler());
                if (straggler >= 0) {
                    stragglerX.add(index);
                    stragglerY.add(busy.get(straggler).get(busy.get(straggler).size() - 1));
                }
            }
            yPattern(chart, max);
            xPattern(chart, x.get(x.size() - 1));
            chart.getStyler().setMarkerSize(steps.size() > 200 ? 2 : 4);
            for (int r = 0; r < ranks.size(); r++) {
                chart.addSeries(ranks.get(r), x, busy.get(r));
            }
            if (!stragglerX.isEmpty()) {
                XYSeries marks = chart.addSeries("straggler of the step", stragglerX, stragglerY);
                marks.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
                marks.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.DIAMOND);
                marks.setMarkerColor(STRAGGLER);
            }
            charts.add(new NamedChart(worker.isEmpty() ? "step-timeline"
                    : "step-timeline-" + worker.replaceAll("[^A-Za-z0-9._-]", "_"), chart));
        }
        return charts;
    }

    /** One timed roofline row of {@code trace.ranks[].roofline}. */
    private record RooflinePoint(String name, String precision, double intensity, double tflops, double kernelNs) {
    }

    /** Operators in the roofline chart, most kernel time first. */
    public static final int MAX_ROOFLINE_POINTS = 60;

    private static java.util.Optional<NamedChart> roofline(ReportData data) {
        List<RooflinePoint> points = new ArrayList<>();
        String device = null;
        for (LabeledTrace rank : data.trace().ranks()) {
            var details = rank.summary().details();
            if (device == null && details.deviceName().isPresent()) {
                device = details.deviceName().get();
            }
            for (var r : details.roofline()) {
                double flops = r.flops();
                double bytes = r.bytes();
                double tflops = r.tflops().median();
                long count = r.count();
                if (count > 0 && bytes > 0 && flops > 0 && tflops > 0) {
                    points.add(new RooflinePoint(r.name() == null ? "" : r.name(),
                            r.precision() == null ? "" : r.precision(), flops / bytes, tflops,
                            r.kernelNs().mean() * count));
                }
            }
        }
        if (points.isEmpty()) {
            return java.util.Optional.empty();
        }
        points.sort(java.util.Comparator.comparingDouble(RooflinePoint::kernelNs).reversed());
        points = points.subList(0, Math.min(MAX_ROOFLINE_POINTS, points.size()));
        Map<String, Double> timeByPrecision = new java.util.HashMap<>();
        points.forEach(p -> timeByPrecision.merge(p.precision(), p.kernelNs(), Double::sum));
        String precision = timeByPrecision.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow()
                .getKey();
        java.util.Optional<dev.profiledrollout.trace.roofline.GpuPeaks.Gpu> gpu = device == null ? java.util.Optional.empty()
                : dev.profiledrollout.trace.roofline.GpuPeaks.defaults().find(device);
        java.util.OptionalDouble peak = gpu.map(g -> g.peakTflops(precision)).orElse(java.util.OptionalDouble.empty());
        XYChart chart = xy(peak.isPresent() ? "Roofline: " + gpu.get().id() + ", " + precision
                        : "Roofline (no peak known for " + (device == null ? "this device" : device) + ")",
                "arithmetic intensity (FLOP/byte)", "achieved TFLOPS/s (median per call)");
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideSE);
        double minX = points.stream().mapToDouble(RooflinePoint::intensity).min().orElseThrow();
        double maxX = points.stream().mapToDouble(RooflinePoint::intensity).max().orElseThrow();
        if (peak.isPresent()) {
            double bw = gpu.get().hbmTBps();
            double ridge = peak.getAsDouble() / bw;
            double from = Math.min(minX, ridge) / 2;
            double to = Math.max(maxX, ridge) * 2;
            XYSeries roof = chart.addSeries("roof: " + bw + " TB/s, " + peak.getAsDouble() + " TFLOPS/s", new double[] {from, ridge, to},
                    new double[] {from * bw, peak.getAsDouble(), peak.getAsDouble()});
            roof.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE);
            roof.setLineColor(Color.DARK_GRAY);
        }
        Map<String, List<RooflinePoint>> byName = new java.util.LinkedHashMap<>();
        points.forEach(p -> byName.computeIfAbsent(p.name(), k -> new ArrayList<>()).add(p));
        for (var e : byName.entrySet()) {
            XYSeries series = chart.addSeries(e.getKey(),
                    e.getValue().stream().mapToDouble(RooflinePoint::intensity).toArray(),
                    e.getValue().stream().mapToDouble(RooflinePoint::tflops).toArray());
            series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        }
        chart.getStyler().setMarkerSize(7);
        return java.util.Optional.of(new NamedChart("roofline", chart));
    }

    private static XYChart xy(String title, String xTitle, String yTitle) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        style(chart.getStyler());
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setMarkerSize(4);
        return chart;
    }

    private static CategoryChart bars(String title, String xTitle, String yTitle) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        style(chart.getStyler());
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        return chart;
    }

    /** Fonts and padding that keep rotated axis titles and tick labels inside the image. */
    private static void style(org.knowm.xchart.style.AxesChartStyler styler) {
        styler.setChartTitleFont(TITLE_FONT);
        styler.setAxisTitleFont(TEXT_FONT);
        styler.setAxisTickLabelsFont(TEXT_FONT);
        styler.setLegendFont(TEXT_FONT);
        styler.setChartPadding(14);
        styler.setAxisTitlePadding(8);
        styler.setPlotMargin(4);
        styler.setChartBackgroundColor(Color.WHITE);
    }
}
