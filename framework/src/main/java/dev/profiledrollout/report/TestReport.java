package dev.profiledrollout.report;

import static dev.profiledrollout.ProfiledRolloutKeys.REPORT_ATTACH_MAX_BYTES;
import static dev.profiledrollout.ProfiledRolloutKeys.REPORT_ATTACH_TRACES;
import static org.apiguardian.api.API.Status.EXPERIMENTAL;

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
 * charts, {@code kernels.csv} and {@code report.html} ({@link ReportRenderer}), prints the verdicts on the console, and,
 * inside an Allure test case, adds the parameters and labels, a {@code budgets} step with one step per verdict, and
 * the attachments: latency table (HTML), budget verdicts (HTML), every chart (PNG), the kernel table (CSV),
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
     * @param console    where the verdicts are printed
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
        printVerdicts(rendered.data().testName(), verdicts, console);
        if (AllureSteps.active()) {
            allure(rendered, verdicts, traceFiles, options);
        }
        return Optional.of(rendered);
    }

    private static void writeVerdicts(Path summaryFile, List<Verdict> verdicts, List<Path> traceFiles,
            TestOutcome outcome) {
        try {
            ObjectNode root = (ObjectNode) JSON.readTree(summaryFile.toFile());
            root.set("verdicts", JSON.valueToTree(verdicts));
            ArrayNode files = root.putArray("traceFiles");
            traceFiles.forEach(f -> files.add(f.toString()));
            root.set("outcome", JSON.valueToTree(outcome));
            JSON.writeValue(summaryFile.toFile(), root);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not add the verdicts to " + summaryFile, e);
        }
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
        try {
            ObjectNode root = (ObjectNode) JSON.readTree(summaryFile.toFile());
            if (!root.has("verdicts") || root.path("verdicts").isEmpty()) {
                root.set("verdicts", JSON.valueToTree(verdicts));
            }
            root.set("outcome", JSON.valueToTree(outcome));
            JSON.writeValue(summaryFile.toFile(), root);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not add the outcome to " + summaryFile, e);
        }
    }

    private static void printVerdicts(String test, List<Verdict> verdicts, PrintStream console) {
        if (verdicts.isEmpty()) {
            return;
        }
        StringBuilder text = new StringBuilder("=== Budgets: ").append(test).append('\n');
        verdicts.forEach(v -> text.append("  ").append(v.describe()).append('\n'));
        long failed = verdicts.stream().filter(v -> !v.passed()).count();
        text.append(String.format(Locale.ROOT, "  %d of %d budget(s) held%n", verdicts.size() - failed,
                verdicts.size()));
        console.print(text);
        console.flush();
    }

    private static void allure(ReportRenderer.Rendered rendered, List<Verdict> verdicts, List<Path> traceFiles,
            Options options) {
        ReportData data = rendered.data();
        AllureSteps.describe(ReportParameters.of(data.summary()));
        long failed = verdicts.stream().filter(v -> !v.passed()).count();
        AllureSteps.budgets("budgets: " + (verdicts.size() - failed) + " of " + verdicts.size() + " held",
                failed == 0, () -> verdicts.forEach(v -> AllureSteps.outcome(v.describe(), v.passed(), v.describe())));
        AllureSteps.attach("latency table", "text/html", "html",
                HtmlReport.latencyTable(data).getBytes(StandardCharsets.UTF_8));
        AllureSteps.attach("budget verdicts", "text/html", "html",
                HtmlReport.verdictTable(verdicts).getBytes(StandardCharsets.UTF_8));
        try {
            for (int i = 0; i < rendered.charts().size(); i++) {
                AllureSteps.attach("chart: " + rendered.charts().get(i).title(), "image/png", "png",
                        Files.readAllBytes(rendered.pngs().get(i)));
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

    private static String extension(Path file) {
        String name = file.getFileName().toString();
        int dot = name.indexOf('.');
        return dot < 0 ? "bin" : name.substring(dot + 1);
    }
}
