package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.history.RunConfiguration;
import dev.profiledrollout.history.RunIdentity;
import dev.profiledrollout.history.RunRecord;
import dev.profiledrollout.history.RunRecords;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code summary.json} written by an older build ({@code compat/summary-main-e3d6dfb}, see the README there) still
 * reads with today's readers: the history record and the HTML report take the same values the file holds.
 */
class OldSummaryJsonTest {

    @TempDir
    Path dir;

    private JsonNode oldRun() throws Exception {
        Path source = Path.of(OldSummaryJsonTest.class.getResource("/compat/summary-main-e3d6dfb/summary.json").toURI());
        Files.copy(source, dir.resolve("summary.json"), StandardCopyOption.REPLACE_EXISTING);
        return ResultsModule.MAPPER.readTree(source.toFile());
    }

    @Test
    void should_read_an_old_summary_into_a_history_record_with_its_values() throws Exception {
        // GIVEN the summary.json main wrote at e3d6dfb
        JsonNode old = oldRun();
        RunIdentity identity = new RunIdentity("Old#run", Instant.parse("2026-11-28T00:00:00Z"), "e3d6dfb", "main",
                null, null, "host");
        // WHEN
        List<RunRecord> records = RunRecords.fromDirectory(dir, identity);
        // THEN one record, its configuration and metrics taken from the file's own fields
        assertThat(records).hasSize(1);
        RunConfiguration configuration = records.get(0).configuration();
        assertThat(configuration.backend()).isEqualTo(old.path("engine").path("backend").asText()).isEqualTo("SGLANG");
        assertThat(configuration.model()).isEqualTo(old.path("engine").path("model").asText());
        assertThat(configuration.tp()).isEqualTo(old.path("engine").path("tpSize").asInt()).isEqualTo(2);
        assertThat(configuration.numSteps()).isEqualTo(old.path("profileRequest").path("num_steps").asInt())
                .isEqualTo(5);
        assertThat(records.get(0).outcome()).isEqualTo(old.path("outcome").path("status").asText());
        assertThat(records.get(0).metrics())
                .containsEntry("ttft.p50", old.path("latency").path("ttft").path("p50Ms").asDouble())
                .containsEntry("throughput.requests", old.path("latency").path("requestThroughput").asDouble())
                .containsEntry("trace.kernel_ms", old.path("trace").path("kernelTotalNs").asDouble() / 1e6)
                .containsKey("trace.gpu_busy_fraction");
    }

    @Test
    void should_render_an_old_summary_as_the_html_report() throws Exception {
        // GIVEN
        JsonNode old = oldRun();
        // WHEN
        ReportRenderer.Rendered rendered = ReportRenderer.render(dir);
        // THEN the page names the test and the engine's model from the old file
        String html = Files.readString(rendered.html());
        assertThat(html).contains(old.path("test").asText(), old.path("engine").path("model").asText());
    }
}
