package dev.profiledrollout.examples;

import static dev.profiledrollout.Activity.CPU;
import static dev.profiledrollout.Activity.GPU;
import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.profiledrollout.EngineProfile;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RegressionCheck;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.trace.StepStats.Stage;
import dev.profiledrollout.trace.baselines.BaselineDiff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A kernel regression check against a recorded baseline: every kernel's count and total time in this run are compared
 * with {@code <profiledrollout.baseline.dir>/<TestClass>.<method>.json}, recorded on a known-good build, and the
 * comparison is also in {@code summary.json} ({@code baseline}) and the report's {@code baseline-diff} chart.
 *
 * <p>A baseline only means something for the same work: the same model, GPU and TP, and the same steps under the same
 * load. This capture is therefore fixed in shape: one request at a time, so its 16 steps are always one 1024-token
 * prefill followed by 15 batch-1 decode steps, whatever the machine's speed. (With concurrent requests, how arrivals
 * fall into batches depends on timing, and so do the kernels a fixed number of steps records. The comparison is made
 * per engine step kind, kernel time per prefill token and per decode step, so a different prefill/decode mix alone
 * does not fail it; a step kind captured on one side only is reported as incomparable.)
 *
 * <p>The baseline is checked in under {@code src/test/resources/baselines}: this module's
 * {@code junit-platform.properties} defines the engine profile {@code baselines} with
 * {@code profiledrollout.profiles.baselines.baseline.dir} set to it, and the class chooses that profile. Every other key
 * (the engine included) comes from the global configuration, as for any class. In your own module set
 * {@code profiledrollout.baseline.dir} in {@code junit-platform.properties} or Surefire's
 * {@code systemPropertyVariables}. Record (or re-record, after an intended change) with
 * <pre>
 * mvn -B -P examples verify -Dtest=BaselineRegressionTest -Dprofiledrollout.baseline.update=true
 * </pre>
 * and commit the file. Against a real SGLang server, record on a known-good engine build and compare later builds,
 * adding {@code -Dprofiledrollout.engine=attach -Dprofiledrollout.engine.url=http://gpu-node:30000
 * -Dprofiledrollout.profiles.baselines.baseline.dir=…} to both runs.
 */
@RegressionCheck
@ProfiledRollout(numSteps = 16, activities = {GPU, CPU}) // CPU: the engine-step annotations
@RolloutLoad(concurrency = 1, requests = 2, inputTokens = 1024, outputTokens = 64)
@EngineProfile("baselines") // junit-platform.properties: the checked-in baseline directory
class BaselineRegressionTest {

    private static final String BASELINE_UPDATE = "profiledrollout.baseline.update";

    @Test
    void kernelsMatchTheRecordedBaseline(RolloutSession session) {
        RolloutResult result = session.awaitResult();
        // Like with like: the capture has the shape the baseline was recorded with.
        assertThat(result.trace()).rank(0).steps(Stage.PREFILL).count().isEqualTo(1);
        assertThat(result.trace()).rank(0).steps(Stage.DECODE).count().isEqualTo(15);
        // A recording run writes the baseline instead of comparing with it.
        assumeFalse(Boolean.getBoolean(BASELINE_UPDATE), "recorded the baseline; nothing to compare");

        BaselineDiff diff = result.baseline().orElseThrow(() -> new AssertionError("no baseline for this test under"
                + " profiledrollout.profiles.baselines.baseline.dir; record one with -D" + BASELINE_UPDATE + "=true"));
        // The same kernels, as often as before...
        assertThat(diff).hasNoNewKernels().hasNoVanishedKernels();
        // ...taking as long as before: within 5 % in total and 10 % per kernel (ignoring kernels under 0.1 ms in both).
        assertThat(diff).totalKernelTimeWithin(0.05).kernelTimeWithin(0.10, Duration.ofNanos(100_000));
    }
}
