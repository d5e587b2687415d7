package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.trace.TraceSet;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;

/**
 * The roofline chart of a simulator capture with {@code record_shapes} (an H100 by its {@code deviceProperties}):
 * summary.json's {@code trace.ranks[].roofline}, the chart's roofs and points, and its PNG in the rendered report.
 * With {@code -Droofline.png=FILE} the PNG is also copied there (how {@code docs/images/roofline.png} is made).
 */
class RooflineChartTest {

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    private int post(URI base, String path, String body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static String prompt(int tokens) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < tokens; i++) {
            s.append(i == 0 ? "" : ",").append(1 + i % 100);
        }
        return s.append(']').toString();
    }

    /** Three requests in turn (prefills of 1024, 128 and 8 tokens, then their decodes), shapes recorded. */
    private TraceSet capture() throws Exception {
        Path out = dir.resolve("traces");
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().tpSize(1)
                .profilerDir(dir.resolve("default")).build())) {
            URI base = sim.baseUri();
            assertThat(post(base, "/start_profile", "{\"output_dir\":\"" + out + "\",\"num_steps\":9,"
                    + "\"profile_id\":\"roofline\",\"record_shapes\":true}")).isEqualTo(200);
            for (int tokens : new int[] {1024, 128, 8}) {
                assertThat(post(base, "/v1/completions", "{\"prompt\":" + prompt(tokens)
                        + ",\"max_tokens\":3,\"ignore_eos\":true}")).isEqualTo(200);
            }
            assertThat(http.send(HttpRequest.newBuilder(base.resolve("/health")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
        }
        try (Stream<Path> files = Files.list(out)) {
            List<Path> traces = files.filter(p -> p.getFileName().toString().endsWith(".trace.json.gz")).toList();
            assertThat(traces).hasSize(1);
            return TraceSet.read(traces);
        }
    }

    @Test
    void the_report_plots_the_simulator_gemms_under_the_h100_roofs() throws Exception {
        TraceSet trace = capture();
        Path run = dir.resolve("run");
        Files.createDirectories(run);
        RunReport report = new RunReport(run, "RooflineChartTest.sim", URI.create("http://127.0.0.1:30000"), true,
                new ServerInfo(1, 1, 1, 1, "simulated", true, JsonNodeFactory.instance.objectNode()),
                new LoadSpec(1, 3, 8, 3, 0.0, 0, 1),
                ProfileRequest.builder().numSteps(10).activities(List.of("GPU")).build()).withBackend("SGLANG");
        report.writeSummary(null, trace, null);

        JsonNode rank = ResultsModule.MAPPER.readTree(run.resolve("summary.json").toFile()).path("trace")
                .path("ranks").get(0);
        assertThat(rank.path("deviceName").asText()).isEqualTo("NVIDIA H100 80GB HBM3");
        assertThat(rank.path("roofline")).isNotEmpty();
        assertThat(rank.path("roofline").get(0).path("precision").asText()).isEqualTo("bf16");

        XYChart chart = (XYChart) Charts.build(ReportData.read(run)).stream()
                .filter(c -> c.name().equals("roofline")).findFirst().orElseThrow().chart();
        assertThat(chart.getTitle()).isEqualTo("Roofline: H100-SXM, bf16");
        XYSeries roof = chart.getSeriesMap().get("roof: 3.35 TB/s, 989.5 TFLOPS/s");
        assertThat(roof).isNotNull();
        // the ridge point: 989.5 TFLOPS/s at 989.5 / 3.35 FLOP/byte
        assertThat(roof.getXData()[1]).isEqualTo(989.5 / 3.35);
        assertThat(roof.getYData()[1]).isEqualTo(989.5);
        XYSeries mm = chart.getSeriesMap().get("aten::mm");
        assertThat(mm.getXData().length).isGreaterThan(3);
        for (int i = 0; i < mm.getXData().length; i++) {
            double attainable = Math.min(989.5, mm.getXData()[i] * 3.35);
            assertThat(mm.getYData()[i]).isPositive().isLessThanOrEqualTo(attainable * (1 + 1e-9));
        }

        // the cost model runs decode GEMMs against HBM and prefill GEMMs against the bf16 peak, below both
        dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat(trace).operators("aten::mm")
                .peakFraction().max().isLessThan(1.0);
        dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat(trace).operators("aten::mm")
                .peakFraction().max().isGreaterThan(0.5);

        ReportRenderer.Rendered rendered = ReportRenderer.render(run);
        Path png = rendered.pngs().stream().filter(p -> p.getFileName().toString().equals("roofline.png"))
                .findFirst().orElseThrow();
        assertThat(Files.size(png)).isPositive();
        String page = Files.readString(rendered.html());
        assertThat(page).contains("roofline.png");
        // the table beside the chart: the ops with the most kernel time, each row from summary.json's figures
        assertThat(page).contains("<h2>Roofline</h2>").contains("Peaks of H100-SXM (NVIDIA H100 80GB HBM3)");
        JsonNode top = null;
        for (JsonNode r : rank.path("roofline")) {
            if (r.path("count").asLong() > 0 && (top == null || r.path("kernelNs").path("mean").asDouble()
                    * r.path("count").asLong() > top.path("kernelNs").path("mean").asDouble()
                    * top.path("count").asLong())) {
                top = r;
            }
        }
        String firstRow = page.substring(page.indexOf("<table class=\"roofline\">"));
        firstRow = firstRow.substring(firstRow.indexOf("</tr>") + 5, firstRow.indexOf("</tr>", firstRow.indexOf("</tr>") + 5));
        double tflops = top.path("tflops").path("median").asDouble();
        assertThat(firstRow).contains(">" + top.path("name").asText() + "<")
                .contains(">" + top.path("inputDims").asText() + "<")
                .contains(String.format(java.util.Locale.ROOT, ">%.3f<", top.path("flops").asDouble() / 1e9))
                .contains(String.format(java.util.Locale.ROOT, ">%.1f<", tflops))
                .contains(String.format(java.util.Locale.ROOT, ">%.1f%%<", 100 * tflops / 989.5));
        String copyTo = System.getProperty("roofline.png");
        if (copyTo != null && !copyTo.isBlank()) {
            Files.copy(png, Path.of(copyTo), StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
