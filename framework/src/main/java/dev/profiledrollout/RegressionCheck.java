package dev.profiledrollout;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.apiguardian.api.API;

/**
 * Checks metrics of every run of a {@link ProfiledRollout} test against the earlier runs of the same test and
 * configuration in the history store, after the body, as if the body had ended with
 * {@code assertThat(result).history().metric(m).hasNoRegression()} for each metric: a REGRESSION fails the test (with
 * the soft budgets), IMPROVEMENT and NO_CHANGE pass, INSUFFICIENT_HISTORY is a warning. For a phased test every phase
 * is checked against its own history.
 *
 * <pre>{@code
 * @ProfiledRollout(numSteps = 10)
 * @RegressionCheck(metrics = {"ttft.p99", "itl.p99"}, threshold = "t-test", window = 20)
 * class DecodeRegressionTest { ... }
 * }</pre>
 *
 * Needs {@code profiledrollout.history.enabled} (the default); on the method it replaces the class's.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@API(status = EXPERIMENTAL, since = "0.1")
public @interface RegressionCheck {

    /**
     * Metric names ({@code dev.profiledrollout.history.HistoryMetrics}); empty: {@code HistoryMetrics.CHECKED_METRICS}
     * (mean TPOT and mean E2E latency, the steadiest from run to run). A metric the run has no figure of is skipped.
     */
    String[] metrics() default {};

    /**
     * {@code relative}, {@code z-score}, {@code t-test}, {@code mann-whitney} or {@code welch}; empty: the
     * {@code profiledrollout.history.threshold} key's.
     */
    String threshold() default "";

    /** The boundary (see {@code profiledrollout.history.boundary}); NaN: the key's, or the model's default. */
    double boundary() default Double.NaN;

    /** Earlier runs compared with; 0: the {@code profiledrollout.history.window} key's. */
    int window() default 0;

    /**
     * The relative floor of a statistical model: a value beyond the median of the last 3 earlier runs by more than this
     * fraction on the regression side is a REGRESSION whatever the model says, once 3 earlier runs exist
     * ({@code HistoryThreshold#relativeLimit}). NaN: the default, 0.5; {@code Double.POSITIVE_INFINITY}: none.
     */
    double relativeLimit() default Double.NaN;
}
