package dev.profiledrollout.examples;

import static dev.profiledrollout.Backend.VLLM;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.matching;

import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Profiling an attached vLLM server. vLLM fixes everything about a capture when the server starts, with
 * {@code --profiler-config} (vLLM 0.13 and later; fields of {@code ProfilerConfig} in {@code vllm-project/vllm}
 * {@code vllm/config/profiler.py}, summarised in {@code docs/PROTOCOLS.md} §2.2): {@code /start_profile} and
 * {@code /stop_profile} carry no body. So the test states what the server was started with, and the extension checks
 * that its {@code numSteps} agrees with the server's {@code max_iterations} before it profiles anything.
 *
 * <p>Here the class starts its own server for the run: the engine simulator in vLLM mode, TP 2, configured as
 * <pre>
 * vllm serve MODEL --tensor-parallel-size 2 --profiler-config \
 *     '{"profiler":"torch","torch_profiler_dir":"/traces","max_iterations":8,"ignore_frontend":true}'
 * </pre>
 * would be ({@code ignore_frontend}: vLLM's config validator warns that the API server's CPU trace ignores
 * {@code max_iterations} and adds overhead), and attaches to it with the keys a real server is named with.
 *
 * <p>Against a real server started that way, whose {@code torch_profiler_dir} this machine mounts (here at
 * {@code /mnt/traces}), the same class runs unchanged:
 * <pre>
 * mvn -B -P examples verify -Dtest=VllmProfilerConfigTest -Dprofiledrollout.engine=attach \
 *     -Dprofiledrollout.engine.url=http://gpu-node:8000 \
 *     -Dprofiledrollout.trace.dir=/mnt/traces -Dprofiledrollout.trace.dir.server=/traces \
 *     -Dprofiledrollout.engine.ranks=2 -Dprofiledrollout.vllm.max.iterations=8
 * </pre>
 * ({@code engine.ranks}: vLLM cannot report how many rank files a capture writes.)
 */
@ProfiledRollout(backend = VLLM, numSteps = 8) // numSteps: the server's max_iterations
@RolloutLoad(concurrency = 8, requests = 24, inputTokens = 256, outputTokens = 32)
class VllmProfilerConfigTest {

    private static final int MAX_ITERATIONS = 8;

    @TempDir
    static Path torchProfilerDir;

    private static EngineSimulator vllm;
    private static ClassConfiguration configuration;

    @BeforeAll
    static void startVllm() throws IOException {
        if (ClassConfiguration.namesAnEngine()) {
            return; // the run names a real server: profile that one
        }
        vllm = EngineSimulator.start(SimulatorConfig.builder().backend("vllm").tpSize(2)
                .profilerConfig("{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + torchProfilerDir
                        + "\",\"max_iterations\":" + MAX_ITERATIONS + ",\"ignore_frontend\":true}")
                .build());
        configuration = ClassConfiguration.set(Map.of(
                "profiledrollout.engine", "attach",
                "profiledrollout.engine.url", vllm.baseUri().toString(),
                // the server writes its traces where this machine reads them: no trace.dir.server needed
                "profiledrollout.trace.dir", torchProfilerDir.toString(),
                "profiledrollout.engine.ranks", "2",
                "profiledrollout.vllm.max.iterations", String.valueOf(MAX_ITERATIONS)));
    }

    @AfterAll
    static void stopVllm() {
        if (configuration != null) {
            configuration.close();
        }
        if (vllm != null) {
            vllm.close();
        }
    }

    @Test
    void everyRankRecordsTheConfiguredIterations(RolloutSession session) {
        RolloutResult result = session.awaitResult();

        assertThat(result.latency()).hasNoFailedRequests();
        // One trace per TP rank, each with exactly max_iterations engine steps (execute_… annotations): a worker
        // advances its profiler before it opens a step's annotation and stops it once the count exceeds
        // max_iterations (vllm-project/vllm vllm/v1/worker/gpu_worker.py annotate_profile, vllm/profiler/wrapper.py).
        assertThat(result.trace()).ranks().hasSize(2);
        for (int tp = 0; tp < 2; tp++) {
            assertThat(result.trace()).rank(tp).steps().count().isEqualTo(MAX_ITERATIONS);
            assertThat(result.trace()).rank(tp).kernels(matching(".*(gemm|nvjet).*")).isNotEmpty()
                    .share().isLessThan(0.95);
        }
        assertThat(result.trace()).ranks().busyImbalance().isLessThan(1.10);
        // ignore_frontend: the API server wrote no CPU-only trace
        assertThat(result.frontendTraceFiles()).isEmpty();
        // The simulated engine writes its traces in its step loop when max_iterations is reached, so the requests in
        // flight then (the first third) pause for the export: the median leaves them out. Room for a busy two-core
        // runner, where the simulator and the load generator share the cores.
        assertThat(result.latency()).tpot().percentile(50).isLessThan(Duration.ofMillis(25));
    }
}
