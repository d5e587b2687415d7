package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.verdict.BudgetFailuresError;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.util.List;
import org.apiguardian.api.API;

/**
 * Soft budgets outside the extension (or inside a fail-fast {@code @ProfiledRollout(softBudgets = false)} test):
 * every budget assertion made on this thread while the block is open records its verdict and, when it fails, its
 * failure without throwing; closing the block throws one {@link BudgetFailuresError} with all of them.
 *
 * <pre>{@code
 * try (var softly = ProfiledRolloutSoftAssertions.softly()) {
 *     assertThat(latency).ttft().percentile(99).isLessThan(Duration.ofMillis(250));
 *     assertThat(trace).kernels(matching(".*gemm.*")).share().isLessThan(0.60);
 * }   // throws "N of M budgets failed: …" when any failed
 * }</pre>
 *
 * The assertions are the usual static {@code assertThat(…)} of {@link ProfiledRolloutAssertions}. Inside a profiled
 * test the block's verdicts also reach the test's report. As with the extension, plain AssertJ assertions and checks
 * later ones depend on (a metric without samples, a capture without traces) still throw at once. One block per thread
 * at a time; close it on the thread that opened it.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class ProfiledRolloutSoftAssertions implements AutoCloseable {

    private final Verdicts.Recording recording;

    private ProfiledRolloutSoftAssertions(Verdicts.Recording recording) {
        this.recording = recording;
    }

    /** @return a soft block bound to the calling thread until {@link #close()} */
    public static ProfiledRolloutSoftAssertions softly() {
        return new ProfiledRolloutSoftAssertions(Verdicts.start(true));
    }

    /**
     * Runs {@code budgets} in a soft block.
     *
     * @throws BudgetFailuresError when any budget failed
     */
    public static void assertSoftly(Runnable budgets) {
        ProfiledRolloutSoftAssertions softly = softly();
        try {
            budgets.run();
        } catch (RuntimeException | Error e) {
            softly.recording.close();
            softly.failures().forEach(e::addSuppressed);
            throw e;
        }
        softly.close();
    }

    /** @return the verdicts recorded in this block so far, in order */
    public List<Verdict> verdicts() {
        return recording.verdicts();
    }

    /** @return the failures of the budgets collected so far, in order */
    public List<AssertionError> failures() {
        return recording.failures();
    }

    /**
     * Ends the block and fails with every failed budget.
     *
     * @throws BudgetFailuresError when any budget failed
     */
    @Override
    public void close() {
        recording.close();
        recording.assertAll();
    }
}
