package dev.profiledrollout.cli;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.cli.AnalyzeCommand.Format;
import dev.profiledrollout.cli.internal.HistoryImport;
import dev.profiledrollout.cli.internal.TextTable;
import dev.profiledrollout.history.HistoryCheck;
import dev.profiledrollout.history.HistoryMetrics;
import dev.profiledrollout.history.HistoryStore;
import dev.profiledrollout.history.HistoryStoreException;
import dev.profiledrollout.history.HistoryThreshold;
import dev.profiledrollout.history.HistoryVerdict;
import dev.profiledrollout.history.RunConfiguration;
import dev.profiledrollout.history.RunRecord;
import dev.profiledrollout.history.RunRecords;
import dev.profiledrollout.history.stats.Boundaries;
import dev.profiledrollout.history.stats.Change;
import dev.profiledrollout.history.stats.EDivisive;
import dev.profiledrollout.history.stats.Measure;
import dev.profiledrollout.history.stats.MannWhitney;
import dev.profiledrollout.history.stats.RelativeChange;
import dev.profiledrollout.history.stats.ThresholdResult;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.apiguardian.api.API;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code history}: the run history store ({@link HistoryStore}) from the command line: list runs, show one, compare
 * two, print a metric's trend with the regression verdicts a test would get, import test output directories of
 * earlier runs, prune.
 *
 * <p>{@code --db URL} (default: {@code PROFILEDROLLOUT_HISTORY_URL}, else
 * {@code jdbc:sqlite:.profiled-rollout/history.db}, the default of {@code profiledrollout.history.url}),
 * {@code --user} and {@code --password} (default: {@code PROFILEDROLLOUT_HISTORY_USER} / {@code _PASSWORD}) choose
 * the store; {@code --format table|csv|json} the output. They may be given before or after the subcommand.
 *
 * <h2>Exit codes</h2>
 * 0 on success; 1 when the store cannot be opened, read or written, or a directory could not be imported; 2 for bad
 * arguments: an unknown run id, test id or metric, a malformed option.
 */
@Command(name = "history", mixinStandardHelpOptions = true,
        description = "The run history store: list, show, compare, trend, import, prune.",
        subcommands = {HistoryCommand.ListRuns.class, HistoryCommand.Show.class, HistoryCommand.Compare.class,
                HistoryCommand.Trend.class, HistoryCommand.Import.class, HistoryCommand.Prune.class})
@API(status = INTERNAL, since = "0.1")
public final class HistoryCommand implements Runnable {

    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** The widest line of the {@code compare} and {@code trend} tables, in characters. */
    static final int WIDTH = 120;

    /** The longest metric name {@code trend} uses as its value column's header; longer ones are named above it. */
    static final int SHORT_METRIC = 20;

    /** The metrics {@code list} shows as columns. */
    static final List<String> LIST_METRICS = List.of("ttft.p99", "itl.p99", "e2e.p99", "throughput.output_tokens");

    @Spec
    CommandSpec spec;

    @Option(names = "--db", paramLabel = "URL", scope = ScopeType.INHERIT,
            description = "The store's JDBC URL (jdbc:sqlite:<file> or jdbc:postgresql://host/db). Default: "
                    + "$PROFILEDROLLOUT_HISTORY_URL, else jdbc:sqlite:.profiled-rollout/history.db.")
    String db;

    @Option(names = "--user", paramLabel = "USER", scope = ScopeType.INHERIT,
            description = "The database user (default $PROFILEDROLLOUT_HISTORY_USER; SQLite needs none).")
    String user;

    @Option(names = "--password", paramLabel = "PASSWORD", scope = ScopeType.INHERIT,
            description = "The database password (default $PROFILEDROLLOUT_HISTORY_PASSWORD).")
    String password;

