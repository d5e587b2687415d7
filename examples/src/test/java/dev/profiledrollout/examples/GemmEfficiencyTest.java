package dev.profiledrollout.examples;

import static dev.profiledrollout.Activity.CPU;
import static dev.profiledrollout.Activity.GPU;
import static dev.profiledrollout.Backend.SGLANG;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;

import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import org.junit.jupiter.api.Test;

/**
 * Kernel efficiency budgets: how close the GEMMs come to the GPU's roofline, from the shapes the profiler records
 * ({@code record_shapes}, on by default in SGLang) and the device named in the trace's {@code deviceProperties}.
 *
 * <p>Long prompts make the profiled steps prefills, whose GEMMs ({@code M} = thousands of tokens) are compute-bound:
 * their achieved TFLOPS/s is compared with the device's bf16 peak. Decode GEMMs ({@code M} = batch size) are
 * memory-bound; for them the roofline fraction (achieved over {@code min(peak, FLOP/byte × HBM TB/s)}) is the
 * figure to budget. The simulator runs an H100 SXM's cost model; against a real server the budgets need to fit your
 * GPU ({@code analyze --by roofline} on a trace shows the figures).
 */
@ProfiledRollout(backend = SGLANG, numSteps = 4, activities = {GPU, CPU})
@RolloutLoad(concurrency = 4, requests = 8, inputTokens = 2048, outputTokens = 4)
class GemmEfficiencyTest {

    @Test
    void gemmsRunCloseToTheRoofline(RolloutSession session) {
        RolloutResult result = session.awaitResult();

        assertThat(result.latency()).hasNoFailedRequests();
        assertThat(result.trace()).operators("aten::mm").achievedTflops().max().isGreaterThan(500);
        assertThat(result.trace()).operators("aten::mm").peakFraction().max().isGreaterThan(0.6);
        assertThat(result.trace()).operators("aten::mm").rooflineFraction().median().isGreaterThan(0.6);
    }
}
