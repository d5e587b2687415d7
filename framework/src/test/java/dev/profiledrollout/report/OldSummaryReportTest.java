package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report of an old run ({@code compat/summary-cebd0e6.json}, frozen) shows the file's numbers through the model. */
class OldSummaryReportTest {

    @Test
    void the_run_summary_of_an_old_file_shows_its_latency_figures(@TempDir Path dir) throws IOException {
        try (InputStream in = OldSummaryReportTest.class.getResourceAsStream("/compat/summary-cebd0e6.json")) {
            Files.copy(in, dir.resolve("summary.json"));
        }
        JsonNode latency = new ObjectMapper().readTree(dir.resolve("summary.json").toFile()).path("latency");

        String html = HtmlReport.summaryHtml(ReportData.read(dir));

        assertThat(html).contains(latency.path("completed").asLong() + " completed, "
                + latency.path("failed").asLong() + " failed in "
                + HtmlReport.compact(latency.path("durationMs").asDouble() / 1000) + " s");
        assertThat(html).contains("p50 " + HtmlReport.compact(latency.path("ttft").path("p50Ms").asDouble()) + " ms, p99 "
                + HtmlReport.compact(latency.path("ttft").path("p99Ms").asDouble()) + " ms");
        assertThat(html).contains(HtmlReport.compact(latency.path("outputTokenThroughput").asDouble()));
        JsonNode raw = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
        assertThat(html).contains(raw.path("engine").path("model").asText())
                .contains(HtmlReport.escape(raw.path("profiled").path("description").asText()));
    }

    /** Before and after the baseline's kernel time was spelled once (compat/README.md). */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"/compat/summary-cebd0e6.json",
            "/compat/summary-h25c-2440408/summary.json"})
    void the_page_of_an_old_file_shows_its_baseline_workers_and_step_timeline(String file, @TempDir Path dir)
            throws IOException {
        // GIVEN a frozen file (the first spells the baseline's kernel time twice, the second once)
        try (InputStream in = OldSummaryReportTest.class.getResourceAsStream(file)) {
            Files.copy(in, dir.resolve("summary.json"));
        }
        JsonNode raw = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
        assertThat(raw.path("baseline").path("kernels").isEmpty()).isFalse();

        // WHEN
        String page = HtmlReport.page(ReportData.read(dir), java.util.List.of(), java.util.Map.of());

        // THEN its first baseline kernel, each worker and the step-timeline note are there, by the file's values
        JsonNode kernel = raw.path("baseline").path("kernels").get(0);
        assertThat(page).contains("<tr id=\"baseline-B1\"><td>B1</td><td class=\"kernel\" title=\""
                + HtmlReport.escape(kernel.path("name").asText()) + "\">")
                .contains("<td>" + HtmlReport.ms(kernel.path("baseTotalNs").asLong() / 1e6) + "</td>");
        raw.path("workers").forEach(w -> assertThat(page).contains("<td>" + w.path("label").asText() + "</td>"));
        assertThat(page).contains(HtmlReport.escape(raw.path("trace").path("stepTimeline").get(0)
                .path("clockAlignment").path("note").asText()));
    }

    @Test
    void an_early_failure_shows_the_step_bound_whichever_way_the_file_spells_it(@TempDir Path dir)
            throws IOException {
        // GIVEN the attempted block of a test that failed before its window: written before the typed run model
        // (numSteps, RunFixtures.writeEarlyFailure) and as CaptureAttempt writes it now (num_steps)
        Path before = RunFixtures.writeEarlyFailure(dir.resolve("before"));
        Path now = RunFixtures.editSummary(RunFixtures.writeEarlyFailure(dir.resolve("now")), root -> {
            var attempted = (com.fasterxml.jackson.databind.node.ObjectNode) root.get("attempted");
            attempted.set("num_steps", attempted.remove("numSteps"));
        });

        // WHEN
        String old = HtmlReport.summaryHtml(ReportData.read(before));
        String current = HtmlReport.summaryHtml(ReportData.read(now));

        // THEN both say the five steps asked for, with what else was attempted
        assertThat(old).contains("<dt>attempted</dt><dd>VLLM container; http://gpu:8000; numSteps 5; "
                + "activities CPU, GPU</dd>");
        assertThat(current).isEqualTo(old);
        assertThat(ReportData.read(now).head().numSteps()).isEqualTo(5);
    }
}
