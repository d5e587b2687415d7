package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.junit.ProfiledTestKit.run;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.Phase;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * What a phased test shows: each phase's own load, latency and verdicts in {@code summary.json}'s {@code phases[]},
 * no unused {@code @RolloutLoad} defaults at the top, phase-scoped results, and one report per phase.
 */
class PhasedReportTest {

    @TempDir
    Path output;

    // The @RolloutLoad values differ from both phases': none of them may show up as the test's load.
    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 3, requests = 5, inputTokens = 40, outputTokens = 5, warmupRequests = 0)
    @RolloutPhase(phase = Phase.PREFILL, inputTokens = 256, outputTokens = 1, concurrency = 4, requests = 4)
    @RolloutPhase(phase = Phase.DECODE, inputTokens = 16, outputTokens = 12, concurrency = 2, requests = 6)
    static class TwoPhasesTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void phases(RolloutSession session) {
            RolloutResult result = session.awaitResult();
            RESULT.set(result);
            assertThat(result.phase(Phase.PREFILL).latency()).ttft().percentile(99).isLessThan(Duration.ofMinutes(1));
            assertThat(result.phase(Phase.DECODE).latency()).tpot().percentile(90).isLessThan(Duration.ofMinutes(1));
        }
    }

    @Test
    void should_scope_and_write_each_phase_with_its_own_load_latency_verdicts_and_report() throws Exception {
        // WHEN
        EngineExecutionResults results = run(TwoPhasesTestCase.class, output);

        // THEN each phase's result is scoped to its phase, the merged one says what it is
        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        RolloutResult result = TwoPhasesTestCase.RESULT.get();
        RolloutResult prefillResult = result.phase(Phase.PREFILL);
        Assertions.assertThat(prefillResult.latency().scope()).isEqualTo("PREFILL");
        Assertions.assertThat(prefillResult.trace().scope()).isEqualTo("PREFILL");
        Assertions.assertThat(result.phases().get(Phase.DECODE).latency().scope()).isEqualTo("DECODE");
        Assertions.assertThat(result.phase(Phase.DECODE).trace().scope()).isEqualTo("DECODE");
        Assertions.assertThat(result.latency().scope()).isEqualTo("all phases");
        Assertions.assertThat(result.trace().scope()).isEqualTo("all phases");
        Assertions.assertThat(result.latency().completed()).isEqualTo(10);

        // and summary.json has no merged latency and no unused @RolloutLoad defaults, but every phase's own
        Path dir = output.resolve("PhasedReportTest$TwoPhasesTestCase/phases");
        JsonNode top = summary(dir);
        Assertions.assertThat(top.get("load").isNull()).as("top-level load").isTrue();
        Assertions.assertThat(top.get("profileRequest").isNull()).as("top-level profileRequest").isTrue();
        Assertions.assertThat(top.has("latency")).as("merged latency at the top level").isFalse();

        JsonNode phases = top.path("phases");
        Assertions.assertThat(phases).hasSize(2);
        JsonNode prefill = phases.get(0);
        JsonNode decode = phases.get(1);
        Assertions.assertThat(prefill.path("phase").asText()).isEqualTo("PREFILL");
        Assertions.assertThat(prefill.path("directory").asText()).isEqualTo("prefill");
        Assertions.assertThat(decode.path("phase").asText()).isEqualTo("DECODE");
        Assertions.assertThat(decode.path("directory").asText()).isEqualTo("decode");
        // each phase's own load and latency
        Assertions.assertThat(prefill.path("load").path("inputTokens").asInt()).isEqualTo(256);
        Assertions.assertThat(prefill.path("load").path("requests").asInt()).isEqualTo(4);
        Assertions.assertThat(decode.path("load").path("inputTokens").asInt()).isEqualTo(16);
        Assertions.assertThat(decode.path("load").path("outputTokens").asInt()).isEqualTo(12);
        Assertions.assertThat(prefill.path("latency").path("completed").asInt()).isEqualTo(4);
        Assertions.assertThat(prefill.path("latency").path("outputTokens").asInt()).isEqualTo(4);
        Assertions.assertThat(decode.path("latency").path("completed").asInt()).isEqualTo(6);
        Assertions.assertThat(decode.path("latency").path("outputTokens").asInt()).isEqualTo(6 * 12);
        Assertions.assertThat(prefill.path("profileRequest").isObject()).isTrue();
        Assertions.assertThat(prefill.path("workers")).isNotEmpty();
        // one output token per prefill request: no chunk gap, so ITL and TPOT have no samples and no statistics
        JsonNode itl = prefill.path("latency").path("itl");
        Assertions.assertThat(itl.path("count").asInt()).isZero();
        Assertions.assertThat(itl.has("meanMs") || itl.has("p50Ms") || itl.has("p99Ms") || itl.has("maxMs")).isFalse();
        Assertions.assertThat(prefill.path("latency").path("tpot").path("count").asInt()).isZero();
        Assertions.assertThat(decode.path("latency").path("itl").path("p50Ms").isNumber()).isTrue();
        Assertions.assertThat(top.path("verdicts")).hasSize(2);
        // the one embedded engine profiled in both phases: listed once as profiled, once per phase as a worker, each
        // with the trace files of its phase
        Assertions.assertThat(top.path("profiled").path("workers").asInt()).isEqualTo(1);
        Assertions.assertThat(top.path("workers")).extracting(w -> w.path("phase").asText())
                .containsExactly("PREFILL", "DECODE");
        Assertions.assertThat(top.path("workers").get(0).path("traceFiles")).isNotEmpty()
                .allSatisfy(f -> Assertions.assertThat(f.asText()).startsWith("prefill/"));
        Assertions.assertThat(top.path("workers").get(1).path("traceFiles")).isNotEmpty()
                .allSatisfy(f -> Assertions.assertThat(f.asText()).startsWith("decode/"));

        // each phase directory: its own summary and its own report, linked from the test's
        Assertions.assertThat(summary(dir.resolve("prefill")).path("phase").asText()).isEqualTo("PREFILL");
        Assertions.assertThat(dir.resolve("prefill/report.html")).isNotEmptyFile();
        Assertions.assertThat(dir.resolve("decode/report.html")).isNotEmptyFile();
        Assertions.assertThat(dir.resolve("report.html")).isNotEmptyFile();
    }

    @Test
    void should_put_the_verdicts_of_a_phase_result_into_that_phase() throws Exception {
        // WHEN a budget assertion on result.phase(PREFILL).latency() and one on result.phase(DECODE).latency()
        EngineExecutionResults results = run(TwoPhasesTestCase.class, output);

        // THEN each verdict carries its phase as scope and lands in that phase's summary and phases[] element
        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        Path dir = output.resolve("PhasedReportTest$TwoPhasesTestCase/phases");
        JsonNode top = summary(dir);
        Assertions.assertThat(top.path("verdicts")).extracting(v -> v.path("scope").asText())
                .containsExactly("PREFILL", "DECODE");
        JsonNode phases = top.path("phases");
        Assertions.assertThat(phases.get(0).path("verdicts")).singleElement().satisfies(v -> {
            Assertions.assertThat(v.path("scope").asText()).isEqualTo("PREFILL");
            Assertions.assertThat(v.path("measure").asText()).isEqualTo("p99 TTFT");
        });
        Assertions.assertThat(phases.get(1).path("verdicts")).singleElement()
                .satisfies(v -> Assertions.assertThat(v.path("scope").asText()).isEqualTo("DECODE"));
        Assertions.assertThat(summary(dir.resolve("prefill")).path("verdicts")).singleElement()
                .satisfies(v -> Assertions.assertThat(v.path("measure").asText()).isEqualTo("p99 TTFT"));
        Assertions.assertThat(Files.readString(dir.resolve("prefill/report.html"))).contains("p99 TTFT")
                .doesNotContain("p90 TPOT");
    }
}
