package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.history.stats.Change;
import dev.profiledrollout.verdict.Verdict;
import io.qameta.allure.Allure;
import io.qameta.allure.AllureLifecycle;
import io.qameta.allure.model.Attachment;
import io.qameta.allure.model.StepResult;
import io.qameta.allure.model.TestResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;

/**
 * The {@code history} block of {@code summary.json} read back, charted, rendered in {@code report.html}, printed and
 * attached to Allure, from the fixtures under {@code report/history/HistoryFixture}: {@code trends} (21 runs of the
 * five key metrics, a past REGRESSION of p99 TTFT at the 15th run and a past IMPROVEMENT of throughput at the 10th,
 * the first two runs INSUFFICIENT_HISTORY), {@code phased} (a history block per phase, the PREFILL phase's current
 * run a REGRESSION that is not enforced) and {@code old} (a summary written before runs were recorded).
 */
class HistoryTrendsTest {

    private static final List<String> KEY_METRICS = List.of("ttft.p99", "itl.p99", "tpot.p99", "e2e.p99",
            "throughput.output_tokens");

    @TempDir
    Path dir;

    /** @return a copy of the fixture {@code name} in the temporary directory, so rendering writes there */
    private Path fixture(String name) {
        try {
            Path source = Path.of(HistoryTrendsTest.class.getResource("/report/history/HistoryFixture/" + name)
                    .toURI());
            Path target = dir.resolve(name);
            try (Stream<Path> files = Files.walk(source)) {
                for (Path f : files.toList()) {
                    Path to = target.resolve(source.relativize(f).toString());
                    if (Files.isDirectory(f)) {
                        Files.createDirectories(to);
                    } else {
                        Files.copy(f, to);
                    }
                }
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static XYChart trendChart(List<Charts.NamedChart> charts, String name) {
        return (XYChart) charts.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow().chart();
    }

    private static double[] x(XYChart chart, String series) {
        XYSeries s = chart.getSeriesMap().get(series);
        return s == null ? new double[0] : s.getXData();
    }

    @Test
    void should_read_the_history_block_with_its_verdicts_and_trends_oldest_first() {
        // WHEN
        ReportData.History history = ReportData.read(fixture("trends")).history().orElseThrow();
        // THEN
        assertThat(history.store()).isEqualTo("jdbc:sqlite:.profiled-rollout/history.db");
        assertThat(history.runId()).isEqualTo(42L);
        assertThat(history.testId()).isEqualTo("dev.profiledrollout.examples.HistoryFixture#trends");
        assertThat(history.fingerprint()).hasSize(16);
        assertThat(history.recorded()).isTrue();
        assertThat(history.error()).isNull();
        assertThat(history.threshold()).isEqualTo(new ReportData.Threshold("t-test", 20, null, 0.99));
        assertThat(history.verdicts()).extracting(ReportData.MetricVerdict::metric).containsExactlyElementsOf(
                KEY_METRICS);
        assertThat(history.verdicts().get(0).description()).startsWith("p99 TTFT 305 ms vs mean 265 ms of last 20 runs");
        assertThat(history.trends()).extracting(ReportData.Trend::metric).containsExactlyElementsOf(KEY_METRICS);
        ReportData.Trend ttft = history.trends().get(0);
        assertThat(ttft.points()).hasSize(21);
        assertThat(ttft.points()).extracting(ReportData.Point::runId).isSorted().startsWith(22L).endsWith(42L);
        assertThat(ttft.points()).filteredOn(ReportData.Point::current).extracting(ReportData.Point::runId)
                .containsExactly(42L);
        assertThat(ttft.points().get(14).change()).isEqualTo(Change.REGRESSION);
        assertThat(ttft.points()).extracting(ReportData.Point::change).startsWith(Change.INSUFFICIENT_HISTORY,
                Change.INSUFFICIENT_HISTORY, Change.NO_CHANGE);
    }

    @Test
    void should_tolerate_a_summary_without_history_and_name_a_malformed_block() {
        // GIVEN
        Path old = fixture("old");
        // WHEN / THEN
        assertThat(ReportData.read(old).history()).isEmpty();
        RunFixtures.editSummary(old, root -> root.putArray("history"));
        assertThat(ReportData.read(old).history()).isEmpty();
        RunFixtures.editSummary(old, root -> root.putObject("history").put("trends", "not a list"));
        assertThatThrownBy(() -> ReportData.read(old).history()).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("summary.json: unreadable history block");
    }

    @Test
    void should_chart_each_trend_with_the_current_run_the_change_points_and_the_history_mean() {
        // WHEN
        List<Charts.NamedChart> charts = Charts.withTrends(ReportData.read(fixture("trends")));
        // THEN
        assertThat(charts.stream().filter(Charts::isTrend).map(Charts.NamedChart::name)).containsExactly(
                "trend-ttft-p99", "trend-itl-p99", "trend-tpot-p99", "trend-e2e-p99",
                "trend-throughput-output-tokens");
        XYChart ttft = trendChart(charts, "trend-ttft-p99");
        assertThat(ttft.getTitle()).isEqualTo("Trend of p99 TTFT over 21 runs (1 regression)");
        assertThat(ttft.getYAxisTitle()).isEqualTo("p99 TTFT (ms)");
        assertThat(ttft.getWidth()).isEqualTo(Charts.WIDTH);
        assertThat(ttft.getHeight()).isEqualTo(Charts.HEIGHT);
        assertThat(x(ttft, Charts.VALUE_SERIES)).hasSize(21).startsWith(1.0).endsWith(21.0);
        assertThat(x(ttft, Charts.REGRESSION_SERIES)).containsExactly(15.0);
        assertThat(x(ttft, Charts.IMPROVEMENT_SERIES)).isEmpty();
        assertThat(x(ttft, Charts.CURRENT_SERIES)).containsOnly(21.0);
        assertThat(x(ttft, Charts.UNCHECKED_SERIES)).containsExactly(1.0, 2.0);
        assertThat(ttft.getSeriesMap().get(Charts.REGRESSION_SERIES).getMarkerColor())
                .isEqualTo(new java.awt.Color(0xC62828));
        assertThat(ttft.getSeriesMap().get(Charts.CURRENT_SERIES).getYData()).containsExactly(
                ttft.getStyler().getYAxisMin(), ttft.getStyler().getYAxisMax());
        // the mean of the 20 runs before the current one, drawn across the chart
        ReportData.Trend trend = ReportData.read(dir.resolve("trends")).history().orElseThrow().trends().get(0);
        double mean = trend.points().subList(0, 20).stream().mapToDouble(ReportData.Point::value).average()
                .orElseThrow();
        assertThat(ttft.getSeriesMap().get(Charts.MEAN_SERIES).getYData()).containsExactly(mean, mean);
        XYChart throughput = trendChart(charts, "trend-throughput-output-tokens");
        assertThat(throughput.getTitle()).endsWith("(1 improvement)");
        assertThat(x(throughput, Charts.IMPROVEMENT_SERIES)).containsExactly(10.0);
        assertThat(x(throughput, Charts.REGRESSION_SERIES)).isEmpty();
        // ticks name the run by store id and short commit at whole runs only
        var ticks = ttft.getStyler().getxAxisTickLabelsFormattingFunction();
        assertThat(ticks.apply(1.0)).isEqualTo("#22 " + trend.points().get(0).commit());
        assertThat(ticks.apply(21.0)).startsWith("#42 ");
        assertThat(ticks.apply(1.5)).isEmpty();
        assertThat(ticks.apply(0.0)).isEmpty();
    }

    @Test
    void should_render_a_history_section_with_one_row_per_verdict_and_trend_images_that_exist() throws Exception {
        // WHEN
        ReportRenderer.Rendered rendered = ReportRenderer.render(fixture("trends"));
        // THEN
        String html = Files.readString(rendered.html());
        String section = html.substring(html.indexOf("<section class=\"history\" id=\"history\">"));
        section = section.substring(0, section.indexOf("</section>"));
        assertThat(section).contains("<h2>History</h2>", "<dd>jdbc:sqlite:.profiled-rollout/history.db</dd>",
                "<dd>dev.profiledrollout.examples.HistoryFixture#trends</dd>", "<dd>42</dd>",
                "<dd>t-test over the last 20 runs, upper boundary 0.99</dd>");
        assertThat(count(section, "<tr class=\"history-verdict ")).isEqualTo(5);
        assertThat(section).contains("<tr class=\"history-verdict NO_CHANGE\" data-metric=\"ttft.p99\"><td>p99 TTFT "
                + "<small>(ttft.p99)</small></td><td class=\"value\">305 ms</td><td class=\"value\">mean 265 ms (n = 20)</td>");
        List<String> trendImages = sources(section);
        assertThat(trendImages).hasSize(5).allMatch(src -> src.startsWith("charts/trend-"));
        for (String src : trendImages) {
            assertThat(rendered.html().resolveSibling(src)).isRegularFile();
        }
        // the run's own chart grid keeps its charts; the trends are only under History
        String charts = html.substring(html.indexOf("<h2>Charts</h2>"), html.indexOf("<section class=\"history\""));
        assertThat(sources(charts)).isNotEmpty().noneMatch(src -> src.contains("trend-"));
    }

    @Test
    void should_render_each_phase_history_in_its_section_and_on_the_phase_page() throws Exception {
        // WHEN
        ReportRenderer.Rendered rendered = ReportRenderer.render(fixture("phased"));
        // THEN
        String html = Files.readString(rendered.html());
        assertThat(html).doesNotContain("id=\"history\"");
        String prefill = html.substring(html.indexOf("id=\"history-PREFILL\""));
        prefill = prefill.substring(0, prefill.indexOf("</section>"));
        assertThat(prefill).contains("<h3>History</h3>", "#phased/PREFILL</dd>",
                "<td class=\"change\">REGRESSION (not enforced)</td>");
        assertThat(count(prefill, "<tr class=\"history-verdict ")).isEqualTo(2);
        assertThat(sources(prefill)).containsExactly("prefill/charts/trend-ttft-p99.png",
                "prefill/charts/trend-throughput-output-tokens.png");
        for (String src : sources(prefill)) {
            assertThat(rendered.html().resolveSibling(src)).isRegularFile();
        }
        assertThat(html).contains("id=\"history-DECODE\"");
        XYChart decodeItl = trendChart(rendered.phases().get(1).charts(), "trend-itl-p99");
        assertThat(x(decodeItl, Charts.IMPROVEMENT_SERIES)).containsExactly(6.0);
        XYChart prefillTtft = trendChart(rendered.phases().get(0).charts(), "trend-ttft-p99");
        assertThat(x(prefillTtft, Charts.REGRESSION_SERIES)).containsExactly(8.0);
        assertThat(x(prefillTtft, Charts.CURRENT_SERIES)).containsOnly(8.0);
        // the phase's own page, rendered alone, finds its history in the test's summary.json
        ReportRenderer.Rendered alone = ReportRenderer.render(dir.resolve("phased/prefill"));
        String page = Files.readString(alone.html());
        assertThat(page).contains("<section class=\"history\" id=\"history\">");
        assertThat(sources(page.substring(page.indexOf("id=\"history\"")))).containsExactly(
                "charts/trend-ttft-p99.png", "charts/trend-throughput-output-tokens.png");
    }

    @Test
    void should_leave_the_history_out_of_a_report_without_one() throws Exception {
        // WHEN
        ReportRenderer.Rendered rendered = ReportRenderer.render(fixture("old"));
        // THEN
        assertThat(Files.readString(rendered.html())).doesNotContain("<h2>History</h2>", "<section class=\"history\"",
                "<tr class=\"history-verdict");
        assertThat(rendered.charts()).noneMatch(Charts::isTrend).isNotEmpty();
        assertThat(TestReport.historyLines(rendered.data())).isEmpty();
    }

    @Test
    void should_print_history_verdicts_not_already_printed_as_verdicts() {
        // GIVEN
        Path run = fixture("trends");
        ReportData data = ReportData.read(run);
        // WHEN
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TestReport.printOutcome(data, new PrintStream(out, true, StandardCharsets.UTF_8));
        // THEN
        String console = out.toString(StandardCharsets.UTF_8);
        assertThat(console).contains("  History:\n    NO_CHANGE p99 TTFT 305 ms vs mean 265 ms of last 20 runs");
        assertThat(count(console, "    NO_CHANGE ")).isEqualTo(5);
        // GIVEN the run recorded the TTFT check as a verdict of its own
        Verdict recorded = new Verdict(Verdict.Kind.LATENCY, "", "p99 TTFT vs history", "±", 305, 265, "ms",
                "305 ms", "mean 265 ms", 0.15, data.history().orElseThrow().verdicts().get(0).description(), true,
                true);
        ReportData withVerdict = new ReportData(data.directory(), data.summary(), data.requests(),
                data.timeSeries(), data.histograms(), data.testName(), List.of(recorded), data.trace());
        // WHEN / THEN
        assertThat(TestReport.historyLines(withVerdict)).hasSize(4).noneMatch(l -> l.contains("p99 TTFT"));
        // a phased test prints each phase's verdicts with the phase
        assertThat(TestReport.historyLines(ReportData.read(fixture("phased")))).hasSize(4).contains(
                "REGRESSION [PREFILL] p99 TTFT 222 ms vs mean 181 ms of last 7 runs: t = 16.30 > 2.55 (99 %): "
                        + "REGRESSION (not enforced)")
                .anyMatch(l -> l.startsWith("NO_CHANGE [DECODE] p99 ITL"));
    }

    @Test
    void should_attach_the_history_table_and_trend_charts_to_allure() {
        // GIVEN
        Path run = fixture("phased");
        MemoryAllureWriter writer = new MemoryAllureWriter();
        AllureLifecycle previous = Allure.getLifecycle();
        Allure.setLifecycle(new AllureLifecycle(writer));
        try {
            AllureLifecycle lifecycle = Allure.getLifecycle();
            String uuid = UUID.randomUUID().toString();
            lifecycle.scheduleTestCase(new TestResult().setUuid(uuid).setName("phased"));
            lifecycle.startTestCase(uuid);
            // WHEN
            TestReport.finish(run, List.of(), List.of(), TestReport.Options.DEFAULTS,
                    new PrintStream(new ByteArrayOutputStream()));
            lifecycle.stopTestCase(uuid);
            lifecycle.writeTestCase(uuid);
        } finally {
            Allure.setLifecycle(previous);
        }
        // THEN
        TestResult result = writer.results().get(0);
        StepResult prefill = result.getSteps().stream().filter(s -> s.getName().equals("phase PREFILL")).findFirst()
                .orElseThrow();
        assertThat(prefill.getAttachments()).extracting(Attachment::getName).contains("PREFILL: history table",
                "PREFILL: chart: Trend of p99 TTFT over 8 runs (1 regression)",
                "PREFILL: chart: Trend of output token throughput over 8 runs");
        Attachment table = prefill.getAttachments().stream().filter(a -> a.getName().equals("PREFILL: history table"))
                .findFirst().orElseThrow();
        String tableHtml = new String(writer.attachments().get(table.getSource()), StandardCharsets.UTF_8);
        assertThat(count(tableHtml, "<tr class=\"history-verdict ")).isEqualTo(2);
        Attachment chart = prefill.getAttachments().stream().filter(a -> a.getName().contains("Trend of p99 TTFT"))
                .findFirst().orElseThrow();
        assertThat(chart.getType()).isEqualTo("image/png");
        assertThat(writer.attachments().get(chart.getSource())).startsWith(0x89, 'P', 'N', 'G');
        // the trends fixture's history is the test's own
        MemoryAllureWriter single = new MemoryAllureWriter();
        Allure.setLifecycle(new AllureLifecycle(single));
        try {
            AllureLifecycle lifecycle = Allure.getLifecycle();
            String uuid = UUID.randomUUID().toString();
            lifecycle.scheduleTestCase(new TestResult().setUuid(uuid).setName("trends"));
            lifecycle.startTestCase(uuid);
            TestReport.finish(fixture("trends"), List.of(), List.of(), TestReport.Options.DEFAULTS,
                    new PrintStream(new ByteArrayOutputStream()));
            lifecycle.stopTestCase(uuid);
            lifecycle.writeTestCase(uuid);
        } finally {
            Allure.setLifecycle(previous);
        }
        assertThat(single.results().get(0).getAttachments()).extracting(Attachment::getName).contains(
                "history table", "chart: Trend of p99 TTFT over 21 runs (1 regression)",
                "chart: Trend of output token throughput over 21 runs (1 improvement)");
    }

    @Test
    void should_show_a_store_location_without_credentials() {
        assertThat(HtmlReport.safeStore("jdbc:postgresql://ci:s3cret@db:5432/perf?password=x&ssl=true"))
                .isEqualTo("jdbc:postgresql://db:5432/perf");
        assertThat(HtmlReport.safeStore("jdbc:sqlserver://db:1433;user=ci;password=x"))
                .isEqualTo("jdbc:sqlserver://db:1433");
        assertThat(HtmlReport.safeStore("jdbc:sqlite:.profiled-rollout/history.db"))
                .isEqualTo("jdbc:sqlite:.profiled-rollout/history.db");
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    private static List<String> sources(String html) {
        Matcher m = Pattern.compile("<img class=\"chart\" src=\"([^\"]+)\"").matcher(html);
        List<String> out = new java.util.ArrayList<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }
}
