package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void should_plot_the_percentiles_summary_json_reports() throws Exception {
        // GIVEN
        Path run = RunFixtures.writeRun(dir);
        JsonNode ttft = new ObjectMapper().readTree(run.resolve("summary.json").toFile()).path("latency").path("ttft");
        // WHEN
        XYChart chart = (XYChart) Charts.build(ReportData.read(run)).get(0).chart();
        // THEN: the x = 50/90/99 points are summary.json's p50Ms/p90Ms/p99Ms
        double[] x = chart.getSeriesMap().get("TTFT").getXData();
        double[] y = chart.getSeriesMap().get("TTFT").getYData();
        for (String p : List.of("50", "90", "99")) {
            int i = java.util.Arrays.binarySearch(x, Double.parseDouble(p));
            assertThat(y[i]).as("p" + p).isEqualTo(ttft.get("p" + p + "Ms").asDouble());
        }
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
}
