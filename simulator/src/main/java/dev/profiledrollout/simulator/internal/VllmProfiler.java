package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.simulator.VllmProfilerConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apiguardian.api.API;

/**
 * vLLM's profiler wrapper ({@code vllm/profiler/wrapper.py@cda1b348}, {@code docs/PROTOCOLS.md} §2.2–2.4) for every
 * simulated worker of one server: start/stop are idempotent, one iteration is one engine step, the capture begins once
 * {@code delay_iterations} steps have passed and, with {@code max_iterations > 0}, is written on the scheduler thread
 * as soon as more steps would be profiled. In torch mode {@link #stop()} returns only after every worker file, the
 * frontend file and the {@code profiler_out_{rank}.txt} files exist; in cuda mode nothing is written.
 */
@API(status = INTERNAL, since = "0.1")
public final class VllmProfiler implements StepHook {

    private static final System.Logger LOG = System.getLogger(VllmProfiler.class.getName());

    private final SimulatorConfig config;
    private final VllmProfilerConfig pc;
    private final EpochClock clock;
    private final TraceWriter writer;
    private final String instanceId;
    private final String host;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition batchDone = lock.newCondition();
    private boolean running;
    private long stepsSinceStart;
    private boolean capturing;
    private long captureBaseEpochNs;
    private List<StepRecord> steps = new ArrayList<>();
    private boolean frontendRunning;
    private long frontendBaseEpochNs;
    private List<StepRecord> frontendSteps = new ArrayList<>();
    private boolean inFlightWorker;
    private boolean inFlightFrontend;
    private volatile boolean closed;

    /** @param config a vLLM config with a non-null {@link SimulatorConfig#vllmProfilerConfig()} */
    public VllmProfiler(SimulatorConfig config, EpochClock clock, TraceWriter writer) {
        this.config = config;
        this.pc = config.vllmProfilerConfig();
        this.clock = clock;
        this.writer = writer;
        Random r = new Random(config.seed() * 7919 + config.dpRank());
        this.instanceId = String.format("%05x", r.nextInt(1 << 20));
        this.host = hostName();
    }

    /** @return whether a worker or frontend capture is running: between {@code /start_profile} and its stop */
    public boolean profiling() {
        lock.lock();
        try {
            return running || frontendRunning;
        } finally {
            lock.unlock();
        }
    }

    /** {@code /start_profile}: a start while running is ignored (still 200). */
    public void start() {
        lock.lock();
        try {
            if (running) {
                LOG.log(System.Logger.Level.INFO, "start_profile while profiling: ignored");
                return;
            }
            running = true;
            stepsSinceStart = 0;
            if (pc.torch() && !pc.ignoreFrontend() && !frontendRunning) {
                frontendRunning = true;
                frontendBaseEpochNs = clock.nowEpochNs();
                frontendSteps = new ArrayList<>();
            }
            if (pc.delayIterations() == 0) {
                beginCapture();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code /stop_profile}: waits for the step in flight, then writes every worker's file, the
     * {@code profiler_out} tables and the frontend file. A stop while idle is ignored.
     *
     * @throws IOException if a file cannot be written
     */
    public void stop() throws IOException, InterruptedException {
        lock.lock();
        try {
            while ((inFlightWorker || inFlightFrontend) && !closed) {
                batchDone.await();
            }
            if (!running && !frontendRunning) {
                LOG.log(System.Logger.Level.INFO, "stop_profile while not profiling: ignored");
                return;
            }
            if (running) {
                finishWorkers();
            }
            if (frontendRunning) {
                frontendRunning = false;
                if (!closed) {
                    Files.createDirectories(pc.torchProfilerDir());
                    String name = host + "_" + ProcessHandle.current().pid() + ".async_llm." + clock.nowEpochNs()
                            + suffix();
                    VllmFiles.writeFrontend(pc.torchProfilerDir().resolve(name), pc.useGzip(),
                            ProcessHandle.current().pid(), frontendBaseEpochNs, clock.nowEpochNs(), frontendSteps);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean beforeBatch(long batch, boolean extend) {
        lock.lock();
        try {
            if (running) {
                if (capturing && pc.maxIterations() > 0 && steps.size() >= pc.maxIterations()) {
                    try {
                        finishWorkers();
                    } catch (IOException | UncheckedIOException e) {
                        LOG.log(System.Logger.Level.ERROR, "vLLM profiler auto-stop export failed", e);
                    }
                } else {
                    if (!capturing && stepsSinceStart >= pc.delayIterations()) {
                        beginCapture();
                    }
                    stepsSinceStart++;
                }
            }
            inFlightWorker = capturing;
            inFlightFrontend = frontendRunning;
            return inFlightWorker || inFlightFrontend;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void afterBatch(StepRecord step) {
        lock.lock();
        try {
            if (step != null && inFlightWorker && capturing) {
                steps.add(step);
            }
            if (step != null && inFlightFrontend && frontendRunning) {
                frontendSteps.add(step);
            }
            inFlightWorker = false;
            inFlightFrontend = false;
            batchDone.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Drops any capture unwritten and wakes a waiting stop. */
    public void close() {
        closed = true;
        lock.lock();
        try {
            running = false;
            capturing = false;
            frontendRunning = false;
            inFlightWorker = false;
            inFlightFrontend = false;
            batchDone.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The {@code worker_name} of local TP rank {@code tp} in the configured naming era. */
    String workerName(int tp) {
        int global = globalRank(tp);
        return switch (config.vllmNamingEra()) {
            case NEWEST -> "dp" + config.dpRank() + "_pp0_tp" + tp + "_dcp0_ep0_rank" + global;
            case INSTANCE_RANK -> instanceId + "-rank-" + global;
            case HOST_PID -> host + "_" + writer.cpuPid(global);
        };
    }

    private int globalRank(int tp) {
        return config.dpRank() * config.tpSize() + tp;
    }

    private void beginCapture() {
        capturing = true;
        captureBaseEpochNs = clock.nowEpochNs();
        steps = new ArrayList<>();
    }

    /** Stops the workers' capture and, in torch mode, writes their files. Holds the lock. */
    private void finishWorkers() throws IOException {
        boolean wasCapturing = capturing;
        running = false;
        capturing = false;
        List<StepRecord> captured = steps;
        steps = new ArrayList<>();
        if (!pc.torch() || !wasCapturing || closed) {
            return;
        }
        Path dir = pc.torchProfilerDir();
        Files.createDirectories(dir);
        int world = config.dpSize() * config.tpSize();
        for (int tp = 0; tp < config.tpSize(); tp++) {
            Path file = dir.resolve(workerName(tp) + "." + clock.nowEpochNs() + suffix());
            writer.write(file, tp, captureBaseEpochNs, captured, new TraceWriter.Options(true, true,
                    pc.recordShapes(), pc.withStack(), pc.useGzip(), globalRank(tp), world, true), () -> closed);
            if (pc.dumpCudaTimeTotal()) {
                VllmFiles.writeText(dir.resolve("profiler_out_" + globalRank(tp) + ".txt"),
                        VllmFiles.keyAveragesTable(captured, tp));
            }
        }
    }

    private String suffix() {
        return pc.useGzip() ? ".pt.trace.json.gz" : ".pt.trace.json";
    }

    private static String hostName() {
        String h = System.getenv("HOSTNAME");
        if (h == null || h.isBlank()) {
            try {
                h = InetAddress.getLoopbackAddress().getHostName();
            } catch (RuntimeException e) {
                h = "localhost";
            }
        }
        return h.replaceAll("[^A-Za-z0-9.-]", "-");
    }
}
