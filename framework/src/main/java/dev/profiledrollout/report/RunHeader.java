package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.apiguardian.api.API;

/**
 * {@code summary.json} as records, but for {@code trace} and {@code verdicts} ({@link ReportData.Trace},
 * {@link ReportData#verdicts()}): what ran ({@code engine}), under which load ({@code load}), with which profile request
 * ({@code profileRequest}), in which phase, what was profiled and by which workers, the latency, the steps captured,
 * the baseline comparison, the phases, the history block and the outcome. {@link RunReport} writes {@code engine} from
 * {@link Engine}; every reader (the HTML report and charts, {@link ReportParameters}, {@link TestReport}, the history's
 * run records, the CLI's import) reads these records through {@link ResultsModule} rather than looking keys up. A
 * record's components are the file's field names; a field the file lacks is null (an empty list for {@code phases}).
 * A field renamed in the file keeps reading its old spelling ({@link Attempted#numSteps()}).
 *
 * @param test           {@code <Class>.<method>}, or null in a file without it
 * @param engine         the engine block, or null
 * @param load           the load block (written from {@code LoadSpec}), or null
 * @param profileRequest the profile request sent, or null when none was sent
 * @param attempted      what a window that failed before its profile request would have sent, or null
 * @param phase          the phase ({@code PREFILL}, {@code DECODE}, …), or null
 * @param profiled       what the profile requests went to, or null
 * @param latency        the latency block's figures the history records, or null before the load ran
 * @param history        the {@code history} block of a test without phases, or null
 * @param phases         a phased test's {@code phases}, in the order they ran; empty otherwise
 * @param outcome        how the test ended ({@link TestOutcome}), or null before it ended
 * @param workers        per engine the window profiled ({@link RunReport#withFanOut}), in order; null in a file
 *                       without {@code workers}
 * @param steps          the engine steps each rank trace holds ({@link CapturedSteps}), or null
 * @param error          why the window did not complete, or null
 * @param baseline       the kernel-baseline comparison the extension added, or null
 * @param stageWindows   a sweep with a window per stage ({@code @RolloutSweep(windowPerStage = true)}): one entry per
 *                       stage, in the order they ran; empty otherwise
 * @param stagePlacement a window over a staged load (an srtctl benchmark sweep, {@code @RolloutSweep}): per rank trace
 *                       with step timestamps, which stages its captured steps fell in; empty otherwise
 */
