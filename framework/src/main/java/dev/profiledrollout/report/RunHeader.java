package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.apiguardian.api.API;

/**
 * The head of {@code summary.json} as records: what ran ({@code engine}), under which load ({@code load}), with which
 * profile request ({@code profileRequest}) and in which phase. {@link RunReport} writes {@code engine} from
 * {@link Engine}; the readers ({@link ReportParameters}, the history's run configuration) read these records through
 * {@link ResultsModule} rather than looking keys up.
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
 * @param stageWindows   a sweep with a window per stage ({@code @RolloutSweep(windowPerStage = true)}): one entry per
 *                       stage, in the order they ran; empty otherwise
 * @param stagePlacement a window over a staged load (an srtctl benchmark sweep, {@code @RolloutSweep}): per rank trace
 *                       with step timestamps, which stages its captured steps fell in; empty otherwise
 */
@API(status = INTERNAL, since = "0.1")
public record RunHeader(String test, Engine engine, Load load, ProfileRequest profileRequest, Attempted attempted,
                        String phase, Profiled profiled, Latency latency, ReportData.History history,
                        List<PhaseEntry> phases, Outcome outcome, List<StageWindow> stageWindows,
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
     * @param simulatedGpuNoise the simulator's {@code simulated_gpu_noise}, or null
     * @param version           the engine's version, added by the history recorder; null when unknown
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Engine(String backend, String url, String kind, String model, Integer tpSize, Integer dpSize,
                         Integer ppSize, Integer epSize, JsonNode simulatedFaults, JsonNode simulatedGpuNoise,
                         String version) {
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
     * {@code summary.json}'s {@code profiled}: the engine, router or workers the profile requests went to.
     *
     * @param kind        {@code engine}, {@code router}, … ; null in a file without it
     * @param workers     how many workers were profiled, or null
     * @param url         the URL the profile requests went to, or null
     * @param description one line naming it and its workers, or null
     */
    public record Profiled(String kind, Integer workers, String url, String description) {
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
     */
    public record Latency(Long completed, Long failed, Double requestThroughput, Double outputTokenThroughput,
                          Double requestGoodput, Distribution ttft, Distribution itl, Distribution tpot,
                          Distribution e2e, Double durationMs) {

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
     */
    public record Distribution(Long count, Double meanMs, Double p50Ms, Double p90Ms, Double p99Ms, Double maxMs) {

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
     * @param status {@code PASSED}, {@code FAILED}, {@code ERROR} or {@code ABORTED} ({@link TestOutcome.Status})
     */
    public record Outcome(String status) {
    }

    /**
     * One entry of a phased test's {@code phases}.
     *
     * @param phase     the phase's name ({@code PREFILL}, {@code DECODE}, …)
     * @param directory its output directory relative to the test's, or null (then the phase's name in lower case)
     * @param history   the phase's {@code history} block, or null
     */
    public record PhaseEntry(String phase, String directory, ReportData.History history) {

        /** @return {@code directory}, else the phase's name in lower case */
        public String directoryName() {
            return directory != null ? directory : phase == null ? "" : phase.toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * {@code attempted}: what a window that failed early would have sent; {@code numSteps} is the same value as
     * {@link ProfileRequest#numSteps()}, spelled in Java style.
     *
     * @param numSteps the steps the profile would have captured, or null
     */
    public record Attempted(Integer numSteps) {
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
