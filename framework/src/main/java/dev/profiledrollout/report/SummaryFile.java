package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.trace.baselines.BaselineDiff;
import dev.profiledrollout.verdict.Verdict;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apiguardian.api.API;

/**
 * {@code summary.json} as its writers write it: every top-level field, in the file's order, through the one Jackson
 * mapping ({@link ResultsModule}). {@link RunReport} builds the first version; a later stage that adds to the file
 * (the baseline comparison, the phases, the history block, the verdicts and the outcome, a failed window's
 * {@code attempted}) {@linkplain #read reads} it into this record, makes a new one with its addition
 * ({@link #toBuilder()}) and {@linkplain #write writes} it whole. Nobody edits the file by key.
 *
 * <p>A block whose writer's type has a mapping that only writes ({@code load}, {@code profileRequest}, {@code latency},
 * {@code trace}, {@code baseline}, {@code history}) is held as the tree that mapping wrote, and written back as it was
 * read. The readers' view of the same file, with those blocks typed as far as the reports need them, is
 * {@link RunHeader} and {@link ReportData}. A null field is left out of the file, but {@code error}, which is always
 * written; so is an empty {@code workers}, {@code frontendTraceFiles}, {@code stagePlacement}, {@code phases} or
 * {@code stageWindows} (empty {@code verdicts} and {@code traceFiles} are written as {@code []}). JSON null in a {@link JsonNode} field ({@code load} and {@code profileRequest}
 * of a phased test) is written as null. Fields of the file that are not named here are not kept.
 *
 * @param test               {@code <Class>.<method>}, or null
 * @param engine             the engine block ({@link RunReport}), or null
 * @param load               the load block ({@code LoadSpec}'s mapping); JSON null for a phased test; or null
 * @param profileRequest     the profile request as sent ({@code ProfileRequest.toJson()}); JSON null for a phased
 *                           test; or null
 * @param attempted          what a window that failed before its profile request asked for ({@code CaptureAttempt}),
 *                           or null
 * @param phase              the phase of a phase's own file ({@code PREFILL}, …), or null
 * @param profiled           what the profile requests went to, or null
 * @param workers            per engine the window profiled; empty when none (then left out)
 * @param frontendTraceFiles vLLM front-end trace files; empty when none (then left out)
 * @param latency            the latency block ({@code LatencyReport}'s mapping), JSON null when the load did not run;
 *                           null in a phased test's file
 * @param trace              the trace block ({@code TraceSet}'s mapping), or null
 * @param steps              the engine steps each rank trace holds, or null
 * @param stagePlacement     where a staged load's captured steps fell; empty when none (then left out)
 * @param error              why the window did not complete; null (written as null) when it did
 * @param phases             a phased test's phases, in the order they ran; empty otherwise (then left out)
 * @param stageWindows       a sweep's window per stage; empty otherwise (then left out)
 * @param baseline           the kernel-baseline comparison ({@link #baseline(Path, BaselineDiff, int)}), or null
 * @param history            the history block ({@link HistoryBlock}'s mapping), or null
 * @param verdicts           every verdict of the test, or null before the test body ended
 * @param traceFiles         the rank trace files the result names, or null before the test body ended
 * @param outcome            how the test ended, or null before it ended
 */
