package dev.profiledrollout.cli;

import dev.profiledrollout.trace.roofline.GpuPeaks;
import java.time.Duration;

/**
 * One-time set-up that {@code analyze} would otherwise meet in the middle of its work, done on a thread of its own
 * from the start of the command: Jackson's classes and the mapper behind the roofline's shape parsing, the GPU peaks
 * table (together about 0.1 s of CPU that a reader thread spent in its first file's summary, CPU profile of the
 * training rank set), and, for {@code --format json}, the output mapper's serializers (otherwise built after the last
 * file, when nothing else runs).
 *
 * <p>Why a thread: at that point the process uses 1.2–1.5 of its two cores (picocli builds its model on the main
 * thread, the readers have not started; {@code /proc/PID/stat} sampled every 50 ms), so the work costs little wall
 * time there (bench/README.md, issue 27, seventh round). It changes no result: a failure here is ignored, and the
 * work is then done where it was before.
 */
final class AnalyzeWarmUp {

    /** The thread's name. */
    static final String THREAD = "analyze-warm-up";

    /** The roofline's shape model (package-private there), initialised by name: its mapper loads Jackson. */
    static final String ROOFLINE_MODEL = "dev.profiledrollout.trace.roofline.RooflineModel";

    private final Thread thread;

    AnalyzeWarmUp(Runnable work) {
        thread = new Thread(() -> {
            try {
                work.run();
            } catch (RuntimeException | LinkageError ignored) {
                // speed only: the readers and the output do the same work themselves when they need it
            }
        }, THREAD);
        thread.setDaemon(true); // never holds the JVM open; the command awaits it before it returns
        thread.start();
    }

    /** Starts the set-up; {@code json}: also the output mapper's serializers. */
    static AnalyzeWarmUp start(boolean json) {
        return new AnalyzeWarmUp(() -> run(json));
    }

    private static void run(boolean json) {
        try {
            Class.forName(ROOFLINE_MODEL, true, AnalyzeWarmUp.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new NoClassDefFoundError(e.getMessage());
        }
        GpuPeaks.builtIn();
        if (json) {
            AnalyzeOutput.warmUp();
        }
    }

    /**
     * Waits for the set-up to end, so that no thread of the command outlives it and the output does not build
     * serializers beside it.
     *
     * @param atMost how long to wait at most (the set-up takes a fraction of a second)
     * @return whether it has ended
     */
    boolean await(Duration atMost) {
        try {
            thread.join(Math.max(1, atMost.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }
}
