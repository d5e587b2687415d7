package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.STABLE;

import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.trace.KernelMatchers;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import java.util.function.Predicate;
import org.apiguardian.api.API;
import org.assertj.core.api.Assertions;

/**
 * The one entry point for Profiled Rollout's AssertJ assertions; extends AssertJ's {@link Assertions}, so a single
 * static import serves both.
 *
 * <pre>{@code
 * import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.*;
 *
 * assertThat(result.latency()).ttft().percentile(99).isLessThan(Duration.ofMillis(250));
 * assertThat(result.trace()).kernels(matching(".*gemm.*")).share().isLessThan(0.60);
 * }</pre>
 *
 * Every failure message states the measure, the actual value, the budget and the gap, e.g.
 * {@code p99 TTFT was 312 ms, budget < 250 ms (+24.8%); 41 of 256 requests above budget}, prefixed with the scope
 * ({@code [PREFILL] p99 TTFT was …}) for a phase's or a rank's figures. Every check, passed or failed, records a
 * {@link dev.profiledrollout.verdict.Verdict} for the test's report; inside a profiled test missed budgets are soft
 * (collected and reported once after the body, see the package documentation).
 */
@API(status = STABLE, since = "0.1")
public class ProfiledRolloutAssertions extends Assertions {

    protected ProfiledRolloutAssertions() {
    }

    public static LatencyReportAssert assertThat(LatencyReport actual) {
        return new LatencyReportAssert(actual);
    }

    public static TraceSetAssert assertThat(TraceSet actual) {
        return new TraceSetAssert(actual);
    }

    public static TraceSummaryAssert assertThat(TraceSummary actual) {
        return new TraceSummaryAssert(actual);
    }

    /** A whole run; {@code assertThat(result).history().metric("ttft.p99").hasNoRegression()} checks its history. */
    public static RolloutResultAssert assertThat(dev.profiledrollout.RolloutResult actual) {
        return new RolloutResultAssert(actual);
    }

    /** A capacity search's figure: {@code assertThat(capacity).requestRate().isGreaterThan(40)}. */
    @org.apiguardian.api.API(status = org.apiguardian.api.API.Status.EXPERIMENTAL, since = "0.2")
    public static CapacityAssert assertThat(dev.profiledrollout.capacity.Capacity actual) {
        return new CapacityAssert(actual);
    }

    /** The stages of a staged load: monotone throughput, an SLO up to a load level. */
    @org.apiguardian.api.API(status = org.apiguardian.api.API.Status.EXPERIMENTAL, since = "0.2")
    public static SweepAssert assertThat(dev.profiledrollout.load.SweepResult actual) {
        return new SweepAssert(actual);
    }

    /** A run compared with a baseline; see {@link dev.profiledrollout.trace.baselines.TraceBaseline#diff}. */
    public static BaselineDiffAssert assertThat(dev.profiledrollout.trace.baselines.BaselineDiff actual) {
        return new BaselineDiffAssert(actual);
    }

    /** Kernel names matching a regular expression; see {@link KernelMatchers#matching(String)}. */
    public static Predicate<String> matching(String regex) {
        return KernelMatchers.matching(regex);
    }

    /** Kernel names matching a glob ({@code *}, {@code ?}); see {@link KernelMatchers#glob(String)}. */
    public static Predicate<String> glob(String glob) {
        return KernelMatchers.glob(glob);
    }
}
