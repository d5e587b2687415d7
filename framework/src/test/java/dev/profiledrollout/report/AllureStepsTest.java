package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        assertThat(result.getAttachments()).extracting(Attachment::getName).contains("latency table",
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
}
