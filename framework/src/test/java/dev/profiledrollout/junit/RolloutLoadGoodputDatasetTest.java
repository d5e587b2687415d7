package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.junit.ProfiledTestKit.assertFailed;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.metrics.RequestRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * {@code @RolloutLoad(goodput)} and {@code @RolloutLoad(dataset, datasetPath)} end to end against the embedded
 * simulator, through {@link EngineTestKit}: each nested {@code …TestCase} is a user's test class.
 */
class RolloutLoadGoodputDatasetTest {

    /** Relative to the module directory, Surefire's working directory. */
    private static final String SHAREGPT = "src/test/resources/datasets/tiny-sharegpt.json";

    @TempDir
    Path output;

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 6, inputTokens = 16, outputTokens = 4, warmupRequests = 1,
            goodput = {"ttft:60000", "tpot:60000", "e2el:60000"})
    static class LooseSloTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void loose(RolloutSession session) {
            RolloutResult result = session.awaitResult();
            RESULT.set(result);
            assertThat(result.latency()).goodput().isGreaterThan(0.0);
            assertThat(result.latency()).goodRequests().isEqualTo(6);
        }
    }

    @Test
    void should_count_every_request_good_under_a_loose_slo_and_write_goodput_to_the_summary() throws IOException {
        // WHEN
        EngineExecutionResults results = run(LooseSloTestCase.class);

        // THEN
        results.testEvents().assertStatistics(stats -> stats.started(1).succeeded(1).failed(0));
        RolloutResult result = LooseSloTestCase.RESULT.get();
        assertThat(result.latency().slo().toPairs()).containsExactly("ttft:60000", "tpot:60000", "e2el:60000");
        assertThat(result.latency().goodRequests()).isEqualTo(6);
        assertThat(result.latency().requestGoodput()).isEqualTo(result.latency().requestThroughput());
        JsonNode latency = summary("LooseSloTestCase", "loose").path("latency");
        assertThat(latency.path("goodRequests").asLong()).isEqualTo(6);
        assertThat(latency.path("requestGoodput").asDouble()).isPositive()
                .isEqualTo(latency.path("requestThroughput").asDouble());
        assertThat(latency.path("goodput").toString()).isEqualTo("[\"ttft:60000\",\"tpot:60000\",\"e2el:60000\"]");
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 4, warmupRequests = 0,
            goodput = {"ttft:0", "e2el:2000"})
    static class ImpossibleSloTestCase {
        @Test
        void impossible(RolloutSession session) {
            assertThat(session.awaitResult().latency()).goodput().isGreaterThan(1.0);
        }
    }

    @Test
    void should_fail_a_missed_goodput_budget_with_the_good_count_and_write_zero_goodput() throws IOException {
        // WHEN
        EngineExecutionResults results = run(ImpossibleSloTestCase.class);

        // THEN
        results.testEvents().assertStatistics(stats -> stats.started(1).failed(1));
        assertFailed(results, "impossible", AssertionError.class,
                m -> m.startsWith("1 of 1 budgets failed: request goodput (SLO ttft:0 e2el:2000)\n"
                        + "  1) request goodput (SLO ttft:0 e2el:2000) was 0.00 req/s,"
                        + " budget > 1.00 req/s"
                        + " (-100.0%); 0 of 4 requests met every SLO in "));
        JsonNode latency = summary("ImpossibleSloTestCase", "impossible").path("latency");
        assertThat(latency.path("completed").asLong()).isEqualTo(4);
        assertThat(latency.path("goodRequests").asLong()).isZero();
        assertThat(latency.path("requestGoodput").isNumber()).isTrue();
        assertThat(latency.path("requestGoodput").asDouble()).isZero();
        assertThat(latency.path("goodput").toString()).isEqualTo("[\"ttft:0\",\"e2el:2000\"]");
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 5, outputTokens = 3, warmupRequests = 1)
    static class NoSloTestCase {
        @Test
        void noSlo(RolloutSession session) {
            assertThat(session.awaitResult().latency()).goodput().isGreaterThan(0.0);
        }
    }

    @Test
    void should_say_how_to_set_an_slo_when_goodput_is_asserted_without_one() throws IOException {
        // WHEN
        EngineExecutionResults results = run(NoSloTestCase.class);

        // THEN
        assertFailed(results, "noSlo", AssertionError.class,
                m -> m.contains("no goodput SLO set: add @RolloutLoad(goodput"));
        JsonNode latency = summary("NoSloTestCase", "noSlo").path("latency");
        assertThat(latency.has("requestGoodput")).isFalse();
        assertThat(latency.has("goodRequests")).isFalse();
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 6, outputTokens = 5, warmupRequests = 1, dataset = "sharegpt",
            datasetPath = SHAREGPT)
    static class ShareGptTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void sharegpt(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_send_the_sharegpt_files_first_turns_as_text_prompts() throws IOException {
        // GIVEN
        assertThat(Path.of(SHAREGPT)).isRegularFile();

        // WHEN
        EngineExecutionResults results = run(ShareGptTestCase.class);

        // THEN
        results.testEvents().assertStatistics(stats -> stats.started(1).succeeded(1).failed(0));
        RolloutResult result = ShareGptTestCase.RESULT.get();
        assertThat(result.latency()).hasNoFailedRequests();
        assertThat(result.latency().completed()).isEqualTo(6);
        assertThat(result.latency().outputTokens()).isEqualTo(6 * 5);
        assertThat(result.latency().records()).allSatisfy(r -> {
            assertThat(r.inputTokensRequested()).as("text prompt: no client-side token count").isEqualTo(-1);
            assertThat(r.promptTokens()).as("server-counted prompt tokens").isPositive();
        });
        assertThat(result.latency().records().stream().mapToInt(RequestRecord::promptTokens).distinct().count())
                .as("three usable conversations of different lengths").isEqualTo(3);
        assertThat(Files.readAllLines(result.outputDirectory().resolve("requests.jsonl"))).hasSize(6);
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU)
    static class InvalidAttributesTestCase {
        @Test
        @RolloutLoad(goodput = {"ttft:250", "ttfb:100"})
        void unknownGoodputKey(RolloutSession session) {
        }

        @Test
        @RolloutLoad(goodput = "tpot:fast")
        void goodputValueNotANumber(RolloutSession session) {
        }

        @Test
        @RolloutLoad(goodput = {"ttft:250", "TTFT:300"})
        void goodputKeyTwice(RolloutSession session) {
        }

        @Test
        @RolloutLoad(dataset = "csv")
        void unknownDataset(RolloutSession session) {
        }

        @Test
        @RolloutLoad(dataset = "sharegpt", datasetPath = "no/such/sharegpt.json")
        void missingDatasetFile(RolloutSession session) {
        }

        @Test
        @RolloutLoad(dataset = "jsonl")
        void datasetWithoutPath(RolloutSession session) {
        }

        @Test
        @RolloutLoad(dataset = "sharegpt", datasetPath = "src/test/resources/datasets/not-sharegpt.json")
        void datasetFileInTheWrongFormat(RolloutSession session) {
        }

        @Test
        @RolloutLoad(datasetPath = SHAREGPT)
        void pathWithRandomDataset(RolloutSession session) {
        }
    }

    @Test
    void should_reject_bad_goodput_and_dataset_attributes_naming_the_attribute_and_what_is_allowed()
            throws IOException {
        // WHEN
        EngineExecutionResults results = run(InvalidAttributesTestCase.class);

        // THEN
        results.testEvents().assertStatistics(stats -> stats.started(8).failed(8));
        configurationError(results, "unknownGoodputKey", "@RolloutLoad(goodput = {\"ttft:250\", \"ttfb:100\"}) is invalid",
                "unknown goodput metric 'ttfb'", "Allowed keys: ttft, tpot, e2el");
        configurationError(results, "goodputValueNotANumber", "@RolloutLoad(goodput = {\"tpot:fast\"}) is invalid",
                "KEY:MILLISECONDS", "Allowed keys: ttft, tpot, e2el");
        configurationError(results, "goodputKeyTwice", "@RolloutLoad(goodput = {\"ttft:250\", \"TTFT:300\"}) is invalid",
                "each key once", "ttft, tpot and e2el");
        configurationError(results, "unknownDataset", "@RolloutLoad(dataset = \"csv\") is invalid",
                "\"random\" (default), \"sharegpt\", \"jsonl\"");
        configurationError(results, "missingDatasetFile",
                "@RolloutLoad(dataset = \"sharegpt\", datasetPath = \"no/such/sharegpt.json\") is invalid",
                "sharegpt.json is not a readable file");
        configurationError(results, "datasetWithoutPath", "datasetPath = \"\") is invalid",
                "datasetPath must name the jsonl file");
        configurationError(results, "datasetFileInTheWrongFormat", "datasetPath = \"src/test/resources/datasets/"
                + "not-sharegpt.json\") is invalid", "is not a sharegpt file");
        configurationError(results, "pathWithRandomDataset", "@RolloutLoad(dataset = \"random\", datasetPath = \"",
                "datasetPath is for dataset = \"sharegpt\" or \"jsonl\"");
        // nothing ran: each test's directory holds only the report of its error
        try (Stream<Path> files = Files.walk(
                output.resolve("RolloutLoadGoodputDatasetTest$InvalidAttributesTestCase"))) {
            assertThat(files.map(p -> p.getFileName().toString())).doesNotContain("requests.jsonl", "traces")
                    .contains("summary.json", "report.html");
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    private static void configurationError(EngineExecutionResults results, String method, String... parts) {
        assertFailed(results, method, ExtensionConfigurationException.class,
                m -> Stream.of(parts).allMatch(m::contains));
    }

    private JsonNode summary(String testCase, String method) {
        return ProfiledTestKit.summary(output.resolve("RolloutLoadGoodputDatasetTest$" + testCase).resolve(method));
    }

    private EngineExecutionResults run(Class<?> testCase) {
        return ProfiledTestKit.run(testCase, output);
    }
}
