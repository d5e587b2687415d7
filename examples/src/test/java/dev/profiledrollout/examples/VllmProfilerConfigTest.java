package dev.profiledrollout.examples;

import static dev.profiledrollout.Backend.VLLM;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.matching;

import dev.profiledrollout.EngineProfile;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RegressionCheck;
import dev.profiledrollout.RolloutEngine;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.engine.EngineTarget;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
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
 * {@code max_iterations} and adds overhead), and attaches to it with the keys a real server is named with
 * ({@code EngineTarget}).
 *
 * <p>Against a real server started that way, whose {@code torch_profiler_dir} this machine mounts (here at
 * {@code /mnt/traces}), the same class runs unchanged, named by its engine profile {@code vllm} while the build's
 * other classes keep their own engines:
 * <pre>
 * mvn -B -P examples verify -Dprofiledrollout.profiles.vllm.engine=attach \
 *     -Dprofiledrollout.profiles.vllm.engine.url=http://gpu-node:8000 \
 *     -Dprofiledrollout.profiles.vllm.trace.dir=/mnt/traces -Dprofiledrollout.profiles.vllm.trace.dir.server=/traces \
 *     -Dprofiledrollout.profiles.vllm.engine.ranks=2 -Dprofiledrollout.profiles.vllm.vllm.max.iterations=8
 * </pre>
 * ({@code engine.ranks}: vLLM cannot report how many rank files a capture writes.)
 */
@RegressionCheck
@ProfiledRollout(backend = VLLM, numSteps = 8) // numSteps: the server's max_iterations
@EngineProfile(value = "vllm", optional = true) // undefined: the stand-in below
@RolloutLoad(concurrency = 8, requests = 24, inputTokens = 256, outputTokens = 32)
class VllmProfilerConfigTest {

    private static final int MAX_ITERATIONS = 8;

    @TempDir
    static Path torchProfilerDir;

    /** The stand-in server, started only when the run names no engine; closed after the class. */
    @RolloutEngine
    static EngineTarget vllm() throws IOException {
        EngineSimulator vllm = EngineSimulator.start(SimulatorConfig.builder().backend("vllm").tpSize(2)
                .profilerConfig("{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + torchProfilerDir
                        + "\",\"max_iterations\":" + MAX_ITERATIONS + ",\"ignore_frontend\":true}")
                .build());
        // the server writes its traces where this machine reads them: no trace.dir.server needed
        return EngineTarget.attach(vllm.baseUri()).traceDirectory(torchProfilerDir).ranks(2)
                .vllmMaxIterations(MAX_ITERATIONS).closeAfterClass(vllm);
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
