package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.profiledrollout.capacity.Capacity;
import dev.profiledrollout.capacity.SloTarget;
import dev.profiledrollout.load.StageResult;
import dev.profiledrollout.load.SweepResult;
import dev.profiledrollout.metrics.LatencyDistribution;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.apiguardian.api.API;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The stages of a staged load in a run directory: {@code stages.json} (one object per stage, the SLOs and the
 * capacity), the throughput–latency chart {@code charts/stages.png} (achieved throughput against TTFT and TPOT p50 /
 * p99, one point per stage, a dashed line per SLO, the capacity stage ringed) and the stage table of
 * {@code report.html}. Self-contained: the rest of the report does not read {@code stages.json}.
 */
@API(status = INTERNAL, since = "0.2")
public final class StageReport {

    /** The file next to {@code summary.json}. */
    public static final String FILE = "stages.json";
    /** The chart's name under {@code charts/}. */
    public static final String CHART = "stages";

    private StageReport() {
    }

    /**
     * Writes {@code stages.json} into {@code directory}.
     *
     * @param capacity the search's result, or null for a plain sweep
     * @throws UncheckedIOException when the file cannot be written
     */
    public static void write(Path directory, SweepResult sweep, Capacity capacity) {
        write(directory, sweep, capacity, List.of());
    }

    /**
     * Writes {@code stages.json} into {@code directory}, each stage's row with its own profile window.
     *
     * @param capacity the search's result, or null for a plain sweep
     * @param windows  one per stage, in order, for a sweep with a window per stage; empty otherwise
     * @throws UncheckedIOException when the file cannot be written
     */
    public static void write(Path directory, SweepResult sweep, Capacity capacity,
            List<RunHeader.StageWindow> windows) {
        write(directory, sweep, capacity, windows, List.of());
    }