@API(status = INTERNAL, since = "0.2")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SummaryFile(String test,
                          RunHeader.Engine engine,
                          JsonNode load,
                          JsonNode profileRequest,
                          Attempted attempted,
                          String phase,
                          RunHeader.Profiled profiled,
                          @JsonInclude(JsonInclude.Include.NON_EMPTY) List<RunHeader.Worker> workers,
                          @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> frontendTraceFiles,
                          JsonNode latency,
                          JsonNode trace,
                          CapturedSteps steps,
                          @JsonInclude(JsonInclude.Include.NON_EMPTY) List<RunHeader.StagePlacement> stagePlacement,
                          @JsonInclude(JsonInclude.Include.ALWAYS) String error,
                          @JsonInclude(JsonInclude.Include.NON_EMPTY) List<PhaseBlock> phases,
                          @JsonInclude(JsonInclude.Include.NON_EMPTY) List<RunHeader.StageWindow> stageWindows,
                          JsonNode baseline,
                          JsonNode history,
                          List<Verdict> verdicts,
                          List<String> traceFiles,
                          TestOutcome outcome) {

    private static final ObjectMapper JSON = ResultsModule.MAPPER;

    public SummaryFile {
        workers = workers == null ? List.of() : workers;
        frontendTraceFiles = frontendTraceFiles == null ? List.of() : frontendTraceFiles;
        stagePlacement = stagePlacement == null ? List.of() : stagePlacement;
        phases = phases == null ? List.of() : phases;
        stageWindows = stageWindows == null ? List.of() : stageWindows;
    }

    /**
     * @param file a {@code summary.json}
     * @return its content
     * @throws UncheckedIOException naming the file when it cannot be read or is not a JSON object of this shape
     */
    public static SummaryFile read(Path file) {
        try {
            return JSON.readValue(file.toFile(), SummaryFile.class);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + file, e);
        }
    }

    /**
     * Writes this record as {@code file}, replacing what it held; creates its directory.
     *
     * @throws UncheckedIOException naming the file when it cannot be written
     */
    public void write(Path file) {
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            JSON.writeValue(file.toFile(), this);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write " + file, e);
        }
    }

    /** @return this record as the tree the file holds, for readers that take a tree ({@link RunHeader#of}) */
    public JsonNode toTree() {
        return JSON.valueToTree(this);
    }

    /** @return an empty builder: every field absent */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding this record's fields, for a new record with some of them changed */
    public Builder toBuilder() {
        Builder b = new Builder();
            b.test = test;
            b.engine = engine;
            b.load = load;
            b.profileRequest = profileRequest;
            b.attempted = attempted;
            b.phase = phase;
            b.profiled = profiled;
            b.workers = workers;
            b.frontendTraceFiles = frontendTraceFiles;
            b.latency = latency;
            b.trace = trace;
            b.steps = steps;
            b.stagePlacement = stagePlacement;
            b.error = error;
            b.phases = phases;
            b.stageWindows = stageWindows;
            b.baseline = baseline;
            b.history = history;
            b.verdicts = verdicts;
            b.traceFiles = traceFiles;
            b.outcome = outcome;
        return b;
    }

    /**
     * {@code attempted}: what a test that failed before (or while) opening its profile window asked for; every field
     * is written, null included ({@link RunHeader.Attempted} reads it).
     *
     * @param backend    {@code SGLANG}, {@code VLLM} or {@code TRTLLM}
     * @param engineKind {@code embedded}, {@code attached}, {@code container}, … or null when it could not be read
     * @param urls       the engines' URLs without credentials
     * @param numSteps   the steps the profile would have captured ({@code num_steps}), or null
     * @param activities the profiler activities, or null when they could not be read
     * @param phases     the {@code @RolloutPhase}s' names, or null when they could not be read
     * @param load       the window's load ({@code LoadSpec}'s mapping), or null for a phased window or when it could
     *                   not be read
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"backend", "engineKind", "urls", "num_steps", "activities", "phases", "load"})
    public record Attempted(String backend, String engineKind, List<String> urls,
                            @JsonProperty("num_steps") @JsonAlias("numSteps") Integer numSteps,
                            List<String> activities, List<String> phases, JsonNode load) {

        public Attempted {
            load = load == null || load.isNull() ? null : load; // written as null either way
        }
    }

    /**
     * One element of a phased test's {@code phases}: the phase's name and directory, the blocks copied from the phase's
     * own {@code summary.json}, its verdicts and its history block.
     *
     * @param phase          the phase's name ({@code PREFILL}, …)
     * @param directory      its output directory relative to the test's
     * @param load           the phase's {@code load}, or null
     * @param profileRequest the phase's {@code profileRequest}, or null
     * @param latency        the phase's {@code latency}, or null
     * @param workers        the phase's {@code workers}, or null
     * @param steps          the phase's {@code steps}, or null
     * @param stagePlacement the phase's {@code stagePlacement}, or null
     * @param verdicts       the verdicts of the phase's scope; empty until the test body ended
     * @param history        the phase's history block, or null
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PhaseBlock(String phase, String directory, JsonNode load, JsonNode profileRequest, JsonNode latency,
                             List<RunHeader.Worker> workers, CapturedSteps steps,
                             List<RunHeader.StagePlacement> stagePlacement, List<Verdict> verdicts,
                             JsonNode history) {

        /**
         * @param phase     the phase's name
         * @param directory its directory relative to the test's
         * @param own       the phase's own {@code summary.json}
         * @return the entry with {@code own}'s blocks and no verdicts yet
         */
        public static PhaseBlock of(String phase, String directory, SummaryFile own) {
            return new PhaseBlock(phase, directory, own.load(), own.profileRequest(), own.latency(),
                    own.workers().isEmpty() ? null : own.workers(), own.steps(),
                    own.stagePlacement().isEmpty() ? null : own.stagePlacement(), List.of(), null);
        }

        /** @return this entry with {@code verdicts} */
        public PhaseBlock withVerdicts(List<Verdict> verdicts) {
            return new PhaseBlock(phase, directory, load, profileRequest, latency, workers, steps, stagePlacement,
                    verdicts, history);
        }

        /** @return this entry with {@code history} */
        public PhaseBlock withHistory(JsonNode history) {
            return new PhaseBlock(phase, directory, load, profileRequest, latency, workers, steps, stagePlacement,
                    verdicts, history);
        }
    }

    /**
     * What {@code baseline} is written from: the baseline file's path, then the comparison's fields as
     * {@link ResultsModule} writes a {@code BaselineDiff}, its {@code kernels} cut to the first {@code kernels}.
     * Write-only: {@link #baseline(Path, BaselineDiff, int)} turns it into the block.
     *
     * @param file    the baseline file, as the block names it
     * @param diff    the comparison
     * @param kernels how many of its kernels (largest |Δ time| first) the block lists, at least 0
     */
    public record Baseline(String file, BaselineDiff diff, int kernels) {
    }

    /**
     * @param file    the baseline file
     * @param diff    the comparison
     * @param kernels how many of its kernels the block lists
     * @return the {@code baseline} block
     */
    public static JsonNode baseline(Path file, BaselineDiff diff, int kernels) {
        return JSON.valueToTree(new Baseline(file.toString(), diff, kernels));
    }

    /**
     * What the {@code history} block (and a phase's) is written from ({@code HistoryRecorder}); every field is written,
     * null included. {@link ReportData.History} reads it.
     *
     * @param store       the store's location, credentials masked
     * @param runId       the id the run was recorded under, or null when it was not recorded
     * @param testId      the test's id in the store
     * @param fingerprint the configuration fingerprint the run's series is keyed by
     * @param recorded    whether the run was recorded
     * @param error       why it was not, or null
     * @param threshold   the threshold model the metrics were checked with
     * @param verdicts    one per metric checked, declared first
     * @param trends      the checked metrics' recent values
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record HistoryBlock(String store, Long runId, String testId, String fingerprint, boolean recorded,
                               String error, HistoryThreshold threshold, List<HistoryVerdictEntry> verdicts,
                               List<HistoryTrend> trends) {
    }

    /**
     * @param model          the model's key ({@code relative}, {@code zscore}, …)
     * @param window         runs of history compared against
     * @param lower          the improvement side's boundary: always null (one boundary, the regression side's)
     * @param upper          the regression side's boundary, in the model's unit
     * @param relativeLimit  the relative change a statistical model's regression needs as well, or null
     * @param traceBoundary  the boundary of trace metrics where it differs, or null
     * @param outlierCutoff  the Hampel cut-off in robust standard deviations (1.4826·MAD) beyond which a run of the
     *                       window is left out of the statistical model's mean and spread, or null when none is
     *                       (docs/METRICS.md §8.1)
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record HistoryThreshold(String model, int window, Double lower, double upper, Double relativeLimit,
                                   Double traceBoundary, Double outlierCutoff) {
    }

    /**
     * One metric checked against its history; a value that is not finite is written as null.
     *
     * @param metric       the metric's name, e.g. {@code ttft.p99}
     * @param label        its measure's name
     * @param unit         its unit
     * @param direction    which way is worse ({@code HIGHER_IS_WORSE}, …)
     * @param model        the threshold model that judged it
     * @param change       what it found ({@code REGRESSION}, {@code NO_CHANGE}, …)
     * @param current      this run's value, or null
     * @param baseline     the history's value compared against, or null
     * @param baselineKind what {@code baseline} is (mean, median, …)
     * @param n            runs of history used
     * @param statistic    the model's statistic, or null
     * @param threshold    the statistic's threshold, or null
     * @param pValue       the p-value where the model has one, or null
     * @param enforced     whether the check could fail the test (not with too little history)
     * @param against      the runs compared against, as text
     * @param runIds       their ids
     * @param description  the verdict in one line
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record HistoryVerdictEntry(String metric, String label, String unit, String direction, String model,
                                      String change, Double current, Double baseline, String baselineKind, int n,
                                      Double statistic, Double threshold, Double pValue, boolean enforced,
                                      String against, List<Long> runIds, String description) {
    }

    /**
     * @param metric    the metric's name
     * @param label     its measure's name
     * @param unit      its unit
     * @param direction which way is worse
     * @param points    its values, oldest first, this run's last
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record HistoryTrend(String metric, String label, String unit, String direction, List<TrendPoint> points) {
    }

    /**
     * @param runId     the run's id
     * @param startedAt when it started (ISO-8601)
     * @param commit    its commit, shortened to 7 characters, or null
     * @param value     the metric's value, or null when not finite
     * @param change    what the check found for it
     * @param current   whether this is the run being recorded
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record TrendPoint(long runId, String startedAt, String commit, Double value, String change,
                             boolean current) {
    }

    /** A {@link SummaryFile} under construction; each setter replaces one field. */
    public static final class Builder {
        private String test;
        private RunHeader.Engine engine;
        private JsonNode load;
        private JsonNode profileRequest;
        private Attempted attempted;
        private String phase;
        private RunHeader.Profiled profiled;
        private List<RunHeader.Worker> workers;
        private List<String> frontendTraceFiles;
        private JsonNode latency;
        private JsonNode trace;
        private CapturedSteps steps;
        private List<RunHeader.StagePlacement> stagePlacement;
        private String error;
        private List<PhaseBlock> phases;
        private List<RunHeader.StageWindow> stageWindows;
        private JsonNode baseline;
        private JsonNode history;
        private List<Verdict> verdicts;
        private List<String> traceFiles;
        private TestOutcome outcome;

        private Builder() {
        }

        /** @param test the new {@code test}, null to leave it out */
        public Builder test(String test) {
            this.test = test;
            return this;
        }

        /** @param engine the new {@code engine}, null to leave it out */
        public Builder engine(RunHeader.Engine engine) {
            this.engine = engine;
            return this;
        }

        /** @param load the new {@code load}, null to leave it out */
        public Builder load(JsonNode load) {
            this.load = load;
            return this;
        }

        /** @param profileRequest the new {@code profileRequest}, null to leave it out */
        public Builder profileRequest(JsonNode profileRequest) {
            this.profileRequest = profileRequest;
            return this;
        }

        /** @param attempted the new {@code attempted}, null to leave it out */
        public Builder attempted(Attempted attempted) {
            this.attempted = attempted;
            return this;
        }

        /** @param phase the new {@code phase}, null to leave it out */
        public Builder phase(String phase) {
            this.phase = phase;
            return this;
        }

        /** @param profiled the new {@code profiled}, null to leave it out */
        public Builder profiled(RunHeader.Profiled profiled) {
            this.profiled = profiled;
            return this;
        }

        /** @param workers the new {@code workers}, null to leave it out */
        public Builder workers(List<RunHeader.Worker> workers) {
            this.workers = workers;
            return this;
        }

        /** @param frontendTraceFiles the new {@code frontendTraceFiles}, null to leave it out */
        public Builder frontendTraceFiles(List<String> frontendTraceFiles) {
            this.frontendTraceFiles = frontendTraceFiles;
            return this;
        }

        /** @param latency the new {@code latency}, null to leave it out */
        public Builder latency(JsonNode latency) {
            this.latency = latency;
            return this;
        }

        /** @param trace the new {@code trace}, null to leave it out */
        public Builder trace(JsonNode trace) {
            this.trace = trace;
            return this;
        }

        /** @param steps the new {@code steps}, null to leave it out */
        public Builder steps(CapturedSteps steps) {
            this.steps = steps;
            return this;
        }

        /** @param stagePlacement the new {@code stagePlacement}, null to leave it out */
        public Builder stagePlacement(List<RunHeader.StagePlacement> stagePlacement) {
            this.stagePlacement = stagePlacement;
            return this;
        }

        /** @param error the new {@code error}, null to leave it out */
        public Builder error(String error) {
            this.error = error;
            return this;
        }

        /** @param phases the new {@code phases}, null to leave it out */
        public Builder phases(List<PhaseBlock> phases) {
            this.phases = phases;
            return this;
        }

        /** @param stageWindows the new {@code stageWindows}, null to leave it out */
        public Builder stageWindows(List<RunHeader.StageWindow> stageWindows) {
            this.stageWindows = stageWindows;
            return this;
        }

        /** @param baseline the new {@code baseline}, null to leave it out */
        public Builder baseline(JsonNode baseline) {
            this.baseline = baseline;
            return this;
        }

        /** @param history the new {@code history}, null to leave it out */
        public Builder history(JsonNode history) {
            this.history = history;
            return this;
        }

        /** @param verdicts the new {@code verdicts}, null to leave it out */
        public Builder verdicts(List<Verdict> verdicts) {
            this.verdicts = verdicts;
            return this;
        }

        /** @param traceFiles the new {@code traceFiles}, null to leave it out */
        public Builder traceFiles(List<String> traceFiles) {
            this.traceFiles = traceFiles;
            return this;
        }

        /** @param outcome the new {@code outcome}, null to leave it out */
        public Builder outcome(TestOutcome outcome) {
            this.outcome = outcome;
            return this;
        }

        /** @return the record */
        public SummaryFile build() {
            return new SummaryFile(test, engine, load, profileRequest, attempted, phase, profiled, workers, frontendTraceFiles, latency, trace, steps, stagePlacement, error, phases, stageWindows, baseline, history, verdicts, traceFiles, outcome);
        }
    }
}
