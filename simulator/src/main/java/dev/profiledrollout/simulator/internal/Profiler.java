package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.simulator.SimulatorConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apiguardian.api.API;

/**
 * SGLang's profiler state machine ({@code managers/scheduler_components/profiler_manager.py}, {@code docs/PROTOCOLS.md}
 * §1.1–1.4): which batches a capture records, when it starts and stops, and exporting it to one file per rank.
 *
 * <p>The scheduler calls {@link #beforeBatch} before, and {@link #afterBatch} after, every step; HTTP threads call
 * {@link #start} and {@link #stop}. A stop waits until the batch in flight is finished (SGLang handles it between
 * batches), then writes every rank's file before it returns. Auto-stopped captures are written on the scheduler
 * thread at the start of the batch after the last recorded one, as SGLang does.
 */
@API(status = INTERNAL, since = "0.1")
public final class Profiler implements StepHook {

    private static final System.Logger LOG = System.getLogger(Profiler.class.getName());

    private final SimulatorConfig config;
    private final EpochClock clock;
    private final TraceWriter writer;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition batchDone = lock.newCondition();
    private Capture active;
    private Armed armed;
    private long lastHookedBatch;
    private boolean inFlightRecorded;
    private volatile boolean closed;
    private final TraceFaults traceFaults;

    private static final class Capture {
        final ProfileRequest request;
        final String profileId;
        final String stage;
        final long stopAtBatch;
        final long baseEpochNs;
        final List<StepRecord> steps = new ArrayList<>();
        long counted;

        Capture(ProfileRequest request, String profileId, String stage, long stopAtBatch, long baseEpochNs) {
            this.request = request;
            this.profileId = profileId;
            this.stage = stage;
            this.stopAtBatch = stopAtBatch;
            this.baseEpochNs = baseEpochNs;
        }
    }

    private static final class Armed {
        final ProfileRequest request;
        final String profileId;
        final long startStep;
        boolean extendDone;
        boolean decodeStarted;

        Armed(ProfileRequest request, String profileId, long startStep) {
            this.request = request;
            this.profileId = profileId;
            this.startStep = startStep;
        }
    }

    public Profiler(SimulatorConfig config, EpochClock clock, TraceWriter writer) {
        this.config = config;
        this.clock = clock;
        this.writer = writer;
        this.traceFaults = new TraceFaults(config.faults());
    }

