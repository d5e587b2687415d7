package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code stages.json} is written from {@link StageReport.StagesFile}: a file the tree-building writer of 12b923d wrote
 * (a capacity search; a sweep with a window per stage) read into the record and written again keeps every byte.
 */
class StagesFileTest {

    @ParameterizedTest
    @ValueSource(strings = {"capacity.json", "window-per-stage.json"})
    void a_stages_json_of_the_old_writer_read_and_written_again_keeps_every_byte(String name) throws Exception {
        // GIVEN
        String old;
        try (InputStream in = StagesFileTest.class.getResourceAsStream("/compat/stages-12b923d/" + name)) {
            old = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }

        // WHEN
        StageReport.StagesFile read = ResultsModule.MAPPER.readValue(old, StageReport.StagesFile.class);

        // THEN
        assertThat(StageReport.toJson(read)).isEqualTo(old);
    }

    @Test
    void placed_steps_and_windows_are_written_only_where_given() throws Exception {
        String old;
        try (InputStream in = StagesFileTest.class.getResourceAsStream("/compat/stages-12b923d/capacity.json")) {
            old = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        StageReport.StagesFile read = ResultsModule.MAPPER.readValue(old, StageReport.StagesFile.class);
        StageReport.StagesFile placed = new StageReport.StagesFile(read.stages().stream()
                .map(r -> r.with(null, 3)).toList(), read.capacity(), read.slos(), 1, List.of("concurrency 64"),
                "the windows had closed");

        String json = StageReport.toJson(placed);

        assertThat(ResultsModule.MAPPER.readValue(json, StageReport.StagesFile.class)).isEqualTo(placed);
        assertThat(json).contains("\"capturedSteps\" : 3").contains("\"stepsBeforeSweep\" : 1")
                .doesNotContain("\"window\"");
    }
}