@API(status = INTERNAL, since = "0.1")
public record RunHeader(String test, Engine engine, Load load, ProfileRequest profileRequest, Attempted attempted,
                        String phase, Profiled profiled, Latency latency, ReportData.History history,
                        List<PhaseEntry> phases, Outcome outcome, List<Worker> workers, CapturedSteps steps,
                        String error, Baseline baseline, List<StageWindow> stageWindows,
                        List<StagePlacement> stagePlacement) {

    public RunHeader {
        phases = phases == null ? List.of() : List.copyOf(phases);
        stageWindows = stageWindows == null ? List.of() : List.copyOf(stageWindows);
        stagePlacement = stagePlacement == null ? List.of() : List.copyOf(stagePlacement);
    }

    /**
     * One element of {@code summary.json}'s {@code stagePlacement}: where one rank trace's captured steps fell in the
     * staged load. A step belongs to the last stage that had started (its first request sent) when the step began
     * (the trace's {@code baseTimeNanoseconds} + the step span's start, {@code docs/TRACES.md}), on the wall clock.
     *
     * @param trace       the rank trace's label ({@code TP-0}, {@code worker-2/TP-1})
     * @param beforeSweep steps that began before the first stage's first request (e.g. the tail of the warm-up)
     * @param stages      the stages with at least one step, in run order
     */
    public record StagePlacement(String trace, int beforeSweep, List<StageSteps> stages) {

        public StagePlacement {
            stages = stages == null ? List.of() : List.copyOf(stages);
        }
    }

    /**
     * @param stage the stage's label, e.g. {@code "concurrency 16"}
     * @param steps the trace's steps that fell in it
     */
    public record StageSteps(String stage, int steps) {
    }

    /**
     * One element of {@code summary.json}'s {@code stageWindows} (and of the stage's row in {@code stages.json}): what
     * one stage's own profile window captured.
     *
     * @param stage       the stage's label, e.g. {@code "concurrency 16"} or {@code "rate 40.0/s"}
     * @param directory   the stage's output directory relative to the test's ({@code "stage-2-concurrency-16"}),
     *                    holding its own {@code summary.json}, {@code report.html} and {@code traces/}
     * @param traceFiles  rank traces read from the window
     * @param steps       engine steps per rank trace against {@code numSteps} ({@link CapturedSteps}), or null when
     *                    the traces carry no steps
     * @param kernelMs    GPU kernel time over every rank of the window, ms
     * @param topKernel   the kernel with the most GPU time, or null without kernels
     * @param noData      why the window holds nothing to judge (no trace file, no kernel, no step), which failed the
     *                    test; null when it captured data
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record StageWindow(String stage, String directory, int traceFiles, CapturedSteps steps, double kernelMs,
                              String topKernel, String noData) {
    }

    /**
     * {@code summary.json}'s {@code engine}; sizes as {@code /server_info} reported them.
     *
     * @param backend           {@code SGLANG}, {@code VLLM} or {@code TRTLLM}
     * @param url               the engine's URL without user info or query ({@link SafeUrls})
     * @param kind              {@code simulator} for an embedded simulator, else {@code attached}
     * @param model             the served model name
     * @param tpSize            tensor-parallel size
     * @param dpSize            data-parallel size
     * @param ppSize            pipeline-parallel size
     * @param epSize            expert-parallel size
     * @param simulatedFaults   the simulator's {@code simulated_faults}, or null (real engines send none)
     * @param simulatedGpuNoise the simulator's {@code simulated_gpu_noise}, or null (noise off, or a real engine)
     * @param version           the engine's version, added by the history recorder; null when unknown
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Engine(String backend, String url, String kind, String model, Integer tpSize, Integer dpSize,
                         Integer ppSize, Integer epSize, SimulatedFaults simulatedFaults,
                         SimulatedGpuNoise simulatedGpuNoise, String version) {
    }

    /**
     * The performance faults the simulator was started with, as its {@code /server_info} reports them
     * ({@code simulated_faults}, written by {@code dev.profiledrollout.simulator.internal.SimulatedPerformance}); each
     * factor multiplies a time (2 = twice as slow).
     *
     * @param injected    whether any fault was set
     * @param slowKernels {@code slow_kernels}: factor per kernel-name regex, in the simulator's order; may be null
     * @param slowRanks   {@code slow_ranks}: factor per TP rank (the rank as text); may be null
     * @param slowDecode  {@code slow_decode}: the factor of decode kernels, or null when 1
     * @param slowPrefill {@code slow_prefill}: the factor of prefill kernels, or null when 1
     * @param slowHost    {@code slow_host}: the factor of host time per step, or null when 1
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SimulatedFaults(boolean injected, @JsonProperty("slow_kernels") Map<String, Double> slowKernels,
                                  @JsonProperty("slow_ranks") Map<String, Double> slowRanks,
                                  @JsonProperty("slow_decode") Double slowDecode,
                                  @JsonProperty("slow_prefill") Double slowPrefill,
                                  @JsonProperty("slow_host") Double slowHost) {
    }

    /**
     * The simulator's GPU noise ({@code simulated_gpu_noise}, {@code SimulatedPerformance}).
     *
     * @param kernelJitter {@code kernel_jitter}: sigma of the per-kernel log-normal jitter
     * @param clockSpread  {@code clock_spread}: sigma of the per-run clock factor
     * @param noiseSeed    {@code noise_seed}: the seed this run's noise was drawn with
     * @param clockFactor  {@code clock_factor}: this run's clock factor
     */
    public record SimulatedGpuNoise(@JsonProperty("kernel_jitter") Double kernelJitter,
                                    @JsonProperty("clock_spread") Double clockSpread,
                                    @JsonProperty("noise_seed") Long noiseSeed,
                                    @JsonProperty("clock_factor") Double clockFactor) {
    }

    /**
     * The parts of {@code summary.json}'s {@code load} a report shows (the block is {@code LoadSpec}'s mapping).
     *
     * @param concurrency  closed-loop lanes, or the cap of an open loop
     * @param requests     requests sent
     * @param inputTokens  prompt tokens per request (ISL)
     * @param outputTokens output tokens per request (OSL)
     * @param arrival      the arrival process, or null
     * @param endpoint     {@code COMPLETIONS}, {@code CHAT_COMPLETIONS} or {@code GENERATE}, or null
     * @param rangeRatio   the spread of ISL/OSL around their means (vLLM's {@code --random-range-ratio}), or null
     * @param prefixTokens shared prompt-prefix tokens per request, or null
     */
    public record Load(Integer concurrency, Integer requests, Integer inputTokens, Integer outputTokens,
                       Arrival arrival, String endpoint, Double rangeRatio, Integer prefixTokens) {
    }

    /**
     * {@code summary.json}'s {@code profiled}: the engine, router or workers the profile requests went to
     * ({@link RunReport} writes it from this record and {@link RunReport.Profiled}).
     *
     * @param kind        {@code engine}, {@code router}, … ; null in a file without it
     * @param url         the URL the profile requests went to, without credentials, or null
     * @param workers     how many workers were profiled, or null
     * @param ranks       the analysed rank traces, else the ranks expected (TP size × workers); null in a file without
     *                    it
     * @param description one line naming it and its workers, or null
     */
    public record Profiled(String kind, String url, Integer workers, Integer ranks, String description) {
    }

    /**
     * @param requestRate requests per second; {@code Infinity} (written as the string {@code "Infinity"}) for a closed
     *                    loop
     */
    public record Arrival(Double requestRate) {
    }

    /**
     * The profile request as sent (SGLang's {@code ProfileReq} keys).
     *
     * @param numSteps   {@code num_steps}, or null for "until stop_profile"
     * @param activities {@code activities}, or null
     */
    public record ProfileRequest(@JsonProperty("num_steps") Integer numSteps, List<String> activities) {
    }

    /**
     * The figures of {@code summary.json}'s {@code latency} (written from {@code LatencyReport}) that the history
     * records; a value the file holds as a non-finite string ({@code "NaN"}) reads as that double.
     *
     * @param completed             finished requests
     * @param failed                failed requests
     * @param requestThroughput     completed requests per second of the run
     * @param outputTokenThroughput output tokens per second
     * @param requestGoodput        requests per second that met every SLO
     * @param ttft                  time to first token, or null
     * @param itl                   inter-token latency, or null
     * @param tpot                  time per output token, or null
     * @param e2e                   end-to-end latency, or null
     * @param durationMs            the measured run's length, ms, or null
     * @param totalTokenThroughput  input and output tokens per second, or null
     * @param goodRequests          requests that met every SLO, or null without a goodput SLO
     * @param goodput               the goodput SLO as {@code "key:ms"} texts, or null without one
     * @param errors                failed requests by error kind, in the file's order; null in a file without it
     */
    public record Latency(Long completed, Long failed, Double requestThroughput, Double outputTokenThroughput,
                          Double requestGoodput, Distribution ttft, Distribution itl, Distribution tpot,
                          Distribution e2e, Double durationMs, Double totalTokenThroughput, Long goodRequests,
                          List<String> goodput, Map<String, Long> errors) {

        /**
         * @param name {@code ttft}, {@code itl}, {@code tpot} or {@code e2e} ({@code HistoryMetrics.DISTRIBUTIONS})
         * @return that distribution, or null when the file has none
         * @throws IllegalArgumentException for another name
         */
        public Distribution distribution(String name) {
            return switch (name) {
                case "ttft" -> ttft;
                case "itl" -> itl;
                case "tpot" -> tpot;
                case "e2e" -> e2e;
                default -> throw new IllegalArgumentException("no latency distribution \"" + name
                        + "\": use ttft, itl, tpot or e2e");
            };
        }
    }

    /**
     * One latency distribution, in ms (docs/METRICS.md gives each definition).
     *
     * @param count samples
     * @param meanMs mean
     * @param p50Ms  median
     * @param p90Ms  90th percentile
     * @param p99Ms  99th percentile
     * @param maxMs  maximum
     * @param definition what is measured, one line ({@code LatencyDistribution.definition()}), or null
     */
    public record Distribution(Long count, Double meanMs, Double p50Ms, Double p90Ms, Double p99Ms, Double maxMs,
                               String definition) {

        /**
         * @param stat {@code p50}, {@code p90}, {@code p99}, {@code mean} or {@code max}
         * @return that statistic in ms, or null when absent
         * @throws IllegalArgumentException for another name
         */
        public Double stat(String stat) {
            return switch (stat) {
                case "p50" -> p50Ms;
                case "p90" -> p90Ms;
                case "p99" -> p99Ms;
                case "mean" -> meanMs;
                case "max" -> maxMs;
                default -> throw new IllegalArgumentException("no statistic \"" + stat
                        + "\": use p50, p90, p99, mean or max");
            };
        }
    }

    /**
     * The part of {@code summary.json}'s {@code outcome} the history records.
     *
     * @param status   {@code PASSED}, {@code FAILED}, {@code ERROR} or {@code ABORTED} ({@link TestOutcome.Status})
     * @param verdicts verdicts recorded, or null
     * @param failed   verdicts that failed, or null
     * @param warnings verdicts that warned, or null
     * @param message  the first line of the failure, or null
     */
    public record Outcome(String status, Integer verdicts, Integer failed, Integer warnings, String message) {
    }

    /**
     * One entry of a phased test's {@code phases}.
     *
     * @param phase     the phase's name ({@code PREFILL}, {@code DECODE}, …)
     * @param directory its output directory relative to the test's, or null (then the phase's name in lower case)
     * @param history   the phase's {@code history} block, or null
     * @param load      the phase's load, or null
     * @param steps     the engine steps the phase's capture holds, or null
     * @param verdicts  the phase's {@code verdicts} array as written ({@link ReportData#verdicts(JsonNode)} reads
     *                  it, filling what older files lack), or null
     * @param workers   the phase's engines, or null
     * @param latency   the phase's latency, or null
     */
    public record PhaseEntry(String phase, String directory, ReportData.History history, Load load,
                             CapturedSteps steps, JsonNode verdicts, List<Worker> workers, Latency latency) {

        /** @return {@code directory}, else the phase's name in lower case */
        public String directoryName() {
            return directory != null ? directory : phase == null ? "" : phase.toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * {@code attempted}: what a test that failed before (or while) opening its profile window asked for
     * ({@code dev.profiledrollout.junit.internal.CaptureAttempt}).
     *
     * @param backend    {@code SGLANG}, {@code VLLM} or {@code TRTLLM}, or null
     * @param engineKind {@code embedded}, {@code attached}, {@code container}, … or null when it could not be read
     * @param urls       the engines' URLs without credentials, or null
     * @param numSteps   the steps the profile would have captured, or null for "until stop_profile": spelled
     *                   {@code num_steps} as in {@link ProfileRequest}; files written before that spelled it
     *                   {@code numSteps}, which still reads
     * @param activities the profiler activities, or null
     * @param phases     the {@code @RolloutPhase}s' names, or null
     * @param load       the load of a window without phases, or null
     */
    public record Attempted(String backend, String engineKind, List<String> urls,
                            @JsonProperty("num_steps") @JsonAlias("numSteps") Integer numSteps,
                            List<String> activities, List<String> phases, Load load) {
    }

    /**
     * One element of {@code summary.json}'s {@code workers}: an engine's {@code WorkerOutcome} with the label, phase
     * and trace files; {@link RunReport} writes it from this record.
     *
     * @param url         the engine's URL without credentials, or null
     * @param workerType  {@code regular}, {@code prefill}, {@code decode}, … or null
     * @param state       {@code PROFILED}, {@code START_FAILED}, … ({@code WorkerOutcome.State}), or null
     * @param httpStatus  the failed request's HTTP status, 0 or null when none
     * @param reason      why it failed, "" or null when it did not
     * @param stopOutcome how its stop request ended, or null
     * @param label       e.g. {@code worker-1}, or null (then numbered by position)
     * @param phase       the phase it served in a phased test's combined report; null (and left out of the file)
     *                    otherwise
     * @param traceFiles  its rank traces under {@code traces/}; null in a file without the field
     */
    public record Worker(String url, String workerType, String state, Integer httpStatus, String reason,
                         String stopOutcome, String label, @JsonInclude(JsonInclude.Include.NON_NULL) String phase,
                         List<String> traceFiles) {
    }

    /**
     * {@code summary.json}'s {@code baseline}: the run's kernels against a baseline trace ({@code BaselineDiff}, as
     * {@link ResultsModule} writes it).
     *
     * @param kernelTimeChange run / baseline − 1 of the window's kernel time, or null
     * @param kernels          per kernel, largest |Δ time| first; null without any
     * @param windowTotalsOnly why only window totals could be compared, or null
     * @param mix              the step mix of both sides as one line, or null
     * @param incomparable     what could not be compared, or null
     * @param stages           per step kind, the like-with-like figures; null without them
     */
    public record Baseline(Double kernelTimeChange, List<BaselineKernel> kernels, String windowTotalsOnly, String mix,
                           String incomparable, List<BaselineStage> stages) {
    }

    /**
     * One kernel of {@link Baseline#kernels()} ({@code KernelDelta}).
     *
     * @param name        the kernel name
     * @param baseTotalNs its time in the baseline, ns (0: new)
     * @param totalNs     its time in this run, ns
     */
    public record BaselineKernel(String name, long baseTotalNs, long totalNs) {
    }

    /**
     * One step kind of {@link Baseline#stages()} ({@code StageDelta}).
     *
     * @param stage            the step kind, e.g. {@code DECODE}
     * @param unit             {@code step} or {@code token}: what the kernel time is divided by
     * @param baseSteps        the baseline's steps of this kind
     * @param steps            this run's steps of this kind
     * @param baseTokens       the baseline's tokens in them
     * @param tokens           this run's tokens in them
     * @param baseKernelNs     the baseline's kernel time in them, ns
     * @param kernelNs         this run's kernel time in them, ns
     * @param kernelTimeChange per unit, run / baseline − 1; null unless both sides have the kind
     */
    public record BaselineStage(String stage, String unit, long baseSteps, long steps, double baseTokens,
                                double tokens, double baseKernelNs, double kernelNs, Double kernelTimeChange) {
    }

    /**
     * @return the profiled steps, whichever block holds them: {@code profileRequest.num_steps}, else
     *         {@code attempted.numSteps}; null when neither does
     */
    public Integer numSteps() {
        if (profileRequest != null && profileRequest.numSteps() != null) {
            return profileRequest.numSteps();
        }
        return attempted == null ? null : attempted.numSteps();
    }

    /**
     * @param combined the head of a phased test's combined {@code summary.json}
     * @return this head (a phase's) with {@code combined}'s outcome when it has none, and {@code combined}'s engine
     *         version when its engine has none (the history recorder adds both to the combined file only)
     */
    public RunHeader withDefaultsFrom(RunHeader combined) {
        Outcome ended = outcome == null ? combined.outcome() : outcome;
        Engine e = engine;
        if (e != null && e.version() == null && combined.engine() != null && combined.engine().version() != null) {
            e = new Engine(e.backend(), e.url(), e.kind(), e.model(), e.tpSize(), e.dpSize(), e.ppSize(), e.epSize(),
                    e.simulatedFaults(), e.simulatedGpuNoise(), combined.engine().version());
        }
        return new RunHeader(test, e, load, profileRequest, attempted, phase, profiled, latency, history, phases,
                ended, workers, steps, error, baseline, stageWindows, stagePlacement);
    }

    /**
     * @param summary a parsed {@code summary.json}
     * @return its head
     * @throws IllegalArgumentException when a block does not have the shape {@link RunReport} writes, naming the
     *                                  Jackson error: re-run the test to rewrite the file
     */
    public static RunHeader of(JsonNode summary) {
        try {
            return ResultsModule.MAPPER.treeToValue(summary, RunHeader.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("summary.json's engine/load/profileRequest cannot be read ("
                    + e.getOriginalMessage() + "): re-run the test to rewrite it", e);
        }
    }
}
