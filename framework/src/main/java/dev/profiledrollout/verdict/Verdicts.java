package dev.profiledrollout.verdict;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.apiguardian.api.API;

/**
 * The hand-over of budget verdicts from the assertions to the report of the test that is running on this thread,
 * and the soft-budget mechanism.
 *
 * <p>AssertJ assertions have no access to the JUnit {@code ExtensionContext}, so the extension opens a
 * {@link Recording} on the test's thread before the body and closes it after; budget assertions made on that thread
 * in between call {@link #check(Verdict, Supplier)}, which records the verdict and decides what a failed budget does:
 * <ul>
 *   <li>in a <em>soft</em> recording ({@link #start(boolean) start(true)}, the extension's default) the
 *       {@link AssertionError} is kept in {@link Recording#failures()} and not thrown, so every later budget is still
 *       evaluated; whoever opened the recording fails once with all of them
 *       ({@link Recording#failuresError()});</li>
 *   <li>in a fail-fast recording, and outside any recording, it is thrown at once.</li>
 * </ul>
 * Recordings nest: a recording started while another is open on the thread hands every verdict to the outer one
 * too (so a {@code try (var softly = ...)} block inside a profiled test still reaches its report) and, on
 * {@link Recording#close()}, makes the outer one current again.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class Verdicts {

    private static final ThreadLocal<Recording> CURRENT = new ThreadLocal<>();

    private Verdicts() {
    }

    /** @return a new fail-fast recording bound to the calling thread until {@link Recording#close()} */
    public static Recording start() {
        return start(false);
    }

    /**
     * @param soft true: failed budgets are collected, not thrown; false: thrown at once (fail-fast)
     * @return a new recording bound to the calling thread until {@link Recording#close()}
     */
    public static Recording start(boolean soft) {
        Recording recording = new Recording(CURRENT.get(), soft);
        CURRENT.set(recording);
        return recording;
    }

    /**
     * Adds {@code verdict} to the calling thread's recording (and the recordings it is nested in), if any. Does not
     * throw for a failed verdict; budget assertions use {@link #check(Verdict, Supplier)}.
     *
     * @param verdict not null
     */
    public static void record(Verdict verdict) {
        Objects.requireNonNull(verdict, "verdict");
        for (Recording r = CURRENT.get(); r != null; r = r.parent) {
            r.add(verdict);
        }
    }

    /**
     * Records {@code verdict} and, when it is a {@link Verdict.Outcome#FAIL}, collects the failure in a soft recording
     * or throws it (fail-fast recording, or no recording on this thread). Passed verdicts and warnings never throw.
     *
     * @param verdict not null
     * @param failure the assertion error describing the failed verdict; called only when the verdict failed
     * @throws AssertionError the failure, unless a soft recording collected it
     */
    public static void check(Verdict verdict, Supplier<? extends AssertionError> failure) {
        record(verdict);
        if (verdict.outcome() != Verdict.Outcome.FAIL) {
            return;
        }
        AssertionError error = failure.get();
        Recording recording = CURRENT.get();
        if (recording == null || !recording.soft) {
            throw error;
        }
        recording.failures.add(error);
    }

    /**
     * Like {@link #check(Verdict, Supplier)} for a check that later ones depend on (samples to take a percentile of,
     * a trace to select kernels from): a failure is always thrown, soft or not, because nothing after it can be
     * evaluated. Only a failed verdict is recorded when {@code recordPass} is false, so implicit preconditions do not
     * add a passing verdict to every budget.
     */
    public static void require(Verdict verdict, boolean recordPass, Supplier<? extends AssertionError> failure) {
        if (verdict.passed()) {
            if (recordPass) {
                record(verdict);
            }
            return;
        }
        record(verdict);
        if (verdict.outcome() == Verdict.Outcome.FAIL) {
            throw failure.get();
        }
    }

    /**
     * The verdicts recorded on one thread between {@link #start(boolean)} and {@link #close()}, with the failures a
     * soft recording collected; not thread-safe.
     */
    @API(status = EXPERIMENTAL, since = "0.1")
    public static final class Recording implements AutoCloseable {

        private final Recording parent;
        private final boolean soft;
        private final List<Verdict> verdicts = new ArrayList<>();
        private final List<AssertionError> failures = new ArrayList<>();

        private Recording(Recording parent, boolean soft) {
            this.parent = parent;
            this.soft = soft;
        }

        private void add(Verdict verdict) {
            verdicts.add(verdict);
        }

        /** @return the verdicts so far, in the order the assertions ran */
        public List<Verdict> verdicts() {
            return List.copyOf(verdicts);
        }

        /** @return whether failed budgets are collected ({@code true}) or thrown at once */
        public boolean isSoft() {
            return soft;
        }

        /** @return the failures of the budgets collected so far (soft recordings only), in order */
        public List<AssertionError> failures() {
            return List.copyOf(failures);
        }

        /**
         * @return one error for all collected failures ({@link BudgetFailuresError}: "N of M budgets failed" and
         *         each failure's message), or null when none was collected
         */
        public BudgetFailuresError failuresError() {
            return failures.isEmpty() ? null : BudgetFailuresError.of(verdicts, failures, null);
        }

        /**
         * Fails with {@link #failuresError()} when a budget failed.
         *
         * @throws BudgetFailuresError when failures were collected
         */
        public void assertAll() {
            BudgetFailuresError error = failuresError();
            if (error != null) {
                throw error;
            }
        }

        /** Unbinds this recording from the thread, making its enclosing one current again; the verdicts stay readable. */
        @Override
        public void close() {
            if (CURRENT.get() == this) {
                if (parent == null) {
                    CURRENT.remove();
                } else {
                    CURRENT.set(parent);
                }
            }
        }
    }
}
