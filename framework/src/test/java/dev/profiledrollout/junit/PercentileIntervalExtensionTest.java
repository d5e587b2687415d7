package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSession;
import java.nio.file.Path;
import java.time.Duration;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/** A profiled test against the simulator leaves each percentile's confidence interval in summary.json. */
class PercentileIntervalExtensionTest {

    @TempDir
    Path output;

    @ProfiledRollout(numSteps = 4, activities = Activity.GPU)
    @RolloutLoad(concurrency = 8, requests = 64, inputTokens = 32, outputTokens = 4, warmupRequests = 1)
    static class StrictPercentileTestCase {
        @Test
        void budgets(RolloutSession session) {
            var result = session.awaitResult();
            assertThat(result.latency()).ttft().percentile(50).strictly().isLessThan(Duration.ofMinutes(1));
        }
    }

    @Test
    void should_write_percentile_intervals_and_a_strict_verdict_with_its_interval() {
        // WHEN
        EngineExecutionResults results = ProfiledTestKit.run(StrictPercentileTestCase.class, output);

        // THEN
        results.testEvents().assertStatistics(stats -> stats.started(1).succeeded(1));
        JsonNode summary = ProfiledTestKit.summary(
                output.resolve("PercentileIntervalExtensionTest$StrictPercentileTestCase/budgets"));
        JsonNode ttft = summary.path("latency").path("ttft");
        Assertions.assertThat(ttft.path("count").asInt()).isEqualTo(64);
        JsonNode p50 = ttft.path("p50CiMs");
        Assertions.assertThat(p50.isArray()).as("p50CiMs is [low, high]: %s", ttft).isTrue();
        Assertions.assertThat(p50).hasSize(2);
        double low = p50.get(0).asDouble();
        double high = p50.get(1).asDouble();
        // the percentile is HdrHistogram's (3 significant digits), the interval's ends exact samples
        Assertions.assertThat(low).isPositive().isLessThanOrEqualTo(ttft.path("p50Ms").asDouble());
        Assertions.assertThat(ttft.path("p50Ms").asDouble()).isLessThanOrEqualTo(high * 1.001);
        Assertions.assertThat(high).isLessThanOrEqualTo(ttft.path("maxMs").asDouble());
        // 0.99^64 ≈ 0.53 > 0.025: 64 samples cannot bound p99 from above
        JsonNode p99 = ttft.path("p99CiMs");
        Assertions.assertThat(p99.get(0).isNumber()).isTrue();
        Assertions.assertThat(p99.get(1).isNull()).isTrue();
        JsonNode verdict = summary.path("verdicts").get(0);
        Assertions.assertThat(verdict.path("measure").asText()).isEqualTo("p50 TTFT");
        Assertions.assertThat(verdict.path("passed").asBoolean()).isTrue();
        Assertions.assertThat(verdict.path("actualText").asText()).contains(" (95% CI ").endsWith(" ms)");
        Assertions.assertThat(verdict.path("detail").asText()).startsWith("strict: ");
    }
}
