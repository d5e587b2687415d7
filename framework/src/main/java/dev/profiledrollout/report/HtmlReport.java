package dev.profiledrollout.report;

import dev.profiledrollout.verdict.Verdict;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's tables and page as text: the outcome banner, the summary, the latency, verdict, worker and kernel tables
 * as HTML fragments (also attached to Allure on their own), the kernel table as CSV, and the offline
 * {@code report.html} page that shows them with the charts from {@code charts/}.
 *
 * <p>Every number comes from a {@link ReportData}, i.e. from {@code summary.json} (its shape is described in
 * {@code docs/USER-GUIDE.md}, "summary.json"): latency values are its
 * {@code latency.<metric>.{meanMs,p50Ms,p90Ms,p99Ms,maxMs}} printed with three decimals, a metric without samples
 * ({@code count} 0) prints "none"; kernel times are ns in the CSV and ms (three decimals) in HTML. Fields a file lacks
 * (an older file, a test that failed before its profile window opened, a test without phases) leave their section
 * out. With a {@code history} block (the run's, or a phase's in {@code phases[].history}) the page has a History
 * section with the history verdicts and the trend charts ({@link #historySection}). The page loads nothing from the
 * network.
 */
final class HtmlReport {

    /** Kernels in the HTML kernel table ({@code kernels.csv} has all of them). */
    public static final int KERNEL_ROWS = 25;
    private static final String[] METRICS = {"ttft", "itl", "tpot", "e2e"};
    private static final String STYLE = "body{font-family:sans-serif;margin:1.5em auto;max-width:1400px;"
            + "padding:0 1em;color:#222}h1{font-size:1.5em;overflow-wrap:anywhere}"
            + "table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;"
            + "text-align:right;vertical-align:top}td:first-child,th{text-align:left}th{background:#f0f0f0}"
            + ".scroll{max-width:100%;overflow-x:auto}"
            + ".pass{color:#1a7f37}.fail{color:#c62828;font-weight:bold}.warn{color:#9a6700;font-weight:bold}"
            + ".banner{padding:0.8em 1em;font-size:1.25em;font-weight:bold;border-radius:4px;margin:0.5em 0 1em;"
            + "overflow-wrap:anywhere}.banner.PASSED{background:#dafbe1;color:#116329;border:1px solid #1a7f37}"
            + ".banner.FAILED{background:#ffebe9;color:#a40e26;border:1px solid #c62828}"
            + ".banner.ERROR{background:#fff1e5;color:#953800;border:1px solid #bc4c00}"
            + ".banner .message{display:block;font-size:0.8em;font-weight:normal;font-family:monospace;"
            + "white-space:pre-wrap;margin-top:0.3em}"
            + ".warning{background:#fff8c5;border:1px solid #d4a72c;padding:0.4em 0.8em}"
            + ".text,td.text{text-align:left}.kernel{text-align:left;font-family:monospace;overflow-wrap:anywhere}"
            + ".charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,560px),1fr));gap:1em;"
            + "margin:0.5em 0 1.5em}.charts figure{margin:0}.charts img{width:100%;height:auto;display:block;"
            + "border:1px solid #ddd}"
            + "dl.summary{display:grid;grid-template-columns:max-content 1fr;gap:0.2em 1em}"
            + "dl.summary dt{font-weight:bold}dl.summary dd{margin:0;overflow-wrap:anywhere}"
            + "section.phase{border-top:2px solid #ccc;margin-top:1.5em}"
            + "tr.REGRESSION td.change{color:#c62828;font-weight:bold}tr.IMPROVEMENT td.change{color:#1a7f37;"
            + "font-weight:bold}tr.INSUFFICIENT_HISTORY td.change{color:#666}table.history-verdicts td.value{white-space:nowrap}"
            + "table.step-gaps td.straggler{background:#ffebe9;color:#a40e26;font-weight:bold}";

    private HtmlReport() {
    }

    /** @return the page's style sheet, for HTML attachments that show parts of it */
    static String style() {
        return STYLE;
    }

    /** A run's outcome as the banner shows it: {@code PASSED}, {@code FAILED} or {@code ERROR}, and its text. */
    record Banner(String status, String headline, String message) {
    }

    /**
     * @return the outcome from {@code summary.json}'s {@code outcome}; for a file without one, ERROR when it has an
     *         {@code error}, FAILED when a verdict failed and is enforced, else PASSED
     */
    static Banner banner(ReportData data) {
        JsonNode s = data.summary();
        JsonNode outcome = s.path("outcome");
        List<Verdict> verdicts = data.verdicts();
        long failed = verdicts.stream().filter(v -> v.outcome() == Verdict.Outcome.FAIL).count();
        long warnings = verdicts.stream().filter(v -> v.outcome() == Verdict.Outcome.WARN).count();
        int total = verdicts.size();
        String status;
        String message;
        if (outcome.isObject() && outcome.hasNonNull("status")) {
            status = outcome.get("status").asText();
            message = outcome.path("message").asText("");
            total = outcome.path("verdicts").asInt(total);
            failed = outcome.path("failed").asLong(failed);
            warnings = outcome.path("warnings").asLong(warnings);
        } else if (s.hasNonNull("error")) {
            status = "ERROR";
            message = s.get("error").asText();
        } else {
            status = failed > 0 ? "FAILED" : "PASSED";
            message = verdicts.stream().filter(v -> v.outcome() == Verdict.Outcome.FAIL).findFirst()
                    .map(Verdict::describe).orElse("");
        }
        String warned = warnings == 0 ? "" : String.format(Locale.ROOT, ", %d warning%s", warnings,
                warnings == 1 ? "" : "s");
        String headline = switch (status) {
            case "PASSED" -> total == 0 ? "PASSED (no budget checks)" + warned
                    : String.format(Locale.ROOT, "PASSED: %d of %d check%s held%s", total - warnings, total,
                            total == 1 ? "" : "s", warned);
            case "FAILED" -> total == 0 ? "FAILED"
                    : String.format(Locale.ROOT, "FAILED: %d of %d check%s failed%s", failed, total,
                            total == 1 ? "" : "s", warned);
            default -> status;
        };
        return new Banner(status, headline, message);
    }

    /** @return failures, then warnings, then passes, each group in recording order */
    static List<Verdict> failuresFirst(List<Verdict> verdicts) {
        return verdicts.stream().sorted(Comparator.comparingInt(v -> switch (v.outcome()) {
            case FAIL -> 0;
            case WARN -> 1;
            case PASS -> 2;
        })).toList();
    }

    /** @return the pass/fail banner: {@code <div class="banner STATUS" id="outcome" data-status="STATUS">} */
    public static String bannerHtml(ReportData data) {
        Banner b = banner(data);
        return "<div class=\"banner " + escape(b.status()) + "\" id=\"outcome\" data-status=\"" + escape(b.status())
                + "\">" + escape(b.headline()) + (b.message().isEmpty() ? ""
                        : "<span class=\"message\">" + escape(b.message()) + "</span>") + "</div>";
    }

    /**
     * @return the banner and the summary: what was profiled (or attempted), key latency figures, steps captured
     *         against requested (with a warning when they differ), workers, and the error when there is one
     */
    public static String summaryHtml(ReportData data) {
        JsonNode s = data.summary();
        StringBuilder html = new StringBuilder(bannerHtml(data)).append("<dl class=\"summary\">");
        RunHeader head = RunHeader.of(s);
        RunHeader.Profiled profiled = head.profiled();
        RunHeader.Engine typedEngine = head.engine();
        if (profiled != null) {
            term(html, "profiled", profiled.description() != null ? profiled.description()
                    : text(profiled.kind()) + " " + ReportParameters.safeUrl(text(profiled.url())));
        } else if (typedEngine != null) {
            term(html, "profiled", (text(typedEngine.backend()) + " " + text(typedEngine.kind()) + " "
                    + (typedEngine.url() != null ? ReportParameters.safeUrl(typedEngine.url()) : "")).trim());
        }
        if (typedEngine != null && typedEngine.model() != null) {
            term(html, "model", typedEngine.model());
        }
        JsonNode engine = s.path("engine");
        String faults = injectedFaults(engine);
        if (faults != null) {
            term(html, "faults injected", faults);
        }
        JsonNode noise = engine.path("simulatedGpuNoise");
        if (noise.isObject()) {
            term(html, "simulated GPU noise", String.format(java.util.Locale.ROOT,
                    "kernel jitter sigma %s, clock spread sigma %s, this run's clock factor %.4f (noise seed %d)",
                    noise.path("kernel_jitter").asText(), noise.path("clock_spread").asText(),
                    noise.path("clock_factor").asDouble(), noise.path("noise_seed").asLong()));
        }
        JsonNode attempted = s.path("attempted");
        if (attempted.isObject()) {
            term(html, "attempted", attempted(attempted));
        }
        RunHeader.Latency latency = RunHeader.of(s).latency();
        if (latency != null) {
            term(html, "requests", orZero(latency.completed()) + " completed, " + orZero(latency.failed())
                    + " failed in " + compact(orZero(latency.durationMs()) / 1000) + " s");
            for (String metric : METRICS) {
                RunHeader.Distribution m = latency.distribution(metric);
                if (m != null) {
                    term(html, metric.toUpperCase(Locale.ROOT), m.p50Ms() == null ? "none"
                            : "p50 " + compact(m.p50Ms()) + " ms, p99 " + compact(orZero(m.p99Ms())) + " ms, max "
                                    + compact(orZero(m.maxMs())) + " ms");
                }
            }
            term(html, "output tokens/s", compact(orZero(latency.outputTokenThroughput())));
        }
        steps(html, s.path("steps"));
        JsonNode workers = s.path("workers");
        if (workers.isArray() && !workers.isEmpty()) {
            long profiledCount = 0;
            for (JsonNode w : workers) {
                profiledCount += w.path("state").asText().equals("PROFILED") ? 1 : 0;
            }
            term(html, "workers", workers.size() + " (" + profiledCount + " profiled)");
        }
        if (s.path("phases").isArray() && !s.get("phases").isEmpty()) {
            List<String> names = new ArrayList<>();
            s.get("phases").forEach(p -> names.add(p.path("phase").asText()));
            term(html, "phases", String.join(", ", names));
        }
        html.append("</dl>");
        if (s.hasNonNull("error") && !s.get("error").asText().equals(banner(data).message())) {
            html.append("<p class=\"fail\">The profile window did not complete: ").append(escape(s.get("error")
                    .asText())).append("</p>");
        }
        return html.toString();
    }

    private static String attempted(JsonNode a) {
        List<String> parts = new ArrayList<>();
        if (a.hasNonNull("backend") || a.hasNonNull("engineKind")) {
            parts.add((a.path("backend").asText("") + " " + a.path("engineKind").asText("")).trim());
        }
        List<String> urls = new ArrayList<>();
        a.path("urls").forEach(u -> urls.add(ReportParameters.safeUrl(u.asText())));
        if (!urls.isEmpty()) {
            parts.add(String.join(", ", urls));
        }
        // The step bound is spelled num_steps, as in profileRequest and the engines' /start_profile body; files written
        // before 0.1's typed run model spelled it numSteps here, and still read.
        JsonNode steps = a.hasNonNull("num_steps") ? a.get("num_steps") : a.path("numSteps");
        parts.add("numSteps " + (steps.isNumber() ? steps.asText() : "until stop_profile"));
        List<String> activities = new ArrayList<>();
        a.path("activities").forEach(x -> activities.add(x.asText()));
        if (!activities.isEmpty()) {
            parts.add("activities " + String.join(", ", activities));
        }
        List<String> phases = new ArrayList<>();
        a.path("phases").forEach(x -> phases.add(x.asText()));
        if (!phases.isEmpty()) {
            parts.add("phases " + String.join(", ", phases));
        }
        String load = load(a.path("load"));
        if (!load.isEmpty()) {
            parts.add("load " + load);
        }
        return String.join("; ", parts);
    }

    /** @return a load as one line, e.g. {@code "40 requests, concurrency 8, ISL/OSL 128/8"}; "" without one */
    static String load(JsonNode load) {
        if (!load.isObject()) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        if (load.has("requests")) {
            parts.add(load.get("requests").asText() + " requests");
        }
        double rate = load.path("arrival").path("requestRate").asDouble(Double.POSITIVE_INFINITY);
        if (Double.isFinite(rate) && rate > 0) {
            parts.add(compact(rate) + " req/s");
        }
        if (load.has("concurrency")) {
            parts.add("concurrency " + load.get("concurrency").asText());
        }
        if (load.has("inputTokens")) {
            parts.add("ISL/OSL " + load.get("inputTokens").asText() + "/" + load.path("outputTokens").asText());
        }
        return String.join(", ", parts);
    }

    private static void steps(StringBuilder html, JsonNode steps) {
        if (!steps.isObject()) {
            return;
        }
        StringBuilder captured = new StringBuilder();
        steps.path("captured").properties().forEach(e -> captured.append(captured.length() == 0 ? "" : ", ")
                .append(e.getKey()).append(": ").append(e.getValue().asText()));
        String requested = steps.hasNonNull("requested") ? steps.get("requested").asText() : "until stop_profile";
        term(html, "steps", "requested " + requested + ", captured " + (captured.length() == 0 ? "none"
                : captured.toString()));
        if (steps.hasNonNull("requested")) {
            long want = steps.get("requested").asLong();
            if (!steps.hasNonNull("min") || steps.get("min").asLong() != want
                    || steps.path("max").asLong(want) != want) {
                html.append("</dl><p class=\"warning steps\">Steps captured (").append(escape(captured.length() == 0
                        ? "none" : captured.toString())).append(") differ from the ").append(want)
                        .append(" requested").append(steps.path("strict").asBoolean() ? " (strict: the test fails)"
                                : "").append(".</p><dl class=\"summary\">");
            }
        }
    }

    /**
     * The performance faults a simulator served this run with ({@code engine.simulatedFaults} of
     * {@code summary.json}), as one line, or null when none were injected.
     */
    static String injectedFaults(JsonNode engine) {
        JsonNode f = engine.path("simulatedFaults");
        if (!f.path("injected").asBoolean(false)) {
            return null;
        }
        java.util.List<String> parts = new java.util.ArrayList<>();
        f.path("slow_kernels").fields().forEachRemaining(e -> parts.add("kernels /" + e.getKey() + "/ ×"
                + e.getValue().asText()));
        f.path("slow_ranks").fields().forEachRemaining(e -> parts.add("TP rank " + e.getKey() + " ×"
                + e.getValue().asText()));
        if (f.has("slow_decode")) {
            parts.add("decode kernels ×" + f.get("slow_decode").asText());
        }
        if (f.has("slow_host")) {
            parts.add("host time per step ×" + f.get("slow_host").asText());
        }
        return "simulator slowed on purpose: " + String.join(", ", parts);
    }

    private static void term(StringBuilder html, String name, String value) {
        html.append("<dt>").append(escape(name)).append("</dt><dd>").append(escape(value)).append("</dd>");
    }

    /** @return the latency table of {@code summary.json}'s {@code latency}: one row per metric, then throughput */
    public static String latencyTable(ReportData data) {
        return latencyTable(data.summary().path("latency"));
    }

    /** @return the latency table of a {@code latency} object (the run's or a phase's); "" without one */
    static String latencyTable(JsonNode latency) {
        if (!latency.isObject()) {
            return "<p class=\"latency\">No latency was measured.</p>";
        }
        StringBuilder html = new StringBuilder("<div class=\"scroll\"><table class=\"latency\"><tr><th>metric (ms)"
                + "</th><th>count</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>max</th><th>definition</th>"
                + "</tr>");
        for (String metric : METRICS) {
            JsonNode m = latency.path(metric);
            html.append("<tr><td>").append(metric.toUpperCase(Locale.ROOT)).append("</td><td>")
                    .append(m.path("count").asLong()).append("</td>");
            boolean none = m.path("count").asLong() == 0 || !m.has("p50Ms");
            for (String stat : new String[] {"meanMs", "p50Ms", "p90Ms", "p99Ms", "maxMs"}) {
                html.append("<td>").append(none ? "none" : m.has(stat) ? ms(m.get(stat).asDouble()) : "–")
                        .append("</td>");
            }
            html.append("<td class=\"text\">").append(escape(m.path("definition").asText())).append("</td></tr>");
        }
        html.append("</table></div><table class=\"throughput\"><tr><th>throughput</th><th>value</th></tr>");
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

    private static String goodputSlo(JsonNode latency) {
        StringBuilder slo = new StringBuilder();
        latency.path("goodput").forEach(p -> slo.append(slo.length() == 0 ? "" : " ").append(p.asText()));
        return slo.toString();
    }

    /**
     * @return the verdict table, failures first, then warnings, then passes (each group in recording order): scope,
     *         measure, actual, budget with its relation, relative gap, detail, outcome; or a line saying there were none
     */
    public static String verdictTable(List<Verdict> verdicts) {
        if (verdicts.isEmpty()) {
            return "<p class=\"verdicts\">No budget verdicts were recorded.</p>";
        }
        List<Verdict> sorted = failuresFirst(verdicts);
        StringBuilder html = new StringBuilder("<div class=\"scroll\"><table class=\"verdicts\"><tr><th>scope</th>"
                + "<th>measure</th><th>actual</th><th>budget</th><th>gap</th><th>detail</th><th>outcome</th></tr>");
        for (Verdict v : sorted) {
            html.append("<tr class=\"verdict ").append(v.outcome()).append("\"><td>")
                    .append(escape(v.scope().isEmpty() ? "run" : v.scope())).append("</td><td class=\"text\">")
                    .append(escape(v.measure())).append("</td><td>").append(escape(v.actualText())).append("</td><td>")
                    .append(escape(v.relation() + " " + v.budgetText())).append("</td><td>").append(escape(v.gapText()))
                    .append("</td><td class=\"text\">").append(escape(v.detail())).append("</td><td class=\"")
                    .append(switch (v.outcome()) {
                        case PASS -> "pass";
                        case FAIL -> "fail";
                        case WARN -> "warn";
                    }).append("\">").append(v.outcome()).append("</td></tr>");
        }
        return html.append("</table></div>").toString();
    }

    /**
     * @return the workers table of {@code summary.json}'s {@code workers}: label, URL (without credentials), type,
     *         outcome, trace files; "" without workers
     */
    public static String workersTable(JsonNode workers) {
        if (!workers.isArray() || workers.isEmpty()) {
            return "";
        }
        boolean phased = false;
        for (JsonNode w : workers) {
            phased |= w.hasNonNull("phase");
        }
        StringBuilder html = new StringBuilder("<div class=\"scroll\"><table class=\"workers\"><tr>"
                + (phased ? "<th>phase</th>" : "") + "<th>worker</th>"
                + "<th>URL</th><th>type</th><th>outcome</th><th>trace files</th></tr>");
        int i = 0;
        for (JsonNode w : workers) {
            i++;
            if (phased) {
                html.append("<tr><td>").append(escape(w.path("phase").asText(""))).append("</td>");
            }
            StringBuilder outcome = new StringBuilder(w.path("state").asText(""));
            if (w.path("httpStatus").asInt() != 0) {
                outcome.append(", HTTP ").append(w.get("httpStatus").asInt());
            }
            if (!w.path("reason").asText("").isEmpty()) {
                outcome.append(": ").append(w.get("reason").asText());
            }
            if (w.hasNonNull("stopOutcome")) {
                outcome.append(" (stop: ").append(w.get("stopOutcome").asText()).append(')');
            }
            List<String> files = new ArrayList<>();
            w.path("traceFiles").forEach(f -> files.add(f.asText()));
            html.append(phased ? "<td>" : "<tr><td>").append(escape(w.path("label").asText("worker-" + i)))
                    .append("</td><td class=\"text\">")
                    .append(escape(w.hasNonNull("url") ? ReportParameters.safeUrl(w.get("url").asText()) : ""))
                    .append("</td><td class=\"text\">").append(escape(w.path("workerType").asText("")))
                    .append("</td><td class=\"text ").append(w.path("state").asText().equals("PROFILED") ? "pass"
                            : "fail").append("\">").append(escape(outcome.toString())).append("</td><td class=\"kernel\">")
                    .append(escape(!w.has("traceFiles") ? "–" : files.isEmpty() ? "none" : String.join(", ", files)))
                    .append("</td></tr>");
        }
        return html.append("</table></div>").toString();
    }

    /**
     * @return the top {@value #KERNEL_ROWS} kernels over all ranks with their full names: number ({@code K1}… as the
     *         top-kernels chart labels its bars), launches, total, mean, share of kernel time
     */
    public static String kernelTable(ReportData data) {
        List<ReportData.Kernel> kernels = data.kernels();
        if (kernels.isEmpty()) {
            return "<p class=\"kernels\">No trace was analysed.</p>";
        }
        long total = data.kernelTotalNs();
        StringBuilder html = new StringBuilder("<div class=\"scroll\"><table class=\"kernels\"><tr><th>#</th>"
                + "<th>kernel</th><th>launches</th><th>total (ms)</th><th>mean (µs)</th><th>share</th></tr>");
        int i = 0;
        for (ReportData.Kernel k : kernels.stream().limit(KERNEL_ROWS).toList()) {
            String label = Charts.kernelLabel(i++);
            html.append("<tr id=\"kernel-").append(label).append("\"><td>").append(label)
                    .append("</td><td class=\"kernel\" title=\"").append(escape(k.name())).append("\">")
                    .append(escape(k.name())).append("</td><td>")
                    .append(k.count()).append("</td><td>").append(ms(k.totalNs() / 1e6)).append("</td><td>")
                    .append(ms(k.count() == 0 ? 0 : k.totalNs() / 1e3 / k.count())).append("</td><td>")
                    .append(String.format(Locale.ROOT, "%.1f%%", total == 0 ? 0.0 : 100.0 * k.totalNs() / total))
                    .append("</td></tr>");
        }
        return html.append("</table></div>").toString();
    }

    /** Rows of the roofline table: the ops and argument sets with the most kernel time. */
    static final int ROOFLINE_ROWS = 15;

    /**
     * @return a "Roofline" section: per GEMM/attention op and argument set of {@code trace.ranks[].roofline} (timed
     *         calls only, most kernel time first, at most {@value #ROOFLINE_ROWS}), the calls, input shapes and
     *         precision, GFLOPs and MiB per call, arithmetic intensity, median kernel time, median achieved TFLOPS/s
     *         and TB/s, and the fraction of the device's peak for that precision ({@code GpuPeaks}); "" when no rank
     *         has timed rows
     */
    static String rooflineTable(ReportData data) {
        record Row(JsonNode op, double kernelNs) {
        }
        List<Row> rows = new java.util.ArrayList<>();
        String device = null;
        for (JsonNode rank : data.summary().path("trace").path("ranks")) {
            if (device == null && rank.path("deviceName").isTextual()) {
                device = rank.get("deviceName").asText();
            }
            for (JsonNode r : rank.path("roofline")) {
                if (r.path("count").asLong() > 0) {
                    rows.add(new Row(r, r.path("kernelNs").path("mean").asDouble() * r.path("count").asLong()));
                }
            }
        }
        if (rows.isEmpty()) {
            return "";
        }
        rows.sort(java.util.Comparator.comparingDouble(Row::kernelNs).reversed());
        java.util.Optional<dev.profiledrollout.trace.GpuPeaks.Gpu> gpu = device == null ? java.util.Optional.empty()
                : dev.profiledrollout.trace.GpuPeaks.defaults().find(device);
        StringBuilder html = new StringBuilder("<h2>Roofline</h2><p class=\"roofline-device\">")
                .append(gpu.isPresent() ? "Peaks of " + escape(gpu.get().id()) + " (" + escape(device) + ")"
                        : "No peaks known for " + escape(device == null ? "this device" : device)
                        + ": add them with -Dprofiledrollout.gpu.peaks.file")
                .append(".</p><div class=\"scroll\"><table class=\"roofline\"><tr><th>op</th><th>input dims</th>"
                        + "<th>precision</th><th>calls</th><th>GFLOPs / call</th><th>MiB / call</th>"
                        + "<th>FLOP/byte</th><th>kernel (µs, median)</th><th>TFLOPS/s (median)</th>"
                        + "<th>TB/s (median)</th><th>of peak</th></tr>");
        for (Row row : rows.subList(0, Math.min(ROOFLINE_ROWS, rows.size()))) {
            JsonNode r = row.op();
            double flops = r.path("flops").asDouble();
            double bytes = r.path("bytes").asDouble(Double.NaN);
            double tflops = r.path("tflops").path("median").asDouble(Double.NaN);
            String precision = r.path("precision").asText("");
            java.util.OptionalDouble peak = gpu.map(g -> g.peakTflops(precision))
                    .orElse(java.util.OptionalDouble.empty());
            html.append("<tr><td class=\"text\">").append(escape(r.path("name").asText())).append("</td><td class=\"text\">")
                    .append(escape(r.path("inputDims").asText(""))).append("</td><td class=\"text\">")
                    .append(escape(precision)).append("</td><td>").append(r.path("count").asLong()).append("</td><td>")
                    .append(fixed(flops / 1e9, 3)).append("</td><td>").append(fixed(bytes / 1048576.0, 2))
                    .append("</td><td>").append(fixed(flops / bytes, 1)).append("</td><td>")
                    .append(fixed(r.path("kernelNs").path("median").asDouble(Double.NaN) / 1e3, 1)).append("</td><td>")
                    .append(fixed(tflops, 1)).append("</td><td>")
                    .append(fixed(r.path("tbps").path("median").asDouble(Double.NaN), 2)).append("</td><td>")
                    .append(peak.isPresent() && Double.isFinite(tflops)
                            ? String.format(Locale.ROOT, "%.1f%%", 100 * tflops / peak.getAsDouble()) : "–")
                    .append("</td></tr>");
        }
        return html.append("</table></div>").toString();
    }

    private static String fixed(double value, int decimals) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%." + decimals + "f", value) : "–";
    }

    /**
     * @return the kernels of {@code summary.json}'s {@code baseline.kernels} the baseline-diff chart shows, numbered
     *         {@code B1}… as its bars, with full names; "" without a baseline
     */
    static String baselineTable(JsonNode baseline) {
        JsonNode kernels = baseline.path("kernels");
        if (!kernels.isArray() || kernels.isEmpty()) {
            return "";
        }
        StringBuilder html = new StringBuilder("<h2>Baseline</h2><div class=\"scroll\"><table class=\"baseline\">"
                + "<tr><th>#</th><th>kernel</th><th>baseline (ms)</th><th>this run (ms)</th><th>change</th></tr>");
        int i = 0;
        for (JsonNode k : kernels) {
            if (i++ == Charts.TOP_KERNELS) {
                break;
            }
            long base = k.path("baseTotalNs").asLong();
            long run = k.path("totalNs").asLong();
            String name = k.path("name").asText();
            html.append("<tr id=\"baseline-B").append(i).append("\"><td>B").append(i)
                    .append("</td><td class=\"kernel\" title=\"").append(escape(name)).append("\">")
                    .append(escape(name)).append("</td><td>").append(ms(base / 1e6)).append("</td><td>")
                    .append(ms(run / 1e6)).append("</td><td>").append(base == 0 ? "new" : String.format(Locale.ROOT,
                            "%+.1f%%", 100.0 * (run - base) / base)).append("</td></tr>");
        }
        html.append("</table></div>");
        return html.append(baselineStages(baseline)).toString();
    }

    /**
     * @return the per-step-kind comparison of {@code baseline.stages} (the like-with-like figures: kernel time per step
     *         or token of each kind) with the step mix and what could not be compared; the window-totals note when
     *         only that is available; "" otherwise
     */
    static String baselineStages(JsonNode baseline) {
        if (baseline.path("windowTotalsOnly").isTextual()) {
            return "<p class=\"note\">Window totals only: " + escape(baseline.path("windowTotalsOnly").asText())
                    + "</p>";
        }
        JsonNode stages = baseline.path("stages");
        if (!stages.isArray() || stages.isEmpty()) {
            return "";
        }
        StringBuilder html = new StringBuilder("<p>Per step kind (" + escape(baseline.path("mix").asText()) + ")");
        if (baseline.path("incomparable").isTextual()) {
            html.append("; incomparable: ").append(escape(baseline.path("incomparable").asText()));
        }
        html.append("</p><div class=\"scroll\"><table class=\"baseline-stages\"><tr><th>step kind</th>"
                + "<th>steps (baseline → run)</th><th>per</th><th>baseline (ms)</th><th>this run (ms)</th>"
                + "<th>change</th></tr>");
        for (JsonNode st : stages) {
            String unit = st.path("unit").asText();
            long baseSteps = st.path("baseSteps").asLong();
            long steps = st.path("steps").asLong();
            double baseUnits = "token".equals(unit) ? st.path("baseTokens").asDouble() : baseSteps;
            double units = "token".equals(unit) ? st.path("tokens").asDouble() : steps;
            JsonNode change = st.path("kernelTimeChange");
            html.append("<tr><td>").append(escape(st.path("stage").asText())).append("</td><td>").append(baseSteps)
                    .append(" → ").append(steps).append("</td><td>").append(escape(unit)).append("</td><td>")
                    .append(baseUnits > 0 ? ms(st.path("baseKernelNs").asDouble() / baseUnits / 1e6) : "–")
                    .append("</td><td>").append(units > 0 ? ms(st.path("kernelNs").asDouble() / units / 1e6) : "–")
                    .append("</td><td>").append(change.isNumber() ? String.format(Locale.ROOT, "%+.1f%%",
                            100 * change.asDouble()) : "incomparable").append("</td></tr>");
        }
        return html.append("</table></div>").toString();
    }

    /** @return GPU busy time per rank ({@code trace.ranks[]}, labelled) with the straggler; "" without ranks */
    static String rankTable(ReportData data) {
        List<ReportData.RankBusy> ranks = data.rankBusy();
        if (ranks.isEmpty()) {
            return "";
        }
        String straggler = data.straggler().orElse(null);
        StringBuilder html = new StringBuilder("<table class=\"ranks\"><tr><th>rank</th><th>GPU busy (ms)</th>"
                + "<th>span (ms)</th><th></th></tr>");
        for (ReportData.RankBusy r : ranks) {
            html.append("<tr><td>").append(escape(r.label())).append("</td><td>").append(ms(r.busyNs() / 1e6))
                    .append("</td><td>").append(ms(r.spanNs() / 1e6)).append("</td><td class=\"text\">")
                    .append(r.label().equals(straggler) ? "straggler (busiest rank)" : "").append("</td></tr>");
        }
        return html.append("</table>").toString();
    }

    /**
     * @return per rank set of {@code trace.stepTimeline}: how steps were matched and aligned, the largest gap to a
     *         step's straggler and how often each rank was the straggler, and with two or more ranks the steps with the
     *         largest gaps ({@link #stepGapTable}); "" without step timelines
     */
    static String stepTimelineNotes(ReportData data) {
        StringBuilder html = new StringBuilder();
        for (JsonNode set : data.summary().path("trace").path("stepTimeline")) {
            String worker = set.path("worker").asText("");
            html.append("<p class=\"steps\">Step timeline").append(worker.isEmpty() ? "" : " of " + escape(worker))
                    .append(": ").append(escape(set.path("clockAlignment").path("note").asText("")));
            if (set.path("ranks").size() > 1) {
                html.append("; largest gap to a step's straggler ").append(ms(set.path("maxGapNs").asLong() / 1e6))
                        .append(" ms; straggler in");
                StringBuilder counts = new StringBuilder();
                set.path("stragglerSteps").properties().forEach(e -> counts.append(counts.isEmpty() ? " " : ", ")
                        .append(escape(e.getKey())).append(": ").append(e.getValue().asInt()));
                html.append(counts).append(" steps");
            }
            html.append(".</p>");
            if (set.path("ranks").size() > 1) {
                html.append(stepGapTable(set));
            }
        }
        return html.toString();
    }

    /** Rows of the per-step table: the steps with the largest gaps to their straggler. */
    static final int STEP_ROWS = 10;

    /**
     * @return for one rank set of {@code trace.stepTimeline}, the {@value #STEP_ROWS} steps with the largest gap to
     *         their straggler, largest first: each rank's GPU busy time in the step (the straggler's cell marked
     *         {@code class="straggler"}) and the largest gap; "" when no step has a gap
     */
    static String stepGapTable(JsonNode set) {
        List<JsonNode> steps = new java.util.ArrayList<>();
        set.path("steps").forEach(steps::add);
        java.util.function.ToLongFunction<JsonNode> gap = st -> {
            long max = 0;
            for (JsonNode g : st.path("gapNs")) {
                max = Math.max(max, g.asLong());
            }
            return max;
        };
        steps.removeIf(st -> gap.applyAsLong(st) == 0);
        if (steps.isEmpty()) {
            return "";
        }
        steps.sort(java.util.Comparator.comparingLong(gap).reversed());
        StringBuilder html = new StringBuilder("<div class=\"scroll\"><table class=\"step-gaps\"><tr><th>step</th>");
        List<String> ranks = new java.util.ArrayList<>();
        set.path("ranks").forEach(r -> ranks.add(r.asText()));
        ranks.forEach(r -> html.append("<th>").append(escape(r)).append(" busy (ms)</th>"));
        html.append("<th>largest gap (ms)</th></tr>");
        for (JsonNode st : steps.subList(0, Math.min(STEP_ROWS, steps.size()))) {
            String straggler = st.path("straggler").asText("");
            html.append("<tr><td class=\"text\">").append(escape(st.path("name").asText())).append("</td>");
            for (int r = 0; r < ranks.size(); r++) {
                html.append(ranks.get(r).equals(straggler) ? "<td class=\"straggler\" title=\"straggler\">" : "<td>")
                        .append(ms(st.path("busyNs").path(r).asLong() / 1e6)).append("</td>");
            }
            html.append("<td>").append(ms(gap.applyAsLong(st) / 1e6)).append("</td></tr>");
        }
        return html.append("</table></div>").toString();
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

    /** @return the chart grid: each chart {@code prefix + charts/<name>.png}, linked to itself at full size */
    static String chartGrid(List<Charts.NamedChart> charts, String prefix) {
        if (charts.isEmpty()) {
            return "<p class=\"charts\">No charts: nothing was measured.</p>";
        }
        StringBuilder html = new StringBuilder("<div class=\"charts\">");
        for (Charts.NamedChart c : charts) {
            String src = prefix + "charts/" + c.name() + ".png";
            html.append("<figure><a href=\"").append(escape(src)).append("\"><img class=\"chart\" src=\"")
                    .append(escape(src)).append("\" width=\"").append(c.chart().getWidth()).append("\" height=\"")
                    .append(c.chart().getHeight()).append("\" alt=\"").append(escape(c.title())).append("\" title=\"")
                    .append(escape(c.title())).append(" (click for full size)\"></a></figure>");
        }
        return html.append("</div>").toString();
    }

    /**
     * @param charts the charts rendered under {@code charts/<name>.png} next to the page
     * @param phases per phase of {@code summary.json}'s {@code phases[]} that has its own directory, its charts
     *               (rendered under {@code <directory>/charts/})
     * @return the whole offline page
     */
    public static String page(ReportData data, List<Charts.NamedChart> charts,
            Map<String, List<Charts.NamedChart>> phases) {
        JsonNode s = data.summary();
        StringBuilder html = new StringBuilder("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>")
                .append(escape(data.testName())).append(" — Profiled Rollout</title><style>").append(STYLE)
                .append("</style></head><body><h1>").append(escape(data.testName())).append("</h1>")
                .append(summaryHtml(data));
        html.append("<h2>Budgets</h2>").append(verdictTable(data.verdicts()));
        html.append(StageReport.section(data.directory()));
        String workers = workersTable(s.path("workers"));
        if (!workers.isEmpty()) {
            html.append("<h2>Workers</h2>").append(workers);
        }
        List<Charts.NamedChart> plain = charts.stream().filter(c -> !Charts.isTrend(c)).toList();
        if (s.path("latency").isObject() || !plain.isEmpty()) {
            html.append("<h2>Charts</h2>").append(chartGrid(plain, ""));
        }
        data.history().ifPresent(h -> html.append(historySection(h, charts.stream().filter(Charts::isTrend)
                .toList(), "", "h2", "history")));
        JsonNode phaseNodes = s.path("phases");
        if (phaseNodes.isArray()) {
            for (JsonNode p : phaseNodes) {
                html.append(phaseSection(p, phases.getOrDefault(p.path("directory").asText(""), List.of())));
            }
        }
        if (s.path("latency").isObject()) {
            html.append("<h2>Latency</h2>").append(latencyTable(data));
        }
        Map<String, String> parameters = ReportParameters.of(s);
        if (!parameters.isEmpty()) {
            html.append("<h2>Run</h2><table class=\"run\"><tr><th>parameter</th><th>value</th></tr>");
            for (Map.Entry<String, String> p : parameters.entrySet()) {
                html.append("<tr><td>").append(escape(p.getKey())).append("</td><td class=\"text\">")
                        .append(escape(p.getValue())).append("</td></tr>");
            }
            html.append("</table>");
        }
        boolean traced = !data.trace().ranks().isEmpty() || !data.trace().kernels().isEmpty();
        if (traced) {
            html.append("<h2>Ranks</h2>").append(rankTable(data)).append(stepTimelineNotes(data))
                    .append("<h2>Kernels</h2>").append(kernelTable(data)).append(rooflineTable(data));
        }
        html.append(baselineTable(s.path("baseline")));
        html.append("<p>").append(traced ? "All kernels: <a href=\"kernels.csv\">kernels.csv</a>; raw data: "
                : "Raw data: ").append("<a href=\"summary.json\">summary.json</a>");
        for (String file : List.of("requests.jsonl", "timeseries.csv")) {
            if (Files.isRegularFile(data.directory().resolve(file))) {
                html.append(", <a href=\"").append(file).append("\">").append(file).append("</a>");
            }
        }
        return html.append(".</p></body></html>\n").toString();
    }

    /** @return one phase of {@code phases[]}: its load, latency, steps, verdicts, charts and its own page */
    static String phaseSection(JsonNode phase, List<Charts.NamedChart> charts) {
        String name = phase.path("phase").asText("phase");
        String directory = phase.path("directory").asText("");
        StringBuilder html = new StringBuilder("<section class=\"phase\" id=\"phase-").append(escape(name))
                .append("\"><h2>Phase ").append(escape(name)).append("</h2>");
        String load = load(phase.path("load"));
        html.append("<dl class=\"summary\">");
        if (!load.isEmpty()) {
            term(html, "load", load);
        }
        steps(html, phase.path("steps"));
        html.append("</dl>");
        List<Verdict> verdicts = ReportData.verdicts(phase.path("verdicts"));
        html.append("<h3>Budgets</h3>").append(verdictTable(verdicts));
        String workers = workersTable(phase.path("workers"));
        if (!workers.isEmpty()) {
            html.append("<h3>Workers</h3>").append(workers);
        }
        html.append("<h3>Latency</h3>").append(latencyTable(phase.path("latency")));
        List<Charts.NamedChart> plain = charts.stream().filter(c -> !Charts.isTrend(c)).toList();
        if (!plain.isEmpty()) {
            html.append("<h3>Charts</h3>").append(chartGrid(plain, directory + "/"));
        }
        ReportData.history(phase.path("history")).ifPresent(h -> html.append(historySection(h, charts.stream()
                .filter(Charts::isTrend).toList(), directory.isEmpty() ? "" : directory + "/", "h3",
                "history-" + name)));
        if (!directory.isEmpty()) {
            html.append("<p>This phase's own report: <a href=\"").append(escape(directory)).append("/report.html\">")
                    .append(escape(directory)).append("/report.html</a>.</p>");
        }
        return html.append("</section>").toString();
    }

    /**
     * @param history the {@code history} block
     * @param trends  its trend charts, rendered under {@code prefix + charts/}
     * @param heading {@code h2} on the test's page, {@code h3} in a phase section
     * @param id      the section's element id
     * @return the History section: where the run was recorded (store without credentials, test id, fingerprint, run
     *         id, threshold model), the recording error if any, the verdict table ({@link #historyTable}) and the trend
     *         charts in the chart grid
     */
    static String historySection(ReportData.History history, List<Charts.NamedChart> trends, String prefix,
            String heading, String id) {
        StringBuilder html = new StringBuilder("<section class=\"history\" id=\"").append(escape(id)).append("\"><")
                .append(heading).append(">History</").append(heading).append("><dl class=\"summary\">");
        term(html, "store", safeStore(history.store()));
        term(html, "test id", history.testId());
        term(html, "fingerprint", history.fingerprint());
        term(html, "run id", history.runId() == null ? "not recorded"
                : history.runId() + (history.recorded() ? "" : " (not recorded)"));
        term(html, "threshold", threshold(history.threshold()));
        html.append("</dl>");
        if (history.error() != null && !history.error().isBlank()) {
            html.append("<p class=\"warning history-error\">History: ").append(escape(history.error()))
                    .append("</p>");
        }
        html.append(historyTable(history));
        if (!trends.isEmpty()) {
            html.append(chartGrid(trends, prefix));
        }
        return html.append("</section>").toString();
    }

    /**
     * @return the history verdicts, one row per metric in file order ({@code tr.history-verdict} with the change as a
     *         class): metric, current, baseline with its kind and run count, change, description; or a line saying
     *         there were none
     */
    static String historyTable(ReportData.History history) {
        if (history.verdicts().isEmpty()) {
            return "<p class=\"history-verdicts\">No history verdicts were recorded.</p>";
        }
        StringBuilder html = new StringBuilder("<div class=\"scroll\"><table class=\"history-verdicts\"><tr>"
                + "<th>metric</th><th>current</th><th>baseline</th><th>change</th><th>description</th></tr>");
        for (ReportData.MetricVerdict v : history.verdicts()) {
            String unit = v.unit().isEmpty() ? "" : " " + v.unit();
            String change = v.changeText() + (v.regression() && !v.enforced() ? " (not enforced)" : "");
            html.append("<tr class=\"history-verdict ").append(escape(v.changeText())).append("\" data-metric=\"")
                    .append(escape(v.metric())).append("\"><td>").append(escape(v.label()))
                    .append(v.label().equals(v.metric()) ? "" : " <small>(" + escape(v.metric()) + ")</small>")
                    .append("</td><td class=\"value\">")
                    .append(v.current() == null ? "–" : escape(compact(v.current()) + unit))
                    .append("</td><td class=\"value\">").append(v.baseline() == null || !Double.isFinite(v.baseline())
                            ? "–" : escape((v.baselineKind().isEmpty() ? "" : v.baselineKind() + " ")
                                    + compact(v.baseline()) + unit + (v.n() == null ? "" : " (n = " + v.n() + ")")))
                    .append("</td><td class=\"change\">").append(escape(change))
                    .append("</td><td class=\"text\">").append(escape(v.description())).append("</td></tr>");
        }
        return html.append("</table></div>").toString();
    }

    /** @return the threshold as one line, e.g. {@code "t-test over the last 20 runs, upper boundary 0.99"} */
    static String threshold(ReportData.Threshold t) {
        if (t == null || t.model() == null) {
            return "–";
        }
        StringBuilder text = new StringBuilder(t.model());
        if (t.window() != null) {
            text.append(" over the last ").append(t.window()).append(t.window() == 1 ? " run" : " runs");
        }
        if (t.lower() != null) {
            text.append(", lower boundary ").append(compact(t.lower()));
        }
        if (t.upper() != null && t.upper() == 1.0 && !"relative".equals(t.model())) {
            text.append(", client metrics by the relative floor alone (boundary 1)");
        } else if (t.upper() != null) {
            text.append(", upper boundary ").append(compact(t.upper()));
        }
        if (t.traceBoundary() != null) {
            text.append(", trace metrics at boundary ").append(compact(t.traceBoundary()));
        }
        return text.toString();
    }

    /**
     * @return a store location without what may hold a credential: user info after {@code //}, and the properties
     *         after {@code ?} or {@code ;} of a JDBC URL
     */
    static String safeStore(String location) {
        return location.replaceAll("//[^/@?;]*@", "//").replaceAll("[?;].*$", "");
    }

    /** @return {@code s} cut to {@code max} characters with an ellipsis */
    static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }

    /** @return {@code v} with three decimals, as the tables print values from summary.json */
    static String ms(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /** @return {@code v} with at most three significant decimals and no trailing zeros, e.g. 232.2, 0.0123 */
    static String compact(double v) {
        if (!Double.isFinite(v)) {
            return String.valueOf(v);
        }
        double abs = Math.abs(v);
        String pattern = abs >= 100 || abs == 0 ? "%.0f" : abs >= 10 ? "%.1f" : abs >= 1 ? "%.2f" : "%.3g";
        String text = String.format(Locale.ROOT, pattern, v);
        return text.contains(".") && !text.contains("e") ? text.replaceAll("0+$", "").replaceAll("\\.$", "") : text;
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static void row(StringBuilder html, String name, String value) {
        html.append("<tr><td>").append(name).append("</td><td>").append(value).append("</td></tr>");
    }

    /** @return whether {@code directory} holds a run (a {@code summary.json}) */
    static boolean isRun(Path directory) {
        return Files.isRegularFile(directory.resolve("summary.json"));
    }

    private static long orZero(Long value) {
        return value == null ? 0 : value;
    }

    private static double orZero(Double value) {
        return value == null ? 0 : value;
    }

    private static String text(String value) {
        return value == null ? "" : value;
    }
}
