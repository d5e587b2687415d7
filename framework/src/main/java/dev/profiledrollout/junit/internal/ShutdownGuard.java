package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.SHUTDOWN_TIMEOUT;

import dev.profiledrollout.ProfiledRolloutException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Leaves no engine profiling when the JVM is stopped while profile windows are open: an IDE's stop button or a
 * cancelled CI job (SIGTERM, SIGINT), or a build tool ending its test fork (a Maven Surefire fork leaves through
 * {@code System.exit}, which runs shutdown hooks, and is halted {@code forkedProcessExitTimeoutInSeconds}, default
 * 30 s, later; maven.apache.org/plugins/maven-surefire-plugin/examples/shutdown.html). A JVM killed outright (SIGKILL,
 * {@code Runtime.halt}, Surefire's {@code shutdown=kill}) runs no hook.
 *
 * <p>Why it matters: an SGLang capture started without {@code num_steps} has no step at which it ends by itself; only
 * {@code /stop_profile} ends it (sgl-project/sglang {@code python/sglang/srt/managers/scheduler_components/
 * profiler_manager.py}: {@code _init_profile} leaves {@code profiler_target_forward_ct} unset, and
 * {@code _profile_batch_predicate} stops only on reaching it). vLLM with {@code max_iterations = 0} (its default)
 * likewise records until {@code /stop_profile} (vllm-project/vllm {@code vllm/profiler/wrapper.py},
 * {@code WorkerProfiler.step}). The engine outlives the test JVM and keeps recording until it runs out of memory.
 *
 * <h2>Contract</h2>
 * A {@link Capture} registers its {@link EmergencyStop} right before it starts the profiler and deregisters it once
 * its final {@code summary.json} is written or it is closed. One JVM shutdown hook is registered while at least one capture is open and removed
 * when none is, so a JVM without open windows carries none and no thread of this class exists outside a shutdown.
 * When the hook runs, every open capture is ended concurrently by {@link EmergencyStop#stopForShutdown(long)}, each within
 * its own {@code profiledrollout.shutdown.timeout}: load cancelled, every started engine stopped concurrently (or the
 * nsys session), the partial results written with an {@code error} naming what was stopped and how. A capture that
 * finishes normally at the same moment is stopped once: the profiler start/stop and the final report are guarded
 * by the capture itself. Once the hook has started, no new capture may register.
 */
final class ShutdownGuard {

    private static final Object LOCK = new Object();
    private static final Set<EmergencyStop> OPEN = new LinkedHashSet<>();
    private static Thread hook;
    private static boolean shuttingDown;

    private ShutdownGuard() {
    }

    /**
     * Tracks {@code capture} until {@link #deregister(EmergencyStop)}, registering the JVM shutdown hook if it is the
     * first.
     *
     * @throws ProfiledRolloutException when the JVM is already shutting down (no profiler may be started then)
     */
    static void register(EmergencyStop capture) {
        synchronized (LOCK) {
            if (shuttingDown) {
                throw shuttingDown();
            }
            if (hook == null) {
                Thread thread = new Thread(ShutdownGuard::stopOpenWindows, "profiledrollout-shutdown");
                try {
                    Runtime.getRuntime().addShutdownHook(thread);
                } catch (IllegalStateException e) {
                    throw shuttingDown();
                }
                hook = thread;
            }
            OPEN.add(capture);
        }
    }

    /** Stops tracking {@code capture}; removes the hook when no capture is left. Idempotent. */
    static void deregister(EmergencyStop capture) {
        synchronized (LOCK) {
            if (!OPEN.remove(capture) || !OPEN.isEmpty() || hook == null || shuttingDown) {
                return;
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs and finds nothing open
            }
            hook = null;
        }
    }

    /** @return whether the shutdown hook has started (the JVM is exiting and the open windows are being stopped) */
    static boolean shutdownStarted() {
        synchronized (LOCK) {
            return shuttingDown;
        }
    }

    /** @return the captures currently tracked; for tests */
    static List<EmergencyStop> open() {
        synchronized (LOCK) {
            return List.copyOf(OPEN);
        }
    }

    /** @return whether the JVM shutdown hook is registered; for tests */
    static boolean hookRegistered() {
        synchronized (LOCK) {
            return hook != null;
        }
    }

    private static ProfiledRolloutException shuttingDown() {
        return new ProfiledRolloutException("The JVM is shutting down, so no profile window is opened (the profiler "
                + "would be left running)");
    }

    /** The hook: ends every open capture concurrently and waits for all of them, each within its own bound. */
    private static void stopOpenWindows() {
        List<EmergencyStop> open;
        synchronized (LOCK) {
            shuttingDown = true;
            open = List.copyOf(OPEN);
        }
        if (open.isEmpty()) {
            return;
        }
        // System.err rather than a logger: logging frameworks tear down their own handlers in shutdown hooks
        System.err.println("[profiled-rollout] The JVM is stopping with " + open.size() + " profile window(s) open;"
                + " cancelling the load, stopping the profilers and writing the partial results ("
                + SHUTDOWN_TIMEOUT + ").");
        List<Thread> threads = new ArrayList<>();
        long latest = System.nanoTime();
        for (EmergencyStop capture : open) {
            long deadline = System.nanoTime() + capture.shutdownTimeout().toNanos();
            latest = Math.max(latest, deadline);
            Thread thread = new Thread(() -> capture.stopForShutdown(deadline),
                    "profiledrollout-shutdown-" + threads.size());
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            long remaining = latest - System.nanoTime();
            if (remaining <= 0) {
                break;
            }
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        for (EmergencyStop capture : open) {
            System.err.println("[profiled-rollout] " + capture.shutdownReport());
        }
    }
}
