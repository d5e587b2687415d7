package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.Phase;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RegressionCheck;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.history.HistoryStore;
import dev.profiledrollout.history.RunIdentity;
import dev.profiledrollout.history.RunRecord;
import dev.profiledrollout.verdict.BudgetFailuresError;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * Runs recorded by the extension in a real SQLite history store, the declared regression checks and the
 * {@code summary.json} {@code history} block, against the embedded simulator.
 */
class HistoryExtensionTest {

    private static final String CLASS = HistoryExtensionTest.class.getName();

    @TempDir
    Path output;

    @TempDir
    Path storeDir;

    @RegisterExtension
    final Simulators simulators = new Simulators();

    @ProfiledRollout(numSteps = 4, activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 8, inputTokens = 64, outputTokens = 8, warmupRequests = 1)
    @RegressionCheck(metrics = {"ttft.p99", "itl.p99", "throughput.output_tokens"}, threshold = "relative",
            boundary = 5.0)
    static class CheckedTestCase {
        @Test
        void run(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(numSteps = 4, activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 8, inputTokens = 64, outputTokens = 8, warmupRequests = 1)
    @RegressionCheck(metrics = "ttft.p99", threshold = "t-test", window = 10)
    static class TailLatencyTestCase {
        @Test
        void run(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(numSteps = 4, activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 8, inputTokens = 64, outputTokens = 8, warmupRequests = 1)
    static class AssertingTestCase {
        @Test
        void run(RolloutSession session) {
            RolloutResult result = session.awaitResult();
            assertThat(result).history().metric("e2e.p50").hasNoRegression();
            assertThat(result.latency()).ttft().percentile(99).isLessThan(java.time.Duration.ofMinutes(1));
        }
    }

    @ProfiledRollout(numSteps = 4, activities = Activity.GPU)
    @RolloutPhase(phase = Phase.PREFILL, inputTokens = 256, outputTokens = 1, concurrency = 4, requests = 4)
    @RolloutPhase(phase = Phase.DECODE, inputTokens = 16, outputTokens = 12, concurrency = 2, requests = 6)
    @RegressionCheck(metrics = "e2e.p99", threshold = "relative", boundary = 5.0)
    static class PhasedTestCase {
        @Test
        void phases(RolloutSession session) {
            session.awaitResult();
        }
    }

    private String url() {
        return "jdbc:sqlite:" + storeDir.resolve("history.db");
    }

    private EngineExecutionResults run(Class<?> testCase, String... more) {
        String[] keys = new String[more.length + 2];
        keys[0] = "profiledrollout.history.url";
        keys[1] = url();
        System.arraycopy(more, 0, keys, 2, more.length);
        return ProfiledTestKit.run(testCase, output, keys);
    }

    private JsonNode history(Class<?> testCase, String method) {
        return ProfiledTestKit.summary(output.resolve(testCase.getName().substring(testCase.getName().lastIndexOf('.')
                + 1)).resolve(method)).path("history");
    }

    @Test
    void should_record_each_run_and_check_it_against_the_earlier_ones() {
        // WHEN the test runs twice
        run(CheckedTestCase.class).testEvents().assertStatistics(s -> s.succeeded(1));
        JsonNode first = history(CheckedTestCase.class, "run");
        JsonNode firstVerdicts = ProfiledTestKit.summary(output.resolve("HistoryExtensionTest$CheckedTestCase/run"))
                .path("verdicts");

        run(CheckedTestCase.class).testEvents().assertStatistics(s -> s.succeeded(1));
        JsonNode second = history(CheckedTestCase.class, "run");

        // THEN both runs are in the store with their identity, fingerprint and metrics
        String testId = CLASS + "$CheckedTestCase#run";
        try (HistoryStore store = HistoryStore.open(url(), null, null)) {
            List<RunRecord> runs = store.history(testId, first.path("fingerprint").asText(), 10, Long.MAX_VALUE);
            Assertions.assertThat(runs).extracting(RunRecord::id)
                    .containsExactly(first.path("runId").asLong(), second.path("runId").asLong());
            RunRecord recorded = store.run(second.path("runId").asLong()).orElseThrow();
            Assertions.assertThat(recorded.outcome()).isEqualTo("PASSED");
            Assertions.assertThat(recorded.identity().testId()).isEqualTo(testId);
            Assertions.assertThat(recorded.identity().host()).isNotBlank();
            Assertions.assertThat(recorded.configuration().engineVersion()).isNotBlank(); // the simulator's /server_info
            Assertions.assertThat(recorded.configuration().gpu()).isNotBlank();
            Assertions.assertThat(recorded.metrics()).containsKeys("ttft.p99", "itl.p99", "trace.kernel_ms");
            Assertions.assertThat(recorded.histograms()).containsKeys("ttft", "itl", "tpot", "e2e");
        }
        // the first run had no history, the second compares with the first
        Assertions.assertThat(first.path("recorded").asBoolean()).isTrue();
        Assertions.assertThat(first.path("error").isNull()).isTrue();
        Assertions.assertThat(first.path("store").asText()).contains("history.db");
        Assertions.assertThat(first.path("testId").asText()).isEqualTo(testId);
        Assertions.assertThat(first.path("fingerprint").asText()).hasSize(16)
                .isEqualTo(second.path("fingerprint").asText());
        Assertions.assertThat(first.path("threshold").path("model").asText()).isEqualTo("relative");
        Assertions.assertThat(first.path("threshold").path("upper").asDouble()).isEqualTo(5.0);
        Assertions.assertThat(first.path("verdicts").findValuesAsText("change")).containsOnly("INSUFFICIENT_HISTORY");
        Assertions.assertThat(second.path("verdicts").findValuesAsText("change")).containsOnly("NO_CHANGE");
        Assertions.assertThat(second.path("verdicts").findValuesAsText("metric"))
                .containsExactly("ttft.p99", "itl.p99", "throughput.output_tokens");
        JsonNode verdict = second.path("verdicts").get(0);
        Assertions.assertThat(verdict.path("label").asText()).isEqualTo("p99 TTFT");
        Assertions.assertThat(verdict.path("unit").asText()).isEqualTo("ms");
        Assertions.assertThat(verdict.path("direction").asText()).isEqualTo("LOWER_IS_BETTER");
        Assertions.assertThat(verdict.path("model").asText()).isEqualTo("relative change");
        Assertions.assertThat(verdict.path("n").asInt()).isEqualTo(1);
        Assertions.assertThat(verdict.path("baseline").asDouble())
                .isEqualTo(first.path("trends").get(0).path("points").get(0).path("value").asDouble());
        Assertions.assertThat(verdict.path("enforced").asBoolean()).isTrue();
        Assertions.assertThat(verdict.path("description").asText()).contains("p99 TTFT", "NO_CHANGE",
                "run #" + first.path("runId").asLong());
        // trends: the key metrics the run has, oldest first, ending with the current run
        JsonNode ttft = second.path("trends").get(0);
        Assertions.assertThat(second.path("trends").findValuesAsText("metric")).contains("ttft.p99", "e2e.p99",
                "throughput.output_tokens");
        Assertions.assertThat(ttft.path("points")).hasSize(2);
        Assertions.assertThat(ttft.path("points").get(0).path("runId").asLong()).isEqualTo(first.path("runId").asLong());
        Assertions.assertThat(ttft.path("points").get(0).path("change").asText()).isEqualTo("INSUFFICIENT_HISTORY");
        Assertions.assertThat(ttft.path("points").get(1).path("current").asBoolean()).isTrue();
        Assertions.assertThat(ttft.path("points").get(1).path("change").asText()).isEqualTo("NO_CHANGE");
        Assertions.assertThat(Instant.parse(ttft.path("points").get(1).path("startedAt").asText())).isNotNull();
        // the verdicts are also ordinary HISTORY verdicts: a warning first, a pass second

        Assertions.assertThat(firstVerdicts.findValuesAsText("kind")).contains("HISTORY");
        // a first run with an empty store: one line for the run, not a "no baseline" warning per metric
        Assertions.assertThat(firstVerdicts).filteredOn(v -> v.path("kind").asText().equals("HISTORY"))
                .singleElement().satisfies(v -> {
                    Assertions.assertThat(v.path("outcome").asText()).isEqualTo("WARN");
                    Assertions.assertThat(v.path("measure").asText()).isEqualTo("regression checks vs history");
                    Assertions.assertThat(v.path("detail").asText()).startsWith("the history store has no earlier "
                            + "runs of this test and configuration").contains("start with the next run");
                });
    }

    @Test
    void should_give_another_configuration_its_own_fingerprint() throws Exception {
        run(CheckedTestCase.class).testEvents().assertStatistics(s -> s.succeeded(1));
        JsonNode embedded = history(CheckedTestCase.class, "run");
        EngineSimulator other = simulators.start(SimulatorConfig.builder().servedModelName("acme/other-model"));

        ProfiledTestKit.attach(CheckedTestCase.class, output, other.baseUri(), "profiledrollout.history.url", url())
                .testEvents().assertStatistics(s -> s.succeeded(1));
        JsonNode attached = history(CheckedTestCase.class, "run");

        Assertions.assertThat(attached.path("testId").asText()).isEqualTo(embedded.path("testId").asText());
        Assertions.assertThat(attached.path("fingerprint").asText()).isNotEqualTo(embedded.path("fingerprint").asText());
        // a new series: nothing to compare with yet
        Assertions.assertThat(attached.path("verdicts").findValuesAsText("change")).containsOnly("INSUFFICIENT_HISTORY");
    }

    @Test
    void should_fail_on_a_regression_against_a_clearly_better_history_naming_metric_change_baseline_and_runs() {
        // GIVEN one recorded run, then ten runs of the same series with a far lower p99 TTFT
        run(TailLatencyTestCase.class).testEvents().assertStatistics(s -> s.succeeded(1));
        JsonNode first = history(TailLatencyTestCase.class, "run");
        try (HistoryStore store = HistoryStore.open(url(), null, null)) {
            RunRecord template = store.run(first.path("runId").asLong()).orElseThrow();
            // ten of them: the t-test's window (10) then holds only these
            double[] better = {0.010, 0.011, 0.009, 0.0105, 0.0095, 0.010, 0.011, 0.009, 0.0105, 0.0095};
            for (double ttft : better) {
                RunIdentity identity = new RunIdentity(template.identity().testId(), Instant.now(), "c0ffee0", "main",
                        null, null, "seed");
                store.record(new RunRecord(0, identity, template.configuration(), "PASSED",
                        new TreeMap<>(Map.of("ttft.p99", ttft)), Map.of()));
            }
        }

        // WHEN it runs again
        EngineExecutionResults results = run(TailLatencyTestCase.class);

        // THEN it fails once, with a message naming the metric, the change, the baseline and the runs
        results.testEvents().assertStatistics(s -> s.failed(1));
        Throwable failure = ProfiledTestKit.failure(results);
        Assertions.assertThat(failure).isInstanceOf(BudgetFailuresError.class);
        long firstSeeded = first.path("runId").asLong() + 1;
        Assertions.assertThat(failure.getMessage()).contains("ttft.p99 regressed", "p99 TTFT", "REGRESSION",
                "vs mean 0.01 ms", "runs #" + firstSeeded + "..#" + (firstSeeded + 9),
                "commit c0ffee0", "t = ");
        JsonNode second = history(TailLatencyTestCase.class, "run");
        Assertions.assertThat(second.path("verdicts").get(0).path("change").asText()).isEqualTo("REGRESSION");
        Assertions.assertThat(second.path("recorded").asBoolean()).isTrue();
        JsonNode summary = ProfiledTestKit.summary(output.resolve("HistoryExtensionTest$TailLatencyTestCase/run"));
        Assertions.assertThat(summary.path("outcome").path("status").asText()).isEqualTo("FAILED");
        try (HistoryStore store = HistoryStore.open(url(), null, null)) {
            // recorded with the outcome it ended with
            Assertions.assertThat(store.run(second.path("runId").asLong()).orElseThrow().outcome()).isEqualTo("FAILED");
        }
        JsonNode points = second.path("trends").get(0).path("points");
        Assertions.assertThat(points.get(points.size() - 1).path("change").asText()).isEqualTo("REGRESSION");
    }

    @Test
    void should_check_the_history_from_the_body_with_the_soft_budgets() {
        Path dir = output.resolve("HistoryExtensionTest$AssertingTestCase/run");
        run(AssertingTestCase.class).testEvents().assertStatistics(s -> s.succeeded(1));
        JsonNode first = ProfiledTestKit.summary(dir);
        run(AssertingTestCase.class).testEvents().assertStatistics(s -> s.succeeded(1));
        JsonNode second = ProfiledTestKit.summary(dir);
        JsonNode verdict = first.path("verdicts").get(0);
        Assertions.assertThat(verdict.path("kind").asText()).isEqualTo("HISTORY");
        Assertions.assertThat(verdict.path("measure").asText()).isEqualTo("p50 E2E vs history");
        Assertions.assertThat(verdict.path("outcome").asText()).isEqualTo("WARN"); // insufficient history never fails
        Assertions.assertThat(first.path("history").path("verdicts").get(0).path("metric").asText()).isEqualTo("e2e.p50");
        Assertions.assertThat(second.path("history").path("verdicts").get(0).path("n").asInt()).isEqualTo(1);
    }

    @Test
    void should_warn_and_pass_when_the_store_cannot_be_opened() throws Exception {
        Path notADirectory = Files.writeString(storeDir.resolve("file"), "x");

        run(CheckedTestCase.class, "profiledrollout.history.url", "jdbc:sqlite:" + notADirectory.resolve("h.db"))
                .testEvents().assertStatistics(s -> s.succeeded(1));

        JsonNode summary = ProfiledTestKit.summary(output.resolve("HistoryExtensionTest$CheckedTestCase/run"));
        JsonNode history = summary.path("history");
        Assertions.assertThat(history.path("recorded").asBoolean()).isFalse();
        Assertions.assertThat(history.path("error").asText()).isNotBlank();
        Assertions.assertThat(history.path("runId").isNull()).isTrue();
        Assertions.assertThat(summary.path("verdicts")).anySatisfy(v -> {
            Assertions.assertThat(v.path("measure").asText()).isEqualTo("history store");
            Assertions.assertThat(v.path("outcome").asText()).isEqualTo("WARN");
        });
        Assertions.assertThat(summary.path("outcome").path("status").asText()).isEqualTo("PASSED");
        Assertions.assertThat(output.resolve("HistoryExtensionTest$CheckedTestCase/run/report.html")).exists();
    }

    @Test
    void should_turn_an_assertion_on_an_unusable_store_into_a_warning() throws Exception {
        Path notADirectory = Files.writeString(storeDir.resolve("file"), "x");

        run(AssertingTestCase.class, "profiledrollout.history.url", "jdbc:sqlite:" + notADirectory.resolve("h.db"))
                .testEvents().assertStatistics(s -> s.succeeded(1));

        JsonNode summary = ProfiledTestKit.summary(output.resolve("HistoryExtensionTest$AssertingTestCase/run"));
        Assertions.assertThat(summary.path("verdicts")).anySatisfy(v -> {
            Assertions.assertThat(v.path("measure").asText()).isEqualTo("p50 E2E vs history");
            Assertions.assertThat(v.path("outcome").asText()).isEqualTo("WARN");
            Assertions.assertThat(v.path("detail").asText()).contains("profiledrollout.history.url");
        });
        Assertions.assertThat(summary.path("history").path("recorded").asBoolean()).isFalse();
    }

    @Test
    void should_record_and_check_each_phase_under_its_own_test_id() {
        run(PhasedTestCase.class).testEvents().assertStatistics(s -> s.succeeded(1));

        JsonNode summary = ProfiledTestKit.summary(output.resolve("HistoryExtensionTest$PhasedTestCase/phases"));
        JsonNode phases = summary.path("phases");
        Assertions.assertThat(summary.has("history")).isFalse();
        Assertions.assertThat(phases).extracting(p -> p.path("history").path("testId").asText())
                .containsExactly(CLASS + "$PhasedTestCase#phases/PREFILL", CLASS + "$PhasedTestCase#phases/DECODE");
        Assertions.assertThat(phases).allSatisfy(p -> Assertions.assertThat(p.path("history").path("recorded")
                .asBoolean()).isTrue());
        Assertions.assertThat(phases.get(0).path("history").path("fingerprint").asText())
                .isNotEqualTo(phases.get(1).path("history").path("fingerprint").asText());
        JsonNode ownPrefill = ProfiledTestKit.summary(output.resolve("HistoryExtensionTest$PhasedTestCase/phases/prefill"));
        Assertions.assertThat(ownPrefill.path("history").path("verdicts").get(0).path("metric").asText())
                .isEqualTo("e2e.p99");
        Assertions.assertThat(ownPrefill.path("verdicts").findValuesAsText("scope")).contains("PREFILL");
    }
}
