package dev.profiledrollout.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's tables and page as text: the latency table, the verdict table and the kernel table as HTML fragments
 * (also attached to Allure on their own), the kernel table as CSV, and the offline {@code report.html} page that
 * shows them with the charts from {@code charts/}.
 *
 * <p>Every number comes from a {@link ReportData}, i.e. from {@code summary.json}: latency values are its
 * {@code latency.<metric>.{meanMs,p50Ms,p90Ms,p99Ms,maxMs}} printed with three decimals; kernel times are ns in the CSV
 * and ms (three decimals) in HTML. The page loads nothing from the network.
 */
final class HtmlReport {

    /** Kernels in the HTML kernel table ({@code kernels.csv} has all of them). */
    public static final int KERNEL_ROWS = 25;
    private static final String[] METRICS = {"ttft", "itl", "tpot", "e2e"};
    private static final String STYLE = "body{font-family:sans-serif;margin:2em;color:#222}"
            + "table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;"
            + "text-align:right}td:first-child,th:first-child{text-align:left}th{background:#f0f0f0}"
            + ".pass{color:#1a7f37}.fail{color:#c62828;font-weight:bold}img{max-width:100%;display:block;"
            + "margin:0.5em 0 1.5em;border:1px solid #ddd}.kernel{text-align:left;font-family:monospace}";

    private HtmlReport() {
    }

    private static String goodputSlo(JsonNode latency) {
        StringBuilder slo = new StringBuilder();
        latency.path("goodput").forEach(p -> slo.append(slo.length() == 0 ? "" : " ").append(p.asText()));
        return slo.toString();
    }

    /** @return the latency table: one row per metric, then throughput, goodput and errors */
    public static String latencyTable(ReportData data) {
        JsonNode latency = data.summary().path("latency");
        StringBuilder html = new StringBuilder("<table class=\"latency\"><tr><th>metric (ms)</th><th>count</th>"
                + "<th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>max</th><th>definition</th></tr>");
        for (String metric : METRICS) {
            JsonNode m = latency.path(metric);
            html.append("<tr><td>").append(metric.toUpperCase(Locale.ROOT)).append("</td><td>")
                    .append(m.path("count").asLong()).append("</td>");
            for (String stat : new String[] {"meanMs", "p50Ms", "p90Ms", "p99Ms", "maxMs"}) {
                html.append("<td>").append(m.has(stat) ? ms(m.get(stat).asDouble()) : "–").append("</td>");
            }
            html.append("<td class=\"kernel\">").append(escape(m.path("definition").asText())).append("</td></tr>");
        }
        html.append("</table><table class=\"throughput\"><tr><th>throughput</th><th>value</th></tr>");
        row(html, "completed requests", String.valueOf(latency.path("completed").asLong()));
        row(html, "failed requests", String.valueOf(latency.path("failed").asLong()));
        row(html, "duration (ms)", ms(latency.path("durationMs").asDouble()));
        row(html, "request throughput (req/s)", ms(latency.path("requestThroughput").asDouble()));
        row(html, "output token throughput (tok/s)", ms(latency.path("outputTokenThroughput").asDouble()));
        row(html, "total token throughput (tok/s)", ms(latency.path("totalTokenThroughput").asDouble()));
        row(html, "request goodput (req/s)", latency.has("requestGoodput")
                ? ms(latency.get("requestGoodput").asDouble()) + (latency.has("goodRequests") ? " ("
                        + latency.get("goodRequests").asLong() + " good; SLO " + escape(goodputSlo(latency)) + ")" : "")
                : "– (no goodput SLO set)");
        StringBuilder errors = new StringBuilder();
        latency.path("errors").properties().forEach(e -> errors.append(errors.length() == 0 ? "" : ", ")
                .append(e.getKey()).append(": ").append(e.getValue().asLong()));
        row(html, "errors", errors.length() == 0 ? "none" : escape(errors.toString()));
        return html.append("</table>").toString();
    }

    /** @return the verdict table (measure, actual, relation and budget, outcome), or a line saying there were none */
    public static String verdictTable(List<Verdict> verdicts) {
        if (verdicts.isEmpty()) {
            return "<p class=\"verdicts\">No budget assertions were made.</p>";
        }
        StringBuilder html = new StringBuilder("<table class=\"verdicts\"><tr><th>budget</th><th>actual</th>"
                + "<th>budget</th><th>outcome</th></tr>");
        for (Verdict v : verdicts) {
            html.append("<tr><td>").append(escape(v.measure())).append("</td><td>").append(escape(v.actualText()))
                    .append("</td><td>").append(escape(v.relation() + " " + v.budgetText())).append("</td><td class=\"")
                    .append(v.passed() ? "pass\">PASS" : "fail\">FAIL").append("</td></tr>");
        }
        return html.append("</table>").toString();
    }

