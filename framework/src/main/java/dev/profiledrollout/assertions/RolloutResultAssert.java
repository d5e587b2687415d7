package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.RolloutResult;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on a whole {@link RolloutResult}; {@link #history()} checks it against earlier runs.
 *
 * <pre>{@code
 * assertThat(result).history().metric("ttft.p99").hasNoRegression();
 * assertThat(result.phase(Phase.DECODE)).history().metric("itl.p99").window(10).hasNoRegression();
 * }</pre>
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class RolloutResultAssert extends AbstractAssert<RolloutResultAssert, RolloutResult> {

    public RolloutResultAssert(RolloutResult actual) {
        super(actual, RolloutResultAssert.class);
    }

    /**
     * The run against its history of the same test and configuration.
     *
     * @throws AssertionError when the result has no history access: history recording is off
     *                        ({@code profiledrollout.history.enabled=false}) or the result was not made by the
     *                        extension; or, for a phased test's combined result, which has one history per phase
     */
    public HistoryAssert history() {
        isNotNull();
        if (actual.history().isEmpty()) {
            failWithMessage("This result has no history: history recording is off (set profiledrollout.history.enabled"
                    + "=true) or the result was not made by the @ProfiledRollout extension");
        }
        if (!actual.phases().isEmpty()) {
            failWithMessage("A phased test has one history per phase: use assertThat(result.phase(Phase.<NAME>))"
                    + ".history(); phases: %s", actual.phases().keySet());
        }
        return new HistoryAssert(actual.history().orElseThrow());
    }
}
