package dev.profiledrollout.junit.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.Phase;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.RegressionCheck;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.history.HistoryCheck;
import dev.profiledrollout.history.HistoryMetrics;
import dev.profiledrollout.history.HistoryStore;
import dev.profiledrollout.history.HistoryThreshold;
import dev.profiledrollout.history.HistoryVerdict;
import dev.profiledrollout.history.RunConfiguration;
import dev.profiledrollout.history.RunHistory;
import dev.profiledrollout.history.RunIdentities;
import dev.profiledrollout.history.RunIdentity;
import dev.profiledrollout.history.RunRecord;
import dev.profiledrollout.history.RunRecords;
import dev.profiledrollout.history.stats.Change;
import dev.profiledrollout.report.ResultsModule;
import dev.profiledrollout.report.SummaryFile;
import dev.profiledrollout.report.RunHeader;
import dev.profiledrollout.report.TestOutcome;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apiguardian.api.API;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One profiled test's history: after the body, evaluates the declared {@link RegressionCheck}s (verdicts of kind
 * {@link Verdict.Kind#HISTORY}), records the run (one record per phase) with the outcome it ends with, and writes the
 * {@code history} block of {@code summary.json} (per phase in {@code phases[i].history} and in each phase's own
 * {@code summary.json}). While the body runs it gives the result its {@link RunHistory}.
 *
 * <p>A store that cannot be opened, read or written never fails the test and never loses its report: the block says
 * {@code "recorded": false} with the {@code error}, and a warning verdict {@code "history store"} says so.
 */
@API(status = INTERNAL, since = "0.1")
public final class HistoryRecorder {

    private static final System.Logger LOG = System.getLogger(HistoryRecorder.class.getName());
    private static final ObjectMapper JSON = ResultsModule.newMapper();

    /**
     * The stores of one test class, opened on first use and closed when JUnit closes the class's extension store.
     */
    @API(status = INTERNAL, since = "0.1")
    public static final class Stores implements ExtensionContext.Store.CloseableResource, AutoCloseable {

        private final Map<String, Object> opened = new HashMap<>();

        /** @throws RuntimeException the open failure, remembered so a broken store is tried once per class */
        synchronized HistoryStore open(String url, String user, String password) {
            Object store = opened.computeIfAbsent(url + "\n" + user, key -> {
                try {
                    return HistoryStore.open(url, user, password);
                } catch (RuntimeException e) {
                    return e;
                }
            });
            if (store instanceof RuntimeException e) {
                throw e;
            }
            return (HistoryStore) store;
        }

        @Override
        public synchronized void close() {
            for (Object store : opened.values()) {
                if (store instanceof HistoryStore s) {
                    try {
                        s.close();
                    } catch (RuntimeException e) {
                        LOG.log(System.Logger.Level.WARNING, "Could not close the history store " + s.location(), e);
                    }
                }
            }
            opened.clear();
        }
    }

    private final Stores stores;
    private final String url;
    private final String user;
    private final String password;
    private final HistoryThreshold threshold;
    private final RegressionCheck declared;
    private final RunIdentity identity;
    private final Path outputDirectory;
    private final java.util.function.Supplier<List<RunRecords.Window>> windows;

    private List<RunRecord> records;
    private String engineVersion;
    private RunHistory rootHistory;
    private final Map<String, RunHistory> phaseHistories = new LinkedHashMap<>();
    private final Map<String, List<HistoryVerdict>> declaredVerdicts = new LinkedHashMap<>();
    private String storeError;

    private HistoryRecorder(Stores stores, Function<String, Optional<String>> lookup, RegressionCheck declared,
            RunIdentity identity, Path outputDirectory, java.util.function.Supplier<List<RunRecords.Window>> windows) {
        this.stores = stores;
        this.url = lookup.apply(ProfiledRolloutKeys.HISTORY_URL).filter(s -> !s.isBlank())
                .orElse(ProfiledRolloutKeys.defaultValue(ProfiledRolloutKeys.HISTORY_URL).orElseThrow());
        this.user = lookup.apply(ProfiledRolloutKeys.HISTORY_USER).orElse(null);
        this.password = lookup.apply(ProfiledRolloutKeys.HISTORY_PASSWORD).orElse(null);
        HistoryThreshold configured = HistoryThreshold.from(lookup);
        if (declared != null) {
            if (!declared.threshold().isBlank()) {
                configured = lookup.apply(ProfiledRolloutKeys.HISTORY_BOUNDARY).filter(s -> !s.isBlank()).isPresent()
                        ? new HistoryThreshold(HistoryThreshold.Model.of(declared.threshold()), configured.boundary(),
                        configured.window(), configured.relativeLimit()).withOutlierCutoff(configured.outlierCutoff())
                        : configured.withModel(HistoryThreshold.Model.of(declared.threshold()));
            }
            if (!Double.isNaN(declared.boundary())) {
                configured = configured.withBoundary(declared.boundary());
            }
            if (declared.window() != 0) {
                configured = configured.withWindow(declared.window());
            }
            if (!Double.isNaN(declared.relativeLimit())) {
                configured = configured.withRelativeLimit(declared.relativeLimit());
            }
            for (String metric : declared.metrics()) {
                HistoryMetrics.measure(metric);
            }
        }
        this.threshold = configured;
        this.declared = declared;
        this.identity = identity;
        this.outputDirectory = outputDirectory;
        this.windows = windows;
    }

    /**
     * @param lookup          configuration keys
     * @param declared        the test's {@code @RegressionCheck}, or null
     * @param testId          {@code <class name>#<method name>}
     * @param outputDirectory the test's output directory, where the history blocks are written
     * @param windows         the run model of what the test's window wrote, in memory
     *                        ({@code ProfileWindow#runModel}); it throws when nothing was written
     * @return the recorder, or empty when {@link ProfiledRolloutKeys#HISTORY_ENABLED} is false
     * @throws IllegalArgumentException naming the key or attribute of an invalid value
     */
    public static Optional<HistoryRecorder> of(Stores stores, Function<String, Optional<String>> lookup,
            RegressionCheck declared, String testId, Path outputDirectory,
            java.util.function.Supplier<List<RunRecords.Window>> windows) {
        String enabled = lookup.apply(ProfiledRolloutKeys.HISTORY_ENABLED).orElse("true").trim();
        if (!enabled.equalsIgnoreCase("true") && !enabled.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException(ProfiledRolloutKeys.HISTORY_ENABLED + " is \"" + enabled
                    + "\": use true or false");
        }
        if (enabled.equalsIgnoreCase("false")) {
            return Optional.empty();
        }
        try {
            return Optional.of(new HistoryRecorder(stores, lookup, declared,
                    RunIdentities.fromEnvironment(testId, Instant.now()), outputDirectory, windows));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException((declared != null ? "@RegressionCheck / " : "") + e.getMessage(), e);
        }
    }

    private HistoryStore store() {
        return stores.open(url, user, password);
    }

    /**
     * The run's records, built once from the run model the window holds in memory (not from its files), with the
     * engine version the engine reported.
     */
    private synchronized List<RunRecord> records() {
        if (records == null) {
            List<RunRecord> built = new ArrayList<>();
            for (RunRecord r : RunRecords.fromModel(windows.get(), identity)) {
                RunConfiguration c = r.configuration();
                if (c.engineVersion() == null && engineVersion != null) {
                    c = new RunConfiguration(c.backend(), c.engineKind(), engineVersion, c.model(), c.gpu(), c.tp(),
                            c.dp(), c.pp(), c.ep(), c.inputTokens(), c.outputTokens(), c.concurrency(),
                            c.requestRate(), c.numSteps(), c.phase(), c.extra());
                }
                built.add(new RunRecord(0, r.identity(), c, r.outcome(), r.metrics(), r.histograms(), r.kernelNames()));
            }
            records = built;
        }
        return records;
    }

    private RunRecord phaseRecord(String phase) {
        for (RunRecord r : records()) {
            if (java.util.Objects.equals(r.configuration().phase(), phase)) {
                return r;
            }
        }
        throw new IllegalStateException(phase == null
                ? "a phased test has one history per phase: use result.phase(Phase.<NAME>).history()"
                : "no " + phase + " phase was recorded in " + outputDirectory);
    }

    /** Gives the result (and each phase's) its history access; called when the window's result is complete. */
    public RolloutResult attach(RolloutResult result) {
        JsonNode version = result.serverInfo().raw().path("version");
        engineVersion = version.isTextual() && !version.asText().isBlank() ? version.asText() : null;
        rootHistory = new RunHistory(this::store, () -> phaseRecord(null), threshold, "");
        if (result.phases().isEmpty()) {
            return result.toBuilder().history(rootHistory).build();
        }
        Map<Phase, RolloutResult> phases = new LinkedHashMap<>();
        result.phases().forEach((phase, r) -> {
            RunHistory h = new RunHistory(this::store, () -> phaseRecord(phase.name()), threshold, phase.name());
            phaseHistories.put(phase.name(), h);
            phases.put(phase, r.toBuilder().history(h).build());
        });
        return result.toBuilder().history(rootHistory).phases(phases).build();
    }

    /**
     * After the body, with the window's result: evaluates the declared regression checks, recording a verdict for each
     * (and a warning when the store cannot be used).
     *
     * @return the failures of the REGRESSION verdicts, for the caller to report with the soft budgets
     */
    public List<AssertionError> check() {
        List<AssertionError> failures = new ArrayList<>();
        if (declared == null) {
            return failures;
        }
        List<String> metrics = declared.metrics().length == 0 ? HistoryMetrics.CHECKED_METRICS
                : List.of(declared.metrics());
        try {
            for (RunRecord current : records()) {
                String scope = current.configuration().phase() == null ? "" : current.configuration().phase();
                HistoryCheck check = HistoryCheck.of(store(), current, threshold);
                List<HistoryVerdict> verdicts = declaredVerdicts.computeIfAbsent(scope, k -> new ArrayList<>());
                List<HistoryVerdict> ofRun = new ArrayList<>();
                for (String metric : HistoryMetrics.expand(metrics, current.metrics().keySet())) {
                    check.check(metric).ifPresent(ofRun::add);
                }
                verdicts.addAll(ofRun);
                if (!ofRun.isEmpty() && ofRun.stream().allMatch(HistoryRecorder::firstOfItsSeries)) {
                    // A first run: one line for the run, not a warning per metric with "no baseline".
                    Verdicts.record(firstRun(ofRun, current, scope));
                    continue;
                }
                for (HistoryVerdict verdict : ofRun) {
                    Verdict v = verdict.toVerdict(scope);
                    Verdicts.record(v);
                    if (v.outcome() == Verdict.Outcome.FAIL) {
                        failures.add(new AssertionError((scope.isEmpty() ? "" : "[" + scope + "] ")
                                + verdict.failureMessage()));
                    }
                }
            }
        } catch (RuntimeException e) {
            storeProblem(e);
        }
        return failures;
    }

    /** Whether the verdict is of a run with no earlier run of its test and configuration in the store. */
    private static boolean firstOfItsSeries(HistoryVerdict verdict) {
        return verdict.change() == Change.INSUFFICIENT_HISTORY && verdict.against().isEmpty();
    }

    /**
     * The one WARN verdict of a run whose store holds no earlier run of its test and configuration: the checks it
     * would have made start with the next run.
     */
    private Verdict firstRun(List<HistoryVerdict> verdicts, RunRecord current, String scope) {
        String metrics = verdicts.stream().map(HistoryVerdict::metric).distinct()
                .collect(java.util.stream.Collectors.joining(", "));
        Verdict v = new Verdict(Verdict.Kind.HISTORY, scope, "regression checks vs history", "≥", 0, 1, "",
                "no earlier runs", "1 earlier run", null, "the history store has no earlier runs of this test and "
                + "configuration (fingerprint " + current.configuration().fingerprint() + "), so " + verdicts.size()
                + " check(s) (" + metrics + ") start with the next run", false, false);
        return v;
    }

    /**
     * The metrics drawn as trends: the checked ones first (the declared check's, else
     * {@link HistoryMetrics#CHECKED_METRICS}), so each check's chart is beside its verdict, then
     * {@link HistoryMetrics#KEY_METRICS}.
     */
    private List<String> trendMetrics() {
        java.util.LinkedHashSet<String> metrics = new java.util.LinkedHashSet<>(
                declared == null || declared.metrics().length == 0 ? HistoryMetrics.CHECKED_METRICS
                        : List.of(declared.metrics()));
        metrics.addAll(HistoryMetrics.KEY_METRICS);
        return List.copyOf(metrics);
    }

    /**
     * Records the run with its outcome and writes the {@code history} block(s) into {@code summary.json}. Never throws:
     * a store problem becomes the block's {@code error} and a warning verdict.
     */
    public void record(TestOutcome outcome) {
        List<RunRecord> current;
        try {
            current = records();
        } catch (RuntimeException e) {
            // No summary to build a record from (the window failed early): nothing to record or to write into.
            LOG.log(System.Logger.Level.DEBUG, "No run record for " + identity.testId() + ": " + e.getMessage());
            return;
        }
        String location = location();
        Map<String, JsonNode> blocks = new LinkedHashMap<>();
        for (RunRecord run : current) {
            String scope = run.configuration().phase() == null ? "" : run.configuration().phase();
            RunRecord withOutcome = new RunRecord(0, run.identity(), run.configuration(), outcome.status().name(),
                    run.metrics(), run.histograms(), run.kernelNames());
            RunRecord recorded = null;
            List<HistoryCheck.Trend> trends = List.of();
            String error = storeError;
            if (error == null) {
                try {
                    recorded = store().record(withOutcome);
                    trends = HistoryCheck.of(store(), recorded, threshold).trends(
                            HistoryMetrics.expand(trendMetrics(), recorded.metrics().keySet()), recorded.id());
                } catch (RuntimeException e) {
                    error = storeProblem(e);
                }
            }
            if (recorded == null && error == null) {
                error = "not recorded";
            }
            List<HistoryVerdict> all = new ArrayList<>(declaredVerdicts.getOrDefault(scope, List.of()));
            RunHistory h = scope.isEmpty() ? rootHistory : phaseHistories.get(scope);
            if (h != null) {
                all.addAll(h.checked());
            }
            SummaryFile.HistoryBlock block = new SummaryFile.HistoryBlock(location,
                    recorded != null ? recorded.id() : null, run.identity().testId(), run.fingerprint(),
                    recorded != null, error, thresholdBlock(threshold),
                    all.stream().map(HistoryRecorder::verdictEntry).toList(),
                    trends.stream().map(HistoryRecorder::trendEntry).toList());
            blocks.put(scope, JSON.valueToTree(block));
        }
        write(blocks);
    }

    private String location() {
        try {
            return store().location();
        } catch (RuntimeException e) {
            return url.replaceAll("(?i)(password|user)=[^&;]*", "$1=***");
        }
    }

    /** Remembers the first store problem, logs it and records the warning verdict; returns the message. */
    private String storeProblem(RuntimeException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (storeError == null) {
            storeError = message;
            LOG.log(System.Logger.Level.WARNING, "History of " + identity.testId() + " not recorded: " + message);
            Verdicts.record(new Verdict(Verdict.Kind.HISTORY, "", "history store", "=", 0, 0, "", "unavailable",
                    "writable", null, message + " (the run is not recorded; set " + ProfiledRolloutKeys.HISTORY_URL
                    + " to a writable store or " + ProfiledRolloutKeys.HISTORY_ENABLED + "=false)", false, false));
        }
        return message;
    }

    /** The threshold as the block names it: the regression side's boundary is {@code upper}, one spelling. */
    private static SummaryFile.HistoryThreshold thresholdBlock(HistoryThreshold threshold) {
        boolean relative = threshold.model() == HistoryThreshold.Model.RELATIVE;
        return new SummaryFile.HistoryThreshold(threshold.model().key(), threshold.window(), null,
                threshold.boundary(),
                !relative && Double.isFinite(threshold.relativeLimit()) ? threshold.relativeLimit() : null,
                Double.isNaN(threshold.traceBoundary()) || relative ? null : threshold.traceBoundary(),
                Double.isInfinite(threshold.outlierCutoff()) || relative ? null : threshold.outlierCutoff());
    }

    private static SummaryFile.HistoryVerdictEntry verdictEntry(HistoryVerdict v) {
        var r = v.result();
        return new SummaryFile.HistoryVerdictEntry(v.metric(), r.measure().name(), r.measure().unit(),
                r.measure().direction().name(), r.model(), r.change().name(), finite(r.current()),
                finite(r.baseline()), r.baselineKind(), r.n(), finite(r.statistic()), finite(r.threshold()),
                finite(r.pValue()), r.change() != Change.INSUFFICIENT_HISTORY, v.againstText(),
                v.against().stream().map(HistoryVerdict.RunRef::runId).toList(), v.describe());
    }

    private static SummaryFile.HistoryTrend trendEntry(HistoryCheck.Trend trend) {
        return new SummaryFile.HistoryTrend(trend.metric(), trend.measure().name(), trend.measure().unit(),
                trend.measure().direction().name(), trend.points().stream().map(p -> new SummaryFile.TrendPoint(
                        p.runId(), p.startedAt().toString(), p.commit() == null ? null
                        : p.commit().length() > 7 ? p.commit().substring(0, 7) : p.commit(), finite(p.value()),
                        p.change().name(), p.current())).toList());
    }

    /** @return {@code value}, or null when it is not finite (written as null) */
    private static Double finite(double value) {
        return Double.isFinite(value) ? value : null;
    }

    /** Writes each block: the run's into summary.json, a phase's into its own summary.json and its phases[] entry. */
    private void write(Map<String, ? extends JsonNode> blocks) {
        Path top = outputDirectory.resolve("summary.json");
        try {
            SummaryFile summary = SummaryFile.read(top);
            SummaryFile.Builder next = summary.toBuilder();
            RunHeader.Engine engine = summary.engine();
            if (engineVersion != null && engine != null && engine.version() == null) {
                next.engine(new RunHeader.Engine(engine.backend(), engine.url(), engine.kind(), engine.model(),
                        engine.tpSize(), engine.dpSize(), engine.ppSize(), engine.epSize(), engine.simulatedFaults(),
                        engine.simulatedGpuNoise(), engineVersion));
            }
            if (blocks.containsKey("")) {
                next.history(blocks.get(""));
            }
            List<SummaryFile.PhaseBlock> entries = new ArrayList<>();
            for (SummaryFile.PhaseBlock entry : summary.phases()) {
                String phase = entry.phase() == null ? "" : entry.phase();
                if (!blocks.containsKey(phase)) {
                    entries.add(entry);
                    continue;
                }
                entries.add(entry.withHistory(blocks.get(phase)));
                Path own = outputDirectory.resolve(entry.directory() != null ? entry.directory()
                        : phase.toLowerCase(java.util.Locale.ROOT)).resolve("summary.json");
                if (Files.isRegularFile(own)) {
                    SummaryFile.read(own).toBuilder().history(blocks.get(phase)).build().write(own);
                }
            }
            next.phases(entries).build().write(top);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Could not write the history block of " + top + ": " + e.getMessage());
        }
    }
}