    @Option(names = "--format", defaultValue = "table", converter = AnalyzeCommand.FormatConverter.class,
            scope = ScopeType.INHERIT, paramLabel = "table|csv|json",
            description = "Output format: table (default), csv or json.")
    Format format;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "Missing subcommand: list, show, compare, trend, import or prune");
    }

    /** Flyway logs every migration step at INFO (through JUL when no SLF4J provider is bound, as in the jar). */
    private static final java.util.logging.Logger FLYWAY_LOG = java.util.logging.Logger.getLogger("org.flywaydb");

    /**
     * The store the options name.
     *
     * @param create whether a SQLite file that does not exist yet may be created (only {@code import} records runs)
     */
    HistoryStore open(boolean create) {
        // The commands print their own results: no migration log lines, no SLF4J "no providers" notice (SLF4J 2.0.10+).
        FLYWAY_LOG.setLevel(java.util.logging.Level.WARNING);
        if (System.getProperty("slf4j.internal.verbosity") == null) {
            System.setProperty("slf4j.internal.verbosity", "ERROR");
        }
        String url = db != null ? db : setting(ProfiledRolloutKeys.HISTORY_URL);
        Path file = sqliteFile(url);
        if (!create && file != null && !Files.exists(file)) {
            throw new UsageError("no history store at " + url + " (" + file.toAbsolutePath() + " does not exist): run "
                    + "from the directory the tests ran in (the Maven module), pass --db, or record runs first "
                    + "(profiled tests, or `history import target/profiled-rollout`)");
        }
        return HistoryStore.open(url, user != null ? user : setting(ProfiledRolloutKeys.HISTORY_USER),
                password != null ? password : setting(ProfiledRolloutKeys.HISTORY_PASSWORD));
    }

    /** The file of a {@code jdbc:sqlite:} URL, null for other URLs and in-memory databases. */
    static Path sqliteFile(String url) {
        if (url == null || !url.startsWith("jdbc:sqlite:")) {
            return null;
        }
        String path = url.substring("jdbc:sqlite:".length());
        int query = path.indexOf('?');
        path = query < 0 ? path : path.substring(0, query);
        path = path.startsWith("file:") ? path.substring("file:".length()) : path;
        return path.isEmpty() || path.startsWith(":memory:") ? null : Path.of(path);
    }

    private static String setting(String key) {
        String env = System.getenv(ProfiledRolloutKeys.environmentVariable(key));
        return env != null && !env.isBlank() ? env : ProfiledRolloutKeys.defaultValue(key).orElse(null);
    }

    /** A bad argument: exit code 2 with the message. */
    static final class UsageError extends RuntimeException {
        UsageError(String message) {
            super(message);
        }
    }

    /** What every subcommand shares: the store, the output, the error handling. */
    abstract static class Sub implements Callable<Integer> {

        @ParentCommand
        HistoryCommand parent;

        @Spec
        CommandSpec spec;

        PrintWriter out;
        PrintWriter err;

        @Override
        public final Integer call() {
            out = spec.commandLine().getOut();
            err = spec.commandLine().getErr();
            String name = "history " + spec.name();
            try (HistoryStore store = parent.open(this instanceof Import)) {
                return run(store);
            } catch (UsageError e) {
                err.println(name + ": " + e.getMessage());
                return 2;
            } catch (HistoryStoreException | UncheckedIOException e) {
                err.println(name + ": " + e.getMessage());
                return 1;
            } finally {
                out.flush();
                err.flush();
            }
        }

        abstract int run(HistoryStore store);

        Format format() {
            return parent.format;
        }

        void print(TextTable table, ObjectNode json) {
            switch (format()) {
                case JSON -> out.println(json.toPrettyString());
                case CSV -> table.printCsv(out);
                default -> table.printTable(out);
            }
        }

        /**
         * As {@link #print}, the table cut to {@link #WIDTH} columns (a line under it says so when a cell was cut),
         * then the legend of the kernel ids among {@code metrics}: the full names, in the JSON as {@code kernelNames}.
         */
        void printFitted(HistoryStore store, TextTable table, ObjectNode json, java.util.Collection<String> metrics) {
            java.util.SortedMap<String, String> names = new java.util.TreeMap<>();
            if (metrics.stream().anyMatch(HistoryMetrics::isKernelMetric)) {
                java.util.SortedMap<String, String> all = store.kernelNames();
                metrics.stream().filter(all::containsKey).forEach(m -> names.put(m, all.get(m)));
            }
            if (!names.isEmpty()) {
                ObjectNode legend = json.putObject("kernelNames");
                names.forEach(legend::put);
            }
            if (format() != Format.TABLE) {
                print(table, json);
                return;
            }
            if (table.printTable(out, WIDTH)) {
                out.println("(… : cut to fit " + WIDTH + " columns; --format json or csv prints every cell whole)");
            }
            legendLines(names).forEach(out::println);
        }

        RunRecord run(HistoryStore store, long id) {
            return store.run(id).orElseThrow(() -> new UsageError("no run " + id + " in " + store.location()
                    + ": `history list` shows the run ids"));
        }
    }

    // ---------------------------------------------------------------------------------------------------------- list

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "The latest runs, newest first: id, start, test, fingerprint, commit, outcome, key metrics.")
    static final class ListRuns extends Sub {

        @Option(names = "--test", paramLabel = "PATTERN", description = "Only test ids containing PATTERN; "
                + "* matches any text (e.g. 'com.acme.*#decode*').")
        String test;

        @Option(names = "--limit", defaultValue = "20", paramLabel = "N", description = "At most N runs (default 20).")
        int limit;

        @Override
        int run(HistoryStore store) {
            requirePositive("--limit", limit);
            Pattern exact = test == null ? null : glob(test);
            String like = test == null ? "%" : (test.contains("*") ? "" : "%") + test.replace("*", "%")
                    + (test.contains("*") ? "" : "%");
            List<RunRecord> runs = store.list(like, limit).stream()
                    .filter(r -> exact == null || exact.matcher(r.identity().testId()).find()).toList();
            List<String> header = new ArrayList<>(List.of("id", "started", "test", "fingerprint", "commit", "outcome"));
            LIST_METRICS.forEach(m -> header.add(column(m)));
            TextTable table = new TextTable(header);
            ObjectNode json = JSON.createObjectNode();
            json.put("store", store.location());
            ArrayNode array = json.putArray("runs");
            for (RunRecord r : runs) {
                List<Object> row = new ArrayList<>(List.of(r.id(), started(r.identity().startedAt()),
                        r.identity().testId(), r.fingerprint(), shortCommit(r.identity().commit()), r.outcome()));
                LIST_METRICS.forEach(m -> row.add(number(r.metrics().get(m))));
                table.row(row);
                ObjectNode node = identityJson(array.addObject(), r);
                ObjectNode metrics = node.putObject("metrics");
                LIST_METRICS.stream().filter(r.metrics()::containsKey).forEach(m -> metrics.put(m, r.metrics().get(m)));
            }
            if (runs.isEmpty() && format() == Format.TABLE) {
                out.println("no runs" + (test == null ? "" : " of a test matching '" + test + "'") + " in "
                        + store.location());
                return 0;
            }
            print(table, json);
            return 0;
        }

        /** A case-sensitive pattern that finds the glob anywhere when it has no *, else matches it whole. */
    }

    /**
     * The test ids {@code --test} selects, the same way in every sub-command: a plain text matches ids containing it,
     * a text with {@code *} matches whole ids with {@code *} as any run of characters.
     */
    static String oneTest(HistoryStore store, String pattern) {
        java.util.Set<String> ids = new TreeSet<>();
        store.series().forEach(x -> ids.add(x.testId()));
        if (ids.contains(pattern)) {
            return pattern;
        }
        Pattern p = glob(pattern);
        List<String> matching = ids.stream().filter(id -> p.matcher(id).find()).toList();
        if (matching.size() > 1) {
            throw new UsageError("--test " + pattern + " matches " + matching.size() + " tests: "
                    + String.join(", ", matching) + "; give more of the id");
        }
        return matching.isEmpty() ? pattern : matching.get(0);
    }

    /** {@code --test}'s pattern as a regex: see {@link #oneTest}. */
    static Pattern glob(String glob) {
        String regex = Arrays.stream(glob.split("\\*", -1)).map(Pattern::quote)
                .reduce((a, b) -> a + ".*" + b).orElse("");
        return Pattern.compile(glob.contains("*") ? "^" + regex + "$" : regex);
    }

    // ---------------------------------------------------------------------------------------------------------- show

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "One run: identity, configuration with its fingerprint, every metric, the histograms.")
    static final class Show extends Sub {

        @Parameters(paramLabel = "ID", description = "The run's id (see `history list`).")
        long id;

        @Override
        int run(HistoryStore store) {
            RunRecord r = run(store, id);
            ObjectNode json = JSON.createObjectNode();
            json.put("store", store.location());
            identityJson(json, r);
            ObjectNode identity = json.putObject("identity");
            identity.put("branch", r.identity().branch());
            identity.put("buildId", r.identity().buildId());
            identity.put("buildUrl", r.identity().buildUrl());
            identity.put("host", r.identity().host());
            ObjectNode configuration = json.putObject("configuration");
            configurationFields(r.configuration()).forEach(configuration::put);
            ObjectNode metrics = json.putObject("metrics");
            r.metrics().forEach(metrics::put);
            ObjectNode histograms = json.putObject("histograms");
            Map<String, Histogram> decoded = new LinkedHashMap<>();
            r.histograms().forEach((name, bytes) -> decoded.put(name, RunRecords.decode(bytes)));
            decoded.forEach((name, h) -> histograms.putObject(name).put("count", h.getTotalCount())
                    .put("p50Ms", h.getValueAtPercentile(50) / 1e6).put("p99Ms", h.getValueAtPercentile(99) / 1e6)
                    .put("maxMs", h.getMaxValue() / 1e6));

            TextTable table = new TextTable(List.of("section", "name", "value", "unit"));
            table.row(List.of("run", "id", r.id(), ""));
            table.row(List.of("run", "test", r.identity().testId(), ""));
            table.row(List.of("run", "started", r.identity().startedAt(), ""));
            table.row(List.of("run", "outcome", r.outcome(), ""));
            for (String field : List.of("commit", "branch", "buildId", "buildUrl", "host")) {
                String value = field.equals("commit") ? r.identity().commit() : identity.path(field).asText(null);
                if (value != null) {
                    table.row(List.of("run", field, value, ""));
                }
            }
            table.row(List.of("configuration", "fingerprint", r.fingerprint(), ""));
            configurationFields(r.configuration()).forEach((k, v) -> {
                if (v != null) {
                    table.row(List.of("configuration", k, v, ""));
                }
            });
            r.metrics().forEach((name, value) -> table.row(List.of("metric", name, number(value), unit(name))));
            decoded.forEach((name, h) -> table.row(List.of("histogram", name, h.getTotalCount(), "samples")));
            print(table, json);
            return 0;
        }
    }

    // ------------------------------------------------------------------------------------------------------- compare

    @Command(name = "compare", mixinStandardHelpOptions = true,
            description = {"Two runs metric by metric: values, change and verdict (relative change against "
                    + "--boundary); the latency distributions also with Mann-Whitney U on the stored histograms.",
                    "Warns when the runs' configuration fingerprints differ, naming the fields that do."})
    static final class Compare extends Sub {

        @Parameters(index = "0", paramLabel = "ID1", description = "The earlier (baseline) run.")
        long first;

        @Parameters(index = "1", paramLabel = "ID2", description = "The later run, judged against ID1.")
        long second;

        @Option(names = "--boundary", paramLabel = "FRACTION", defaultValue = "0.10",
                description = "Relative change on either side flagged as a regression or improvement (default 0.10).")
        double boundary;

        @Option(names = "--probability", paramLabel = "P", defaultValue = "0.99",
                description = "Mann-Whitney U boundary, a cumulative probability in [0.5, 1) (default 0.99).")
        double probability;

        @Override
        int run(HistoryStore store) {
            RunRecord a = run(store, first);
            RunRecord b = run(store, second);
            RelativeChange relative;
            MannWhitney mannWhitney;
            try {
                relative = new RelativeChange(RelativeChange.Baseline.MEAN, 1, Boundaries.both(boundary));
                mannWhitney = new MannWhitney(Boundaries.both(probability));
            } catch (IllegalArgumentException e) {
                throw new UsageError(e.getMessage());
            }
            ObjectNode json = JSON.createObjectNode();
            json.put("store", store.location());
            json.put("run1", a.id());
            json.put("run2", b.id());
            Map<String, String[]> differences = differences(a.configuration(), b.configuration());
            json.put("sameFingerprint", differences.isEmpty());
            ObjectNode diffJson = json.putObject("configurationDifferences");
            differences.forEach((field, v) -> diffJson.putObject(field).put("run1", v[0]).put("run2", v[1]));
            ArrayNode rows = json.putArray("metrics");
            TextTable table = new TextTable(List.of("metric", "unit", "run " + a.id(), "run " + b.id(), "change",
                    "test", "verdict"));
            TreeSet<String> names = new TreeSet<>(a.metrics().keySet());
            names.addAll(b.metrics().keySet());
            for (String name : names) {
                Double v1 = a.metrics().get(name);
                Double v2 = b.metrics().get(name);
                Optional<Measure> measure = measure(name);
                ObjectNode row = rows.addObject().put("metric", name).put("unit", unit(name));
                putNumber(row, "run1", v1);
                putNumber(row, "run2", v2);
                String verdict;
                String change = "";
                if (v1 == null || v2 == null) {
                    verdict = "only in run " + (v1 == null ? b.id() : a.id());
                } else if (measure.isEmpty()) {
                    verdict = "unknown metric";
                } else {
                    ThresholdResult result = relative.evaluate(measure.get(), v2, new double[] {v1});
                    verdict = result.change().name();
                    change = percent(v1, v2);
                    row.put("change", result.statistic());
                    row.put("description", result.describe());
                }
                row.put("test", "relative change");
                row.put("verdict", verdict);
                table.row(List.of(name, unit(name), number(v1), number(v2), change, "relative", verdict));
            }
            for (String distribution : HistoryMetrics.DISTRIBUTIONS) {
                byte[] h1 = a.histograms().get(distribution);
                byte[] h2 = b.histograms().get(distribution);
                if (h1 == null || h2 == null) {
                    continue;
                }
                double[] s1 = RunRecords.samplesMs(RunRecords.decode(h1));
                double[] s2 = RunRecords.samplesMs(RunRecords.decode(h2));
                Measure measure = new Measure(distribution.toUpperCase(Locale.ROOT) + " distribution", "ms",
                        dev.profiledrollout.history.stats.Direction.LOWER_IS_BETTER);
                ThresholdResult result = mannWhitney.evaluate(measure, s2, s1);
                String name = distribution + " (samples)";
                ObjectNode row = rows.addObject().put("metric", name).put("unit", "ms");
                row.put("run1", result.baseline()).put("run2", result.current()).put("test", MannWhitney.NAME)
                        .put("samples1", s1.length).put("samples2", s2.length);
                if (!Double.isNaN(result.pValue())) {
                    row.put("pValue", result.pValue());
                }
                row.put("verdict", result.change().name()).put("description", result.describe());
                String test = Double.isNaN(result.pValue()) ? "Mann-Whitney U"
                        : String.format(Locale.ROOT, "Mann-Whitney U, p = %.3g", result.pValue());
                table.row(List.of(name, "ms", number(result.baseline()) + " median", number(result.current())
                        + " median", percent(result.baseline(), result.current()), test, result.change().name()));
            }
            TreeSet<String> shown = names;
            if (!differences.isEmpty()) {
                String warning = "warning: runs " + a.id() + " and " + b.id() + " have different configuration "
                        + "fingerprints (" + a.fingerprint() + " vs " + b.fingerprint() + "): they do not measure the "
                        + "same thing; differing: " + differences.entrySet().stream()
                        .map(e -> e.getKey() + " " + e.getValue()[0] + " vs " + e.getValue()[1])
                        .reduce((x, y) -> x + ", " + y).orElse("");
                json.put("warning", warning);
                if (format() != Format.JSON) {
                    err.println(warning);
                }
            }
            printFitted(store, table, json, shown);
            return 0;
        }
    }

    // --------------------------------------------------------------------------------------------------------- trend

    @Command(name = "trend", mixinStandardHelpOptions = true,
            description = {"One metric of one test over its latest runs, oldest first, each with the regression "
                    + "check's verdict for that run against the runs before it, as the test got it (REGRESSION and "
                    + "IMPROVEMENT mark change points).",
                    "Uses the series (test id and configuration fingerprint) of the test's latest run unless "
                            + "--fingerprint is given. --threshold, --boundary and --window default to "
                            + "$PROFILEDROLLOUT_HISTORY_THRESHOLD, _BOUNDARY and _WINDOW, else t-test, 0.99 and 20.",
                    "Then the change points of the whole shown series by E-Divisive means (Matteson & James 2014, as "
                            + "Hunter/Apache Otava): where the series' level changed, even if no single run stood out "
                            + "(permutation test at --change-point-significance, 199 permutations, at least 3 runs on "
                            + "each side)."})
    static final class Trend extends Sub {

        @Parameters(paramLabel = "METRIC", description = "A metric name, e.g. ttft.p99 (`history show ID` lists a "
                + "run's metrics).")
        String metric;

        @Option(names = "--test", required = true, paramLabel = "PATTERN",
                description = "The test: its id (e.g. com.acme.DecodeTest#decode), or any part of it, as in list "
                        + "(* matches any run of characters); it must select one test.")
        String testId;

        @Option(names = "--fingerprint", paramLabel = "F", description = "The configuration fingerprint "
                + "(default: the test's latest run's).")
        String fingerprint;

        @Option(names = "--limit", defaultValue = "20", paramLabel = "N", description = "Show the latest N runs "
                + "(default 20).")
        int limit;

        @Option(names = "--threshold", paramLabel = "MODEL", description = "relative, z-score, t-test, mann-whitney "
                + "or welch (the last two: each run's latency samples against the previous run's; other metrics "
                + "use t-test).")
        String threshold;

        @Option(names = "--boundary", paramLabel = "B", description = "Boundary on the regression side: a fraction "
                + "of the baseline for relative (default 0.10), else a cumulative probability in [0.5, 1).")
        Double boundary;

        @Option(names = "--window", paramLabel = "N", description = "Earlier runs each verdict uses.")
        Integer window;

        @Option(names = "--change-point-significance", paramLabel = "P", defaultValue = "0.05",
                description = "Largest p-value of an E-Divisive change point (default ${DEFAULT-VALUE}).")
        double changePointSignificance;

        @Override
        int run(HistoryStore store) {
            requirePositive("--limit", limit);
            metric = HistoryMetrics.canonical(metric);
            HistoryThreshold chosenThreshold;
            Measure measure;
            try {
                chosenThreshold = threshold();
                measure = HistoryMetrics.measure(metric);
            } catch (IllegalArgumentException e) {
                throw new UsageError(e.getMessage());
            }
            testId = oneTest(store, testId);
            List<HistoryStore.SeriesInfo> series = store.series().stream()
                    .filter(s -> s.testId().equals(testId)).toList();
            if (series.isEmpty()) {
                throw new UsageError("no runs of test " + testId + " in " + store.location() + "; known tests: "
                        + knownTests(store));
            }
            String chosen = fingerprint != null ? fingerprint
                    : store.list(testId, Integer.MAX_VALUE).stream().filter(r -> r.identity().testId().equals(testId))
                            .findFirst().map(RunRecord::fingerprint).orElse(series.get(0).fingerprint());
            if (series.stream().noneMatch(s -> s.fingerprint().equals(chosen))) {
                throw new UsageError("test " + testId + " has no runs with fingerprint " + chosen + "; its "
                        + "fingerprints: " + series.stream().map(s -> s.fingerprint() + " (" + s.runs() + " runs)")
                        .reduce((x, y) -> x + ", " + y).orElse(""));
            }
            List<RunRecord> runs = store.history(testId, chosen, limit, Long.MAX_VALUE).stream()
                    .filter(r -> r.metrics().containsKey(metric)).toList();
            if (runs.isEmpty()) {
                TreeSet<String> known = new TreeSet<>();
                store.history(testId, chosen, Math.max(limit, 100), Long.MAX_VALUE)
                        .forEach(r -> known.addAll(r.metrics().keySet()));
                throw new UsageError("no run of " + testId + " (fingerprint " + chosen + ") has metric " + metric
                        + "; its metrics: " + String.join(", ", known));
            }
            ObjectNode json = JSON.createObjectNode();
            json.put("store", store.location());
            json.put("testId", testId).put("fingerprint", chosen).put("metric", metric).put("label", measure.name())
                    .put("unit", measure.unit()).put("direction", measure.direction().name())
                    .put("model", chosenThreshold.model().key()).put("boundary", chosenThreshold.boundary())
                    .put("window", chosenThreshold.window());
            if (series.size() > 1 && fingerprint == null) {
                String note = "note: test " + testId + " has " + series.size() + " configuration fingerprints; "
                        + "showing " + chosen + " (its latest run's), choose another with --fingerprint";
                json.put("note", note);
                if (format() != Format.JSON) {
                    err.println(note);
                }
            }
            ArrayNode points = json.putArray("points");
            EDivisive eDivisive;
            try {
                eDivisive = new EDivisive(changePointSignificance, EDivisive.DEFAULT_PERMUTATIONS,
                        EDivisive.DEFAULT_MIN_SIZE, 0);
            } catch (IllegalArgumentException e) {
                throw new UsageError("--change-point-significance: " + e.getMessage());
            }
            List<EDivisive.ChangePoint> shifts = eDivisive.changePoints(
                    runs.stream().mapToDouble(r -> r.metrics().get(metric)).toArray());
            ArrayNode shiftJson = json.putArray("changePoints");
            List<String> shiftLines = new java.util.ArrayList<>();
            for (EDivisive.ChangePoint cp : shifts) {
                RunRecord first = runs.get(cp.index());
                shiftJson.addObject().put("runId", first.id()).put("index", cp.index()).put("before", cp.before())
                        .put("after", cp.after()).put("relativeChange", cp.relativeChange()).put("qHat", cp.qHat())
                        .put("pValue", cp.pValue()).put("commit", first.identity().commit());
                shiftLines.add(String.format(java.util.Locale.ROOT, "  from run %d (%s): mean %s -> %s%s (%+.1f %%), "
                        + "p = %.3f", first.id(), shortCommit(first.identity().commit()), number(cp.before()),
                        number(cp.after()), measure.unit().isEmpty() ? "" : " " + measure.unit(), 100 * cp.relativeChange(),
                        cp.pValue()));
            }
            // a long metric name (a decode bucket, a category) is named above the table, not as a wide column
            boolean longName = metric.length() > SHORT_METRIC;
            TextTable table = new TextTable(List.of("run", "started", "commit",
                    (longName ? "value" : metric) + unitSuffix(measure), "verdict", "detail")).keepWhole(4);
            List<String> flagged = new ArrayList<>();
            for (RunRecord listed : runs) {
                // the run with its histograms, which the two-sample models compare
                RunRecord r = store.run(listed.id()).orElse(listed);
                HistoryVerdict verdict = HistoryCheck.of(store, r, chosenThreshold).check(metric).orElseThrow();
                Change change = verdict.change();
                double value = r.metrics().get(metric);
                points.addObject().put("runId", r.id()).put("startedAt", r.identity().startedAt().toString())
                        .put("commit", r.identity().commit()).put("value", value).put("change", change.name())
                        .put("model", verdict.result().model()).put("description", verdict.describe());
                String marker = change == Change.REGRESSION || change == Change.IMPROVEMENT ? " <- change point" : "";
                // the cell leaves out the metric's label, which the header or the line above the table gives
                String detail = verdict.describe();
                String label = verdict.result().measure().name() + " ";
                detail = detail.startsWith(label) ? detail.substring(label.length()) : detail;
                table.row(List.of(r.id(), started(r.identity().startedAt()), shortCommit(r.identity().commit()),
                        number(value), change.name() + marker, verdict.result().model() + ": " + detail));
                if (!marker.isEmpty()) {
                    flagged.addAll(wrap("run " + r.id() + ": " + change.name() + ": " + verdict.result().model() + ": "
                            + verdict.describe(), "  "));
                }
            }
            if (format() == Format.TABLE) {
                if (longName) {
                    wrap("metric " + metric + ": " + measure.name(), "").forEach(out::println);
                }
                if (table.printTable(out, WIDTH)) {
                    out.println("(… : cut to fit " + WIDTH + " columns; --format json or csv prints every cell whole)");
                }
                if (!flagged.isEmpty()) {
                    out.println("the flagged runs' verdicts:");
                    flagged.forEach(out::println);
                }
                out.println(shifts.isEmpty() ? "E-Divisive change points (p <= " + changePointSignificance + "): none"
                        : "E-Divisive change points (p <= " + changePointSignificance + "):");
                shiftLines.forEach(out::println);
            }
            java.util.SortedMap<String, String> names = new java.util.TreeMap<>();
            if (HistoryMetrics.isKernelMetric(metric)) {
                Optional.ofNullable(store.kernelNames().get(metric)).ifPresent(n -> names.put(metric, n));
            }
            if (!names.isEmpty()) {
                ObjectNode legend = json.putObject("kernelNames");
                names.forEach(legend::put);
            }
            if (format() == Format.TABLE) {
                legendLines(names).forEach(out::println);
            } else {
                print(table, json);
            }
            return 0;
        }

        /** The configuration keys' threshold (from the environment, else their defaults) with the options applied. */
        private HistoryThreshold threshold() {
            HistoryThreshold t = HistoryThreshold.from(key -> Optional.ofNullable(
                    System.getenv(ProfiledRolloutKeys.environmentVariable(key))));
            if (threshold != null) {
                HistoryThreshold.Model model;
                try {
                    model = HistoryThreshold.Model.of(threshold);
                } catch (IllegalArgumentException e) {
                    throw new UsageError("--threshold '" + threshold + "' is not a threshold model: use one of "
                            + Arrays.stream(HistoryThreshold.Model.values()).map(HistoryThreshold.Model::key)
                            .reduce((a, b) -> a + ", " + b).orElse(""));
                }
                t = t.withModel(model);
            }
            if (boundary != null) {
                try {
                    t = t.withBoundary(boundary);
                } catch (IllegalArgumentException e) {
                    throw new UsageError("--boundary: " + e.getMessage());
                }
            }
            if (window != null) {
                t = t.withWindow(window);
            }
            return t;
        }
    }

    // -------------------------------------------------------------------------------------------------------- import

    @Command(name = "import", mixinStandardHelpOptions = true,
            description = {"Records every test output directory (holding summary.json) found under each DIR, e.g. "
                    + "target/profiled-rollout, as the extension would have.",
                    "Idempotent: a directory whose run is already stored (same test id and start) is skipped."})
    static final class Import extends Sub {

        @Parameters(arity = "1..*", paramLabel = "DIR", description = "Test output directories or directories "
                + "above them.")
        List<Path> directories = new ArrayList<>();

        @Option(names = "--package", paramLabel = "PKG", description = "Package of the test classes, prefixed to "
                + "the class name of directories whose summary.json names the class without it (so the runs join "
                + "the series the extension records under <package>.<Class>#<method>).")
        String packageName;

        @Override
        int run(HistoryStore store) {
            HistoryImport importer = new HistoryImport(store, packageName);
            int exit = 0;
            int imported = 0;
            int skipped = 0;
            ObjectNode json = JSON.createObjectNode();
            json.put("store", store.location());
            ArrayNode results = json.putArray("directories");
            TextTable table = new TextTable(List.of("directory", "result", "runs", "test"));
            for (Path dir : directories) {
                List<Path> found = HistoryImport.testDirectories(dir);
                if (found.isEmpty()) {
                    throw new UsageError("no summary.json in or below " + dir + ": point at a test's output "
                            + "directory or a directory above several, e.g. target/profiled-rollout");
                }
                for (Path testDir : found) {
                    ObjectNode node = results.addObject().put("directory", testDir.toString());
                    try {
                        HistoryImport.Result result = importer.importDirectory(testDir);
                        node.put("result", result.imported() ? "imported" : "skipped");
                        ArrayNode ids = node.putArray("runIds");
                        result.runIds().forEach(ids::add);
                        node.put("testId", result.testId());
                        if (result.imported()) {
                            imported++;
                        } else {
                            skipped++;
                            node.put("reason", result.reason());
                        }
                        table.row(List.of(testDir, result.imported() ? "imported" : "skipped: " + result.reason(),
                                result.runIds().stream().map(String::valueOf).reduce((a, b) -> a + " " + b).orElse(""),
                                result.testId()));
                    } catch (IllegalArgumentException | UncheckedIOException e) {
                        exit = 1;
                        node.put("result", "failed").put("reason", e.getMessage());
                        table.row(List.of(testDir, "failed: " + e.getMessage(), "", ""));
                    }
                }
            }
            json.put("imported", imported).put("skipped", skipped);
            print(table, json);
            if (format() == Format.TABLE) {
                out.println(imported + " imported, " + skipped + " already in " + store.location());
            }
            return exit;
        }
    }

    // --------------------------------------------------------------------------------------------------------- prune

    @Command(name = "prune", mixinStandardHelpOptions = true,
            description = "Deletes all but the latest N runs of each series (test id and fingerprint), and with "
                    + "--older-than every run started before that age.")
    static final class Prune extends Sub {

        @Option(names = "--keep", required = true, paramLabel = "N",
                description = "Runs to keep per series (at least 1).")
        int keep;

        @Option(names = "--older-than", paramLabel = "AGE", description = "Also delete runs older than AGE: "
                + "<number>d|h|m (e.g. 30d) or an ISO-8601 duration (P30D).")
        String olderThan;

        @Override
        int run(HistoryStore store) {
            requirePositive("--keep", keep);
            Instant cutoff = olderThan == null ? null : Instant.now().minus(age(olderThan));
            int deleted = store.prune(keep, cutoff);
            ObjectNode json = JSON.createObjectNode().put("store", store.location()).put("deleted", deleted)
                    .put("keep", keep);
            if (cutoff != null) {
                json.put("olderThan", cutoff.toString());
            }
            TextTable table = new TextTable(List.of("deleted", "keep", "older than"));
            table.row(List.of(deleted, keep, cutoff == null ? "" : cutoff.truncatedTo(ChronoUnit.SECONDS)));
            if (format() == Format.TABLE) {
                out.println("deleted " + deleted + (deleted == 1 ? " run" : " runs") + " from " + store.location()
                        + " (kept the latest " + keep + " of each series"
                        + (cutoff == null ? "" : ", none started before " + cutoff.truncatedTo(ChronoUnit.SECONDS))
                        + ")");
            } else {
                print(table, json);
            }
            return 0;
        }

        static Duration age(String text) {
            Matcher m = Pattern.compile("(\\d+)\\s*([dhm])").matcher(text.trim().toLowerCase(Locale.ROOT));
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "d" -> Duration.ofDays(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofMinutes(n);
                };
            }
            try {
                return Duration.parse(text.trim());
            } catch (DateTimeParseException e) {
                throw new UsageError("--older-than '" + text + "' is not an age: use e.g. 30d, 12h, 90m or P30D");
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------ helpers

    static void requirePositive(String option, int value) {
        if (value < 1) {
            throw new UsageError(option + " " + value + " is below 1: give a positive number");
        }
    }

    /**
     * The legend of kernel metric ids, each id with its full kernel name, wrapped at {@link #WIDTH} columns (the name
     * continues on indented lines); nothing when there are none.
     */
    static List<String> legendLines(Map<String, String> names) {
        List<String> lines = new ArrayList<>();
        if (names.isEmpty()) {
            return lines;
        }
        lines.add("kernels (metric id: full kernel name):");
        int indent = 2 + names.keySet().stream().mapToInt(String::length).max().orElse(0) + 2;
        int room = WIDTH - indent;
        names.forEach((id, name) -> {
            String head = "  " + id + ":" + " ".repeat(indent - 3 - id.length());
            for (int from = 0; from < name.length() || from == 0; from += room) {
                String part = name.substring(from, Math.min(name.length(), from + room));
                lines.add((from == 0 ? head : " ".repeat(indent)) + part);
            }
        });
        return lines;
    }

    /**
     * A text as lines of at most {@link #WIDTH} characters, each starting with {@code indent}, broken after a space
     * where there is one in the line's second half, else within a word.
     */
    static List<String> wrap(String text, String indent) {
        List<String> lines = new ArrayList<>();
        int room = WIDTH - indent.length();
        String rest = text;
        while (rest.length() > room) {
            int cut = rest.lastIndexOf(' ', room);
            cut = cut > room / 2 ? cut + 1 : room;
            lines.add(indent + rest.substring(0, cut).stripTrailing());
            rest = rest.substring(cut);
        }
        lines.add(indent + rest);
        return lines;
    }

    static ObjectNode identityJson(ObjectNode node, RunRecord r) {
        return node.put("id", r.id()).put("startedAt", r.identity().startedAt().toString())
                .put("testId", r.identity().testId()).put("fingerprint", r.fingerprint())
                .put("commit", r.identity().commit()).put("outcome", r.outcome());
    }

    /** Every configuration field by name, in declaration order, then {@code extra.<key>}; null when unset. */
    static Map<String, String> configurationFields(RunConfiguration c) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (RecordComponent component : RunConfiguration.class.getRecordComponents()) {
            if (component.getName().equals("extra")) {
                continue;
            }
            try {
                Object value = component.getAccessor().invoke(c);
                fields.put(component.getName(), value == null ? null
                        : value instanceof Double d && d.isInfinite() ? "inf" : value.toString());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("record accessor " + component.getName() + " failed", e);
            }
        }
        c.extra().forEach((k, v) -> fields.put("extra." + k, v));
        return fields;
    }

    /** The fingerprinted fields whose values differ (engine version is not fingerprinted), run 1 then run 2. */
    static Map<String, String[]> differences(RunConfiguration a, RunConfiguration b) {
        Map<String, String[]> differences = new LinkedHashMap<>();
        if (a.fingerprint().equals(b.fingerprint())) {
            return differences;
        }
        Map<String, String> fa = configurationFields(a);
        Map<String, String> fb = configurationFields(b);
        TreeSet<String> extra = new TreeSet<>();
        fa.keySet().stream().filter(k -> k.startsWith("extra.")).forEach(extra::add);
        fb.keySet().stream().filter(k -> k.startsWith("extra.")).forEach(extra::add);
        List<String> keys = new ArrayList<>(fa.keySet().stream().filter(k -> !k.startsWith("extra.")).toList());
        keys.addAll(extra);
        for (String key : keys) {
            if (!key.equals("engineVersion") && !Objects.equals(fa.get(key), fb.get(key))) {
                differences.put(key, new String[] {String.valueOf(fa.get(key)), String.valueOf(fb.get(key))});
            }
        }
        return differences;
    }

    static Optional<Measure> measure(String metric) {
        try {
            return Optional.of(HistoryMetrics.measure(metric));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    static String unit(String metric) {
        return measure(metric).map(Measure::unit).orElse("");
    }

    private static String unitSuffix(Measure measure) {
        return measure.unit().isEmpty() ? "" : " (" + measure.unit() + ")";
    }

    private static String column(String metric) {
        String unit = unit(metric);
        return unit.isEmpty() ? metric : metric + " (" + unit + ")";
    }

    private static String knownTests(HistoryStore store) {
        List<String> tests = store.series().stream().map(HistoryStore.SeriesInfo::testId).distinct().toList();
        if (tests.isEmpty()) {
            return "none (the store is empty)";
        }
        String shown = String.join(", ", tests.subList(0, Math.min(20, tests.size())));
        return tests.size() > 20 ? shown + ", … (" + tests.size() + " in all; `history list --test PATTERN`)" : shown;
    }

    static String started(Instant instant) {
        return instant.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    static String shortCommit(String commit) {
        return commit == null ? "" : commit.length() > 10 ? commit.substring(0, 10) : commit;
    }

    /** Up to 4 significant digits, no exponent for ordinary magnitudes; empty for null. */
    static String number(Double value) {
        if (value == null) {
            return "";
        }
        if (!Double.isFinite(value)) {
            return value.toString();
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return String.valueOf(value.longValue());
        }
        return new java.math.BigDecimal(value).round(new java.math.MathContext(4)).stripTrailingZeros()
                .toPlainString();
    }

    private static String percent(double from, double to) {
        if (from == 0 || !Double.isFinite(from) || !Double.isFinite(to)) {
            return "";
        }
        return String.format(Locale.ROOT, "%+.1f %%", (to - from) / Math.abs(from) * 100);
    }

    private static void putNumber(ObjectNode node, String field, Double value) {
        if (value == null) {
            node.putNull(field);
        } else {
            node.put(field, value);
        }
    }
}