    /**
     * @return whether a capture is recording or armed (waiting for its {@code start_step} or first stage): what
     *         SGLang's {@code profile_in_progress} plus a pending start would say; false once it was stopped,
     *         auto-stopped or dropped
     */
    public boolean profiling() {
        lock.lock();
        try {
            return active != null || armed != null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Handles {@code /start_profile}.
     *
     * @return null on success, else the reason for a 500 (as SGLang logs it)
     */
    public String start(ProfileRequest request) {
        lock.lock();
        try {
            if (active != null || armed != null) {
                return "Profiling is already in progress. Call /stop_profile first.";
            }
            if (!request.startsAnything()) {
                LOG.log(System.Logger.Level.INFO, "start_profile: no known activity, nothing started");
                return null;
            }
            String id = request.profileId() != null ? request.profileId() : pythonTime(clock.nowEpochNs());
            long current = lastHookedBatch;
            if (request.profileByStage()) {
                armed = new Armed(request, id, Long.MAX_VALUE);
            } else if (request.startStep() != null) {
                armed = new Armed(request, id, Math.max(request.startStep(), current + 1));
            } else {
                long stopAt = request.numSteps() != null ? current + 1 + request.numSteps() : Long.MAX_VALUE;
                active = new Capture(request, id, null, stopAt, clock.nowEpochNs());
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Handles {@code /stop_profile}: waits for the batch in flight, then writes every rank's file.
     *
     * @return null on success, else the reason for a 500
     * @throws IOException if a trace file cannot be written
     */
    public String stop() throws IOException, InterruptedException {
        lock.lock();
        try {
            if (active == null) {
                return "Profiling is not in progress. Call /start_profile first.";
            }
            while (inFlightRecorded && !closed) {
                batchDone.await();
            }
            if (active == null) {
                return "Profiling is not in progress. Call /start_profile first.";
            }
            Capture capture = active;
            active = null;
            armed = null;
            export(capture);
            return null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Called by the scheduler before batch {@code batch}: exports a capture whose stop step is reached, starts an
     * armed one whose start step is reached.
     *
     * @return true when this batch is recorded
     */
    @Override
    public boolean beforeBatch(long batch, boolean extend) {
        lock.lock();
        try {
            lastHookedBatch = batch;
            if (active != null) {
                boolean stop;
                if (active.stage == null) {
                    stop = batch >= active.stopAtBatch;
                } else if (active.stage.equals("EXTEND")) {
                    stop = !extend || active.counted >= active.request.numSteps();
                } else {
                    stop = active.counted >= active.request.numSteps();
                }
                if (stop) {
                    Capture done = active;
                    active = null;
                    if (armed != null && "DECODE".equals(done.stage)) {
                        armed = null;
                    } else if (armed != null) {
                        armed.extendDone = true;
                    }
                    exportQuietly(done);
                }
            }
            if (armed != null && active == null) {
                startArmed(batch, extend);
            }
            if (active != null && active.stage != null && active.stage.equals(extend ? "EXTEND" : "DECODE")) {
                active.counted++;
            }
            inFlightRecorded = active != null;
            return inFlightRecorded;
        } finally {
            lock.unlock();
        }
    }

    private void startArmed(long batch, boolean extend) {
        Armed a = armed;
        long now = clock.nowEpochNs();
        if (!a.request.profileByStage()) {
            if (batch >= a.startStep) {
                long stopAt = a.request.numSteps() != null ? a.startStep + a.request.numSteps() : Long.MAX_VALUE;
                active = new Capture(a.request, a.profileId, null, stopAt, now);
                armed = null;
            }
            return;
        }
        if (a.request.numSteps() == null) {
            LOG.log(System.Logger.Level.ERROR, "profile_by_stage without num_steps: TypeError: '>' not supported "
                    + "between instances of 'int' and 'NoneType' (as SGLang's scheduler raises); no capture");
            armed = null;
        } else if (extend && !a.extendDone && !a.decodeStarted) {
            active = new Capture(a.request, a.profileId, "EXTEND", Long.MAX_VALUE, now);
        } else if (!extend && !a.decodeStarted) {
            a.decodeStarted = true;
            active = new Capture(a.request, a.profileId, "DECODE", Long.MAX_VALUE, now);
        }
    }

    /** Called by the scheduler after the batch; {@code step} is null when the batch was not recorded. */
    @Override
    public void afterBatch(StepRecord step) {
        lock.lock();
        try {
            if (step != null && active != null && inFlightRecorded) {
                active.steps.add(step);
            }
            inFlightRecorded = false;
            batchDone.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Drops any capture without writing it and wakes a waiting stop. */
    public void close() {
        closed = true;
        lock.lock();
        try {
            active = null;
            armed = null;
            inFlightRecorded = false;
            batchDone.signalAll();
        } finally {
            lock.unlock();
        }
        traceFaults.close();
    }

    private void exportQuietly(Capture capture) {
        try {
            export(capture);
        } catch (IOException | UncheckedIOException e) {
            LOG.log(System.Logger.Level.ERROR, "profiler export failed", e);
        }
    }

    /**
     * Writes a finished capture as SGLang does: with the torch profiler one file per (DP, TP) rank; with {@code RPD}
     * one file per DP replica, converted on its TP rank 0 under the name its {@code _start_profile} chose
     * ({@code rpd-{time.time()}-TP-0.trace.json.gz}, {@code scheduler_components/profiler_manager.py}), holding TP
     * rank 0's events here. A DP rank whose profiler failed to start writes nothing.
     */
    private void export(Capture capture) throws IOException {
        ProfileRequest req = capture.request;
        if (!req.writesTrace() || closed) {
            return;
        }
        Path dir = outputDir(req);
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        boolean rpd = req.activities().contains("RPD");
        int failing = config.faults().profilerFailsOnDpRank().orElse(-1);
        for (int dp : dpRanks()) {
            if (dp == failing) {
                continue;
            }
            if (rpd) {
                // each replica's rank 0 took its own time.time(); keep the names apart
                Path file = dir.resolve("rpd-" + pythonTime(capture.baseEpochNs + dp * 100L) + "-TP-0.trace.json.gz");
                writer.write(file, 0, capture.baseEpochNs, capture.steps, req, () -> closed);
                written.add(file);
                continue;
            }
            for (int tp = 0; tp < config.tpSize(); tp++) {
                String name = (req.profilePrefix() != null ? req.profilePrefix() + "-" : "") + capture.profileId
                        + "-TP-" + tp + (config.dpSize() > 1 ? "-DP-" + dp : "")
                        + (capture.stage != null ? "-" + capture.stage : "") + ".trace.json.gz";
                Path file = dir.resolve(name);
                writer.write(file, tp, capture.baseEpochNs, capture.steps, req, () -> closed);
                written.add(file);
            }
        }
        LOG.log(System.Logger.Level.DEBUG, "profiler wrote " + written);
        if (req.mergeProfiles() && !rpd) {
            TraceMerger.merge(dir, capture.profileId);
        }
        traceFaults.apply(written);
    }

    /** The DP ranks whose schedulers this server runs: all of them under the DP controller, else its own. */
    private int[] dpRanks() {
        return config.dpController() ? java.util.stream.IntStream.range(0, config.dpSize()).toArray()
                : new int[] {config.dpRank()};
    }

    private Path outputDir(ProfileRequest req) {
        String dir = req.outputDir();
        if (dir == null) {
            return config.profilerDir();
        }
        if (dir.equals("~") || dir.startsWith("~/")) {
            dir = System.getProperty("user.home") + dir.substring(1);
        }
        return Path.of(dir);
    }

    /** Python's {@code str(time.time())}-like text: seconds with a 7-digit fraction, e.g. "1773999986.4851577". */
    static String pythonTime(long epochNs) {
        return String.format("%d.%07d", epochNs / 1_000_000_000L, (epochNs % 1_000_000_000L) / 100);
    }
}
