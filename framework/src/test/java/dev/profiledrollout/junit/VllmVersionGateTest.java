package dev.profiledrollout.junit;

import static dev.profiledrollout.junit.ProfiledTestKit.assertFailed;
import static dev.profiledrollout.junit.ProfiledTestKit.attach;

import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSession;
import java.nio.file.Path;
import java.util.List;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.io.TempDir;

/**
 * A vLLM server older than the iteration limit (v0.11: no {@code VLLM_PROFILER_MAX_ITERS}, vllm-project/vllm PR #28987,
 * nor {@code max_iterations}): {@code numSteps} cannot be enforced, which fails the test under strict steps and is a
 * warning otherwise.
 */
class VllmVersionGateTest {

    @TempDir
    Path output;

    @TempDir
    Path profilerDir;

    @ProfiledRollout(backend = Backend.VLLM, numSteps = 5)
    @RolloutLoad(concurrency = 1, requests = 2, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class StepsTestCase {
        @Test
        void steps(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void a_v0_11_server_cannot_bound_num_steps_which_fails_under_strict_steps() throws Exception {
        try (MockWebServer vllm = FakeEngines.vllm(profilerDir, capture -> List.of(
                "dp0_pp0_tp0_dcp0_ep0_rank0.1773709742341309550.pt.trace.json.gz"), "0.11.0")) {
            assertFailed(attach(StepsTestCase.class, output, vllm.url("/").uri(), "profiledrollout.trace.dir",
                    profilerDir.toString(), "profiledrollout.vllm.max.iterations", "5", "profiledrollout.steps.strict",
                    "true", "profiledrollout.engine.ranks", "1"), "steps", ExtensionConfigurationException.class,
                    m -> m.contains("numSteps cannot be enforced") && m.contains("0.11.0")
                            && m.contains("PR #28987") && m.contains("profiledrollout.steps.strict=false"));
        }
    }

    @Test
    void a_v0_11_server_runs_with_a_warning_when_steps_are_not_strict_and_a_newer_one_without() throws Exception {
        for (String version : new String[] {"0.11.0", "0.13.1"}) {
            Path dir = java.nio.file.Files.createDirectories(profilerDir.resolve(version));
            try (MockWebServer vllm = FakeEngines.vllm(dir, capture -> List.of(
                    "dp0_pp0_tp0_dcp0_ep0_rank0.1773709742341309550.pt.trace.json.gz"), version)) {
                attach(StepsTestCase.class, output, vllm.url("/").uri(), "profiledrollout.trace.dir",
                        dir.toString(), "profiledrollout.vllm.max.iterations", "5", "profiledrollout.engine.ranks",
                        "1", "profiledrollout.trace.timeout", "10").testEvents()
                        .assertStatistics(stats -> stats.succeeded(1));
            }
        }
    }
}
