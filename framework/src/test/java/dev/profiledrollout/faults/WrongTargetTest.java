package dev.profiledrollout.faults;

import static dev.profiledrollout.junit.ProfiledTestKit.assertProfilerStopped;
import static dev.profiledrollout.junit.ProfiledTestKit.attach;
import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.junit.Simulators;
import dev.profiledrollout.simulator.RouterSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An attached URL that points at the wrong kind of server fails before any profile call, naming the key to change:
 * a router given as an engine, a vLLM server under an SGLang test and the reverse.
 */
class WrongTargetTest {

    @TempDir
    Path output;

    @RegisterExtension
    final Simulators simulators = new Simulators();

    @FaultCase @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(requests = 1, warmupRequests = 0)
    static class SglangTestCase { @Test void t(RolloutSession s) { s.awaitResult(); } }

    @FaultCase @ProfiledRollout(backend = Backend.VLLM, activities = Activity.GPU)
    @RolloutLoad(requests = 1, warmupRequests = 0)
    static class VllmTestCase { @Test void t(RolloutSession s) { s.awaitResult(); } }

    @Test
    void a_router_given_as_the_engine_url_suggests_router_url() throws Exception {
        try (RouterSimulator router = RouterSimulator.builder().workers(1)
                .workerConfig(SimulatorConfig.builder().profilerDir(output.resolve("server")).build()).start()) {
            Throwable t = failure(attach(SglangTestCase.class, output, router.baseUri()));

            assertThat(t).isInstanceOf(ExtensionConfigurationException.class)
                    .hasMessageContaining(router.baseUri() + " (profiledrollout.engine.url) answers GET /workers like"
                            + " a router")
                    .hasMessageContaining("Set profiledrollout.router.url=" + router.baseUri()
                            + " instead of profiledrollout.engine.url");
            for (URI worker : router.workerUrls()) {
                assertProfilerStopped(worker, null); // no capture was ever started
            }
        }
    }

    @Test
    void an_sglang_test_pointed_at_vllm_suggests_backend_vllm() throws Exception {
        URI vllm = simulators.start(SimulatorConfig.builder().backend("vllm").profilerConfig(
                "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + output.resolve("vllm-traces") + "\"}"))
                .baseUri();

        Throwable t = failure(attach(SglangTestCase.class, output, vllm));

        assertThat(t).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("(profiledrollout.engine.url) answers like vLLM")
                .hasMessageContaining("@ProfiledRollout(backend = SGLANG). Set backend = VLLM");
        assertThat(output.resolve("vllm-traces")).doesNotExist();
    }

    @Test
    void a_vllm_test_pointed_at_sglang_suggests_backend_sglang() throws Exception {
        Path traces = Files.createDirectories(output.resolve("traces"));
        URI sglang = simulators.start(SimulatorConfig.builder().profilerDir(output.resolve("server"))).baseUri();

        Throwable t = failure(attach(VllmTestCase.class, output, sglang, "profiledrollout.trace.dir",
                traces.toString()));

        assertThat(t).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("(profiledrollout.engine.url) answers GET /server_info like SGLang")
                .hasMessageContaining("@ProfiledRollout(backend = VLLM). Set backend = SGLANG");
        assertProfilerStopped(sglang, null);
    }
}
