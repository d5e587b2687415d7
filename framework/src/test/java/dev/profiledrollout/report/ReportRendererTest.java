package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.verdict.Verdict;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.XYChart;

class ReportRendererTest {

    @TempDir
    Path dir;

    @Test
    void should_build_titled_charts_with_axis_units_and_series() {
        // GIVEN
        ReportData data = ReportData.read(RunFixtures.writeRun(dir));
        // WHEN
        Map<String, Charts.NamedChart> charts = Charts.build(data).stream()
                .collect(Collectors.toMap(Charts.NamedChart::name, c -> c));
        // THEN
        assertThat(charts).containsOnlyKeys("ttft-percentiles", "itl-percentiles", "e2e-percentiles",
                "latency-over-time", "throughput-over-time", "top-kernels", "rank-busy");
        XYChart ttft = (XYChart) charts.get("ttft-percentiles").chart();
        assertThat(ttft.getTitle()).isEqualTo("TTFT percentile distribution");
        assertThat(ttft.getXAxisTitle()).contains("(%)");
        assertThat(ttft.getYAxisTitle()).contains("(ms)");
        assertThat(charts.get("itl-percentiles").chart().getSeriesMap()).containsOnlyKeys("ITL", "TPOT");
        assertThat(charts.get("throughput-over-time").chart().getSeriesMap())
                .containsOnlyKeys("output tokens/s", "completed requests/s", "requests in flight (time-weighted mean)");
        CategoryChart kernels = (CategoryChart) charts.get("top-kernels").chart();
        assertThat(kernels.getYAxisTitle()).isEqualTo("total time (ms)");
        assertThat(kernels.getSeriesMap().get("total time").getXData().stream().map(Object::toString).toList())
                .containsExactly("K1", "K2", "K3");
        CategoryChart ranks = (CategoryChart) charts.get("rank-busy").chart();
        assertThat(ranks.getSeriesMap()).containsOnlyKeys("busy", "straggler (busiest rank)");
        // rank 1 is the busiest (46 ms): only it is in the straggler series
        assertThat(ranks.getSeriesMap().get("straggler (busiest rank)").getYData().stream()
                .map(Number::doubleValue).toList()).containsExactly(0.0, 46.0);
    }

    @Test
    void should_chart_gpu_busy_per_step_and_rank_with_each_steps_straggler_marked() throws Exception {
        // GIVEN the step timeline summary.json holds for the two real HTA ranks
        dev.profiledrollout.trace.TraceSet hta = dev.profiledrollout.trace.TraceSet.read(List.of(
                dev.profiledrollout.trace.TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz"),
                dev.profiledrollout.trace.TestTraces.resolve("hta/trace_filter/sampled_rank-1.json.gz")));
        JsonNode timeline = ResultsModule.MAPPER.valueToTree(hta).get("stepTimeline").get(0);
        Path run = RunFixtures.editSummary(RunFixtures.writeRun(dir), s -> ((com.fasterxml.jackson.databind.node
                .ObjectNode) s.get("trace")).set("stepTimeline", ResultsModule.MAPPER.createArrayNode().add(timeline)));
        JsonNode steps = timeline.get("steps");
        // WHEN
        ReportData data = ReportData.read(run);
        XYChart chart = (XYChart) Charts.build(data).stream().filter(c -> c.name().equals("step-timeline"))
                .findFirst().orElseThrow().chart();
        // THEN one line per rank over the steps, and a marker on each step's straggler at its busy time
        assertThat(chart.getTitle()).isEqualTo("GPU busy time per step and rank, straggler marked");
        assertThat(chart.getSeriesMap()).containsOnlyKeys("rank 0", "rank 1", "straggler of the step");
        assertThat(chart.getSeriesMap().get("rank 1").getYData()).hasSize(steps.size());
        double[] marks = chart.getSeriesMap().get("straggler of the step").getYData();
        assertThat(marks).hasSize(steps.size());
        for (int i = 0; i < steps.size(); i++) {
            JsonNode step = steps.get(i);
            int straggler = step.get("straggler").asText().equals("rank 0") ? 0 : 1;
            assertThat(marks[i]).isEqualTo(step.get("busyNs").get(straggler).asLong() / 1e6);
            assertThat(step.get("gapNs").get(straggler).asLong()).isZero();
        }
        String html = Files.readString(ReportRenderer.render(run).html());
        assertThat(html).contains("src=\"charts/step-timeline.png\"")
                .contains("Step timeline: " + steps.size() + " steps matched across 2 ranks by ProfilerStep number");
    }

