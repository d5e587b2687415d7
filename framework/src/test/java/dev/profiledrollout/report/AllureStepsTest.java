package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.ProfiledRolloutKeys;
import io.qameta.allure.Allure;
import io.qameta.allure.AllureLifecycle;
import io.qameta.allure.model.Attachment;
import io.qameta.allure.model.Label;
import io.qameta.allure.model.Parameter;
import io.qameta.allure.model.Status;
import io.qameta.allure.model.StepResult;
import io.qameta.allure.model.TestResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AllureStepsTest {

    @TempDir
    Path dir;

    private final MemoryAllureWriter writer = new MemoryAllureWriter();
    private AllureLifecycle previous;

    @BeforeEach
    void memoryLifecycle() {
        previous = Allure.getLifecycle();
        Allure.setLifecycle(new AllureLifecycle(writer));
    }

    @AfterEach
    void restore() {
        Allure.setLifecycle(previous);
    }

    private TestResult runAsTestCase(Runnable body) {
        AllureLifecycle lifecycle = Allure.getLifecycle();
        String uuid = UUID.randomUUID().toString();
        lifecycle.scheduleTestCase(new TestResult().setUuid(uuid).setName("profiled"));
        lifecycle.startTestCase(uuid);
        try {
            body.run();
        } finally {
            lifecycle.stopTestCase(uuid);
            lifecycle.writeTestCase(uuid);
        }
        assertThat(writer.results()).hasSize(1);
        return writer.results().get(0);
    }

    @Test
    void should_record_phase_steps_with_outcome_and_the_report_attachments() {
        // GIVEN
        Path run = RunFixtures.writeRun(dir);
        List<Verdict> verdicts = List.of(Verdict.of(Verdict.Kind.LATENCY, "p99 TTFT", "<", 312.0, 250.0, "ms", "312 ms", "250 ms", "", false));
        // WHEN
        TestResult result = runAsTestCase(() -> {
            AllureSteps.step("warm-up", () -> 1);
            assertThatThrownBy(() -> AllureSteps.step("trace collection", () -> {
                throw new IllegalStateException("no trace files");
            })).hasMessage("no trace files");
            TestReport.finish(run, verdicts, List.of(), TestReport.Options.DEFAULTS,
                    new PrintStream(new ByteArrayOutputStream()));
        });
        // THEN
        assertThat(result.getSteps()).extracting(StepResult::getName, StepResult::getStatus).containsExactly(
                org.assertj.core.groups.Tuple.tuple("warm-up", Status.PASSED),
                org.assertj.core.groups.Tuple.tuple("trace collection", Status.BROKEN),
                org.assertj.core.groups.Tuple.tuple("budgets: 0 of 1 held", Status.FAILED));
        assertThat(result.getSteps().get(2).getSteps()).extracting(StepResult::getName)
                .containsExactly("FAIL p99 TTFT: 312 ms, budget < 250 ms (+24.8%)");
        assertThat(result.getSteps().get(0).getStop()).isGreaterThanOrEqualTo(result.getSteps().get(0).getStart());
        assertThat(result.getAttachments()).extracting(Attachment::getName).contains("summary", "latency table",
                "budget verdicts", "chart: TTFT percentile distribution", "chart: GPU busy time per rank (straggler "
                        + "highlighted)", "kernel table", "summary.json");
        assertThat(result.getAttachments()).filteredOn(a -> a.getType().equals("image/png")).hasSize(7);
        assertThat(result.getParameters()).extracting(Parameter::getName, Parameter::getValue).contains(
                org.assertj.core.groups.Tuple.tuple("backend", "SGLANG"),
                org.assertj.core.groups.Tuple.tuple("engine URL", "http://gpu:30000/"),
                org.assertj.core.groups.Tuple.tuple("ISL/OSL (tokens)", "128/8"),
                org.assertj.core.groups.Tuple.tuple("numSteps", "5"));
        assertThat(result.getLabels()).extracting(Label::getName, Label::getValue).contains(
                org.assertj.core.groups.Tuple.tuple("epic", "SGLANG"),
                org.assertj.core.groups.Tuple.tuple("feature", "meta-llama/Llama-3.1-8B-Instruct"));
        assertThat(writer.attachments()).hasSize(result.getAttachments().size());
    }

    @Test
    void should_do_nothing_without_a_running_test_case() {
        // WHEN
        int value = AllureSteps.step("warm-up", () -> 42);
        TestReport.finish(RunFixtures.writeRun(dir), List.of(), List.of(), TestReport.Options.DEFAULTS,
                new PrintStream(new ByteArrayOutputStream()));
        // THEN
        assertThat(value).isEqualTo(42);
        assertThat(AllureSteps.active()).isFalse();
        assertThat(writer.results()).isEmpty();
        assertThat(writer.attachments()).isEmpty();
    }

    @Test
    void should_read_attach_options_from_configuration() {
        Map<String, String> config = Map.of(ProfiledRolloutKeys.REPORT_ATTACH_TRACES, "true",
                ProfiledRolloutKeys.REPORT_ATTACH_MAX_BYTES, "1024");
        TestReport.Options options = TestReport.Options.from(key -> java.util.Optional.ofNullable(config.get(key)));
        assertThat(options).isEqualTo(new TestReport.Options(true, 1024));
        assertThatThrownBy(() -> TestReport.Options.from(key -> java.util.Optional.of("lots")))
                .hasMessageContaining(ProfiledRolloutKeys.REPORT_ATTACH_MAX_BYTES);
    }

    @Test
    void should_record_every_verdict_warnings_as_passed_steps_and_phase_steps_with_their_own_attachments() {
        // GIVEN
        Path run = RunFixtures.writeRichRun(dir);
        // WHEN
        TestResult result = runAsTestCase(() -> TestReport.finish(run, RunFixtures.verdicts(), List.of(),
                TestReport.Options.DEFAULTS, new PrintStream(new ByteArrayOutputStream())));
        // THEN
        StepResult budgets = result.getSteps().get(0);
        assertThat(budgets.getName()).isEqualTo("budgets: 1 of 3 held, 1 warning(s)");
        assertThat(budgets.getStatus()).isEqualTo(Status.FAILED);
        assertThat(budgets.getSteps()).extracting(StepResult::getName, StepResult::getStatus).containsExactly(
                org.assertj.core.groups.Tuple.tuple("FAIL p99 TTFT: 312 ms, budget < 250 ms (+24.8%); 4 of 40 requests "
                        + "above budget", Status.FAILED),
                org.assertj.core.groups.Tuple.tuple("WARN steps captured: 4, budget = 5; set strictSteps to fail the "
                        + "test", Status.PASSED),
                org.assertj.core.groups.Tuple.tuple("PASS p50 TTFT: 40 ms, budget < 100 ms", Status.PASSED));
        StepResult phase = result.getSteps().get(1);
        assertThat(phase.getName()).isEqualTo("phase PREFILL");
        assertThat(phase.getSteps()).extracting(StepResult::getName).containsExactly("budgets: 0 of 1 held");
        assertThat(phase.getAttachments()).extracting(Attachment::getName)
                .contains("PREFILL: latency table", "PREFILL: chart: TTFT percentile distribution");
        assertThat(result.getAttachments()).extracting(Attachment::getName).contains("summary", "workers");
        String summary = new String(writer.attachments().get(result.getAttachments().stream()
                .filter(a -> a.getName().equals("summary")).findFirst().orElseThrow().getSource()),
                java.nio.charset.StandardCharsets.UTF_8);
        assertThat(summary).startsWith("<!DOCTYPE html>").contains("data-status=\"FAILED\"")
                .contains("router http://router:8000 → 2 workers");
        String workers = new String(writer.attachments().get(result.getAttachments().stream()
                .filter(a -> a.getName().equals("workers")).findFirst().orElseThrow().getSource()),
                java.nio.charset.StandardCharsets.UTF_8);
        assertThat(workers).contains("<td>worker-1</td>").contains("run-TP-0.trace.json.gz");
    }

    @Test
    void should_print_the_outcome_every_verdict_and_the_workers_on_the_console() {
        // GIVEN
        Path run = RunFixtures.writeRichRun(dir);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // WHEN
        TestReport.finish(run, RunFixtures.verdicts(), List.of(), TestReport.Options.DEFAULTS,
                new PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
        // THEN
        assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8).lines().map(String::stripTrailing))
                .containsExactly(
                        "=== FixtureTest.budget: FAILED: 1 of 3 checks failed, 1 warning",
                        "  Budgets:",
                        "    FAIL p99 TTFT: 312 ms, budget < 250 ms (+24.8%); 4 of 40 requests above budget",
                        "    WARN steps captured: 4, budget = 5; set strictSteps to fail the test",
                        "    PASS p50 TTFT: 40 ms, budget < 100 ms",
                        "  Workers:",
                        "    worker-1   http://gpu:30001                 prefill  PROFILED         1 trace file(s)",
                        "    worker-2   http://gpu:30000                 decode   START_FAILED     0 trace file(s)");
    }

    @Test
    void should_not_repeat_a_failed_verdict_as_the_outcome_message_of_a_file_without_outcome() {
        // GIVEN
        Path run = RunFixtures.writeRun(dir);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // WHEN
        TestReport.finish(run, RunFixtures.verdicts(), List.of(), TestReport.Options.DEFAULTS,
                new PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
        // THEN
        assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8).lines()).containsExactly(
                "=== FixtureTest.budget: FAILED: 1 of 3 checks failed, 1 warning",
                "  Budgets:",
                "    FAIL p99 TTFT: 312 ms, budget < 250 ms (+24.8%); 4 of 40 requests above budget",
                "    WARN steps captured: 4, budget = 5; set strictSteps to fail the test",
                "    PASS p50 TTFT: 40 ms, budget < 100 ms");
    }
}
