package dev.profiledrollout;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.history.RunHistory;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.baselines.BaselineDiff;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * What one profile window produced: the client's latency view, the engine's traces, and where they are on disk.
 * Immutable. The extension creates it (see {@link RolloutSession#awaitResult()}); {@link #builder()} is for tools and
 * tests that assemble one themselves.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class RolloutResult {

    private final LatencyReport latency;
    private final TraceSet trace;
    private final List<Path> traceFiles;
    private final Path outputDirectory;
    private final ServerInfo serverInfo;
    private final StopOutcome stopOutcome;
    private final List<WorkerOutcome> workers;
    private final List<Path> frontendTraceFiles;
    private final Map<Phase, RolloutResult> phases;
    private final BaselineDiff baselineDiff;
    private final RunHistory history;
    private final dev.profiledrollout.load.SweepResult stages;
    private final dev.profiledrollout.capacity.Capacity capacity;
    private final List<RolloutResult> stageWindows;

    private RolloutResult(Builder b) {
        this.latency = require(b.latency, "latency");
        this.trace = require(b.trace, "trace");
        this.traceFiles = List.copyOf(b.traceFiles);
        this.outputDirectory = require(b.outputDirectory, "outputDirectory");
        this.serverInfo = require(b.serverInfo, "serverInfo");
        this.stopOutcome = require(b.stopOutcome, "stopOutcome");
        this.workers = List.copyOf(b.workers);
        this.frontendTraceFiles = List.copyOf(b.frontendTraceFiles);
        this.phases = Collections.unmodifiableMap(new LinkedHashMap<>(b.phases));
        this.baselineDiff = b.baselineDiff;
        this.history = b.history;
        this.stages = b.stages;
        this.capacity = b.capacity;
        this.stageWindows = List.copyOf(b.stageWindows);
        if (!stageWindows.isEmpty() && (stages == null || stages.stages().size() != stageWindows.size())) {
            throw new IllegalStateException("RolloutResult has " + stageWindows.size() + " stage windows but "
                    + (stages == null ? "no stages" : stages.stages().size() + " stages") + "; give one window per"
                    + " stage, in the stages' order");
        }
    }

    private static <T> T require(T value, String name) {
        if (value == null) {
            throw new IllegalStateException("RolloutResult needs " + name + "(…); it was not set");
        }
        return value;
    }

    /**
     * @return a builder with no traces, workers, frontend files, phases or baseline comparison; {@code latency},
     *         {@code trace}, {@code outputDirectory}, {@code serverInfo} and {@code stopOutcome} must be set
     */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding this result's values, to derive a changed copy */
    public Builder toBuilder() {
        return new Builder().latency(latency).trace(trace).traceFiles(traceFiles).outputDirectory(outputDirectory)
                .serverInfo(serverInfo).stopOutcome(stopOutcome).workers(workers)
                .frontendTraceFiles(frontendTraceFiles).phases(phases).baseline(baselineDiff).history(history).stages(stages).capacity(capacity)
                .stageWindows(stageWindows);
    }

    /**
     * TTFT / ITL / TPOT / E2E histograms and throughput of the requests sent in the window.
     *
     * <p>For a phased test ({@link RolloutPhase}, {@link RolloutRecipe}) this is every phase's requests merged, under
     * the {@linkplain LatencyReport#scope() scope} {@code "all phases"}, so that any verdict on it says so. Phases send
     * different workloads (e.g. long prompts with one output token, then short prompts with long outputs), so merged
     * percentiles describe neither: assert on {@code phase(PREFILL).latency()} instead. {@code summary.json} has no
     * top-level {@code latency} for a phased test, only each phase's in {@code phases[]}.
     *
     * @return the latency report; for one phase of a phased test ({@link #phase(Phase)}) scoped to that phase
     *         ({@code "PREFILL"})
     */
    public LatencyReport latency() {
        return latency;
    }

    /**
     * @return the analysed trace files of every rank of every profiled engine, as one rank set (for
     *         {@link Profiler#NSYS}: the {@code nsys stats} kernel summary); for a phased test every phase's traces
     *         under the {@linkplain TraceSet#scope() scope} {@code "all phases"}, and for one phase
     *         ({@link #phase(Phase)}) that phase's traces scoped to it ({@code "PREFILL"})
     */
    public TraceSet trace() {
        return trace;
    }

    /**
     * @return the rank trace files read, sorted by rank; with several SGLang engines they are under
     *         {@code traces/worker-<n>/}, n the engine's 1-based position in the router's worker order
     */
    public List<Path> traceFiles() {
        return traceFiles;
    }

    /**
     * @return {@code <profiledrollout.output.dir>/<Class>/<method>}, holding {@code summary.json},
     *         {@code requests.jsonl}, {@code latency.hlog} and {@code traces/}
     */
    public Path outputDirectory() {
        return outputDirectory;
    }

    /** @return what the (first) engine reported about itself ({@code /server_info}; for vLLM the configured layout) */
    public ServerInfo serverInfo() {
        return serverInfo;
    }

    /**
     * @return {@code STOPPED} when at least one engine's {@code /stop_profile} stopped a capture, else
     *         {@code NOT_IN_PROGRESS} (SGLang had already stopped by itself after {@code num_steps})
     */
    public StopOutcome stopOutcome() {
        return stopOutcome;
    }

    /**
     * @return per profiled engine what happened (started, failed with status and reason, skipped unhealthy), in
     *         router or configuration order; for phased tests, every phase's
     */
    public List<WorkerOutcome> workers() {
        return workers;
    }

    /** @return vLLM's CPU-only API-server traces ({@code …async_llm…}), kept out of {@link #trace()} */
    public List<Path> frontendTraceFiles() {
        return frontendTraceFiles;
    }

    /**
     * @return per {@link RolloutPhase}, that phase's own result (as {@link #phase(Phase)} gives it), in declaration
     *         order; empty for a test without phases
     */
    public Map<Phase, RolloutResult> phases() {
        return phases;
    }

    /**
     * The stages of a staged load ({@link RolloutSweep}), each with its own latency report, throughput, goodput,
     * achieved rate, schedule lag, failures and load-fidelity verdict: {@code result.stages().stage(64).latency()}.
     * {@link #latency()} is then over every stage's requests.
     *
     * @return the stages in the order they ran
     * @throws IllegalStateException when the test's load was not staged (no {@code @RolloutSweep})
     */
    @API(status = org.apiguardian.api.API.Status.EXPERIMENTAL, since = "0.2")
    public dev.profiledrollout.load.SweepResult stages() {
        if (stages == null) {
            throw new IllegalStateException("this test's load has no stages: add @RolloutSweep(concurrency = {…}) or"
                    + " @RolloutSweep(rates = {…}) to run it as a sequence of stages");
        }
        return stages;
    }

    /**
     * One stage's own profile window ({@code @RolloutSweep(windowPerStage = true)}): its latency and its trace, both
     * {@linkplain LatencyReport#scope() scoped} to the stage's label ({@code "concurrency 16"}) so that a failed budget
     * names the stage, e.g. {@code assertThat(result.stage(16).trace()).kernels(matching(".*gemm.*")).share()…}. Its
     * {@link #stages()} holds that one stage and its {@link #outputDirectory()} is
     * {@code <test output>/stage-<n>-<label>/}.
     *
     * @param concurrency a closed-loop stage's concurrency
     * @return the first closed-loop stage at that concurrency
     * @throws IllegalStateException  when the stages shared one window (no {@code windowPerStage}), or the load had no
     *                                stages; {@code stages().stage(c)} gives a stage's latency then
     * @throws java.util.NoSuchElementException naming the stages that ran, when none is at that concurrency
     */
    @API(status = org.apiguardian.api.API.Status.EXPERIMENTAL, since = "0.2")
    public RolloutResult stage(int concurrency) {
        return stageWindow(stages().stage(concurrency));
    }

    /**
     * @param rate an open-loop stage's requested rate in requests/s
     * @return that stage's own profile window, as {@link #stage(int)}
     * @throws IllegalStateException  as {@link #stage(int)}
     * @throws java.util.NoSuchElementException naming the stages that ran, when none is at that rate
     */
    @API(status = org.apiguardian.api.API.Status.EXPERIMENTAL, since = "0.2")
    public RolloutResult stageAtRate(double rate) {
        return stageWindow(stages().stageAtRate(rate));
    }

    /** @return each stage's own window in run order ({@link #stage(int)}); empty when one window spanned them */
    @API(status = org.apiguardian.api.API.Status.EXPERIMENTAL, since = "0.2")
    public List<RolloutResult> stageWindows() {
        return stageWindows;
    }

    private RolloutResult stageWindow(dev.profiledrollout.load.StageResult stage) {
        if (stageWindows.isEmpty()) {
            throw new IllegalStateException("the stages of this test shared one profile window, so no trace belongs to "
                    + stage.label() + " alone: set @RolloutSweep(windowPerStage = true) (or LoadSweep.Builder"
                    + ".windowPerStage(true)) for a window per stage, or use stages().stage(…) for its latency");
        }
        return stageWindows.get(stages.stages().indexOf(stage));
    }

    /**
     * The highest load at which every SLO of {@link RolloutCapacity} held, with its interval, the stages tried and the
     * saturation knee: {@code assertThat(result.capacity()).requestRate().isGreaterThan(40)}.
     *
     * @throws IllegalStateException when the test had no {@code @RolloutCapacity}
     */
    @API(status = org.apiguardian.api.API.Status.EXPERIMENTAL, since = "0.2")
    public dev.profiledrollout.capacity.Capacity capacity() {
        if (capacity == null) {
            throw new IllegalStateException("this test ran no capacity search: add @RolloutCapacity(slo = {…})");
        }
        return capacity;
    }

    /**
     * @return the kernels of this run against the test's stored baseline (per kernel Δcount and Δtime, new and
     *         vanished kernels), when {@code profiledrollout.baseline.dir} holds one for this test; assert on it with
     *         {@code assertThat(result.baseline().orElseThrow()).kernelTimeWithin(0.10, …)}
     */
    public Optional<BaselineDiff> baseline() {
        return Optional.ofNullable(baselineDiff);
    }

    /**
     * @return this run's history (store, current record, configured threshold) when the extension records runs
     *         ({@code profiledrollout.history.enabled}); for a phased test each {@link #phase(Phase)} has its own.
     *         Assert on it with {@code assertThat(result).history().metric("ttft.p99").hasNoRegression()}
     */
    public Optional<RunHistory> history() {
        return Optional.ofNullable(history);
    }

    /** @return this result with {@code diff} as its baseline comparison */
    public RolloutResult withBaseline(BaselineDiff diff) {
        return toBuilder().baseline(diff).build();
    }

    /**
     * @param phase a phase declared with {@link RolloutPhase} (or by the {@link RolloutRecipe}), not null
     * @return that phase's result: its own load's latency, its own engines' traces, both
     *         {@linkplain LatencyReport#scope() scoped} to the phase's name ({@code "PREFILL"}) so that assertions name
     *         the phase in their messages and verdicts; its {@link #outputDirectory()} is {@code <test output>/<phase>}
     * @throws IllegalArgumentException when the test declared no such phase
     */
    public RolloutResult phase(Phase phase) {
        RolloutResult r = phases.get(phase);
        if (r == null) {
            throw new IllegalArgumentException("No " + phase + " phase in this result; declared: " + phases.keySet());
        }
        return r;
    }

    /** @return the engines whose start or stop failed (see {@link WorkerOutcome#failed()}) */
    public List<WorkerOutcome> failedWorkers() {
        return workers.stream().filter(WorkerOutcome::failed).toList();
    }

    @Override
    public String toString() {
        return "RolloutResult[" + outputDirectory + ", " + traceFiles.size() + " trace file(s), " + stopOutcome
                + (phases.isEmpty() ? "" : ", phases " + phases.keySet()) + "]";
    }

    /** Assembles a {@link RolloutResult}; not thread-safe. Setters take non-null values. */
    @API(status = EXPERIMENTAL, since = "0.1")
    public static final class Builder {
        private LatencyReport latency;
        private TraceSet trace;
        private List<Path> traceFiles = List.of();
        private Path outputDirectory;
        private ServerInfo serverInfo;
        private StopOutcome stopOutcome;
        private List<WorkerOutcome> workers = List.of();
        private List<Path> frontendTraceFiles = List.of();
        private Map<Phase, RolloutResult> phases = Map.of();
        private dev.profiledrollout.load.SweepResult stages;
        private dev.profiledrollout.capacity.Capacity capacity;
        private BaselineDiff baselineDiff;
        private RunHistory history;
        private List<RolloutResult> stageWindows = List.of();

        private Builder() {
        }

        /** Required; see {@link RolloutResult#latency()}. */
        public Builder latency(LatencyReport latency) {
            this.latency = Objects.requireNonNull(latency, "latency");
            return this;
        }

        /** Required; see {@link RolloutResult#trace()}. */
        public Builder trace(TraceSet trace) {
            this.trace = Objects.requireNonNull(trace, "trace");
            return this;
        }

        /** Default none; see {@link RolloutResult#traceFiles()}. */
        public Builder traceFiles(List<Path> traceFiles) {
            this.traceFiles = List.copyOf(traceFiles);
            return this;
        }

        /** Required; see {@link RolloutResult#outputDirectory()}. */
        public Builder outputDirectory(Path outputDirectory) {
            this.outputDirectory = Objects.requireNonNull(outputDirectory, "outputDirectory");
            return this;
        }

        /** Required; see {@link RolloutResult#serverInfo()}. */
        public Builder serverInfo(ServerInfo serverInfo) {
            this.serverInfo = Objects.requireNonNull(serverInfo, "serverInfo");
            return this;
        }

        /** Required; see {@link RolloutResult#stopOutcome()}. */
        public Builder stopOutcome(StopOutcome stopOutcome) {
            this.stopOutcome = Objects.requireNonNull(stopOutcome, "stopOutcome");
            return this;
        }

        /** Default none; see {@link RolloutResult#workers()}. */
        public Builder workers(List<WorkerOutcome> workers) {
            this.workers = List.copyOf(workers);
            return this;
        }

        /** Default none; see {@link RolloutResult#frontendTraceFiles()}. */
        public Builder frontendTraceFiles(List<Path> frontendTraceFiles) {
            this.frontendTraceFiles = List.copyOf(frontendTraceFiles);
            return this;
        }

        /** Default none; iteration order is kept. See {@link RolloutResult#phases()}. */
        public Builder phases(Map<Phase, RolloutResult> phases) {
            this.phases = Collections.unmodifiableMap(new LinkedHashMap<>(phases));
            return this;
        }

        /** @param sweep the stages of a staged load, or null for a single load (the default); see {@link RolloutResult#stages()} */
        @API(status = org.apiguardian.api.API.Status.EXPERIMENTAL, since = "0.2")
        public Builder stages(dev.profiledrollout.load.SweepResult sweep) {
            this.stages = sweep;
            return this;
        }

        /** @param found the capacity of a capacity search, or null (the default); see {@link RolloutResult#capacity()} */
        @API(status = org.apiguardian.api.API.Status.EXPERIMENTAL, since = "0.2")
        public Builder capacity(dev.profiledrollout.capacity.Capacity found) {
            this.capacity = found;
            return this;
        }

        /**
         * @param windows each stage's own window, in the order of {@link #stages}' stages; default none (one window
         *                spanned the stages). See {@link RolloutResult#stage(int)}
         */
        @API(status = org.apiguardian.api.API.Status.EXPERIMENTAL, since = "0.2")
        public Builder stageWindows(List<RolloutResult> windows) {
            this.stageWindows = List.copyOf(windows);
            return this;
        }

        /** @param diff the baseline comparison, or null for none (the default); see {@link RolloutResult#baseline()} */
        public Builder baseline(BaselineDiff diff) {
            this.baselineDiff = diff;
            return this;
        }

        /** @param runHistory the run's history access, or null for none (the default); see {@link RolloutResult#history()} */
        public Builder history(RunHistory runHistory) {
            this.history = runHistory;
            return this;
        }

        /**
         * @return the result
         * @throws IllegalStateException naming the first required value that was not set
         */
        public RolloutResult build() {
            return new RolloutResult(this);
        }
    }
}
