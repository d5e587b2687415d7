package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.ArrayList;
import java.util.List;
import org.apiguardian.api.API;

/**
 * The hand-over of budget verdicts from the assertions to the report of the test that is running on this thread.
 *
 * <p>AssertJ assertions have no access to the JUnit {@code ExtensionContext}, so the extension opens a
 * {@link Recording} on the test's thread before the body and closes it after; budget assertions made on that thread
 * in between call {@link #record(Verdict)}. Outside a recording (plain code, other threads) {@code record} does
 * nothing. Recordings do not nest: starting one replaces the thread's previous one.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class Verdicts {

    private static final ThreadLocal<Recording> CURRENT = new ThreadLocal<>();

    private Verdicts() {
    }

    /** @return a new recording bound to the calling thread until {@link Recording#close()} */
    public static Recording start() {
        Recording recording = new Recording();
        CURRENT.set(recording);
        return recording;
    }

    /**
     * Adds {@code verdict} to the calling thread's recording, if any.
     *
     * @param verdict not null
     */
    public static void record(Verdict verdict) {
        Recording recording = CURRENT.get();
        if (recording != null) {
            recording.add(verdict);
        }
    }

    /** The verdicts recorded on one thread between {@link #start()} and {@link #close()}; not thread-safe. */
    public static final class Recording implements AutoCloseable {

        private final List<Verdict> verdicts = new ArrayList<>();

        private Recording() {
        }

        private void add(Verdict verdict) {
            verdicts.add(verdict);
        }

        /** @return the verdicts so far, in the order the assertions ran */
        public List<Verdict> verdicts() {
            return List.copyOf(verdicts);
        }

        /** Unbinds this recording from the thread (when it is still the current one); the verdicts stay readable. */
        @Override
        public void close() {
            if (CURRENT.get() == this) {
                CURRENT.remove();
            }
        }
    }
}
