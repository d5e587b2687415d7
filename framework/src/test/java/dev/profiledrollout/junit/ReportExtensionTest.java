package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.report.MemoryAllureWriter;
import io.qameta.allure.Allure;
import io.qameta.allure.AllureLifecycle;
import io.qameta.allure.model.StepResult;
import io.qameta.allure.model.TestResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/** The extension's report hooks end to end: verdicts after the body, the rendered report, and the Allure steps. */
class ReportExtensionTest {

    @TempDir
    Path output;

    @ProfiledRollout(numSteps = 4, activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 8, inputTokens = 64, outputTokens = 8, warmupRequests = 1)
    static class OneBudgetHeldOneMissedTestCase {
        @Test
        void budgets(RolloutSession session) {
            var result = session.awaitResult();
            assertThat(result.latency()).e2e().percentile(99).isLessThan(Duration.ofMinutes(1));
            assertThat(result.trace()).gpuBusyFraction().isGreaterThan(2.0);
        }
    }

    @Test
    void should_write_held_and_missed_verdicts_the_report_and_one_allure_step_per_phase() throws Exception {
        // GIVEN an Allure test case running on this thread (EngineTestKit runs the nested test on it)
        MemoryAllureWriter writer = new MemoryAllureWriter();
        AllureLifecycle previous = Allure.getLifecycle();
        AllureLifecycle lifecycle = new AllureLifecycle(writer);
        Allure.setLifecycle(lifecycle);
        String uuid = UUID.randomUUID().toString();
        EngineExecutionResults results;
        try {
            lifecycle.scheduleTestCase(new TestResult().setUuid(uuid).setName("outer"));
            lifecycle.startTestCase(uuid);
            // WHEN
            results = ProfiledTestKit.run(OneBudgetHeldOneMissedTestCase.class, output);
            lifecycle.stopTestCase(uuid);
            lifecycle.writeTestCase(uuid);
        } finally {
            Allure.setLifecycle(previous);
        }

        // THEN the test failed on the missed budget, and the report still has both verdicts
        results.testEvents().assertStatistics(stats -> stats.started(1).failed(1));
        Path dir = output.resolve("ReportExtensionTest$OneBudgetHeldOneMissedTestCase/budgets");
        JsonNode verdicts = ProfiledTestKit.summary(dir).path("verdicts");
        Assertions.assertThat(verdicts).hasSize(2);
        Assertions.assertThat(verdicts.get(0).path("measure").asText()).isEqualTo("p99 E2E latency");
        Assertions.assertThat(verdicts.get(0).path("passed").asBoolean()).isTrue();
        Assertions.assertThat(verdicts.get(1).path("measure").asText()).isEqualTo("GPU busy fraction");
        Assertions.assertThat(verdicts.get(1).path("passed").asBoolean()).isFalse();
        Assertions.assertThat(verdicts.get(1).path("budget").asDouble()).isEqualTo(2.0);
        Assertions.assertThat(Files.readString(dir.resolve("report.html"))).contains("<td class=\"fail\">FAIL</td>");
        try (var charts = Files.list(dir.resolve("charts"))) {
            Assertions.assertThat(charts.count()).isGreaterThanOrEqualTo(4);
        }
        List<TestResult> written = writer.results();
        Assertions.assertThat(written).hasSize(1);
        Assertions.assertThat(written.get(0).getSteps()).extracting(StepResult::getName).containsExactly(
                "engine ready", "warm-up", "start profile", "load: 8 requests", "stop profile", "trace collection",
                "analysis: 1 trace file(s)", "budgets: 1 of 2 held");
        Assertions.assertThat(written.get(0).getAttachments()).extracting(a -> a.getName())
                .contains("latency table", "kernel table");
    }
}
