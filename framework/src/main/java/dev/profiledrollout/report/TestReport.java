package dev.profiledrollout.report;

import static dev.profiledrollout.ProfiledRolloutKeys.REPORT_ATTACH_MAX_BYTES;
import static dev.profiledrollout.ProfiledRolloutKeys.REPORT_ATTACH_TRACES;
import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.verdict.Verdict;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.ProfiledRolloutKeys;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.apiguardian.api.API;

/**
 * Finishes one profiled test's report after its body: adds the budget verdicts and the test's {@link TestOutcome}
 * to {@code summary.json}, renders the
 * charts, {@code kernels.csv} and {@code report.html} ({@link ReportRenderer}), prints the outcome, every verdict and
 * the workers on the console, and, inside an Allure test case, adds the parameters and labels, a {@code budgets} step
 * with one step per verdict (a warning passes, its name starting with {@code WARN}), per phase of a phased test a
 * {@code phase <NAME>} step with that phase's budgets, latency table and charts, and the attachments: summary (HTML:
 * the outcome banner and the summary of {@code report.html}), workers (HTML, when there were workers), latency table
 * (HTML), budget verdicts (HTML), the history table (HTML, when {@code summary.json} has a {@code history} block; a
 * phase's in its step), every chart (PNG; the trend charts of the history block among them), the kernel table (CSV),
 * {@code summary.json}, and the trace files when {@link Options#attachTraces()} is on and each is at most
 * {@link Options#maxTraceBytes()} (otherwise their paths are listed in {@code summary.json} only).
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class TestReport {

    private static final ObjectMapper JSON = ResultsModule.MAPPER;

    private TestReport() {
    }

    /**
     * Report options.
     *
     * @param attachTraces  attach the trace files to Allure
     * @param maxTraceBytes larger trace files are referenced by path only
     */
    public record Options(boolean attachTraces, long maxTraceBytes) {

        /** Nothing attached beyond the report itself. */
        public static final Options DEFAULTS = new Options(false, 20L << 20);

        /**
         * @param lookup configuration parameter by key (JUnit configuration parameters, then system properties);
         *               the keys' environment variables ({@link ProfiledRolloutKeys#environmentVariable(String)}) are
         *               read after it; keys {@link ProfiledRolloutKeys#REPORT_ATTACH_TRACES} and
         *               {@link ProfiledRolloutKeys#REPORT_ATTACH_MAX_BYTES}
         * @throws IllegalArgumentException for a max size that is not a number
         */
        public static Options from(Function<String, Optional<String>> lookup) {
            Function<String, Optional<String>> withEnv = key -> lookup.apply(key).or(() -> Optional.ofNullable(
                    System.getenv(ProfiledRolloutKeys.environmentVariable(key))));
            boolean attach = withEnv.apply(REPORT_ATTACH_TRACES).map(Boolean::parseBoolean).orElse(false);
            String max = withEnv.apply(REPORT_ATTACH_MAX_BYTES).orElse(String.valueOf(DEFAULTS.maxTraceBytes()));
            try {
                return new Options(attach, Long.parseLong(max.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(REPORT_ATTACH_MAX_BYTES + " must be a number of bytes, was '" + max
                        + "'");
            }
        }
    }

    /**
     * Finishes the report of a test whose outcome follows from its verdicts alone
     * ({@link TestOutcome#of(List, Throwable, boolean) TestOutcome.of(verdicts, null, false)}).
     *
     * @see #finish(Path, List, List, Options, PrintStream, TestOutcome)
     */
    public static Optional<ReportRenderer.Rendered> finish(Path directory, List<Verdict> verdicts, List<Path> traceFiles,
            Options options, PrintStream console) {
        return finish(directory, verdicts, traceFiles, options, console, TestOutcome.of(verdicts, null, false));
    }

    /**
     * @param directory  the test's output directory; nothing happens when it has no {@code summary.json}
     * @param verdicts   the budget verdicts of the body, in order; may be empty
     * @param traceFiles the collected trace files (attached only on request)
     * @param options    what to attach
     * @param console    where the outcome, the verdicts and the workers are printed
     * @param outcome    how the test ended, written as {@code summary.json}'s top-level {@code outcome}
     * @return the rendered report, or empty without {@code summary.json}
     * @throws UncheckedIOException when a report file cannot be read or written
     */
    public static Optional<ReportRenderer.Rendered> finish(Path directory, List<Verdict> verdicts, List<Path> traceFiles,
            Options options, PrintStream console, TestOutcome outcome) {
        Path summaryFile = directory.resolve("summary.json");
        if (!Files.isRegularFile(summaryFile)) {
            return Optional.empty();
        }
        writeVerdicts(summaryFile, verdicts, traceFiles, outcome);
        ReportRenderer.Rendered rendered = ReportRenderer.render(directory);
        printOutcome(rendered.data(), console);
        if (AllureSteps.active()) {
            allure(rendered, verdicts, traceFiles, options);
        }
        return Optional.of(rendered);
    }

    private static void writeVerdicts(Path summaryFile, List<Verdict> verdicts, List<Path> traceFiles,
            TestOutcome outcome) {
        SummaryFile.read(summaryFile).toBuilder()
                .verdicts(verdicts)
                .traceFiles(traceFiles.stream().map(Path::toString).toList())
                .outcome(outcome)
                .build().write(summaryFile);
    }

    /**
     * Sets {@code summary.json}'s top-level {@code outcome} (and {@code verdicts}, when it has none yet) of a test that
     * ended before its report could be finished, e.g. when the profile window failed to open.
     *
     * @param directory the test's output directory; nothing happens when it has no {@code summary.json}
     * @param verdicts  the verdicts recorded so far, may be empty
     * @param outcome   how the test ended
     * @throws UncheckedIOException when {@code summary.json} cannot be read or written
     */
    public static void writeOutcome(Path directory, List<Verdict> verdicts, TestOutcome outcome) {
        Path summaryFile = directory.resolve("summary.json");
        if (!Files.isRegularFile(summaryFile)) {
            return;
        }
        SummaryFile summary = SummaryFile.read(summaryFile);
        SummaryFile.Builder next = summary.toBuilder().outcome(outcome);
        if (summary.verdicts() == null || summary.verdicts().isEmpty()) {
            next.verdicts(verdicts);
        }
        next.build().write(summaryFile);
    }

    /**
     * Prints the one-line outcome, then every verdict ({@link Verdict#describe()}, failures first), the history
     * verdicts not already printed among them ({@link #historyLines}) and, when the test had workers, a workers table.
     */
    static void printOutcome(ReportData data, PrintStream console) {
        HtmlReport.Banner banner = HtmlReport.banner(data);
        StringBuilder text = new StringBuilder("=== ").append(data.testName()).append(": ").append(banner.headline())
                .append('\n');
        if (!banner.message().isEmpty() && !banner.status().equals("PASSED")
                && data.verdicts().stream().noneMatch(v -> v.describe().equals(banner.message()))) {
            text.append("  ").append(banner.message().lines().findFirst().orElse("")).append('\n');
        }
        List<Verdict> verdicts = HtmlReport.failuresFirst(data.verdicts());
        if (!verdicts.isEmpty()) {
            text.append("  Budgets:\n");
            verdicts.forEach(v -> text.append("    ").append(v.describe()).append('\n'));
        }
        List<String> history = historyLines(data);
        if (!history.isEmpty()) {
            text.append("  History:\n");
            history.forEach(line -> text.append("    ").append(line).append('\n'));
        }
        List<RunHeader.Worker> workers = data.head().workers();
        if (workers != null && !workers.isEmpty()) {
            text.append("  Workers:\n");
            int i = 0;
            for (RunHeader.Worker w : workers) {
                i++;
                text.append(String.format(Locale.ROOT, "    %s%-10s %-32s %-8s %-16s %s",
                        w.phase() != null ? w.phase() + " " : "", w.label() != null ? w.label() : "worker-" + i,
                        ReportParameters.safeUrl(w.url() == null ? "" : w.url()),
                        w.workerType() == null ? "" : w.workerType(), w.state() == null ? "" : w.state(),
                        w.traceFiles() != null ? w.traceFiles().size() + " trace file(s)" : "").stripTrailing()
                        + "\n");
            }
        }
        console.print(text);
        console.flush();
    }

    /**
     * @return one line per history verdict of the run's and each phase's {@code history} block ({@code "<CHANGE>
     *         [<PHASE>] <description>"}) that is not already among the verdicts: those the run recorded as
     *         {@code "<label> vs history"} in the same scope, or whose detail starts with its description
     */
    static List<String> historyLines(ReportData data) {
        List<String> lines = new java.util.ArrayList<>();
        data.history().ifPresent(h -> historyLines(h, "", data.verdicts(), lines));
        for (RunHeader.PhaseEntry p : data.head().phases()) {
            if (p.history() != null) {
                historyLines(p.history(), p.phase() == null ? "" : p.phase(), data.verdicts(), lines);
            }
        }
        return lines;
    }

    private static void historyLines(ReportData.History history, String scope, List<Verdict> verdicts,
            List<String> lines) {
        for (ReportData.MetricVerdict v : history.verdicts()) {
            boolean printed = verdicts.stream().anyMatch(r -> r.scope().equals(scope)
                    && (r.measure().equals(v.label() + " vs history")
                            || !v.description().isEmpty() && r.detail().startsWith(v.description())));
            if (!printed) {
                lines.add(v.changeText() + " " + (scope.isEmpty() ? "" : "[" + scope + "] ")
                        + (v.description().isEmpty() ? v.label() : v.description())
                        + (v.regression() && !v.enforced() ? " (not enforced)" : ""));
            }
        }
    }

    private static void allure(ReportRenderer.Rendered rendered, List<Verdict> verdicts, List<Path> traceFiles,
            Options options) {
        ReportData data = rendered.data();
        RunHeader head = data.head();
        AllureSteps.describe(ReportParameters.of(head));
        budgets("budgets", data.verdicts());
        AllureSteps.attach("summary", "text/html", "html", fragment(data.testName(), HtmlReport.summaryHtml(data)));
        String workers = HtmlReport.workersTable(head.workers());
        if (!workers.isEmpty()) {
            AllureSteps.attach("workers", "text/html", "html", fragment("workers", workers));
        }
        AllureSteps.attach("latency table", "text/html", "html",
                HtmlReport.latencyTable(data).getBytes(StandardCharsets.UTF_8));
        AllureSteps.attach("budget verdicts", "text/html", "html",
                HtmlReport.verdictTable(data.verdicts()).getBytes(StandardCharsets.UTF_8));
        data.history().ifPresent(h -> AllureSteps.attach("history table", "text/html", "html",
                fragment("history", HtmlReport.historySection(h, List.of(), "", "h2", "history"))));
        try {
            attachCharts("", rendered);
            for (ReportRenderer.Rendered phase : rendered.phases()) {
                String phaseName = phase.data().head().phase();
                String name = phaseName != null ? phaseName : phase.data().directory().getFileName().toString();
                AllureSteps.step("phase " + name, () -> {
                    budgets("budgets", phase.data().verdicts());
                    AllureSteps.attach(name + ": latency table", "text/html", "html",
                            HtmlReport.latencyTable(phase.data()).getBytes(StandardCharsets.UTF_8));
                    phase.data().history().ifPresent(h -> AllureSteps.attach(name + ": history table",
                            "text/html", "html", fragment(name + ": history",
                                    HtmlReport.historySection(h, List.of(), "", "h3", "history-" + name))));
                    attachCharts(name + ": ", phase);
                    return null;
                });
            }
            AllureSteps.attach("kernel table", "text/csv", "csv", Files.readAllBytes(rendered.kernelCsv()));
            AllureSteps.attach("summary.json", "application/json", "json",
                    Files.readAllBytes(data.directory().resolve("summary.json")));
            if (options.attachTraces()) {
                for (Path trace : traceFiles) {
                    if (Files.isRegularFile(trace) && Files.size(trace) <= options.maxTraceBytes()) {
                        AllureSteps.attach("trace: " + trace.getFileName(), "application/octet-stream",
                                extension(trace), Files.readAllBytes(trace));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not attach the report of " + data.directory() + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * The step {@code "<name>: X of N held"}, failed when a verdict failed, with one step per verdict: PASS passed,
     * FAIL failed, WARN passed (the test does not fail) under a name starting with {@code WARN}.
     */
    private static void budgets(String name, List<Verdict> verdicts) {
        long failed = verdicts.stream().filter(v -> v.outcome() == Verdict.Outcome.FAIL).count();
        long warnings = verdicts.stream().filter(v -> v.outcome() == Verdict.Outcome.WARN).count();
        AllureSteps.budgets(name + ": " + (verdicts.size() - failed - warnings) + " of " + verdicts.size() + " held"
                + (warnings == 0 ? "" : ", " + warnings + " warning(s)"), failed == 0,
                () -> HtmlReport.failuresFirst(verdicts).forEach(v -> AllureSteps.outcome(v.describe(),
                        v.outcome() != Verdict.Outcome.FAIL, v.describe())));
    }

    private static void attachCharts(String prefix, ReportRenderer.Rendered rendered) throws IOException {
        for (int i = 0; i < rendered.charts().size(); i++) {
            AllureSteps.attach(prefix + "chart: " + rendered.charts().get(i).title(), "image/png", "png",
                    Files.readAllBytes(rendered.pngs().get(i)));
        }
    }

    /** @return {@code body} as a standalone HTML document (Allure shows HTML attachments in a frame) */
    private static byte[] fragment(String title, String body) {
        return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + HtmlReport.escape(title)
                + "</title><style>" + HtmlReport.style() + "</style></head><body>" + body + "</body></html>")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static String extension(Path file) {
        String name = file.getFileName().toString();
        int dot = name.indexOf('.');
        return dot < 0 ? "bin" : name.substring(dot + 1);
    }
}
