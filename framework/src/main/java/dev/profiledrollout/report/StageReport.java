package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.util.List;
import java.util.Locale;
import java.util.Optional;
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
        ObjectNode root = toJson(sweep, capacity);
        ArrayNode rows = (ArrayNode) root.path("stages");
        for (int i = 0; i < Math.min(windows.size(), rows.size()); i++) {
            ((ObjectNode) rows.get(i)).set("window", ResultsModule.MAPPER.valueToTree(windows.get(i)));
        }
        if (!placement.isEmpty()) {
            root.put("stepsBeforeSweep", placement.stream().mapToInt(RunHeader.StagePlacement::beforeSweep).max()
                    .orElse(0));
            for (JsonNode row : rows) {
                String label = row.path("label").asText();
                ((ObjectNode) row).put("capturedSteps", placement.stream().mapToInt(p -> p.stages().stream()
                        .filter(s -> s.stage().equals(label)).mapToInt(RunHeader.StageSteps::steps).sum()).max()
                        .orElse(0));
            }
        }
        try {
            Files.createDirectories(directory);
            Files.writeString(directory.resolve(FILE), root.toPrettyString(), StandardCharsets.UTF_8);
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
    public static ObjectNode toJson(SweepResult sweep, Capacity capacity) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ArrayNode stages = root.putArray("stages");
        List<StageResult> all = sweep.stages();
        Optional<StageResult> knee = sweep.knee();
        for (int i = 0; i < all.size(); i++) {
            StageResult s = all.get(i);
            ObjectNode n = stages.addObject();
            n.put("label", s.label());
            n.put("closedLoop", s.stage().isClosedLoop());
            n.put("level", s.stage().level());
            num(n, "requestedRate", s.stage().requestRate());
            num(n, "achievedRate", s.achievedRate());
            num(n, "throughput", s.throughput());
            num(n, "outputThroughput", s.outputThroughput());
            num(n, "goodput", s.goodput());
            n.put("completed", s.latency().completed());
            n.put("failed", s.failures());
            ms(n, "ttftP50Ms", s.latency().ttft(), 50);
            ms(n, "ttftP99Ms", s.latency().ttft(), 99);
            ms(n, "tpotP50Ms", s.latency().tpot(), 50);
            ms(n, "tpotP99Ms", s.latency().tpot(), 99);
            ms(n, "e2eP50Ms", s.latency().e2e(), 50);
            n.put("lagP99Ms", s.lagP99().toNanos() / 1e6);
            n.put("gapBeforeMs", s.gapBefore().toNanos() / 1e6);
            n.put("fidelity", s.fidelity().limit().name());
            n.put("fidelityMessage", s.fidelity().message());
            n.put("knee", knee.isPresent() && knee.get() == s);
            if (capacity != null) {
                n.put("metSlos", capacity.passed(i));
                n.put("sloChecks", String.join("; ", capacity.checks().get(i).stream()
                        .map(SloTarget.Check::text).toList()));
            }
        }
        if (capacity != null) {
            ObjectNode c = root.putObject("capacity");
            c.put("mode", capacity.mode().name());
            c.put("status", capacity.status().name());
            num(c, "lower", capacity.lower());
            num(c, "upper", capacity.upper());
            num(c, "requestRate", capacity.requestRate());
            c.put("precision", capacity.precision());
            c.put("message", capacity.message());
            ArrayNode slos = root.putArray("slos");
            for (SloTarget t : capacity.slos()) {
                ObjectNode o = slos.addObject();
                o.put("text", t.toString());
                o.put("metric", t.metric());
                o.put("percentile", t.percentile());
                o.put("budgetMs", t.budget().toNanos() / 1e6);
            }
        }
        return root;
    }

    private static void num(ObjectNode n, String key, double v) {
        if (Double.isFinite(v)) {
            n.put(key, v);
        } else {
            n.putNull(key);
        }
    }

    private static void ms(ObjectNode n, String key, LatencyDistribution d, double p) {
        if (d.count() == 0) {
            n.putNull(key);
        } else {
            n.put(key, d.percentile(p).toNanos() / 1e6);
        }
    }

    /** @return the directory's {@code stages.json}, when there is one and it can be read */
    static Optional<JsonNode> read(Path directory) {
        Path file = directory.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(ResultsModule.MAPPER.readTree(file.toFile()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * @return the throughput–latency chart of {@code stages.json}: x is the completed-request throughput (req/s), y the
     *         latency (ms, log scale); TTFT and TPOT p50 and p99 series, a dashed horizontal line per TTFT or TPOT SLO,
     *         and the capacity stage ringed
     */
    public static XYChart chart(JsonNode stages) {
        XYChart chart = new XYChartBuilder().width(Charts.WIDTH).height(Charts.HEIGHT)
                .title("Throughput against latency, one point per stage").xAxisTitle("throughput (req/s)")
                .yAxisTitle("latency (ms)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setMarkerSize(7);
        List<JsonNode> points = new ArrayList<>();
        stages.path("stages").forEach(points::add);
        points.removeIf(p -> !p.path("throughput").isNumber());
        points.sort(java.util.Comparator.comparingDouble(p -> p.path("throughput").asDouble()));
        double xMin = points.stream().mapToDouble(p -> p.path("throughput").asDouble()).min().orElse(0);
        double xMax = points.stream().mapToDouble(p -> p.path("throughput").asDouble()).max().orElse(1);
        String[][] series = {{"TTFT p50", "ttftP50Ms"}, {"TTFT p99", "ttftP99Ms"}, {"TPOT p50", "tpotP50Ms"},
                {"TPOT p99", "tpotP99Ms"}};
        Color[] colors = {new Color(0x4C72B0), new Color(0x1F3A68), new Color(0xDD8452), new Color(0x8C3F0F)};
        for (int k = 0; k < series.length; k++) {
            String key = series[k][1];
            List<JsonNode> with = points.stream().filter(p -> p.path(key).isNumber() && p.path(key).asDouble() > 0)
                    .toList();
            if (with.isEmpty()) {
                continue;
            }
            XYSeries s = chart.addSeries(series[k][0], with.stream().mapToDouble(p -> p.path("throughput").asDouble())
                    .toArray(), with.stream().mapToDouble(p -> p.path(key).asDouble()).toArray());
            s.setLineColor(colors[k]);
            s.setMarkerColor(colors[k]);
            s.setMarker(SeriesMarkers.CIRCLE);
        }
        for (JsonNode slo : stages.path("slos")) {
            String metric = slo.path("metric").asText();
            if (!metric.equals("ttft") && !metric.equals("tpot") || points.isEmpty()) {
                continue;
            }
            double budget = slo.path("budgetMs").asDouble();
            XYSeries line = chart.addSeries("SLO " + slo.path("text").asText(), new double[] {xMin, xMax},
                    new double[] {budget, budget});
            line.setLineStyle(SeriesLines.DASH_DASH);
            line.setLineColor(metric.equals("ttft") ? colors[1] : colors[3]);
            line.setMarker(SeriesMarkers.NONE);
        }
        double capacityRate = stages.path("capacity").path("lower").asDouble(Double.NaN);
        Optional<JsonNode> at = points.stream().filter(p -> p.path("metSlos").asBoolean(false)
                && p.path("level").asDouble() == capacityRate).reduce((a, b) -> b);
        at.filter(p -> p.path("ttftP99Ms").isNumber()).ifPresent(p -> {
            XYSeries c = chart.addSeries("capacity " + stages.path("capacity").path("status").asText().toLowerCase(
                            Locale.ROOT), new double[] {p.path("throughput").asDouble()},
                    new double[] {p.path("ttftP99Ms").asDouble()});
            c.setMarker(SeriesMarkers.DIAMOND);
            c.setMarkerColor(new Color(0xC62828));
            c.setLineStyle(SeriesLines.NONE);
        });
        return chart;
    }

    /** Writes {@code charts/stages.png} when the directory has a {@code stages.json}; does nothing otherwise. */
    public static void renderChart(Path directory) {
        Optional<JsonNode> stages = read(directory);
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
        Optional<JsonNode> read = read(directory);
        if (read.isEmpty()) {
            return "";
        }
        JsonNode root = read.get();
        boolean windows = false;
        boolean placed = false;
        for (JsonNode s : root.path("stages")) {
            windows |= s.path("window").isObject();
            placed |= s.path("capturedSteps").isNumber();
        }
        StringBuilder h = new StringBuilder("<h2 id=\"stages\">Stages</h2>");
        if (root.path("capacity").isObject()) {
            h.append("<p class=\"capacity\">").append(HtmlReport.escape(root.path("capacity").path("message")
                    .asText())).append("</p>");
        }
        h.append("<a href=\"charts/").append(CHART).append(".png\"><img id=\"stage-chart\" class=\"stage-chart\" style=\"max-width:100%\" src=\"charts/")
                .append(CHART).append(".png\" alt=\"throughput against latency, one point per stage\"></a>");
        h.append("<div class=\"scroll\"><table id=\"stage-table\" class=\"stages\"><thead><tr><th>stage</th><th>requested req/s</th><th>sent req/s</th>"
                + "<th>done req/s</th><th>goodput req/s</th><th>TTFT p50</th><th>TTFT p99</th><th>TPOT p50</th>"
                + "<th>TPOT p99</th><th>lag p99</th><th>failed</th><th>load</th><th>SLOs</th>"
                + (placed ? "<th title=\"the most steps of any rank trace that began in the stage\">captured steps</th>"
                        : "") + (windows ? "<th>stage window</th>" : "") + "</tr></thead><tbody>");
        for (JsonNode s : root.path("stages")) {
            h.append("<tr").append(s.path("knee").asBoolean() ? " class=\"knee\" title=\"saturation knee\"" : "")
                    .append("><td>").append(HtmlReport.escape(s.path("label").asText()))
                    .append(s.path("knee").asBoolean() ? " (knee)" : "").append("</td>")
                    .append(cell(s, "requestedRate", "%.2f")).append(cell(s, "achievedRate", "%.2f"))
                    .append(cell(s, "throughput", "%.2f")).append(cell(s, "goodput", "%.2f"))
                    .append(cell(s, "ttftP50Ms", "%.1f ms")).append(cell(s, "ttftP99Ms", "%.1f ms"))
                    .append(cell(s, "tpotP50Ms", "%.1f ms")).append(cell(s, "tpotP99Ms", "%.1f ms"))
                    .append(cell(s, "lagP99Ms", "%.1f ms")).append("<td>").append(s.path("failed").asInt())
                    .append("</td><td title=\"").append(HtmlReport.escape(s.path("fidelityMessage").asText()))
                    .append("\">").append("NONE".equals(s.path("fidelity").asText()) ? "driven"
                            : HtmlReport.escape(s.path("fidelity").asText().toLowerCase(Locale.ROOT)) + "-limited")
                    .append("</td><td>").append(s.has("metSlos") ? (s.path("metSlos").asBoolean() ? "met" : "not met")
                            : "").append("</td>")
                    .append(placed ? "<td class=\"captured-steps\">" + s.path("capturedSteps").asInt() + "</td>" : "")
                    .append(windows ? windowCell(s.path("window")) : "").append("</tr>");
        }
        h.append("</tbody></table></div>");
        if (placed) {
            h.append("<p class=\"steps-before-sweep\">Captured steps that began before the first stage: ")
                    .append(root.path("stepsBeforeSweep").asInt()).append(".</p>");
        }
        return h.toString();
    }

    /** The stage's own window: a link to its report, its ranks, steps and kernel time, or why it holds nothing. */
    private static String windowCell(JsonNode w) {
        if (!w.isObject()) {
            return "<td>–</td>";
        }
        String dir = HtmlReport.escape(w.path("directory").asText());
        StringBuilder c = new StringBuilder("<td class=\"stage-window\"><a href=\"").append(dir)
                .append("/report.html\">").append(dir).append("</a>: ");
        if (w.path("noData").isTextual()) {
            return c.append("<span class=\"fail\">").append(HtmlReport.escape(w.path("noData").asText()))
                    .append("</span></td>").toString();
        }
        c.append(w.path("traceFiles").asInt()).append(" trace(s)");
        JsonNode steps = w.path("steps");
        if (steps.isObject()) {
            int min = steps.path("min").asInt();
            int max = steps.path("max").asInt();
            c.append(", ").append(min == max ? String.valueOf(min) : min + "–" + max).append(" steps");
        }
        c.append(String.format(Locale.ROOT, ", %.1f ms kernel time", w.path("kernelMs").asDouble()));
        if (w.path("topKernel").isTextual()) {
            c.append(", top: <code>").append(HtmlReport.escape(w.path("topKernel").asText())).append("</code>");
        }
        return c.append("</td>").toString();
    }

    private static String cell(JsonNode s, String key, String format) {
        return "<td>" + (s.path(key).isNumber() ? String.format(Locale.ROOT, format, s.path(key).asDouble()) : "–")
                + "</td>";
    }
}
