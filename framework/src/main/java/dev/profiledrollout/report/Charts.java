package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.INTERNAL;

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
 * {@code summary.json} reports), {@code latency-over-time} (per request, from {@code requests.jsonl}),
 * {@code throughput-over-time} (per second output tokens on the left axis, completed requests and requests in flight
 * on the right axis,
 * from {@code timeseries.csv}), {@code top-kernels} (top {@value #TOP_KERNELS} by total time over all ranks),
 * {@code time-by-category} (when the trace summary has categories), {@code baseline-diff} (when a baseline was
 * compared), {@code rank-busy} (GPU busy time per rank, the
 * straggler, the busiest rank, as its own series).
 */
@API(status = INTERNAL, since = "0.1")
public final class Charts {

    /** Kernels in the top-kernels chart. */
    public static final int TOP_KERNELS = 10;
    private static final int WIDTH = 900;
    private static final int HEIGHT = 480;
    private static final double[] PERCENTILE_POINTS = percentilePoints();

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
        baselineDiff(data).ifPresent(charts::add);
        return charts;
    }

    /** Kernel time of this run next to the baseline's, for the kernels that changed most ({@code summary.baseline}). */
    private static java.util.Optional<NamedChart> baselineDiff(ReportData data) {
        com.fasterxml.jackson.databind.JsonNode kernels = data.summary().path("baseline").path("kernels");
        if (!kernels.isArray() || kernels.isEmpty()) {
            return java.util.Optional.empty();
        }
        double change = data.summary().path("baseline").path("kernelTimeChange").asDouble();
        CategoryChart chart = bars(String.format(java.util.Locale.ROOT,
                "Kernel time vs baseline (total %+.1f%%): largest changes", 100 * change), "kernel", "total time (ms)");
        chart.getStyler().setXAxisLabelRotation(35);
        List<String> names = new ArrayList<>();
        List<Number> base = new ArrayList<>();
        List<Number> run = new ArrayList<>();
        int i = 0;
        for (com.fasterxml.jackson.databind.JsonNode k : kernels) {
            if (i++ == TOP_KERNELS) {
                break;
            }
            names.add(i + ". " + HtmlReport.abbreviate(k.path("name").asText(), 32));
            base.add(k.path("baseTotalNs").asLong() / 1e6);
            run.add(k.path("totalNs").asLong() / 1e6);
        }
        chart.addSeries("baseline", names, base);
        chart.addSeries("this run", names, run);
        return java.util.Optional.of(new NamedChart("baseline-diff", chart));
    }

    private static java.util.Optional<NamedChart> percentiles(ReportData data, String name, String title,
            List<String> tags) {
        XYChart chart = xy(title, "percentile (%)", "latency (ms)");
        for (String tag : tags) {
            Histogram h = data.histograms().get(tag);
            if (h == null || h.getTotalCount() == 0) {
                continue;
            }
            double[] ms = new double[PERCENTILE_POINTS.length];
            for (int i = 0; i < ms.length; i++) {
                ms[i] = h.getValueAtPercentile(PERCENTILE_POINTS[i]) / 1e6;
            }
            chart.addSeries(tag, PERCENTILE_POINTS, ms);
        }
        return chart.getSeriesMap().isEmpty() ? java.util.Optional.empty()
                : java.util.Optional.of(new NamedChart(name, chart));
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
        return java.util.Optional.of(new NamedChart("latency-over-time", chart));
    }

    private static java.util.Optional<NamedChart> throughputOverTime(ReportData data) {
        var buckets = data.timeSeries();
        if (buckets.isEmpty()) {
            return java.util.Optional.empty();
        }
        XYChart chart = xy("Throughput and requests in flight over time", "time (s)", "output tokens/s");
        double[] x = new double[buckets.size()];
        double[] tokens = new double[x.length];
        double[] completed = new double[x.length];
        double[] inFlight = new double[x.length];
        boolean timeWeighted = buckets.stream().noneMatch(b -> Double.isNaN(b.meanInFlight()));
        for (int i = 0; i < x.length; i++) {
            x[i] = buckets.get(i).second();
            tokens[i] = buckets.get(i).outputTokens();
            completed[i] = buckets.get(i).completed();
            inFlight[i] = timeWeighted ? buckets.get(i).meanInFlight() : buckets.get(i).inFlight();
        }
        chart.addSeries("output tokens/s", x, tokens);
        chart.addSeries("completed requests/s", x, completed).setYAxisGroup(1);
        chart.addSeries(timeWeighted ? "requests in flight (time-weighted mean)" : "requests overlapping the second",
                x, inFlight).setYAxisGroup(1);
        chart.setYAxisGroupTitle(0, "output tokens/s");
        chart.setYAxisGroupTitle(1, "requests in flight, completed requests/s");
        chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
        return java.util.Optional.of(new NamedChart("throughput-over-time", chart));
    }

    private static java.util.Optional<NamedChart> topKernels(ReportData data) {
        List<ReportData.Kernel> kernels = data.kernels().stream().limit(TOP_KERNELS).toList();
        if (kernels.isEmpty()) {
            return java.util.Optional.empty();
        }
        CategoryChart chart = bars("Top " + kernels.size() + " kernels by total GPU time (all ranks)", "kernel",
                "total time (ms)");
        chart.getStyler().setXAxisLabelRotation(35);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < kernels.size(); i++) {
            names.add((i + 1) + ". " + HtmlReport.abbreviate(kernels.get(i).name(), 32));
        }
        chart.addSeries("total time", names, kernels.stream().map(k -> (Number) (k.totalNs() / 1e6)).toList());
        return java.util.Optional.of(new NamedChart("top-kernels", chart));
    }

    private static java.util.Optional<NamedChart> categories(ReportData data) {
        Map<String, Long> categories = data.categories();
        if (categories.isEmpty()) {
            return java.util.Optional.empty();
        }
        CategoryChart chart = bars("GPU time by kernel category (all ranks)", "category", "total time (ms)");
        chart.addSeries("total time", new ArrayList<>(categories.keySet()),
                categories.values().stream().map(v -> (Number) (v / 1e6)).toList());
        return java.util.Optional.of(new NamedChart("time-by-category", chart));
    }

    private static java.util.Optional<NamedChart> rankBusy(ReportData data) {
        List<ReportData.RankBusy> ranks = data.rankBusy();
        if (ranks.isEmpty()) {
            return java.util.Optional.empty();
        }
        int straggler = 0;
        for (int i = 1; i < ranks.size(); i++) {
            if (ranks.get(i).busyNs() > ranks.get(straggler).busyNs()) {
                straggler = i;
            }
        }
        CategoryChart chart = bars("GPU busy time per rank (straggler highlighted)", "rank", "busy time (ms)");
        chart.getStyler().setStacked(true);
        List<String> labels = ranks.stream().map(ReportData.RankBusy::label).toList();
        List<Number> busy = new ArrayList<>();
        List<Number> highlighted = new ArrayList<>();
        for (int i = 0; i < ranks.size(); i++) {
            busy.add(i == straggler ? 0.0 : ranks.get(i).busyNs() / 1e6);
            highlighted.add(i == straggler ? ranks.get(i).busyNs() / 1e6 : 0.0);
        }
        chart.addSeries("busy", labels, busy).setFillColor(new Color(0x4C72B0));
        chart.addSeries("straggler (busiest rank)", labels, highlighted).setFillColor(new Color(0xC44E52));
        return java.util.Optional.of(new NamedChart("rank-busy", chart));
    }

    private static XYChart xy(String title, String xTitle, String yTitle) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setMarkerSize(5);
        return chart;
    }

    private static CategoryChart bars(String title, String xTitle, String yTitle) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT + 120).title(title)
                .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        return chart;
    }

    private static double[] percentilePoints() {
        double[] points = new double[104];
        for (int i = 0; i < 100; i++) {
            points[i] = i;
        }
        points[100] = 99.5;
        points[101] = 99.9;
        points[102] = 99.99;
        points[103] = 100;
        java.util.Arrays.sort(points);
        return points;
    }
}
