package dev.profiledrollout.junit;

import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static dev.profiledrollout.junit.ProfiledTestKit.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutRecipe;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.engine.nsys.NsysStandIn;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/**
 * A window whose profiler started and stopped but that captured nothing to judge fails with the reason, and its
 * engines are reported {@code NO_DATA}, not {@code PROFILED}: an nsys capture without its report, a recipe whose
 * {@code start_step} lies past the load. Against the simulator.
 */
class EmptyCaptureTest {

    @TempDir
    Path output;

    @TempDir
    Path nsysDir;

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/agg-nsys.yaml")
    @RolloutLoad(requests = 4, warmupRequests = 0)
    static class NsysWithoutReportTestCase {
        @Test
        void capture(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout
    @RolloutRecipe(resource = "/recipes/agg-torch-late.yaml")
    @RolloutLoad(requests = 4, warmupRequests = 0)
    static class StartPastTheLoadTestCase {
        @Test
        void capture(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(numSteps = 4, startStep = 1100, activities = {Activity.GPU, Activity.CPU})
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class AnnotatedStartPastTheLoadTestCase {
        @Test
        void capture(RolloutSession session) {
            session.awaitResult();
        }
    }

    private JsonNode summary(String testCase) {
        return ProfiledTestKit.summary(output.resolve("EmptyCaptureTest$" + testCase).resolve("capture"));
    }

    private static JsonNode captureVerdict(JsonNode summary, String measure) {
        return StreamSupport.stream(summary.path("verdicts").spliterator(), false)
                .filter(v -> v.path("measure").asText().equals(measure)).findFirst().orElseThrow(
                        () -> new AssertionError("no verdict " + measure + " in " + summary.path("verdicts")));
    }

    @Test
    void an_nsys_recipe_without_its_report_fails_and_says_how_to_get_one() throws Exception {
        Path nsys = NsysStandIn.install(nsysDir);

        Throwable failure = failure(run(NsysWithoutReportTestCase.class, output, "profiledrollout.nsys.path",
                nsys.toString()));

        assertThat(failure).isInstanceOf(AssertionFailedError.class)
                .hasMessageContaining("nsys kernel summary")
                .hasMessageContaining("profiledrollout.nsys.report is not set")
                .hasMessageContaining("nsys profile -t cuda,nvtx --cuda-graph-trace=node -c cudaProfilerApi "
                        + "--capture-range-end stop");
        JsonNode summary = summary("NsysWithoutReportTestCase");
        assertThat(summary.path("workers")).isNotEmpty().allSatisfy(w -> {
            assertThat(w.path("state").asText()).isEqualTo("NO_DATA");
            assertThat(w.path("reason").asText()).contains("profiledrollout.nsys.report");
        });
        JsonNode verdict = captureVerdict(summary, "nsys kernel summary");
        assertThat(verdict.path("passed").asBoolean()).isFalse();
        assertThat(verdict.path("enforced").asBoolean()).isTrue();
        assertThat(summary.path("outcome").path("status").asText()).isEqualTo("FAILED");
    }

    /**
     * SGLang arms the profiler at {@code start_step} and writes nothing before {@code num_steps} more steps ran: after
     * a load that ended first, no file comes. The window fails as soon as the engine is idle below the step that would
     * write the files, not after {@code profiledrollout.trace.timeout}: 10 minutes here, far beyond the
     * {@code @Timeout}, so the test fails without the early end.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void a_recipe_window_that_starts_past_the_load_fails_naming_the_start_step_without_waiting_the_trace_timeout() {
        Throwable failure = failure(run(StartPastTheLoadTestCase.class, output, "profiledrollout.trace.timeout",
                "600"));

        assertThat(failure).hasMessageContaining("No trace file will come")
                .hasMessageContaining("start_step=1100, num_steps=4")
                .hasMessageContaining("writes its files only when step 1104 begins")
                .hasMessageContaining("(forward_ct)")
                .hasMessageContaining("found 0");
        JsonNode summary = summary("StartPastTheLoadTestCase");
        assertThat(summary.path("workers")).isNotEmpty().allSatisfy(w -> {
            assertThat(w.path("state").asText()).isEqualTo("NO_DATA");
            assertThat(w.path("reason").asText()).contains("start_step=1100");
        });
        assertThat(summary.path("outcome").path("status").asText()).isNotEqualTo("PASSED");
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void an_annotated_window_that_starts_past_the_load_fails_even_without_strict_steps() {
        Throwable failure = failure(run(AnnotatedStartPastTheLoadTestCase.class, output,
                "profiledrollout.trace.timeout", "600"));

        assertThat(failure).hasMessageContaining("No trace file will come").hasMessageContaining("start_step=1100");
        assertThat(summary("AnnotatedStartPastTheLoadTestCase").path("workers"))
                .allSatisfy(w -> assertThat(w.path("state").asText()).isEqualTo("NO_DATA"));
    }
}
