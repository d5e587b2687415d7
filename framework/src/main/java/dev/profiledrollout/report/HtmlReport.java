package dev.profiledrollout.report;

import dev.profiledrollout.verdict.Verdict;
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
        RunHeader head = data.head();
        RunHeader.Outcome outcome = head.outcome();
        List<Verdict> verdicts = data.verdicts();
        long failed = verdicts.stream().filter(v -> v.outcome() == Verdict.Outcome.FAIL).count();
        long warnings = verdicts.stream().filter(v -> v.outcome() == Verdict.Outcome.WARN).count();
        int total = verdicts.size();
        String status;
        String message;
        if (outcome != null && outcome.status() != null) {
            status = outcome.status();
            message = text(outcome.message());
            total = outcome.verdicts() != null ? outcome.verdicts() : total;
            failed = outcome.failed() != null ? outcome.failed() : failed;
            warnings = outcome.warnings() != null ? outcome.warnings() : warnings;
        } else if (head.error() != null) {
            status = "ERROR";
            message = head.error();
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
        StringBuilder html = new StringBuilder(bannerHtml(data)).append("<dl class=\"summary\">");
        RunHeader head = data.head();
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
        String faults = typedEngine == null ? null : injectedFaults(typedEngine.simulatedFaults());
        if (faults != null) {
            term(html, "faults injected", faults);
        }
        RunHeader.SimulatedGpuNoise noise = typedEngine == null ? null : typedEngine.simulatedGpuNoise();
        if (noise != null) {
            term(html, "simulated GPU noise", String.format(java.util.Locale.ROOT,
                    "kernel jitter sigma %s, clock spread sigma %s, this run's clock factor %.4f (noise seed %d)",
                    text(noise.kernelJitter()), text(noise.clockSpread()), orZero(noise.clockFactor()),
                    orZero(noise.noiseSeed())));
        }
        if (head.attempted() != null) {
            term(html, "attempted", attempted(head.attempted()));
        }
        RunHeader.Latency latency = head.latency();
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
        steps(html, head.steps());
        List<RunHeader.Worker> workers = head.workers();
        if (workers != null && !workers.isEmpty()) {
            long profiledCount = workers.stream().filter(w -> "PROFILED".equals(w.state())).count();
            term(html, "workers", workers.size() + " (" + profiledCount + " profiled)");
        }
        if (!head.phases().isEmpty()) {
            term(html, "phases", String.join(", ", head.phases().stream().map(p -> text(p.phase())).toList()));
        }
        html.append("</dl>");
        if (head.error() != null && !head.error().equals(banner(data).message())) {
            html.append("<p class=\"fail\">The profile window did not complete: ").append(escape(head.error()))
                    .append("</p>");
        }
        return html.toString();
    }

    private static String attempted(RunHeader.Attempted a) {
        List<String> parts = new ArrayList<>();
        if (a.backend() != null || a.engineKind() != null) {
            parts.add((text(a.backend()) + " " + text(a.engineKind())).trim());
        }
        List<String> urls = a.urls() == null ? List.of()
                : a.urls().stream().map(u -> ReportParameters.safeUrl(text(u))).toList();
        if (!urls.isEmpty()) {
            parts.add(String.join(", ", urls));
        }
        parts.add("numSteps " + (a.numSteps() != null ? a.numSteps() : "until stop_profile"));
        if (a.activities() != null && !a.activities().isEmpty()) {
            parts.add("activities " + String.join(", ", a.activities()));
        }
        if (a.phases() != null && !a.phases().isEmpty()) {
            parts.add("phases " + String.join(", ", a.phases()));
        }
        String load = load(a.load());
        if (!load.isEmpty()) {
            parts.add("load " + load);
        }
        return String.join("; ", parts);
    }

    /** @return a load as one line, e.g. {@code "40 requests, concurrency 8, ISL/OSL 128/8"}; "" without one */
    static String load(RunHeader.Load load) {
        if (load == null) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        if (load.requests() != null) {
            parts.add(load.requests() + " requests");
        }
        double rate = load.arrival() == null || load.arrival().requestRate() == null ? Double.POSITIVE_INFINITY
                : load.arrival().requestRate();
        if (Double.isFinite(rate) && rate > 0) {
            parts.add(compact(rate) + " req/s");
        }
        if (load.concurrency() != null) {
            parts.add("concurrency " + load.concurrency());
        }
        if (load.inputTokens() != null) {
            parts.add("ISL/OSL " + load.inputTokens() + "/" + text(load.outputTokens()));
        }
        return String.join(", ", parts);
    }

    private static void steps(StringBuilder html, CapturedSteps steps) {
        if (steps == null) {
            return;
        }
        StringBuilder captured = new StringBuilder();
        steps.captured().forEach((rank, count) -> captured.append(captured.length() == 0 ? "" : ", ")
                .append(rank).append(": ").append(count));
        String requested = steps.requested() != null ? steps.requested().toString() : "until stop_profile";
        term(html, "steps", "requested " + requested + ", captured " + (captured.length() == 0 ? "none"
                : captured.toString()));
        if (steps.requested() != null) {
            long want = steps.requested();
            if (steps.min() != want || steps.max() != want) {
                html.append("</dl><p class=\"warning steps\">Steps captured (").append(escape(captured.length() == 0
                        ? "none" : captured.toString())).append(") differ from the ").append(want)
                        .append(" requested").append(steps.strict() ? " (strict: the test fails)"
                                : "").append(".</p><dl class=\"summary\">");
            }
        }
    }

    /**
     * The performance faults a simulator served this run with ({@code engine.simulatedFaults} of
     * {@code summary.json}), as one line, or null when none were injected (or {@code faults} is null).
     */
    static String injectedFaults(RunHeader.SimulatedFaults f) {
        if (f == null || !f.injected()) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        if (f.slowKernels() != null) {
            f.slowKernels().forEach((regex, factor) -> parts.add("kernels /" + regex + "/ ×" + factor));
        }
        if (f.slowRanks() != null) {
            f.slowRanks().forEach((rank, factor) -> parts.add("TP rank " + rank + " ×" + factor));
        }
        if (f.slowDecode() != null) {
            parts.add("decode kernels ×" + f.slowDecode());
        }
        if (f.slowPrefill() != null) {
            parts.add("prefill kernels ×" + f.slowPrefill());
        }
        if (f.slowHost() != null) {
            parts.add("host time per step ×" + f.slowHost());
        }
        return "simulator slowed on purpose: " + String.join(", ", parts);
    }

    private static void term(StringBuilder html, String name, String value) {
        html.append("<dt>").append(escape(name)).append("</dt><dd>").append(escape(value)).append("</dd>");
    }

    /** @return the latency table of {@code summary.json}'s {@code latency}: one row per metric, then throughput */
    public static String latencyTable(ReportData data) {
        return latencyTable(data.head().latency());
    }

    /**
     * @return the latency table of a {@code latency} block (the run's or a phase's); a line saying none was measured
     *         without one
     */
    static String latencyTable(RunHeader.Latency latency) {
        if (latency == null) {
            return "<p class=\"latency\">No latency was measured.</p>";
        }
        StringBuilder html = new StringBuilder("<div class=\"scroll\"><table class=\"latency\"><tr><th>metric (ms)"
                + "</th><th>count</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>max</th><th>definition</th>"
                + "</tr>");
        for (String metric : METRICS) {
            RunHeader.Distribution m = latency.distribution(metric);
            long count = m == null ? 0 : orZero(m.count());
            html.append("<tr><td>").append(metric.toUpperCase(Locale.ROOT)).append("</td><td>").append(count)
                    .append("</td>");
            boolean none = count == 0 || m.p50Ms() == null;
            for (String stat : new String[] {"mean", "p50", "p90", "p99", "max"}) {
                Double value = none ? null : m.stat(stat);
                html.append("<td>").append(none ? "none" : value != null ? ms(value) : "–").append("</td>");
            }
            html.append("<td class=\"text\">").append(escape(m == null ? "" : text(m.definition())))
                    .append("</td></tr>");
        }
        html.append("</table></div><table class=\"throughput\"><tr><th>throughput</th><th>value</th></tr>");
        row(html, "completed requests", String.valueOf(orZero(latency.completed())));
        row(html, "failed requests", String.valueOf(orZero(latency.failed())));
        row(html, "duration (ms)", ms(orZero(latency.durationMs())));
        row(html, "request throughput (req/s)", ms(orZero(latency.requestThroughput())));
        row(html, "output token throughput (tok/s)", ms(orZero(latency.outputTokenThroughput())));
        row(html, "total token throughput (tok/s)", ms(orZero(latency.totalTokenThroughput())));
        row(html, "request goodput (req/s)", latency.requestGoodput() != null
                ? ms(latency.requestGoodput()) + (latency.goodRequests() != null ? " (" + latency.goodRequests()
                        + " good; SLO " + escape(latency.goodput() == null ? "" : String.join(" ", latency.goodput()))
                        + ")" : "")
                : "– (no goodput SLO set)");
        StringBuilder errors = new StringBuilder();
        if (latency.errors() != null) {
            latency.errors().forEach((kind, n) -> errors.append(errors.length() == 0 ? "" : ", ").append(kind)
                    .append(": ").append(orZero(n)));
        }
        row(html, "errors", errors.length() == 0 ? "none" : escape(errors.toString()));
        return html.append("</table>").toString();
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
     *         outcome, trace files; "" without workers (null or empty)
     */
    public static String workersTable(List<RunHeader.Worker> workers) {
        if (workers == null || workers.isEmpty()) {
            return "";
        }
        boolean phased = workers.stream().anyMatch(w -> w.phase() != null);
        StringBuilder html = new StringBuilder("<div class=\"scroll\"><table class=\"workers\"><tr>"
                + (phased ? "<th>phase</th>" : "") + "<th>worker</th>"
                + "<th>URL</th><th>type</th><th>outcome</th><th>trace files</th></tr>");
        int i = 0;
        for (RunHeader.Worker w : workers) {
            i++;
            if (phased) {
                html.append("<tr><td>").append(escape(text(w.phase()))).append("</td>");
            }
            StringBuilder outcome = new StringBuilder(text(w.state()));
            if (w.httpStatus() != null && w.httpStatus() != 0) {
                outcome.append(", HTTP ").append(w.httpStatus());
            }
            if (w.reason() != null && !w.reason().isEmpty()) {
                outcome.append(": ").append(w.reason());
            }
            if (w.stopOutcome() != null) {
                outcome.append(" (stop: ").append(w.stopOutcome()).append(')');
            }
            List<String> files = w.traceFiles();
            html.append(phased ? "<td>" : "<tr><td>").append(escape(w.label() != null ? w.label() : "worker-" + i))
                    .append("</td><td class=\"text\">")
                    .append(escape(w.url() != null ? ReportParameters.safeUrl(w.url()) : ""))
                    .append("</td><td class=\"text\">").append(escape(text(w.workerType())))
                    .append("</td><td class=\"text ").append("PROFILED".equals(w.state()) ? "pass"
                            : "fail").append("\">").append(escape(outcome.toString())).append("</td><td class=\"kernel\">")
                    .append(escape(files == null ? "–" : files.isEmpty() ? "none" : String.join(", ", files)))
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
        record Row(dev.profiledrollout.trace.roofline.OperatorRoofline op, double kernelNs) {
        }
        List<Row> rows = new ArrayList<>();
        String device = null;
        for (LabeledTrace rank : data.trace().ranks()) {
            var details = rank.summary().details();
            if (device == null && details.deviceName().isPresent()) {
                device = details.deviceName().get();
            }
            for (var r : details.roofline()) {
                if (r.count() > 0) {
                    rows.add(new Row(r, r.kernelNs().mean() * r.count()));
                }
            }
        }
        if (rows.isEmpty()) {
            return "";
        }
        rows.sort(Comparator.comparingDouble(Row::kernelNs).reversed());
        java.util.Optional<dev.profiledrollout.trace.roofline.GpuPeaks.Gpu> gpu = device == null ? java.util.Optional.empty()
                : dev.profiledrollout.trace.roofline.GpuPeaks.defaults().find(device);
        StringBuilder html = new StringBuilder("<h2>Roofline</h2><p class=\"roofline-device\">")
                .append(gpu.isPresent() ? "Peaks of " + escape(gpu.get().id()) + " (" + escape(device) + ")"
                        : "No peaks known for " + escape(device == null ? "this device" : device)
                        + ": add them with -Dprofiledrollout.gpu.peaks.file")
                .append(".</p><div class=\"scroll\"><table class=\"roofline\"><tr><th>op</th><th>input dims</th>"
                        + "<th>precision</th><th>calls</th><th>GFLOPs / call</th><th>MiB / call</th>"
                        + "<th>FLOP/byte</th><th>kernel (µs, median)</th><th>TFLOPS/s (median)</th>"
                        + "<th>TB/s (median)</th><th>of peak</th></tr>");
        for (Row row : rows.subList(0, Math.min(ROOFLINE_ROWS, rows.size()))) {
            var r = row.op();
            double flops = r.flops();
            double bytes = r.bytes();
            double tflops = r.tflops().median();
            String precision = text(r.precision());
            java.util.OptionalDouble peak = gpu.map(g -> g.peakTflops(precision))
                    .orElse(java.util.OptionalDouble.empty());
            html.append("<tr><td class=\"text\">").append(escape(text(r.name()))).append("</td><td class=\"text\">")
                    .append(escape(text(r.inputDims()))).append("</td><td class=\"text\">")
                    .append(escape(precision)).append("</td><td>").append(r.count()).append("</td><td>")
                    .append(fixed(flops / 1e9, 3)).append("</td><td>").append(fixed(bytes / 1048576.0, 2))
                    .append("</td><td>").append(fixed(flops / bytes, 1)).append("</td><td>")
                    .append(fixed(r.kernelNs().median() / 1e3, 1)).append("</td><td>")
                    .append(fixed(tflops, 1)).append("</td><td>")
                    .append(fixed(r.tbps().median(), 2)).append("</td><td>")
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
    static String baselineTable(RunHeader.Baseline baseline) {
        List<RunHeader.BaselineKernel> kernels = baseline == null ? null : baseline.kernels();
        if (kernels == null || kernels.isEmpty()) {
            return "";
        }
        StringBuilder html = new StringBuilder("<h2>Baseline</h2><div class=\"scroll\"><table class=\"baseline\">"
                + "<tr><th>#</th><th>kernel</th><th>baseline (ms)</th><th>this run (ms)</th><th>change</th></tr>");
        int i = 0;
        for (RunHeader.BaselineKernel k : kernels) {
            if (i++ == Charts.TOP_KERNELS) {
                break;
            }
            long base = k.baseTotalNs();
            long run = k.totalNs();
            String name = text(k.name());
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
    static String baselineStages(RunHeader.Baseline baseline) {
        if (baseline.windowTotalsOnly() != null) {
            return "<p class=\"note\">Window totals only: " + escape(baseline.windowTotalsOnly()) + "</p>";
        }
        List<RunHeader.BaselineStage> stages = baseline.stages();
        if (stages == null || stages.isEmpty()) {
            return "";
        }
        StringBuilder html = new StringBuilder("<p>Per step kind (" + escape(text(baseline.mix())) + ")");
        if (baseline.incomparable() != null) {
            html.append("; incomparable: ").append(escape(baseline.incomparable()));
        }
        html.append("</p><div class=\"scroll\"><table class=\"baseline-stages\"><tr><th>step kind</th>"
                + "<th>steps (baseline → run)</th><th>per</th><th>baseline (ms)</th><th>this run (ms)</th>"
                + "<th>change</th></tr>");
        for (RunHeader.BaselineStage st : stages) {
            String unit = text(st.unit());
            long baseSteps = st.baseSteps();
            long steps = st.steps();
            double baseUnits = "token".equals(unit) ? st.baseTokens() : baseSteps;
            double units = "token".equals(unit) ? st.tokens() : steps;
            Double change = st.kernelTimeChange();
            html.append("<tr><td>").append(escape(text(st.stage()))).append("</td><td>").append(baseSteps)
                    .append(" → ").append(steps).append("</td><td>").append(escape(unit)).append("</td><td>")
                    .append(baseUnits > 0 ? ms(st.baseKernelNs() / baseUnits / 1e6) : "–")
                    .append("</td><td>").append(units > 0 ? ms(st.kernelNs() / units / 1e6) : "–")
                    .append("</td><td>").append(change != null && Double.isFinite(change)
                            ? String.format(Locale.ROOT, "%+.1f%%", 100 * change) : "incomparable")
                    .append("</td></tr>");
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
        for (ReportData.StepTimelineSet set : data.trace().stepTimeline()) {
            String worker = set.worker();
            html.append("<p class=\"steps\">Step timeline").append(worker.isEmpty() ? "" : " of " + escape(worker))
                    .append(": ").append(escape(set.clockAlignment() == null ? ""
                            : text(set.clockAlignment().note())));
            if (set.ranks().size() > 1) {
                html.append("; largest gap to a step's straggler ").append(ms(set.maxGapNs() / 1e6))
                        .append(" ms; straggler in");
                StringBuilder counts = new StringBuilder();
                if (set.stragglerSteps() != null) {
                    set.stragglerSteps().forEach((rank, n) -> counts.append(counts.isEmpty() ? " " : ", ")
                            .append(escape(rank)).append(": ").append(n == null ? 0 : n));
                }
                html.append(counts).append(" steps");
            }
            html.append(".</p>");
            if (set.ranks().size() > 1) {
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
    static String stepGapTable(ReportData.StepTimelineSet set) {
        List<ReportData.TimelineStep> steps = new ArrayList<>(set.steps());
        steps.removeIf(st -> st.maxGapNs() == 0);
        if (steps.isEmpty()) {
            return "";
        }
        steps.sort(Comparator.comparingLong(ReportData.TimelineStep::maxGapNs).reversed());
        StringBuilder html = new StringBuilder("<div class=\"scroll\"><table class=\"step-gaps\"><tr><th>step</th>");
        List<String> ranks = set.ranks();
        ranks.forEach(r -> html.append("<th>").append(escape(text(r))).append(" busy (ms)</th>"));
        html.append("<th>largest gap (ms)</th></tr>");
        for (ReportData.TimelineStep st : steps.subList(0, Math.min(STEP_ROWS, steps.size()))) {
            String straggler = text(st.straggler());
            html.append("<tr><td class=\"text\">").append(escape(text(st.name()))).append("</td>");
            for (int r = 0; r < ranks.size(); r++) {
                html.append(text(ranks.get(r)).equals(straggler) ? "<td class=\"straggler\" title=\"straggler\">"
                                : "<td>").append(ms(st.busyNs(r) / 1e6)).append("</td>");
            }
            html.append("<td>").append(ms(st.maxGapNs() / 1e6)).append("</td></tr>");
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
        RunHeader head = data.head();
        StringBuilder html = new StringBuilder("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>")
                .append(escape(data.testName())).append(" — Profiled Rollout</title><style>").append(STYLE)
                .append("</style></head><body><h1>").append(escape(data.testName())).append("</h1>")
                .append(summaryHtml(data));
        html.append("<h2>Budgets</h2>").append(verdictTable(data.verdicts()));
        html.append(StageReport.section(data.directory()));
        String workers = workersTable(head.workers());
        if (!workers.isEmpty()) {
            html.append("<h2>Workers</h2>").append(workers);
        }
        List<Charts.NamedChart> plain = charts.stream().filter(c -> !Charts.isTrend(c)).toList();
        if (head.latency() != null || !plain.isEmpty()) {
            html.append("<h2>Charts</h2>").append(chartGrid(plain, ""));
        }
        data.history().ifPresent(h -> html.append(historySection(h, charts.stream().filter(Charts::isTrend)
                .toList(), "", "h2", "history")));
        for (RunHeader.PhaseEntry p : head.phases()) {
            html.append(phaseSection(p, phases.getOrDefault(text(p.directory()), List.of())));
        }
        if (head.latency() != null) {
            html.append("<h2>Latency</h2>").append(latencyTable(head.latency()));
        }
        Map<String, String> parameters = ReportParameters.of(head);
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
        html.append(baselineTable(head.baseline()));
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
    static String phaseSection(RunHeader.PhaseEntry phase, List<Charts.NamedChart> charts) {
        String name = phase.phase() != null ? phase.phase() : "phase";
        String directory = text(phase.directory());
        StringBuilder html = new StringBuilder("<section class=\"phase\" id=\"phase-").append(escape(name))
                .append("\"><h2>Phase ").append(escape(name)).append("</h2>");
        String load = load(phase.load());
        html.append("<dl class=\"summary\">");
        if (!load.isEmpty()) {
            term(html, "load", load);
        }
        steps(html, phase.steps());
        html.append("</dl>");
        List<Verdict> verdicts = ReportData.verdicts(phase.verdicts());
        html.append("<h3>Budgets</h3>").append(verdictTable(verdicts));
        String workers = workersTable(phase.workers());
        if (!workers.isEmpty()) {
            html.append("<h3>Workers</h3>").append(workers);
        }
        html.append("<h3>Latency</h3>").append(latencyTable(phase.latency()));
        List<Charts.NamedChart> plain = charts.stream().filter(c -> !Charts.isTrend(c)).toList();
        if (!plain.isEmpty()) {
            html.append("<h3>Charts</h3>").append(chartGrid(plain, directory + "/"));
        }
        if (phase.history() != null) {
            html.append(historySection(phase.history(), charts.stream().filter(Charts::isTrend).toList(),
                    directory.isEmpty() ? "" : directory + "/", "h3", "history-" + name));
        }
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

    private static long orZero(Integer value) {
        return value == null ? 0 : value;
    }

    private static String text(Object value) {
        return value == null ? "" : value.toString();
    }
}