    /** @return the top {@value #KERNEL_ROWS} kernels over all ranks: launches, total, mean, share of kernel time */
    public static String kernelTable(ReportData data) {
        List<ReportData.Kernel> kernels = data.kernels();
        if (kernels.isEmpty()) {
            return "<p class=\"kernels\">No trace was analysed.</p>";
        }
        long total = data.kernelTotalNs();
        StringBuilder html = new StringBuilder("<table class=\"kernels\"><tr><th>kernel</th><th>launches</th>"
                + "<th>total (ms)</th><th>mean (µs)</th><th>share</th></tr>");
        for (ReportData.Kernel k : kernels.stream().limit(KERNEL_ROWS).toList()) {
            html.append("<tr><td class=\"kernel\">").append(escape(abbreviate(k.name(), 100))).append("</td><td>")
                    .append(k.count()).append("</td><td>").append(ms(k.totalNs() / 1e6)).append("</td><td>")
                    .append(ms(k.count() == 0 ? 0 : k.totalNs() / 1e3 / k.count())).append("</td><td>")
                    .append(String.format(Locale.ROOT, "%.1f%%", total == 0 ? 0.0 : 100.0 * k.totalNs() / total))
                    .append("</td></tr>");
        }
        return html.append("</table>").toString();
    }

    /** @return every kernel over all ranks as CSV: {@code name,count,total_ns,min_ns,max_ns,mean_ns,share} */
    public static String kernelCsv(ReportData data) {
        long total = data.kernelTotalNs();
        StringBuilder csv = new StringBuilder("name,count,total_ns,min_ns,max_ns,mean_ns,share\n");
        for (ReportData.Kernel k : data.kernels()) {
            csv.append('"').append(k.name().replace("\"", "\"\"")).append("\",").append(k.count()).append(',')
                    .append(k.totalNs()).append(',').append(k.minNs()).append(',').append(k.maxNs()).append(',')
                    .append(String.format(Locale.ROOT, "%.1f,%.6f", k.count() == 0 ? 0.0 : (double) k.totalNs()
                            / k.count(), total == 0 ? 0.0 : (double) k.totalNs() / total)).append('\n');
        }
        return csv.toString();
    }

    /**
     * @param charts the charts rendered under {@code charts/<name>.png} next to the page
     * @return the whole offline page
     */
    public static String page(ReportData data, List<Charts.NamedChart> charts) {
        JsonNode s = data.summary();
        StringBuilder html = new StringBuilder("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>")
                .append(escape(data.testName())).append(" — Profiled Rollout</title><style>").append(STYLE)
                .append("</style></head><body><h1>").append(escape(data.testName())).append("</h1>");
        if (!s.path("error").isNull() && s.has("error")) {
            html.append("<p class=\"fail\">The window did not complete: ").append(escape(s.get("error").asText()))
                    .append("</p>");
        }
        html.append("<h2>Run</h2><table class=\"run\"><tr><th>parameter</th><th>value</th></tr>");
        for (Map.Entry<String, String> p : ReportParameters.of(s).entrySet()) {
            row(html, escape(p.getKey()), escape(p.getValue()));
        }
        html.append("</table><h2>Budgets</h2>").append(verdictTable(data.verdicts()))
                .append("<h2>Latency</h2>").append(latencyTable(data)).append("<h2>Charts</h2>");
        for (Charts.NamedChart c : charts) {
            html.append("<img class=\"chart\" src=\"charts/").append(c.name()).append(".png\" alt=\"")
                    .append(escape(c.title())).append("\">");
        }
        html.append("<h2>Kernels</h2>").append(kernelTable(data))
                .append("<p>All kernels: <a href=\"kernels.csv\">kernels.csv</a>; raw data: "
                        + "<a href=\"summary.json\">summary.json</a>, <a href=\"requests.jsonl\">requests.jsonl</a>, "
                        + "<a href=\"timeseries.csv\">timeseries.csv</a>.</p></body></html>\n");
        return html.toString();
    }

    /** @return {@code s} cut to {@code max} characters with an ellipsis */
    static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }

    /** @return {@code v} with three decimals, as the tables print values from summary.json */
    static String ms(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static void row(StringBuilder html, String name, String value) {
        html.append("<tr><td>").append(name).append("</td><td>").append(value).append("</td></tr>");
    }
}