    /**
     * Writes {@code stages.json} into {@code directory}, each stage's row with its own profile window and the steps of
     * the window's traces that fell in it.
     *
     * @param capacity  the search's result, or null for a plain sweep
     * @param windows   one per stage, in order, for a sweep with a window per stage; empty otherwise
     * @param placement where the captured steps of one window over the stages fell (summary.json's
     *                  {@code stagePlacement}); empty when there is none
     * @throws UncheckedIOException when the file cannot be written
     */
    public static void write(Path directory, SweepResult sweep, Capacity capacity,
            List<RunHeader.StageWindow> windows, List<RunHeader.StagePlacement> placement) {
        StagesFile doc = document(sweep, capacity);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < doc.stages().size(); i++) {
            Row row = doc.stages().get(i);
            RunHeader.StageWindow window = i < windows.size() ? windows.get(i) : null;
            String label = sweep.stages().get(i).label();
            Integer captured = placement.isEmpty() ? null : placement.stream().mapToInt(p -> p.stages().stream()
                    .filter(st -> st.stage().equals(label)).mapToInt(RunHeader.StageSteps::steps).sum()).max()
                    .orElse(0);
            rows.add(row.with(window, captured));
        }
        StagesFile root = new StagesFile(rows, doc.capacity(), doc.slos(), placement.isEmpty() ? null
                : placement.stream().mapToInt(RunHeader.StagePlacement::beforeSweep).max().orElse(0), doc.notRun(),
                doc.whyNotRun());
        try {
            Files.createDirectories(directory);
            Files.writeString(directory.resolve(FILE), toJson(root), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + directory.resolve(FILE) + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param capacity the search's result, or null for a plain sweep
     * @return the {@code stages.json} document: {@code stages[]} (label, closedLoop, level, requestedRate,
     *         achievedRate, throughput, outputThroughput, goodput in req/s or tok/s; completed, failed; ttftP50Ms,
     *         ttftP99Ms, tpotP50Ms, tpotP99Ms, e2eP50Ms, lagP99Ms, gapBeforeMs in ms; fidelity, fidelityMessage, knee;
     *         with a capacity metSlos and sloChecks; with a window per stage, written by
     *         {@link #write(Path, SweepResult, Capacity, List)}, {@code window}: the stage's
     *         {@link RunHeader.StageWindow}; with a window over the stages whose steps were placed,
     *         {@code capturedSteps}: the most steps any rank trace had in that stage, and at the top level
     *         {@code stepsBeforeSweep}), and with a capacity {@code capacity} (mode, status, lower, upper,
     *         requestRate, precision, message) and {@code slos[]} (text, metric, percentile, budgetMs); a figure that
     *         does not exist is null
     */
    public static String toJson(SweepResult sweep, Capacity capacity) {
        return toJson(document(sweep, capacity));
    }

    /**
     * @param stages the document
     * @return {@code stages} as {@code stages.json} holds it: indented JSON through {@link ResultsModule}
     */
    public static String toJson(StagesFile stages) {
        try {
            return ResultsModule.MAPPER.writeValueAsString(stages);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("stages.json could not be serialised", e);
        }
    }

    /**
     * @param capacity the search's result, or null for a plain sweep
     * @return the {@code stages.json} document of {@link #toJson(SweepResult, Capacity)}, without windows or placed
     *         steps; a figure that is not finite is null
     */
    public static StagesFile document(SweepResult sweep, Capacity capacity) {
        List<StageResult> all = sweep.stages();
        Optional<StageResult> knee = sweep.knee();
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            StageResult s = all.get(i);
            rows.add(new Row(s.label(), s.stage().isClosedLoop(), s.stage().level(), finite(s.stage().requestRate()),
                    finite(s.achievedRate()), finite(s.throughput()), finite(s.outputThroughput()),
                    finite(s.goodput()), s.latency().completed(), s.failures(), ms(s.latency().ttft(), 50),
                    ms(s.latency().ttft(), 99), ms(s.latency().tpot(), 50), ms(s.latency().tpot(), 99),
                    ms(s.latency().e2e(), 50), s.lagP99().toNanos() / 1e6, s.gapBefore().toNanos() / 1e6,
                    s.fidelity().limit().name(), s.fidelity().message(), knee.isPresent() && knee.get() == s,
                    capacity == null ? null : capacity.passed(i),
                    capacity == null ? null : String.join("; ", capacity.checks().get(i).stream()
                            .map(SloTarget.Check::text).toList()), null, null));
        }
        List<String> notRun = sweep.notRun().stream().map(dev.profiledrollout.load.LoadStage::label).toList();
        String why = notRun.isEmpty() || sweep.whyNotRun().isBlank() ? null : sweep.whyNotRun();
        if (capacity == null) {
            return new StagesFile(rows, null, null, null, notRun, why);
        }
        return new StagesFile(rows, new CapacityBlock(capacity.mode().name(), capacity.status().name(),
                finite(capacity.lower()), finite(capacity.upper()), finite(capacity.requestRate()),
                capacity.precision(), capacity.message()),
                capacity.slos().stream().map(t -> new Slo(t.toString(), t.metric(), t.percentile(),
                        t.budget().toNanos() / 1e6)).toList(), null, notRun, why);
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    private static Double ms(LatencyDistribution d, double p) {
        return d.count() == 0 ? null : d.percentile(p).toNanos() / 1e6;
    }

    /**
     * {@code stages.json} as records, as {@link #toJson} and {@link #write(Path, SweepResult, Capacity, List, List)}
     * write it; every reader (the chart, the report's stage table, the history's {@code StageMetrics}) reads these
     * rather than looking keys up. A field the file lacks is null (an empty list for {@code stages} and {@code slos});
     * fields it has that are not named here are ignored ({@link ResultsModule}).
     *
     * @param stages           one row per stage, in the order they ran
     * @param capacity         the capacity search's result, or null for a plain sweep
     * @param slos             the search's SLOs; empty for a plain sweep
     * @param stepsBeforeSweep with a window over the stages whose steps were placed: the most captured steps of any
     *                         rank trace that began before the first stage; null otherwise
     * @param notRun           the labels of the sweep's stages that were not run (a recipe's sweep stopped once its
     *                         windows had closed), in sweep order; empty (absent from the file) when every stage ran
     * @param whyNotRun        why the stages of {@code notRun} were not run; null when every stage ran
     */
    @API(status = INTERNAL, since = "0.2")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record StagesFile(List<Row> stages, CapacityBlock capacity,
                             @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Slo> slos, Integer stepsBeforeSweep,
                             @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> notRun, String whyNotRun) {

        public StagesFile {
            stages = stages == null ? List.of() : List.copyOf(stages);
            slos = slos == null ? List.of() : List.copyOf(slos);
            notRun = notRun == null ? List.of() : List.copyOf(notRun);
        }
    }

    /**
     * One element of {@code stages.json}'s {@code stages}; rates and throughputs in req/s ({@code outputThroughput} in
     * tok/s), latencies in ms; a figure that does not exist is null.
     *
     * @param label            the stage's label, e.g. {@code "concurrency 16"}
     * @param closedLoop       whether the stage held a number of requests in flight (else it sent at a rate)
     * @param level            the concurrency of a closed-loop stage, the request rate (req/s) of an open-loop one
     * @param requestedRate    the rate asked for, or null for a closed loop
     * @param achievedRate     the rate requests were sent at
     * @param throughput       completed requests per second
     * @param outputThroughput output tokens per second
     * @param goodput          completed requests per second that met the SLOs
     * @param completed        requests completed
     * @param failed           requests failed
     * @param ttftP50Ms        TTFT p50
     * @param ttftP99Ms        TTFT p99
     * @param tpotP50Ms        TPOT p50
     * @param tpotP99Ms        TPOT p99
     * @param e2eP50Ms         end-to-end latency p50
     * @param lagP99Ms         p99 schedule lag
     * @param gapBeforeMs      the gap before the stage began
     * @param fidelity         what limited the load ({@code NONE} when it was driven as asked)
     * @param fidelityMessage  the fidelity in words
     * @param knee             whether this is the sweep's saturation knee
     * @param metSlos          with a capacity: whether the stage met every SLO; null otherwise
     * @param sloChecks        with a capacity: the SLO checks in words, {@code "; "}-separated; null otherwise
     * @param window           with a window per stage: the stage's own window; null otherwise
     * @param capturedSteps    with placed steps: the most steps any rank trace had in this stage; null otherwise
     */
    @API(status = INTERNAL, since = "0.2")
    public record Row(String label, boolean closedLoop, double level, Double requestedRate, Double achievedRate,
                      Double throughput, Double outputThroughput, Double goodput, int completed, int failed,
                      Double ttftP50Ms, Double ttftP99Ms, Double tpotP50Ms, Double tpotP99Ms, Double e2eP50Ms,
                      Double lagP99Ms, Double gapBeforeMs, String fidelity, String fidelityMessage, boolean knee,
                      @JsonInclude(JsonInclude.Include.NON_NULL) Boolean metSlos,
                      @JsonInclude(JsonInclude.Include.NON_NULL) String sloChecks,
                      @JsonInclude(JsonInclude.Include.NON_NULL) RunHeader.StageWindow window,
                      @JsonInclude(JsonInclude.Include.NON_NULL) Integer capturedSteps) {

        /** @return this row with its stage's own window and its placed steps (each null for none) */
        public Row with(RunHeader.StageWindow window, Integer capturedSteps) {
            return new Row(label, closedLoop, level, requestedRate, achievedRate, throughput, outputThroughput, goodput,
                    completed, failed, ttftP50Ms, ttftP99Ms, tpotP50Ms, tpotP99Ms, e2eP50Ms, lagP99Ms, gapBeforeMs,
                    fidelity, fidelityMessage, knee, metSlos, sloChecks, window, capturedSteps);
        }
    }

    /**
     * {@code stages.json}'s {@code capacity}.
     *
     * @param mode        {@code CONCURRENCY} or {@code RATE} ({@code Capacity.Mode})
     * @param status      the search's status ({@code Capacity.Status})
     * @param lower       the highest level that met the SLOs, or null
     * @param upper       the lowest level that did not, or null
     * @param requestRate the completed-request rate at {@code lower} (req/s), or null
     * @param precision   the search's precision
     * @param message     the result in words
     */
    @API(status = INTERNAL, since = "0.2")
    public record CapacityBlock(String mode, String status, Double lower, Double upper, Double requestRate,
                                double precision, String message) {
    }

    /**
     * One element of {@code stages.json}'s {@code slos}.
     *
     * @param text       the SLO as written, e.g. {@code "ttft p99 < 500ms"}
     * @param metric     {@code ttft}, {@code tpot}, {@code e2e}, …
     * @param percentile the percentile judged
     * @param budgetMs   the budget, ms
     */
    @API(status = INTERNAL, since = "0.2")
    public record Slo(String text, String metric, double percentile, double budgetMs) {
    }

    /**
     * @return the directory's {@code stages.json} as records; empty when there is none or it cannot be read (a damaged
     *         file loses only the stage section, chart and metrics)
     */
    public static Optional<StagesFile> read(Path directory) {
        Path file = directory.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(ResultsModule.MAPPER.readValue(file.toFile(), StagesFile.class));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static boolean positive(Double v) {
        return v != null && v > 0;
    }

    /**
     * @return the throughput–latency chart of {@code stages.json}: x is the completed-request throughput (req/s), y the
     *         latency (ms, log scale); TTFT and TPOT p50 and p99 series, a dashed horizontal line per TTFT or TPOT SLO,
     *         and the capacity stage ringed
     */
    public static XYChart chart(StagesFile stages) {
        XYChart chart = new XYChartBuilder().width(Charts.WIDTH).height(Charts.HEIGHT)
                .title("Throughput against latency, one point per stage").xAxisTitle("throughput (req/s)")
                .yAxisTitle("latency (ms)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setMarkerSize(7);
        List<Row> points = new ArrayList<>(stages.stages());
        points.removeIf(p -> p.throughput() == null);
        points.sort(Comparator.comparingDouble(Row::throughput));
        double xMin = points.stream().mapToDouble(Row::throughput).min().orElse(0);
        double xMax = points.stream().mapToDouble(Row::throughput).max().orElse(1);
        List<String> names = List.of("TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99");
        List<Function<Row, Double>> figures = List.of(Row::ttftP50Ms, Row::ttftP99Ms, Row::tpotP50Ms, Row::tpotP99Ms);
        Color[] colors = {new Color(0x4C72B0), new Color(0x1F3A68), new Color(0xDD8452), new Color(0x8C3F0F)};
        for (int k = 0; k < names.size(); k++) {
            Function<Row, Double> figure = figures.get(k);
            List<Row> with = points.stream().filter(p -> positive(figure.apply(p))).toList();
            if (with.isEmpty()) {
                continue;
            }
            XYSeries s = chart.addSeries(names.get(k), with.stream().mapToDouble(Row::throughput).toArray(),
                    with.stream().mapToDouble(p -> figure.apply(p)).toArray());
            s.setLineColor(colors[k]);
            s.setMarkerColor(colors[k]);
            s.setMarker(SeriesMarkers.CIRCLE);
        }
        for (Slo slo : stages.slos()) {
            String metric = String.valueOf(slo.metric());
            if (!metric.equals("ttft") && !metric.equals("tpot") || points.isEmpty()) {
                continue;
            }
            double budget = slo.budgetMs();
            XYSeries line = chart.addSeries("SLO " + slo.text(), new double[] {xMin, xMax},
                    new double[] {budget, budget});
            line.setLineStyle(SeriesLines.DASH_DASH);
            line.setLineColor(metric.equals("ttft") ? colors[1] : colors[3]);
            line.setMarker(SeriesMarkers.NONE);
        }
        CapacityBlock capacity = stages.capacity();
        double capacityRate = capacity == null || capacity.lower() == null ? Double.NaN : capacity.lower();
        Optional<Row> at = points.stream().filter(p -> Boolean.TRUE.equals(p.metSlos()) && p.level() == capacityRate)
                .reduce((a, b) -> b);
        at.filter(p -> p.ttftP99Ms() != null).ifPresent(p -> {
            XYSeries c = chart.addSeries("capacity " + String.valueOf(capacity.status()).toLowerCase(Locale.ROOT),
                    new double[] {p.throughput()}, new double[] {p.ttftP99Ms()});
            c.setMarker(SeriesMarkers.DIAMOND);
            c.setMarkerColor(new Color(0xC62828));
            c.setLineStyle(SeriesLines.NONE);
        });
        return chart;
    }

    /** Writes {@code charts/stages.png} when the directory has a {@code stages.json}; does nothing otherwise. */
    public static void renderChart(Path directory) {
        Optional<StagesFile> stages = read(directory);
        if (stages.isEmpty()) {
            return;
        }
        try {
            Path charts = Files.createDirectories(directory.resolve("charts"));
            Files.write(charts.resolve(CHART + ".png"), BitmapEncoder.getBitmapBytes(chart(stages.get()),
                    BitmapEncoder.BitmapFormat.PNG));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the stage chart of " + directory + ": " + e.getMessage(), e);
        }
    }

    /**
     * @return the report's Stages section: the capacity sentence, the chart ({@code id="stage-chart"}) and the stage
     *         table ({@code id="stage-table"}, one row per stage); empty when the directory has no {@code stages.json}
     */
    public static String section(Path directory) {
        Optional<StagesFile> read = read(directory);
        if (read.isEmpty()) {
            return "";
        }
        StagesFile root = read.get();
        boolean windows = root.stages().stream().anyMatch(s -> s.window() != null);
        boolean placed = root.stages().stream().anyMatch(s -> s.capturedSteps() != null);
        StringBuilder h = new StringBuilder("<h2 id=\"stages\">Stages</h2>");
        if (root.capacity() != null) {
            h.append("<p class=\"capacity\">").append(HtmlReport.escape(text(root.capacity().message())))
                    .append("</p>");
        }
        h.append("<a href=\"charts/").append(CHART).append(".png\"><img id=\"stage-chart\" class=\"stage-chart\" style=\"max-width:100%\" src=\"charts/")
                .append(CHART).append(".png\" alt=\"throughput against latency, one point per stage\"></a>");
        h.append("<div class=\"scroll\"><table id=\"stage-table\" class=\"stages\"><thead><tr><th>stage</th><th>requested req/s</th><th>sent req/s</th>"
                + "<th>done req/s</th><th>goodput req/s</th><th>TTFT p50</th><th>TTFT p99</th><th>TPOT p50</th>"
                + "<th>TPOT p99</th><th>lag p99</th><th>failed</th><th>load</th><th>SLOs</th>"
                + (placed ? "<th title=\"the most steps of any rank trace that began in the stage\">captured steps</th>"
                        : "") + (windows ? "<th>stage window</th>" : "") + "</tr></thead><tbody>");
        for (Row s : root.stages()) {
            String fidelity = text(s.fidelity());
            h.append("<tr").append(s.knee() ? " class=\"knee\" title=\"saturation knee\"" : "")
                    .append("><td>").append(HtmlReport.escape(text(s.label())))
                    .append(s.knee() ? " (knee)" : "").append("</td>")
                    .append(cell(s.requestedRate(), "%.2f")).append(cell(s.achievedRate(), "%.2f"))
                    .append(cell(s.throughput(), "%.2f")).append(cell(s.goodput(), "%.2f"))
                    .append(cell(s.ttftP50Ms(), "%.1f ms")).append(cell(s.ttftP99Ms(), "%.1f ms"))
                    .append(cell(s.tpotP50Ms(), "%.1f ms")).append(cell(s.tpotP99Ms(), "%.1f ms"))
                    .append(cell(s.lagP99Ms(), "%.1f ms")).append("<td>").append(s.failed())
                    .append("</td><td title=\"").append(HtmlReport.escape(text(s.fidelityMessage())))
                    .append("\">").append("NONE".equals(fidelity) ? "driven"
                            : HtmlReport.escape(fidelity.toLowerCase(Locale.ROOT)) + "-limited")
                    .append("</td><td>").append(s.metSlos() == null ? "" : s.metSlos() ? "met" : "not met")
                    .append("</td>")
                    .append(placed ? "<td class=\"captured-steps\">" + (s.capturedSteps() == null ? 0
                            : s.capturedSteps()) + "</td>" : "")
                    .append(windows ? windowCell(s.window()) : "").append("</tr>");
        }
        h.append("</tbody></table></div>");
        if (!root.notRun().isEmpty()) {
            h.append("<p class=\"not-run\">Not run: ").append(HtmlReport.escape(String.join(", ", root.notRun())))
                    .append(root.whyNotRun() == null ? "" : " (" + HtmlReport.escape(root.whyNotRun()) + ")")
                    .append(".</p>");
        }
        if (placed) {
            h.append("<p class=\"steps-before-sweep\">Captured steps that began before the first stage: ")
                    .append(root.stepsBeforeSweep() == null ? 0 : root.stepsBeforeSweep()).append(".</p>");
        }
        return h.toString();
    }

    /** The stage's own window: a link to its report, its ranks, steps and kernel time, or why it holds nothing. */
    private static String windowCell(RunHeader.StageWindow w) {
        if (w == null) {
            return "<td>–</td>";
        }
        String dir = HtmlReport.escape(text(w.directory()));
        StringBuilder c = new StringBuilder("<td class=\"stage-window\"><a href=\"").append(dir)
                .append("/report.html\">").append(dir).append("</a>: ");
        if (w.noData() != null) {
            return c.append("<span class=\"fail\">").append(HtmlReport.escape(w.noData())).append("</span></td>")
                    .toString();
        }
        c.append(w.traceFiles()).append(" trace(s)");
        CapturedSteps steps = w.steps();
        if (steps != null) {
            int min = steps.min();
            int max = steps.max();
            c.append(", ").append(min == max ? String.valueOf(min) : min + "–" + max).append(" steps");
        }
        c.append(String.format(Locale.ROOT, ", %.1f ms kernel time", w.kernelMs()));
        if (w.topKernel() != null) {
            c.append(", top: <code>").append(HtmlReport.escape(w.topKernel())).append("</code>");
        }
        return c.append("</td>").toString();
    }

    /** @return the text, or "" for null (as the key lookups read a missing field) */
    private static String text(String s) {
        return s == null ? "" : s;
    }

    private static String cell(Double v, String format) {
        return "<td>" + (v != null ? String.format(Locale.ROOT, format, v) : "–") + "</td>";
    }
}