    @Test
    void should_plot_the_percentiles_summary_json_reports_on_a_log_axis_up_to_the_maximum() throws Exception {
        // GIVEN
        Path run = RunFixtures.writeRun(dir);
        JsonNode ttft = new ObjectMapper().readTree(run.resolve("summary.json").toFile()).path("latency").path("ttft");
        // WHEN
        XYChart chart = (XYChart) Charts.build(ReportData.read(run)).get(0).chart();
        // THEN: the axis carries log10(1/(1 - p)) (decades: 0 = p0, 1 = p90, 2 = p99); the p50/p90 points are
        // summary.json's p50Ms/p90Ms
        double[] x = java.util.Arrays.stream(chart.getSeriesMap().get("TTFT").getXData()).map(v -> Math.pow(10, v))
                .toArray();
        double[] y = chart.getSeriesMap().get("TTFT").getYData();
        assertThat(x).startsWith(1.0).isSorted();
        for (String p : List.of("50", "90")) {
            double at = 1 / (1 - Double.parseDouble(p) / 100);
            int i = java.util.stream.IntStream.range(0, x.length).filter(j -> Math.abs(x[j] - at) < 1e-9)
                    .findFirst().orElseThrow(() -> new AssertionError("p" + p + " not plotted"));
            assertThat(y[i]).as("p" + p).isEqualTo(ttft.get("p" + p + "Ms").asDouble());
        }
        // 40 samples resolve no level past 1/(1 - p) = 40 (p97.5): p99 is not plotted, the last point is the
        // maximum at x = 40, and from 40 samples summary.json's p99 is that maximum too
        assertThat(ttft.path("count").asInt()).isEqualTo(40);
        assertThat(x[x.length - 1]).isCloseTo(40.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(x[x.length - 2]).isLessThan(39.0);
        assertThat(y[y.length - 1]).isEqualTo(ttft.get("maxMs").asDouble()).isEqualTo(ttft.get("p99Ms").asDouble());
        assertThat(chart.getStyler().getXAxisMin()).isEqualTo(0.0);
        assertThat(chart.getStyler().getXAxisMax()).isEqualTo(2.0);
        assertThat(chart.getStyler().getxAxisTickLabelsFormattingFunction().apply(1.0)).isEqualTo("90%");
    }

    @Test
    void should_plot_the_tail_levels_a_large_count_resolves_capped_at_the_exact_maximum() {
        // GIVEN 10,000 latencies 1..10,000 µs, and an exact maximum below HdrHistogram's bucket bound of 10 ms
        org.HdrHistogram.Histogram h = new org.HdrHistogram.Histogram(3);
        for (long us = 1; us <= 10_000; us++) {
            h.recordValue(us * 1_000);
        }
        // WHEN
        Charts.Curve curve = Charts.curve(h, 10.0);
        // THEN: x = 1/(1 - p) at p50, p90, p99, p99.9 with summary-style values; p99.99 (x = 10,000) is the maximum
        double[] x = curve.x();
        for (double p : new double[] {50, 90, 99, 99.9}) {
            int i = java.util.Arrays.binarySearch(x, 1 / (1 - p / 100));
            assertThat(i).as("p%s plotted", p).isNotNegative();
            assertThat(curve.ms()[i]).as("p%s", p).isEqualTo(
                    dev.profiledrollout.metrics.HistogramPercentile.valueAt(h, p, h.getMinValue(), 10_000_000) / 1e6);
        }
        assertThat(x).isSorted().startsWith(1.0);
        assertThat(java.util.Arrays.stream(x).max().orElseThrow()).isEqualTo(10_000.0);
        assertThat(x[x.length - 1]).isEqualTo(10_000.0);
        assertThat(curve.ms()[x.length - 1]).isEqualTo(10.0);
        assertThat(java.util.Arrays.stream(curve.ms()).max().orElseThrow()).isEqualTo(10.0);
        // the levels between come from HdrHistogram's percentile iteration: 5 per halving of the distance to 100%
        assertThat(x).contains(1 / (1 - 0.55), 1 / (1 - 0.775));
    }

    @Test
    void should_label_the_log_percentile_axis_in_percent_at_whole_decades() {
        assertThat(List.of(1.0, 10.0, 100.0, 1_000.0, 10_000.0).stream().map(Charts::percentileLabel))
                .containsExactly("0%", "90%", "99%", "99.9%", "99.99%");
        assertThat(List.of(0.0, 1.0, 2.0, 3.0, 4.0, 0.5, 2.25).stream().map(Charts::decadeLabel))
                .containsExactly("0%", "90%", "99%", "99.9%", "99.99%", "", "");
    }

    @Test
    void should_write_pngs_html_and_csv_whose_numbers_agree_with_summary_json() throws Exception {
        // GIVEN
        Path run = RunFixtures.writeRun(dir);
        JsonNode summary = new ObjectMapper().readTree(run.resolve("summary.json").toFile());
        // WHEN
        ReportRenderer.Rendered rendered = ReportRenderer.render(run);
        // THEN
        assertThat(rendered.pngs()).hasSize(7).allSatisfy(png -> assertThat(ImageIO.read(png.toFile())).isNotNull());
        String html = Files.readString(rendered.html());
        for (String metric : List.of("ttft", "itl", "tpot", "e2e")) {
            for (String stat : List.of("p50Ms", "p90Ms", "p99Ms", "maxMs")) {
                assertThat(html).contains("<td>" + String.format(Locale.ROOT, "%.3f",
                        summary.path("latency").path(metric).path(stat).asDouble()) + "</td>");
            }
        }
        assertThat(html).contains("src=\"charts/rank-busy.png\"").contains(RunFixtures.GEMM)
                .contains("http://gpu:30000/").doesNotContain("secret").doesNotContain("k=v");
        List<String> csv = Files.readAllLines(rendered.kernelCsv());
        assertThat(csv.get(0)).isEqualTo("name,count,total_ns,min_ns,max_ns,mean_ns,share");
        // the GEMM over both ranks: 30 000 000 + 30 000 001 ns in 200 launches
        assertThat(csv.get(1)).startsWith("\"" + RunFixtures.GEMM + "\",200,60000001,200000,400000,");
        assertThat(summary.path("trace").path("kernels").get(0).path("totalNs").asLong()).isEqualTo(60_000_001L);
    }

    @Test
    void should_name_the_missing_file_for_a_directory_without_summary() {
        assertThatThrownBy(() -> ReportRenderer.render(dir)).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("No summary.json in " + dir);
    }

    @Test
    void should_open_with_the_outcome_banner_and_list_verdicts_failures_first_workers_and_phases() throws Exception {
        // GIVEN
        Path run = RunFixtures.writeRichRun(dir);
        // WHEN
        ReportRenderer.Rendered rendered = ReportRenderer.render(run);
        // THEN
        String html = Files.readString(rendered.html());
        assertThat(html.indexOf("class=\"banner FAILED\" id=\"outcome\" data-status=\"FAILED\""))
                .isPositive().isLessThan(html.indexOf("<dl class=\"summary\">"));
        assertThat(html).contains("FAILED: 1 of 3 checks failed, 1 warning")
                .contains("p99 TTFT: 312 ms, budget &lt; 250 ms</span>")
                .contains("router http://router:8000 → 2 workers")
                .contains("class=\"warning steps\">Steps captured (worker-1/TP-0: 5, worker-2/TP-0: 4) differ from "
                        + "the 5 requested.");
        String budgets = html.substring(html.indexOf("<table class=\"verdicts\">"));
        budgets = budgets.substring(0, budgets.indexOf("</table>"));
        assertThat(budgets.split("<tr class=\"verdict ")).extracting(r -> r.substring(0, 4))
                .containsExactly("<tab", "FAIL", "WARN", "PASS");
        assertThat(budgets).contains("<td>+24.8%</td><td class=\"text\">4 of 40 requests above budget</td>");
        assertThat(html).contains("<td>worker-2</td><td class=\"text\">http://gpu:30000</td>"
                + "<td class=\"text\">decode</td><td class=\"text fail\">START_FAILED, HTTP 503: busy</td>");
        // the phase: its own verdicts, "none" for a metric without samples, its charts and its own page
        String phase = html.substring(html.indexOf("<section class=\"phase\" id=\"phase-PREFILL\">"));
        assertThat(phase).contains("16 requests, concurrency 4, ISL/OSL 2048/1")
                .contains("<td>PREFILL</td><td class=\"text\">p99 TTFT</td>")
                .contains("<tr><td>ITL</td><td>0</td><td>none</td><td>none</td>")
                .contains("src=\"prefill/charts/ttft-percentiles.png\"")
                .contains("<a href=\"prefill/report.html\">");
        assertThat(rendered.phases()).singleElement().satisfies(p -> {
            assertThat(p.html()).isEqualTo(run.resolve("prefill").resolve("report.html"));
            assertThat(p.data().verdicts()).extracting(Verdict::scope).containsExactly("PREFILL");
        });
        assertThat(Files.readString(run.resolve("prefill/report.html"))).contains("data-status=\"FAILED\"");
        // rendered on its own (profiled-rollout report walking the test's output), the phase keeps its verdicts
        assertThat(ReportRenderer.render(run.resolve("prefill")).data().verdicts()).extracting(Verdict::scope)
                .containsExactly("PREFILL");
        // charts: in the grid at their PNG size, each linked to itself; every kernel name in full, numbered
        assertThat(html).contains("<div class=\"charts\"><figure><a href=\"charts/ttft-percentiles.png\">"
                + "<img class=\"chart\" src=\"charts/ttft-percentiles.png\" width=\"640\" height=\"400\"");
        assertThat(html).contains("<tr id=\"kernel-K1\"><td>K1</td><td class=\"kernel\" title=\"" + RunFixtures.GEMM
                + "\">" + RunFixtures.GEMM + "</td>");
        assertThat(html).contains("<tr id=\"baseline-B1\"><td>B1</td><td class=\"kernel\" title=\""
                + RunFixtures.GEMM + "\">" + RunFixtures.GEMM + "</td><td>48.000</td><td>60.000</td><td>+25.0%</td>");
        assertThat(rendered.charts()).extracting(Charts.NamedChart::name).contains("baseline-diff");
        assertThat(html).contains("<td>worker-2/TP-0</td><td>46.000</td><td>60.000</td><td class=\"text\">straggler");
        assertThat(rendered.pngs()).allSatisfy(png -> {
            var image = ImageIO.read(png.toFile());
            assertThat(image.getWidth()).isEqualTo(Charts.WIDTH);
            assertThat(image.getHeight()).isEqualTo(Charts.HEIGHT);
        });
    }

    @Test
    void should_render_the_banner_what_was_attempted_and_the_error_of_a_test_that_failed_early() throws Exception {
        // GIVEN
        Path run = RunFixtures.writeEarlyFailure(dir);
        // WHEN
        ReportRenderer.Rendered rendered = ReportRenderer.render(run);
        // THEN
        String html = Files.readString(rendered.html());
        assertThat(rendered.charts()).isEmpty();
        assertThat(html).contains("<div class=\"banner ERROR\" id=\"outcome\" data-status=\"ERROR\">ERROR"
                        + "<span class=\"message\">engine did not become healthy within 600 s: GET /health returned "
                        + "503</span>")
                .contains("<dt>attempted</dt><dd>VLLM container; http://gpu:8000; numSteps 5; activities CPU, GPU</dd>")
                .contains("No budget verdicts were recorded.")
                .doesNotContain("<h2>Charts</h2>").doesNotContain("<h2>Kernels</h2>").doesNotContain("numSteps</td>");
    }

    @Test
    void should_fall_back_to_error_and_verdicts_for_a_file_without_outcome() {
        // GIVEN
        Path run = RunFixtures.editSummary(RunFixtures.writeRun(dir), root -> root.set("verdicts",
                ResultsModule.MAPPER.valueToTree(RunFixtures.verdicts())));
        // WHEN
        HtmlReport.Banner banner = HtmlReport.banner(ReportData.read(run));
        // THEN
        assertThat(banner).isEqualTo(new HtmlReport.Banner("FAILED", "FAILED: 1 of 3 checks failed, 1 warning",
                "FAIL p99 TTFT: 312 ms, budget < 250 ms (+24.8%); 4 of 40 requests above budget"));
        RunFixtures.editSummary(run, root -> root.put("error", "trace files could not be read"));
        assertThat(HtmlReport.banner(ReportData.read(run)))
                .isEqualTo(new HtmlReport.Banner("ERROR", "ERROR", "trace files could not be read"));
        RunFixtures.editSummary(run, root -> root.remove(List.of("error", "verdicts")));
        assertThat(HtmlReport.banner(ReportData.read(run)).headline()).isEqualTo("PASSED (no budget checks)");
    }

    @Test
    void should_not_name_a_straggler_among_a_single_rank() {
        // GIVEN
        Path run = RunFixtures.editSummary(RunFixtures.writeRun(dir),
                root -> ((com.fasterxml.jackson.databind.node.ArrayNode) root.path("trace").path("ranks")).remove(1));
        // WHEN
        CategoryChart ranks = (CategoryChart) Charts.build(ReportData.read(run)).stream()
                .filter(c -> c.name().equals("rank-busy")).findFirst().orElseThrow().chart();
        // THEN
        assertThat(ranks.getTitle()).isEqualTo("GPU busy time per rank");
        assertThat(ranks.getSeriesMap()).containsOnlyKeys("busy");
        assertThat(ranks.getSeriesMap().get("busy").getXData().stream().map(Object::toString).toList())
                .containsExactly("TP-0");
    }

    @Test
    void should_bucket_the_throughput_series_to_fit_the_run_and_keep_every_token() {
        // GIVEN: 40 requests of 8 tokens over about 2 s
        ReportData data = ReportData.read(RunFixtures.writeRun(dir));
        // WHEN
        Charts.Series series = Charts.series(data);
        // THEN
        assertThat(series.bucketSeconds()).isEqualTo(0.05);
        assertThat(series.x()).hasSizeBetween(20, Charts.MAX_POINTS);
        double tokens = java.util.Arrays.stream(series.tokens()).sum() * series.bucketSeconds();
        assertThat(tokens).isCloseTo(40 * 8, org.assertj.core.data.Offset.offset(1e-6));
        double completed = java.util.Arrays.stream(series.completed()).sum() * series.bucketSeconds();
        assertThat(completed).isCloseTo(40, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(Charts.bucketNanos(3_000_000_000L)).isEqualTo(100_000_000L);
        assertThat(Charts.bucketNanos(600_000_000_000L)).isEqualTo(15_000_000_000L);
        XYChart chart = (XYChart) Charts.build(data).stream().filter(c -> c.name().equals("throughput-over-time"))
                .findFirst().orElseThrow().chart();
        assertThat(chart.getTitle()).isEqualTo("Throughput and requests in flight (50 ms buckets)");
        assertThat(chart.getSeriesMap().get("output tokens/s").getXData()).hasSize(series.x().length);
    }

    @Test
    void should_format_ticks_with_the_decimals_the_axis_range_needs() {
        assertThat(Charts.pattern(232.213083)).isEqualTo("#,##0");
        assertThat(Charts.pattern(46.0)).isEqualTo("#,##0.#");
        assertThat(Charts.pattern(7.0)).isEqualTo("0.##");
        assertThat(Charts.pattern(0.05)).isEqualTo("0.###");
        XYChart ttft = (XYChart) Charts.build(ReportData.read(RunFixtures.writeRun(dir))).get(0).chart();
        assertThat(ttft.getStyler().getYAxisDecimalPattern()).isEqualTo("#,##0.#");
        assertThat(ttft.getStyler().getxAxisTickLabelsFormattingFunction().apply(2.0)).isEqualTo("99%");
        assertThat(ttft.getStyler().getChartPadding()).isGreaterThanOrEqualTo(14);
    }
}
