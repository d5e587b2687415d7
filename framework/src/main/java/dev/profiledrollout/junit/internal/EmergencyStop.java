package dev.profiledrollout.junit.internal;

import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.metrics.RequestRecord;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The emergency stop of one open capture: what {@link ShutdownGuard}'s hook does to it, on the hook's thread, within
 * the capture's {@code profiledrollout.shutdown.timeout}: cancels the load, stops the profiler (on a thread of its
 * own, so that an engine whose {@code /stop_profile} does not answer cannot hold the JVM), and writes the partial
 * {@code requests.jsonl} and {@code summary.json}, whose {@code error} says the JVM was stopped mid-window and how the
 * stop ended. An engine whose {@code /stop_profile} was sent but not answered by the deadline is reported as
 * {@code STOP_REQUESTED} (it was still exporting); {@code STOP_FAILED} is kept for a stop that was refused or could
 * not be sent. A capture whose final
 * summary was already written is only made sure to be stopped.
 */
final class EmergencyStop {

    private final String testName;
    private final URI engine;
    private final CaptureReport report;
    private final WindowLoad load;
    private final GuardedProfiler profiler;
    private final Duration timeout;
    /** What {@link #stopForShutdown} did; null until it ran. */
    private volatile String outcome;

    /**
     * @param engine   the engine, named when the stop did not finish in time
     * @param profiler the capture's profiler, which the test's thread may be stopping at the same time
     * @param timeout  {@code profiledrollout.shutdown.timeout}
     */
    EmergencyStop(String testName, URI engine, CaptureReport report, WindowLoad load, GuardedProfiler profiler,
            Duration timeout) {
        this.testName = testName;
        this.engine = engine;
        this.report = report;
        this.load = load;
        this.profiler = profiler;
        this.timeout = timeout;
    }

    /** @return how long {@link #stopForShutdown(long)} may take: {@code profiledrollout.shutdown.timeout} */
    Duration shutdownTimeout() {
        return timeout;
    }

    /** Ends the capture before {@code deadlineNanos} ({@link System#nanoTime()}). Never throws. */
    void stopForShutdown(long deadlineNanos) {
        try {
            boolean claimed = report.takeOver();
            long budget = Math.max(0, deadlineNanos - System.nanoTime());
            // the records and the two files need little time, but they must be written before the JVM halts
            long reserve = Math.min(TimeUnit.SECONDS.toNanos(2), budget / 4);
            load.cancel();
            RuntimeException[] stopFailure = new RuntimeException[1];
            boolean stopFinished = joinUntil(() -> {
                try {
                    profiler.stop();
                } catch (RuntimeException e) {
                    stopFailure[0] = e;
                }
            }, "profiledrollout-shutdown-stop", deadlineNanos - reserve);
            List<RequestRecord> records = load.recordsUntil(deadlineNanos - reserve / 2);
            List<WorkerOutcome> outcomes = outcomes(stopFinished);
            String stop = profiler.describeStop(outcomes, stopFinished, stopFailure[0], timeoutKey());
            if (!claimed) {
                outcome = testName + ": had already finished; " + stop;
                return;
            }
            String error = "the JVM was stopped mid-window (SIGTERM, SIGINT or System.exit): the load was cancelled"
                    + " with " + records.size() + " requests ended; " + stop;
            report.writeForHook(records, outcomes, error);
            outcome = testName + ": " + error + "; partial results in " + report.directory();
            joinUntil(load::close, "profiledrollout-shutdown-load", deadlineNanos);
        } catch (RuntimeException | Error e) {
            outcome = testName + ": stopping the window failed: " + e;
        }
    }

    /** @return one line on what {@link #stopForShutdown(long)} did, for the console */
    String shutdownReport() {
        String done = outcome;
        return done != null ? done : testName + ": not stopped within " + timeoutKey() + "; the engine may still be"
                + " profiling (" + engine + ")";
    }

    private String timeoutKey() {
        return ProfiledRolloutKeys.SHUTDOWN_TIMEOUT + "=" + timeout;
    }

    /**
     * The profiler's outcomes: an engine whose stop was sent and not answered in time is {@code STOP_REQUESTED}, one
     * whose stop returned without stopping it {@code STOP_FAILED}.
     */
    private List<WorkerOutcome> outcomes(boolean stopFinished) {
        List<WorkerOutcome> outcomes = new ArrayList<>();
        for (WorkerOutcome o : profiler.outcomes()) {
            if (o.state() != WorkerOutcome.State.STARTED) {
                outcomes.add(o);
            } else if (stopFinished) {
                outcomes.add(new WorkerOutcome(o.url(), o.workerType(), WorkerOutcome.State.STOP_FAILED, -1,
                        "never stopped before the JVM exited; the engine may still be profiling", null));
            } else {
                outcomes.add(new WorkerOutcome(o.url(), o.workerType(), WorkerOutcome.State.STOP_REQUESTED, 0,
                        "stop requested; the engine was still exporting when the JVM exited (no answer to "
                                + "/stop_profile within " + timeoutKey() + "); its traces may still appear", null));
            }
        }
        return outcomes;
    }

    /**
     * Runs {@code task} on a daemon thread and waits for it until {@code deadlineNanos}.
     *
     * @return whether it finished in time
     */
    private static boolean joinUntil(Runnable task, String threadName, long deadlineNanos) {
        Thread thread = new Thread(task, threadName);
        thread.setDaemon(true);
        thread.start();
        long remaining = deadlineNanos - System.nanoTime();
        if (remaining > 0) {
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return !thread.isAlive();
    }
}
