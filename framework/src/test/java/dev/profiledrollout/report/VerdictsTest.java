package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.assertions.ProfiledRolloutAssertions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VerdictsTest {

    @TempDir
    Path dir;

    @Test
    void should_record_passing_and_failing_budgets_with_actual_and_budget() {
        // GIVEN
        var latency = RunFixtures.latency();
        List<Verdict> verdicts;
        // WHEN
        try (Verdicts.Recording recording = Verdicts.start()) {
            ProfiledRolloutAssertions.assertThat(latency).ttft().percentile(99).isLessThan(Duration.ofSeconds(1));
            assertThatThrownBy(() -> ProfiledRolloutAssertions.assertThat(latency).ttft().percentile(50)
                    .isLessThan(Duration.ofMillis(1))).isInstanceOf(AssertionError.class);
            ProfiledRolloutAssertions.assertThat(RunFixtures.trace()).ranks().busyImbalance().isLessThan(2.0);
            verdicts = recording.verdicts();
        }
        // THEN
        assertThat(verdicts).extracting(Verdict::measure, Verdict::relation, Verdict::passed).containsExactly(
                org.assertj.core.groups.Tuple.tuple("p99 TTFT", "<", true),
                org.assertj.core.groups.Tuple.tuple("p50 TTFT", "<", false),
                org.assertj.core.groups.Tuple.tuple("busy imbalance (max/mean GPU busy time over ranks)", "<", true));
        assertThat(verdicts.get(1).budget()).isEqualTo(1.0);
        assertThat(verdicts.get(1).unit()).isEqualTo("ms");
        assertThat(verdicts.get(1).actual()).isEqualTo(latency.ttft().percentile(50).toNanos() / 1e6);
        assertThat(verdicts.get(2).actual()).isEqualTo(RunFixtures.trace().busyImbalance());
    }

    @Test
    void should_record_nothing_outside_a_recording() {
        Verdicts.Recording recording = Verdicts.start();
        recording.close();
        ProfiledRolloutAssertions.assertThat(RunFixtures.latency()).ttft().max().isLessThan(Duration.ofHours(1));
        assertThat(recording.verdicts()).isEmpty();
    }

    @Test
    void should_add_verdicts_to_summary_json_and_the_console() throws Exception {
        // GIVEN
        Path run = RunFixtures.writeRun(dir);
        List<Verdict> verdicts = List.of(Verdict.of(Verdict.Kind.LATENCY, "p99 TTFT", "<", 312.0, 250.0, "ms", "312 ms", "250 ms", "", false),
                Verdict.of(Verdict.Kind.TRACE, "GPU busy fraction", ">", 0.9, 0.5, "", "90.0%", "50.0%", "", true));
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        // WHEN
        TestReport.finish(run, verdicts, List.of(Path.of("traces/a.trace.json.gz")), TestReport.Options.DEFAULTS,
                new PrintStream(console, true, StandardCharsets.UTF_8));
        // THEN
        JsonNode summary = new ObjectMapper().readTree(run.resolve("summary.json").toFile());
        assertThat(summary.path("verdicts")).hasSize(2);
        assertThat(summary.path("verdicts").get(0).path("passed").asBoolean()).isFalse();
        assertThat(summary.path("verdicts").get(0).path("actual").asDouble()).isEqualTo(312.0);
        assertThat(summary.path("traceFiles").get(0).asText()).isEqualTo("traces/a.trace.json.gz");
        assertThat(console.toString(StandardCharsets.UTF_8))
                .contains("FAIL p99 TTFT: 312 ms, budget < 250 ms").contains("FAILED: 1 of 2 checks failed");
        assertThat(Files.readString(run.resolve("report.html"))).contains("<td class=\"fail\">FAIL</td>");
        assertThat(ReportData.read(run).verdicts()).isEqualTo(verdicts);
    }
}
