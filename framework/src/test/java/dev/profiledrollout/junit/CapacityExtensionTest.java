package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.junit.ProfiledTestKit.run;

import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutCapacity;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.SimulatedEngine;
import dev.profiledrollout.capacity.Capacity;
import dev.profiledrollout.report.StageReport;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/** {@code @RolloutCapacity}: a capacity search as the test's load, inside one profile window. */
class CapacityExtensionTest {

    @TempDir
    Path output;

    // 4 running requests at most: the simulator saturates near 35 req/s with these lengths; the lag bound is wide
    // because the simulator, its profiler and the client share the test machine's cores
    @ProfiledRollout(activities = Activity.GPU)
    @SimulatedEngine(maxRunningRequests = 4)
    @RolloutLoad(inputTokens = 64, outputTokens = 16, warmupRequests = 2)
    @RolloutCapacity(slo = "ttft.p90<200ms", startRate = 8, maxRate = 128, precision = 0.1,
            maxLagMillis = 100)
    static class CapacityTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void capacity(RolloutSession session) {
            RolloutResult result = session.awaitResult();
            RESULT.set(result);
            assertThat(result.capacity()).requestRate().isGreaterThan(8);
        }
    }

    // a TTFT budget no engine meets: no figure, and the budget on it fails rather than passes
    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(inputTokens = 64, outputTokens = 4, warmupRequests = 0)
    @RolloutCapacity(slo = "ttft.p90<1us", startRate = 8, maxRate = 16, maxStages = 2, maxLagMillis = 100)
    static class UnmetTestCase {
        @Test
        void capacity(RolloutSession session) {
            assertThat(session.awaitResult().capacity()).requestRate().isGreaterThan(0);
        }
    }

    @Test
    void capacity_is_found_within_the_window_asserted_and_reported() throws Exception {
        EngineExecutionResults results = run(CapacityTestCase.class, output);
        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        Capacity c = CapacityTestCase.RESULT.get().capacity();
        Assertions.assertThat(c.status()).as(c.toTable()).isEqualTo(Capacity.Status.FOUND);
        Assertions.assertThat((c.upper() - c.lower()) / (c.upper() + c.lower())).isLessThanOrEqualTo(0.1);
        Assertions.assertThat(CapacityTestCase.RESULT.get().stages().stages()).hasSameSizeAs(c.checks());
        Assertions.assertThat(CapacityTestCase.RESULT.get().latency().completed())
                .isEqualTo(c.stages().stages().stream().mapToInt(s -> s.latency().completed()).sum());

        // the report: stages.json, the throughput-latency chart and one table row per stage
        Path dir = CapacityTestCase.RESULT.get().outputDirectory();
        JsonNode stages = ProfiledTestKit.JSON.readTree(dir.resolve("stages.json").toFile());
        Assertions.assertThat(stages.path("stages")).hasSize(c.stages().stages().size());
        Assertions.assertThat(stages.path("capacity").path("lower").asDouble()).isEqualTo(c.lower());
        Assertions.assertThat(stages.path("slos").get(0).path("budgetMs").asDouble()).isEqualTo(200.0);
        // the records every reader reads stages.json through name every field the writer wrote, and read its values
        StageReport.StagesFile typed = StageReport.read(dir).orElseThrow();
        assertNamesEveryField(stages, StageReport.StagesFile.class);
        stages.path("stages").forEach(row -> assertNamesEveryField(row, StageReport.Row.class));
        assertNamesEveryField(stages.path("capacity"), StageReport.CapacityBlock.class);
        stages.path("slos").forEach(slo -> assertNamesEveryField(slo, StageReport.Slo.class));
        Assertions.assertThat(typed.stages()).hasSize(c.stages().stages().size());
        Assertions.assertThat(typed.stages()).allSatisfy(row -> Assertions.assertThat(row.metSlos()).isNotNull());
        Assertions.assertThat(typed.stages().get(0).throughput())
                .isEqualTo(stages.path("stages").get(0).path("throughput").asDouble());
        Assertions.assertThat(typed.capacity().lower()).isEqualTo(c.lower());
        Assertions.assertThat(typed.capacity().status()).isEqualTo("FOUND");
        Assertions.assertThat(typed.slos().get(0).budgetMs()).isEqualTo(200.0);
        Assertions.assertThat(dir.resolve("charts/stages.png")).isNotEmptyFile();
        String html = Files.readString(dir.resolve("report.html"));
        Assertions.assertThat(html).contains("id=\"stage-chart\"", "id=\"stage-table\"", c.message().substring(0, 20));
        Assertions.assertThat(html.split("<tr", -1).length - 1 - html.substring(0, html.indexOf("id=\"stage-table\""))
                .split("<tr", -1).length + 1).isGreaterThanOrEqualTo(c.stages().stages().size() + 1);
    }

    private static void assertNamesEveryField(JsonNode written, Class<? extends Record> record) {
        java.util.Set<String> names = java.util.Arrays.stream(record.getRecordComponents())
                .map(java.lang.reflect.RecordComponent::getName).collect(java.util.stream.Collectors.toSet());
        written.fieldNames().forEachRemaining(f -> Assertions.assertThat(names).as(record.getSimpleName()).contains(f));
    }

    @Test
    void a_search_without_a_figure_fails_the_budget_on_it() {
        EngineExecutionResults results = run(UnmetTestCase.class, output);
        results.testEvents().assertStatistics(stats -> stats.failed(1));
        Assertions.assertThat(ProfiledTestKit.failure(results).getMessage())
                .contains("capacity request rate has no data", "no stage met every SLO [ttft.p90<0.001ms]");
    }
}
