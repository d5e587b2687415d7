package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.verdict.BudgetFailuresError;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.assertions.ProfiledRolloutAssertions;
import dev.profiledrollout.assertions.ProfiledRolloutSoftAssertions;
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

    @Test
    void should_carry_the_scope_of_a_scoped_latency_report_into_verdict_and_message() {
        // GIVEN the latency of one phase
        var prefill = RunFixtures.latency().withScope("PREFILL");
        List<Verdict> verdicts;
        // WHEN
        try (Verdicts.Recording recording = Verdicts.start()) {
            assertThatThrownBy(() -> ProfiledRolloutAssertions.assertThat(prefill).ttft().percentile(50)
                    .isLessThan(Duration.ofMillis(1)))
                    .hasMessageStartingWith("[PREFILL] p50 TTFT was ")
                    .hasMessageContaining("of 40 requests above budget");
            ProfiledRolloutAssertions.assertThat(prefill).hasNoFailedRequests();
            verdicts = recording.verdicts();
        }
        // THEN
        assertThat(verdicts).extracting(Verdict::kind, Verdict::scope, Verdict::outcome).containsExactly(
                org.assertj.core.groups.Tuple.tuple(Verdict.Kind.LATENCY, "PREFILL", Verdict.Outcome.FAIL),
                org.assertj.core.groups.Tuple.tuple(Verdict.Kind.THROUGHPUT, "PREFILL", Verdict.Outcome.PASS));
        assertThat(verdicts.get(0).detail()).isEqualTo("40 of 40 requests above budget");
        assertThat(verdicts.get(0).gap()).isPositive();
        assertThat(verdicts.get(1).detail()).isEqualTo("0 of 40 requests failed");
    }

    @Test
    void should_scope_a_rank_verdict_to_the_set_scope_and_the_rank_label() {
        // GIVEN the traces of one phase, two TP ranks
        var decode = RunFixtures.trace().withScope("DECODE");
        List<Verdict> verdicts;
        // WHEN
        try (Verdicts.Recording recording = Verdicts.start()) {
            ProfiledRolloutAssertions.assertThat(decode).rank(1).gpuBusyFraction().isGreaterThan(0.5);
            ProfiledRolloutAssertions.assertThat(decode).kernels(ProfiledRolloutAssertions.matching(".*gemm.*")).share().isLessThan(0.99);
            ProfiledRolloutAssertions.assertThat(decode).ranks().hasSize(2);
            verdicts = recording.verdicts();
        }
        // THEN
        assertThat(verdicts).extracting(Verdict::kind, Verdict::scope, Verdict::passed).containsExactly(
                org.assertj.core.groups.Tuple.tuple(Verdict.Kind.TRACE, "DECODE · TP-1", true),
                org.assertj.core.groups.Tuple.tuple(Verdict.Kind.KERNEL, "DECODE", true),
                org.assertj.core.groups.Tuple.tuple(Verdict.Kind.RANKS, "DECODE", true));
        assertThat(verdicts.get(0).detail()).isEqualTo("busy 46 ms of 60 ms GPU span over 1 device(s)");
    }

    @Test
    void should_collect_failed_budgets_in_a_soft_block_and_throw_them_once_at_its_end() {
        // GIVEN
        var latency = RunFixtures.latency();
        List<Verdict> verdicts = new java.util.ArrayList<>();
        // WHEN three budgets, the first and the last missed
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> {
            try (var softly = ProfiledRolloutSoftAssertions.softly()) {
                ProfiledRolloutAssertions.assertThat(latency).ttft().percentile(99).isLessThan(Duration.ofMillis(1));
                ProfiledRolloutAssertions.assertThat(latency).e2e().max().isLessThan(Duration.ofHours(1));
                ProfiledRolloutAssertions.assertThat(latency).requestThroughput().isGreaterThan(1e9);
                verdicts.addAll(softly.verdicts());
            }
        });
        // THEN every budget was evaluated, and the block failed once with both misses
        assertThat(verdicts).extracting(Verdict::outcome).containsExactly(Verdict.Outcome.FAIL,
                Verdict.Outcome.PASS, Verdict.Outcome.FAIL);
        assertThat(thrown).isInstanceOf(BudgetFailuresError.class)
                .hasMessageStartingWith("2 of 3 budgets failed: p99 TTFT; request throughput\n  1) p99 TTFT was ")
                .hasMessageContaining("\n  2) request throughput was ");
        assertThat(((BudgetFailuresError) thrown).getFailures()).hasSize(2);
        assertThat(verdicts.get(2).kind()).isEqualTo(Verdict.Kind.THROUGHPUT);
    }

    @Test
    void should_fail_at_once_on_a_missing_precondition_even_in_a_soft_recording() {
        // GIVEN a report without any request
        var empty = dev.profiledrollout.metrics.LatencyReport.of(List.of());
        try (Verdicts.Recording recording = Verdicts.start(true)) {
            // WHEN / THEN a percentile of no samples cannot be evaluated
            assertThatThrownBy(() -> ProfiledRolloutAssertions.assertThat(empty).ttft().percentile(99)
                    .isLessThan(Duration.ofSeconds(1))).hasMessageStartingWith("TTFT has no samples");
            assertThat(recording.verdicts()).singleElement().satisfies(v -> {
                assertThat(v.measure()).isEqualTo("TTFT samples");
                assertThat(v.outcome()).isEqualTo(Verdict.Outcome.FAIL);
            });
            assertThat(recording.failures()).isEmpty();
        }
    }

    @Test
    void should_read_verdicts_written_before_kind_scope_detail_and_enforced_existed() throws Exception {
        // GIVEN a verdict as summary.json files of earlier versions have it
        String old = "{\"measure\":\"p99 TTFT\",\"relation\":\"<\",\"actual\":312.0,\"budget\":250.0,"
                + "\"unit\":\"ms\",\"actualText\":\"312 ms\",\"budgetText\":\"250 ms\",\"passed\":false}";
        // WHEN
        Verdict read = ResultsModule.newMapper().readValue(old, Verdict.class);
        // THEN
        assertThat(read).isEqualTo(new Verdict(Verdict.Kind.LATENCY, "", "p99 TTFT", "<", 312.0, 250.0, "ms", "312 ms",
                "250 ms", (312.0 - 250.0) / 250.0, "", false, true));
        assertThat(read.outcome()).isEqualTo(Verdict.Outcome.FAIL);
    }

    @Test
    void should_write_the_outcome_of_each_verdict_and_read_it_back_unchanged() throws Exception {
        // GIVEN
        Verdict warning = Verdict.of(Verdict.Kind.CAPTURE, "steps captured", "=", 9, 10, "", "9", "10",
                "worker-1/TP-0 captured 9", false).asWarning();
        // WHEN
        String json = ResultsModule.newMapper().writeValueAsString(warning);
        // THEN
        assertThat(new ObjectMapper().readTree(json).path("outcome").asText()).isEqualTo("WARN");
        assertThat(ResultsModule.newMapper().readValue(json, Verdict.class)).isEqualTo(warning);
    }

    @Test
    void should_hand_the_verdicts_of_a_nested_soft_block_to_the_enclosing_recording() {
        // GIVEN the extension's recording, and a soft block of the user's inside it
        var latency = RunFixtures.latency();
        try (Verdicts.Recording outer = Verdicts.start(true)) {
            // WHEN
            assertThatThrownBy(() -> ProfiledRolloutSoftAssertions.assertSoftly(() -> {
                ProfiledRolloutAssertions.assertThat(latency).ttft().max().isLessThan(Duration.ofNanos(1));
                ProfiledRolloutAssertions.assertThat(latency).ttft().max().isLessThan(Duration.ofHours(1));
            })).isInstanceOf(BudgetFailuresError.class).hasMessageStartingWith("1 of 2 budgets failed: max TTFT\n");
            ProfiledRolloutAssertions.assertThat(latency).ttft().mean().isLessThan(Duration.ofNanos(1));
            // THEN the block threw its own failure; the outer recording saw all three verdicts and collected its own
            assertThat(outer.verdicts()).extracting(Verdict::measure)
                    .containsExactly("max TTFT", "max TTFT", "mean TTFT");
            assertThat(outer.failures()).singleElement()
                    .satisfies(f -> assertThat(f).hasMessageStartingWith("mean TTFT was "));
        }
    }
}
