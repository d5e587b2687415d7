package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static dev.profiledrollout.junit.ProfiledTestKit.summary;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.Profiler;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.engine.nsys.NsysStandIn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/** {@code profiler = NSYS} through the extension, with {@code nsys-standin.sh} as the nsys executable. */
class NsysExtensionTest {

    @TempDir
    Path output;

    @TempDir
    Path nsysDir;

    private EngineExecutionResults run(Class<?> testCase, Path nsys, Path report) {
        return ProfiledTestKit.run(testCase, output, "profiledrollout.nsys.path", nsys.toString(),
                "profiledrollout.nsys.report", report.toString());
    }

    @ProfiledRollout(profiler = Profiler.NSYS)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class InteractiveTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void nsys(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_start_and_stop_the_discovered_session_and_summarise_its_kernels() throws Exception {
        // GIVEN
        Path nsys = NsysStandIn.install(nsysDir);
        Path report = Files.writeString(nsysDir.resolve("decode.nsys-rep"), "report");
        // WHEN
        EngineExecutionResults results = run(InteractiveTestCase.class, nsys, report);
        // THEN
        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        assertThat(NsysStandIn.invocations(nsysDir)).containsExactly(
                "sessions list -p true -f json",
                "sessions list",
                "start --session=10345602",
                "stop --session=10345602",
                "stats --report cuda_gpu_kern_sum --format csv " + report);
        RolloutResult result = InteractiveTestCase.RESULT.get();
        assertThat(result.latency().completed()).isEqualTo(4);
        assertThat(result.trace().kernels()).hasSize(3);
        assertThat(result.trace().kernelTotalNs()).isEqualTo(6_130_000L + 3_000_000L + 870_000L);
        assertThat(result.traceFiles()).containsExactly(report);
        assertThat(result.workers()).isEmpty(); // no engine call: nsys itself was driven
        JsonNode summary = summary(output.resolve("NsysExtensionTest$InteractiveTestCase/nsys"));
        assertThat(summary.path("trace").path("kernelTotalNs").asLong()).isEqualTo(10_000_000L);
    }

    @ProfiledRollout(profiler = Profiler.NSYS, activities = Activity.CUDA_PROFILER)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class CudaProfilerApiTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void capture(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_drive_a_cuda_profiler_api_capture_through_the_engine_and_summarise_the_report() throws Exception {
        Path nsys = NsysStandIn.install(nsysDir);
        Path report = Files.writeString(nsysDir.resolve("capture.nsys-rep"), "report");

        EngineExecutionResults results = run(CudaProfilerApiTestCase.class, nsys, report);

        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        assertThat(NsysStandIn.invocations(nsysDir)).containsExactly(
                "stats --report cuda_gpu_kern_sum --format csv " + report);
        RolloutResult result = CudaProfilerApiTestCase.RESULT.get();
        assertThat(result.workers()).singleElement().extracting(WorkerOutcome::state)
                .isEqualTo(WorkerOutcome.State.PROFILED);
        assertThat(result.trace().kernels()).hasSize(3);
        JsonNode summary = summary(output.resolve("NsysExtensionTest$CudaProfilerApiTestCase/capture"));
        assertThat(summary.path("profileRequest").path("activities").toString()).isEqualTo("[\"CUDA_PROFILER\"]");
    }
}
