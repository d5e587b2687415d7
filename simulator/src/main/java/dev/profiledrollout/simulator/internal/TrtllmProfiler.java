package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.simulator.TrtllmEnvironment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.apiguardian.api.API;

/**
 * TensorRT-LLM's iteration-range profiler ({@link TrtllmEnvironment}, {@code docs/PROTOCOLS.md} §6): one iteration is
 * one engine step after the warm-up; a capture starts at the top of a start iteration and stops at the top of a stop
 * iteration, when, with {@code TLLM_TORCH_PROFILE_TRACE}, every rank's Chrome trace is written on the scheduler
 * thread. The trace carries CPU operators and kernels but no step annotation: the executor marks its iterations with
 * NVTX ranges, which the torch profiler does not record.
 */
@API(status = INTERNAL, since = "0.9")
public final class TrtllmProfiler implements StepHook {

    private static final System.Logger LOG = System.getLogger(TrtllmProfiler.class.getName());

    private final SimulatorConfig config;
    private final TrtllmEnvironment env;
    private final EpochClock clock;
    private final TraceWriter writer;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean armed;
    private long iteration;
    private boolean capturing;
    private boolean inFlight;
    private long baseEpochNs;
    private List<StepRecord> steps = new ArrayList<>();
    private volatile boolean closed;

    public TrtllmProfiler(SimulatorConfig config, EpochClock clock, TraceWriter writer) {
        this.config = config;
        this.env = config.trtllmEnvironment();
        this.clock = clock;
        this.writer = writer;
    }

    /** Starts counting iterations: the warm-up before this is not counted, as TensorRT-LLM skips warm-up. */
    public void arm() {
        armed = true;
    }

    /** @return whether a capture is open */
    public boolean profiling() {
        lock.lock();
        try {
            return capturing;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean beforeBatch(long batch, boolean extend) {
        if (!armed) {
            return false;
        }
        lock.lock();
        try {
            if (capturing && env.stops().contains(iteration)) {
                finish();
            }
            if (!capturing && env.starts().contains(iteration)) {
                capturing = true;
                baseEpochNs = clock.nowEpochNs();
                steps = new ArrayList<>();
            }
            iteration++;
            inFlight = capturing;
            return inFlight;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void afterBatch(StepRecord step) {
        lock.lock();
        try {
            if (step != null && inFlight && capturing) {
                steps.add(step);
            }
            inFlight = false;
        } finally {
            lock.unlock();
        }
    }

    /** Stops the capture and writes each rank's torch trace when one is configured. Holds the lock. */
    private void finish() {
        capturing = false;
        List<StepRecord> captured = steps;
        steps = new ArrayList<>();
        if (!env.torchTrace() || closed) {
            return;
        }
        int world = config.dpSize() * config.tpSize();
        try {
            Path dir = env.torchProfileTrace().toAbsolutePath().getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
            for (int tp = 0; tp < config.tpSize(); tp++) {
                int rank = config.dpRank() * config.tpSize() + tp;
                Path file = env.rankTrace(rank);
                writer.write(file, tp, baseEpochNs, captured, new TraceWriter.Options(true, true, true, false,
                        file.getFileName().toString().endsWith(".gz"), rank, world, TraceWriter.StepNames.NONE),
                        () -> closed);
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "TensorRT-LLM torch trace export failed", e);
        }
    }

    /** Drops an unwritten capture. */
    public void close() {
        closed = true;
        lock.lock();
        try {
            capturing = false;
            inFlight = false;
        } finally {
            lock.unlock();
        }
    }
}
