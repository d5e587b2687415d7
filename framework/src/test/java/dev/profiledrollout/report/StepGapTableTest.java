package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSet;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** report.html's per-step table of HTA's two real ranks, from summary.json's {@code trace.stepTimeline}. */
class StepGapTableTest {

    @TempDir
    Path dir;

    @Test
    void the_steps_with_the_largest_gaps_come_first_with_their_straggler_marked() throws Exception {
        // GIVEN the summary.json of two real ranks with ProfilerStep#551 and #552
        TraceSet trace = TraceSet.read(List.of(TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz"),
                TestTraces.resolve("hta/trace_filter/sampled_rank-1.json.gz")));
        Path run = Files.createDirectories(dir.resolve("run"));
        new RunReport(run, "StepGapTableTest.ranks", URI.create("http://127.0.0.1:30000"), false,
                new ServerInfo(2, 1, 1, 1, "m", true, JsonNodeFactory.instance.objectNode()),
                new LoadSpec(1, 1, 16, 4, 0.0, 0, 0), ProfileRequest.builder().build()).writeSummary(null, trace, null);
        ReportData.StepTimelineSet set = ReportData.read(run).trace().stepTimeline().get(0);

        // WHEN
        String html = HtmlReport.stepGapTable(set);

        // THEN #552 (rank 1 busier by 36.82 ms) before #551 (rank 0 busier by 8.627 ms), each straggler marked
        assertThat(html).contains("<th>rank 0 busy (ms)</th><th>rank 1 busy (ms)</th><th>largest gap (ms)</th>");
        int first = html.indexOf("ProfilerStep#552");
        int second = html.indexOf("ProfilerStep#551");
        assertThat(first).isPositive().isLessThan(second);
        String row552 = html.substring(first, html.indexOf("</tr>", first));
        assertThat(row552).contains("<td>268.792</td><td class=\"straggler\" title=\"straggler\">305.612</td>"
                + "<td>36.820</td>");
        String row551 = html.substring(second, html.indexOf("</tr>", second));
        assertThat(row551).contains("<td class=\"straggler\" title=\"straggler\">278.511</td><td>269.884</td>"
                + "<td>8.627</td>");
        // and the page carries it under the step-timeline note
        assertThat(HtmlReport.page(ReportData.read(run), List.of(), java.util.Map.of()))
                .contains("<table class=\"step-gaps\">");
    }
}
