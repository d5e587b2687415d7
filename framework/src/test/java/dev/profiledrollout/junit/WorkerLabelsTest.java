package dev.profiledrollout.junit;

import static dev.profiledrollout.junit.ProfiledTestKit.attachRouter;
import static dev.profiledrollout.junit.ProfiledTestKit.run;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.simulator.RouterSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.trace.TraceSet;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * Ranks of several engines behind a router are told apart everywhere a run reports them ({@code worker-1/TP-0}),
 * analysed per engine, and the run says what it profiled; a single engine keeps plain labels and has no straggler.
 */
class WorkerLabelsTest {

    @TempDir
    Path output;

    @TempDir
    Path traces;

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 8, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class RoutedTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void routed(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_label_every_rank_by_worker_and_analyse_each_worker_as_its_own_rank_set() throws Exception {
        // GIVEN a router with two SGLang workers of TP 2 whose rank 1 is three times slower than rank 0
        try (RouterSimulator router = RouterSimulator.builder().workers(2)
                .workerConfig(SimulatorConfig.builder().tpSize(2).slowRank(1, 3.0).profilerDir(traces).build())
                .start()) {
            List<URI> workers = router.engines().stream().map(e -> e.baseUri()).toList();

            // WHEN
            EngineExecutionResults results = attachRouter(RoutedTestCase.class, output, router.baseUri());

            // THEN each worker wrote into its own directory, numbered in the router's order
            results.testEvents().assertStatistics(stats -> stats.succeeded(1));
            Path dir = output.resolve("WorkerLabelsTest$RoutedTestCase/routed");
            assertThat(Files.list(dir.resolve("traces")).map(p -> p.getFileName().toString()).sorted())
                    .containsExactly("worker-1", "worker-2");
            TraceSet trace = RoutedTestCase.RESULT.get().trace();
            assertThat(trace.traces()).extracting(trace::rankLabel)
                    .containsExactly("worker-1/TP-0", "worker-1/TP-1", "worker-2/TP-0", "worker-2/TP-1");

            JsonNode summary = summary(dir);
            JsonNode ranks = summary.path("trace").path("ranks");
            assertThat(field(ranks, "label"))
                    .containsExactly("worker-1/TP-0", "worker-1/TP-1", "worker-2/TP-0", "worker-2/TP-1");
            assertThat(field(ranks, "worker")).containsExactly("worker-1", "worker-1", "worker-2", "worker-2");
            // one rank set per worker, each with its own straggler: the slow rank 1
            JsonNode sets = summary.path("trace").path("rankSets");
            assertThat(sets).hasSize(2);
            for (int w = 0; w < 2; w++) {
                String worker = "worker-" + (w + 1);
                JsonNode set = sets.get(w);
                assertThat(set.path("worker").asText()).isEqualTo(worker);
                assertThat(set.path("url").asText()).isEqualTo(workers.get(w).toString());
                assertThat(texts(set.path("ranks"))).containsExactly(worker + "/TP-0", worker + "/TP-1");
                assertThat(set.path("busyImbalance").asDouble()).isGreaterThan(1.0);
                assertThat(set.path("straggler").asText()).isEqualTo(worker + "/TP-1");
            }
            assertThat(summary.path("trace").path("straggler").asText()).endsWith("/TP-1");
            assertThat(summary.path("trace").path("workerImbalance").isNumber()).isTrue();
            assertThat(summary.path("trace").path("workerImbalance").asDouble()).isGreaterThanOrEqualTo(1.0);
            // each worker names its own trace files
            JsonNode listed = summary.path("workers");
            assertThat(field(listed, "label")).containsExactly("worker-1", "worker-2");
            for (int w = 0; w < 2; w++) {
                String directory = "worker-" + (w + 1) + "/";
                assertThat(listed.get(w).path("url").asText()).isEqualTo(workers.get(w).toString());
                assertThat(texts(listed.get(w).path("traceFiles"))).hasSize(2).allMatch(f -> f.startsWith(directory));
            }
            // and the run says it profiled a router and both of its workers, not "a simulator with TP 2"
            JsonNode profiled = summary.path("profiled");
            assertThat(profiled.path("kind").asText()).isEqualTo("router");
            assertThat(profiled.path("url").asText()).isEqualTo(router.baseUri().toString());
            assertThat(profiled.path("workers").asInt()).isEqualTo(2);
            assertThat(profiled.path("ranks").asInt()).isEqualTo(4);
            assertThat(profiled.path("description").asText())
                    .startsWith("router " + router.baseUri() + " → 2 workers: ")
                    .contains("worker-1 " + workers.get(0), "worker-2 " + workers.get(1), "TP 2 each");
            assertThat(summary.path("engine").path("kind").asText()).isEqualTo("attached");
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class SingleEngineTestCase {
        @Test
        void single(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void should_keep_plain_rank_labels_and_name_no_straggler_for_a_single_engine_with_one_rank() {
        // WHEN the embedded simulator (TP 1) is profiled
        EngineExecutionResults results = run(SingleEngineTestCase.class, output);

        // THEN
        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        JsonNode summary = summary(output.resolve("WorkerLabelsTest$SingleEngineTestCase/single"));
        JsonNode trace = summary.path("trace");
        assertThat(trace.path("ranks")).singleElement().satisfies(rank -> {
            assertThat(rank.path("label").asText()).isEqualTo("TP-0");
            assertThat(rank.path("worker").asText()).isEmpty();
        });
        assertThat(trace.path("straggler").isNull()).isTrue();
        assertThat(trace.path("workerImbalance").isNull()).isTrue();
        assertThat(trace.path("rankSets")).singleElement().satisfies(set -> {
            assertThat(set.path("worker").asText()).isEmpty();
            assertThat(set.path("url").asText()).startsWith("http://127.0.0.1:");
            assertThat(texts(set.path("ranks"))).containsExactly("TP-0");
            assertThat(set.path("busyImbalance").isNull()).isTrue();
            assertThat(set.path("straggler").isNull()).isTrue();
        });
        assertThat(summary.path("workers")).singleElement().satisfies(worker -> {
            assertThat(worker.path("label").asText()).isEqualTo("worker-1");
            assertThat(texts(worker.path("traceFiles"))).singleElement().asString().endsWith("-TP-0.trace.json.gz");
        });
        JsonNode profiled = summary.path("profiled");
        assertThat(profiled.path("kind").asText()).isEqualTo("embedded simulator");
        assertThat(profiled.path("workers").asInt()).isEqualTo(1);
        assertThat(profiled.path("ranks").asInt()).isEqualTo(1);
        assertThat(profiled.path("description").asText()).startsWith("embedded simulator http://").endsWith("; TP 1");
        assertThat(summary.path("engine").path("kind").asText()).isEqualTo("simulator");
    }

    /** The text of {@code name} in each element of {@code array}. */
    private static List<String> field(JsonNode array, String name) {
        List<String> texts = new ArrayList<>();
        array.forEach(n -> texts.add(n.path(name).asText()));
        return texts;
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(n -> texts.add(n.asText()));
        return texts;
    }
}
