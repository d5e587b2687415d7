package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.matching;
import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.verdict.BudgetFailuresError;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/**
 * Soft budgets end to end against the embedded simulator: every budget of a body is evaluated and recorded in
 * {@code summary.json}, the test fails once with all missed budgets, and {@code outcome} says how it ended.
 */
class SoftBudgetsExtensionTest {

    @TempDir
    Path output;

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(numSteps = 4, activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 8, inputTokens = 64, outputTokens = 8, warmupRequests = 1,
            goodput = {"ttft:60000", "e2el:60000"})
    static class ThreeMissedOneHeldTestCase {
        static final AtomicBoolean REACHED_END = new AtomicBoolean();

        @Test
        void budgets(RolloutSession session) {
            var result = session.awaitResult();
            assertThat(result.latency()).ttft().percentile(99).isLessThan(Duration.ofNanos(1));
            assertThat(result.trace()).gpuBusyFraction().isGreaterThan(2.0);
            assertThat(result.latency()).goodRequestFraction().isGreaterThanOrEqualTo(0.5);
            assertThat(result.trace()).kernels(matching(".*")).count().isLessThan(1);
            REACHED_END.set(true);
        }
    }

    @Test
    void should_evaluate_every_budget_record_all_four_verdicts_and_fail_once_listing_the_three_missed() {
        // WHEN
        Throwable failure = failure(ProfiledTestKit.run(ThreeMissedOneHeldTestCase.class, output));

        // THEN the body ran to its end and the test failed once, with the three missed budgets
        Assertions.assertThat(ThreeMissedOneHeldTestCase.REACHED_END).isTrue();
        Assertions.assertThat(failure).isInstanceOf(BudgetFailuresError.class)
                .hasMessageStartingWith("3 of 4 budgets failed: p99 TTFT; GPU busy fraction; launch count of kernels matching /.*/\n"
                        + "  1) p99 TTFT was ")
                .hasMessageContaining("\n  2) GPU busy fraction was ")
                .hasMessageContaining("\n  3) launch count of kernels matching /.*/ was ");
        Assertions.assertThat(((BudgetFailuresError) failure).getFailures()).hasSize(3)
                .allSatisfy(f -> Assertions.assertThat(f).isInstanceOf(AssertionFailedError.class));
        // and summary.json has all four verdicts, held and missed, with their kinds and outcomes
        JsonNode summary = summary(output.resolve("SoftBudgetsExtensionTest$ThreeMissedOneHeldTestCase/budgets"));
        JsonNode verdicts = summary.path("verdicts");
        Assertions.assertThat(verdicts).extracting(v -> v.path("kind").asText() + " " + v.path("outcome").asText())
                .containsExactly("LATENCY FAIL", "TRACE FAIL", "GOODPUT PASS", "KERNEL FAIL");
        Assertions.assertThat(verdicts.get(0).path("detail").asText()).isEqualTo("8 of 8 requests above budget");
        Assertions.assertThat(verdicts.get(2).path("measure").asText())
                .isEqualTo("good-request fraction (SLO ttft:60000 e2el:60000)");
        Assertions.assertThat(verdicts.get(2).path("actual").asDouble()).isEqualTo(1.0);
        JsonNode outcome = summary.path("outcome");
        Assertions.assertThat(outcome.path("status").asText()).isEqualTo("FAILED");
        Assertions.assertThat(outcome.path("verdicts").asInt()).isEqualTo(4);
        Assertions.assertThat(outcome.path("failed").asInt()).isEqualTo(3);
        Assertions.assertThat(outcome.path("warnings").asInt()).isZero();
        Assertions.assertThat(outcome.path("message").asText()).isEqualTo(
                "3 of 4 budgets failed: p99 TTFT; GPU busy fraction; launch count of kernels matching /.*/");
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(numSteps = 4, activities = Activity.GPU, softBudgets = false)
    @RolloutLoad(concurrency = 4, requests = 8, inputTokens = 64, outputTokens = 8, warmupRequests = 1)
    static class FailFastTestCase {
        static final AtomicBoolean REACHED_END = new AtomicBoolean();

        @Test
        void budgets(RolloutSession session) {
            var result = session.awaitResult();
            assertThat(result.latency()).ttft().percentile(99).isLessThan(Duration.ofNanos(1));
            assertThat(result.trace()).gpuBusyFraction().isGreaterThan(2.0);
            REACHED_END.set(true);
        }
    }

    @Test
    void should_stop_at_the_first_missed_budget_when_soft_budgets_are_off() {
        // WHEN
        Throwable failure = failure(ProfiledTestKit.run(FailFastTestCase.class, output));

        // THEN
        Assertions.assertThat(FailFastTestCase.REACHED_END).isFalse();
        Assertions.assertThat(failure).isInstanceOf(AssertionFailedError.class)
                .hasMessageStartingWith("p99 TTFT was ");
        JsonNode summary = summary(output.resolve("SoftBudgetsExtensionTest$FailFastTestCase/budgets"));
        Assertions.assertThat(summary.path("verdicts")).singleElement()
                .satisfies(v -> Assertions.assertThat(v.path("outcome").asText()).isEqualTo("FAIL"));
        JsonNode outcome = summary.path("outcome");
        Assertions.assertThat(outcome.path("status").asText()).isEqualTo("FAILED");
        Assertions.assertThat(outcome.path("failed").asInt()).isEqualTo(1);
        Assertions.assertThat(outcome.path("message").asText()).startsWith("p99 TTFT was ")
                .endsWith("(the test stopped here: budgets after this point were not evaluated)");
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(numSteps = 4, activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 8, inputTokens = 64, outputTokens = 8, warmupRequests = 1)
    static class ThrowingBodyTestCase {
        @Test
        void budgets(RolloutSession session) {
            var result = session.awaitResult();
            assertThat(result.latency()).ttft().percentile(99).isLessThan(Duration.ofNanos(1));
            List<String> none = new ArrayList<>();
            none.get(0);
        }
    }

    @Test
    void should_report_a_body_exception_with_the_budget_failures_so_far_suppressed_and_an_error_outcome() {
        // WHEN
        Throwable failure = failure(ProfiledTestKit.run(ThrowingBodyTestCase.class, output));

        // THEN
        Assertions.assertThat(failure).isInstanceOf(IndexOutOfBoundsException.class);
        Assertions.assertThat(failure.getSuppressed()).anySatisfy(s -> Assertions.assertThat(s)
                .isInstanceOf(AssertionFailedError.class).hasMessageStartingWith("p99 TTFT was "));
        JsonNode summary = summary(output.resolve("SoftBudgetsExtensionTest$ThrowingBodyTestCase/budgets"));
        Assertions.assertThat(summary.path("verdicts")).hasSize(1);
        JsonNode outcome = summary.path("outcome");
        Assertions.assertThat(outcome.path("status").asText()).isEqualTo("ERROR");
        Assertions.assertThat(outcome.path("failed").asInt()).isEqualTo(1);
        Assertions.assertThat(outcome.path("message").asText()).startsWith("IndexOutOfBoundsException: ")
                .contains("budgets after this point were not evaluated");
    }
}
