package dev.profiledrollout.cli;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.cli.internal.AnalysisViews;
import dev.profiledrollout.cli.internal.TraceMerger;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.KernelCategories;
import dev.profiledrollout.trace.baselines.BaselineDiff;
import dev.profiledrollout.trace.baselines.TraceBaseline;
import dev.profiledrollout.trace.files.TraceFileName;
import dev.profiledrollout.trace.files.TraceFiles;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import dev.profiledrollout.trace.reading.ParallelReads;
import dev.profiledrollout.trace.reading.SqliteTraceReader;
import dev.profiledrollout.trace.reading.TraceFormatException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apiguardian.api.API;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code analyze [--format table|json|csv] [--by kernel|category|operator|roofline|step|stage|idle|queue|queue-series]
 * [--all-ranks]
 * [--baseline FILE] [--write-baseline FILE] [--merge OUT] PATH...}: kernel and GPU time analysis of trace files.
 *
 * <p>{@code --merge OUT} analyses nothing: it writes the Kineto JSON inputs as one trace ({@link TraceMerger}: every
 * event kept, pids unique per rank, processes named {@code "TP-1 · GPU 1"} and sorted by rank; ranks from different
 * directories labelled {@code worker-1/TP-0}) and prints one line per rank.
 *
 * <p>Inputs: Kineto JSON ({@code .json}, {@code .json.gz}; SGLang {@code merged-*} files are split into ranks), ROCm RPD
 * and nsys SQLite exports ({@code .rpd}, {@code .sqlite}, {@code .db}) and {@code nsys stats} kernel summary CSV
 * ({@code .csv}) named on the command line.
 *
 * <p>Each PATH is a trace file or a directory; a directory stands for every {@code *.json} and
 * {@code *.json.gz} file below it, sorted, and files there that turn out not to be traces are skipped with
 * a note on stderr. Definitions and units are those of {@link dev.profiledrollout.trace} (all times ns).
 * vLLM's frontend (API server) trace ({@link TraceFileName#isFrontend}, {@code *.async_llm.*}) holds CPU events only:
 * it is listed apart from the ranks and never enters the cross-rank table, the baseline or the CSV.
 *
 * <h2>Output</h2>
 * {@code --format json} prints {@code {"traces":[…]}}, one object per summarised file in the shape of
 * {@link dev.profiledrollout.report.TraceSummaryJson} ({@code "file"} is the path as given, every kernel, sorted by
 * totalNs descending, {@code categories} by share descending); {@code "frontendTraces"} (only when there are any)
 * holds the frontend traces in the same shape; with {@code --all-ranks} also {@code "allRanks":{"busyImbalance",
 * "straggler","ranks":[{"rank","file","kernelTotalNs","busyNs","spanNs"}],"kernelSpread":[…],"rankSets":[{"directory",
 * "ranks","busyImbalance","straggler","stepTimeline"}]}} (ranks of files from several directories are labelled with
 * their directory, e.g. {@code worker-1/TP-0}, and each directory is a rank set; straggler and imbalance are null with
 * fewer than two ranks; {@code stepTimeline} is the set's {@link dev.profiledrollout.trace.analysis.StepTimeline}, absent
 * without two ranks with steps; the table prints one line of it per set), with {@code --baseline} also
 * {@code "baselineDiff"}: the {@link BaselineDiff} with every kernel (shapes in
 * {@link dev.profiledrollout.report.ResultsModule}). Fields are added in later versions, never renamed or removed.
 * {@code --format table} (the default) prints per file a header and the top 15 rows of the
 * {@code --by} view (kernels by default; times in ms with three decimals, shares in %, largest first), then the
 * frontend traces' names. {@code --format csv} prints one CSV table: the baseline diff with
 * {@code --baseline}, else the cross-rank table with {@code --all-ranks}, else the {@code --by} view of every file
 * (first column {@code file}). {@code --write-baseline FILE} writes the kernels of all inputs as a baseline
 * ({@link dev.profiledrollout.trace.baselines.TraceBaseline}).
 *
 * <h2>Exit codes</h2>
 * 0 when every file was summarised; 1 when a file named on the command line is not a trace or cannot be
 * read; 2 for usage errors, including a PATH that does not exist or cannot be read. With {@code --merge}: 0 when OUT
 * was written, 1 when an input is not a JSON trace or OUT cannot be written (no partial OUT is left), 2 when no input
 * is a Kineto JSON trace.
 */
@Command(name = "analyze", mixinStandardHelpOptions = true,
        description = "Summarise kernels and GPU busy time of PyTorch profiler (Kineto) traces.")
@API(status = INTERNAL, since = "0.1")
public final class AnalyzeCommand implements Callable<Integer> {

    /** Output formats. */
    public enum Format { TABLE, JSON, CSV }

    static final class FormatConverter implements ITypeConverter<Format> {
        @Override
        public Format convert(String value) {
            try {
                return Format.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(
                        "'" + value + "' is not a format; use table, json or csv");
            }
        }
    }

    @Spec
    private CommandSpec spec;

    @Option(names = "--format", defaultValue = "table", converter = FormatConverter.class,
            paramLabel = "table|json|csv", description = "Output format: table (default), json or csv.")
    private Format format;

    @Option(names = "--by", defaultValue = "kernel", converter = ByConverter.class,
            paramLabel = "kernel|category|operator|roofline|step|stage|idle|queue|queue-series",
            description = "Table/CSV view (default kernel); roofline: GEMM/attention efficiency (needs record_shapes);"
                    + " idle: per stream, idle time as host wait, kernel wait, other (HTA's categories);"
                    + " queue: per stream, launched GPU operations not yet started (HTA's queue length summary);"
                    + " queue-series: that length at each change, per stream.")
    private AnalysisViews.By by;

    @Option(names = "--all-ranks", description = "Add a cross-rank table: busy, idle, imbalance, straggler, "
            + "per-kernel spread.")
    private boolean allRanks;

    @Option(names = "--baseline", paramLabel = "FILE", description = "Compare with a baseline (a --write-baseline "
            + "file, analyze --format json output or summary.json).")
    private Path baseline;

    @Option(names = "--write-baseline", paramLabel = "FILE", description = "Write the inputs' kernels as a baseline.")
    private Path writeBaseline;

    @Option(names = "--merge", paramLabel = "OUT", description = "Write the rank traces as one Perfetto-ready trace "
            + "(gzip when OUT ends in .gz): processes renamed and ordered by rank. No analysis is printed.")
    private Path merge;

    static final class ByConverter implements ITypeConverter<AnalysisViews.By> {
        @Override
        public AnalysisViews.By convert(String value) {
            try {
                return AnalysisViews.By.valueOf(value.trim().replace('-', '_').toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(
                        "'" + value + "' is not a view; use kernel, category, operator, roofline, step, stage, idle, queue or "
                                + "queue-series");
            }
        }
    }

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Trace files (.json, .json.gz) or directories.")
    private List<Path> paths = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        // --merge analyses nothing, so it needs no warm-up
        AnalyzeWarmUp warmUp = merge == null ? AnalyzeWarmUp.start(format == Format.JSON) : null;
        try {
            return run();
        } finally {
            if (warmUp != null) {
                warmUp.await(Duration.ofSeconds(10));
            }
        }
    }

    private Integer run() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        for (Path path : paths) {
            if (!Files.exists(path)) {
                err.println("analyze: " + path + " does not exist");
                err.flush();
                return 2;
            }
            if (!Files.isReadable(path)) {
                err.println("analyze: " + path + " is not readable");
                err.flush();
                return 2;
            }
        }
        List<Input> inputs = new ArrayList<>();
        for (Path path : paths) {
            if (Files.isDirectory(path)) {
                List<Path> found = TraceFiles.below(path);
                if (found.isEmpty()) {
                    err.println("analyze: no *.json or *.json.gz files below " + path);
                }
                found.forEach(f -> inputs.add(new Input(f, true)));
            } else {
                inputs.add(new Input(path, false));
            }
        }
        if (merge != null) {
            return merge(inputs.stream().map(Input::file).toList(), out, err);
        }
        int exit = 0;
        List<Labeled> read = new ArrayList<>();
        List<Labeled> frontends = new ArrayList<>();
        List<Outcome> outcomes = readAll(inputs, err);
        for (int i = 0; i < inputs.size(); i++) {
            Input input = inputs.get(i);
            Outcome outcome = outcomes.get(i);
            exit = Math.max(exit, outcome.exit());
            boolean frontend = TraceFileName.isFrontend(String.valueOf(input.file().getFileName()));
            (frontend ? frontends : read).addAll(outcome.summaries());
        }
        BaselineDiff diff = null;
        if (baseline != null) {
            try {
                diff = TraceBaseline.read(baseline).diff(read.stream().map(Labeled::summary).toList());
            } catch (IOException e) {
                err.println("analyze: cannot read baseline " + baseline + ": " + e.getMessage());
                err.flush();
                return 2;
            }
        }
        TraceSet set = byDirectory(TraceSet.of(read.stream().map(Labeled::summary).toList()));
        switch (format) {
            case JSON -> AnalyzeOutput.json(out, read, frontends, allRanks ? set : null, diff);
            case CSV -> {
                AnalyzeOutput.csv(out, read, by, allRanks ? set : null, diff);
                frontends.forEach(f -> err.println("analyze: " + f.label() + " is vLLM's frontend (API server) "
                        + "trace: CPU only, not a rank, so not in the CSV; --format table or json lists it"));
            }
            default -> AnalyzeOutput.table(out, read, frontends, by, allRanks ? set : null, diff);
        }
        if (writeBaseline != null) {
            TraceBaseline.of(read.stream().map(Labeled::summary).toList()).write(writeBaseline);
            err.println("analyze: wrote baseline " + writeBaseline);
        }
        out.flush();
        err.flush();
        return exit;
    }

    /**
     * {@code --merge OUT}: the Kineto JSON inputs (frontend traces and non-JSON files left out, with a note) as one
     * trace ({@link TraceMerger}); files from several directories are labelled and grouped by directory as
     * {@code --all-ranks} does.
     */
    private Integer merge(List<Path> files, PrintWriter out, PrintWriter err) {
        List<Path> json = new ArrayList<>();
        for (Path f : files) {
            String name = String.valueOf(f.getFileName());
            if (TraceFileName.isFrontend(name)) {
                err.println("analyze: " + f + " is vLLM's frontend (API server) trace, not a rank: not merged");
            } else if (!name.toLowerCase(Locale.ROOT).endsWith(".json") && !name.toLowerCase(Locale.ROOT)
                    .endsWith(".json.gz")) {
                err.println("analyze: " + f + " is not a Kineto JSON trace (.json, .json.gz): not merged");
            } else if (f.toAbsolutePath().normalize().equals(merge.toAbsolutePath().normalize())) {
                err.println("analyze: " + f + " is the --merge output itself: not merged");
            } else {
                json.add(f);
            }
        }
        if (json.isEmpty()) {
            err.println("analyze: --merge found no Kineto JSON trace among the inputs");
            err.flush();
            return 2;
        }
        try {
            Map<Path, String> directories = directoryLabels(json);
            TraceMerger.Result result = TraceMerger.merge(
                    TraceMerger.byRank(json, f -> directories.getOrDefault(directory(f), "")), merge);
            for (TraceMerger.Rank rank : result.ranks()) {
                out.printf(Locale.ROOT, "%-20s %9d events  %2d processes  %s%n", rank.label(), rank.events(),
                        rank.pids().size(), rank.file());
            }
            out.printf(Locale.ROOT, "wrote %s: %d ranks, %d events%n", merge, result.ranks().size(), result.events());
            if (result.shiftedNs().stream().anyMatch(s -> s != 0)) {
                out.println("note: the ranks' baseTimeNanoseconds differ; timestamps were moved onto the earliest "
                        + "base so the ranks line up");
            }
            out.flush();
            err.flush();
            return 0;
        } catch (TraceFormatException e) {
            err.println("analyze: --merge: " + e.getMessage() + "; leave that file out or repair it");
        } catch (IOException e) {
            err.println("analyze: --merge " + merge + " failed: " + e);
        }
        err.flush();
        return 1;
    }

    private record Input(Path file, boolean fromDirectory) {
    }

    /** A summary and the label it is printed under (the file, plus the rank for split merged traces). */
    record Labeled(String label, TraceSummary summary) {
    }

    /** A file's summaries (empty when it was not summarised), the exit code it calls for, and its messages for stderr. */
    private record Outcome(List<Labeled> summaries, int exit, String messages) {
        Outcome(List<Labeled> summaries, int exit) {
            this(summaries, exit, "");
        }

        Outcome withMessages(String text) {
            return new Outcome(summaries, exit, text);
        }
    }

    /**
     * Reads the inputs in parallel, one reader per core ({@link ParallelReads}: a lone file is read on this thread
     * with its inflate on a second one), and returns the outcomes in input order; each file's messages reach
     * {@code err} in input order, as soon as it and the files before it are read. The 8 files of a 1 GB training rank
     * set took 3.46 s of CPU on one reading thread before (bench/README.md, issue 27 sixth round).
     */
    private static List<Outcome> readAll(List<Input> inputs, PrintWriter err) {
        try {
            return ParallelReads.map(inputs, "analyze-reader", (input, pipe) -> {
                StringWriter text = new StringWriter();
                try (PrintWriter own = new PrintWriter(text)) {
                    return read(input, own, pipe).withMessages(text.toString());
                }
            }, outcome -> {
                err.print(outcome.messages());
                err.flush();
            });
        } catch (IOException notThrown) {
            throw new UncheckedIOException(notThrown); // read() reports every IOException as an outcome
        }
    }

    /**
     * Reads one file, reporting on {@code err} why a file was not summarised. A non-trace found in a directory
     * is only skipped; a non-trace named on the command line, or a file that cannot be read, fails with 1.
     * {@code pipe} as in {@link KinetoTraceReader#read(Path, KernelCategories, boolean, boolean)}.
     */
    private static Outcome read(Input input, PrintWriter err, boolean pipe) {
        Path file = input.file();
        String name = String.valueOf(file.getFileName()).toLowerCase(Locale.ROOT);
        try {
            if (TraceFileName.isSqlite(name)) {
                return one(file, SqliteTraceReader.read(file));
            }
            if (TraceFileName.isNsysCsv(name)) {
                return one(file, SqliteTraceReader.readNsysKernelSummaryCsv(file));
            }
            if (TraceFileName.isMerged(name)) {
                List<Labeled> ranks = new ArrayList<>();
                for (TraceSummary s : KinetoTraceReader.readRanks(file, KernelCategories.defaults(), pipe)) {
                    ranks.add(new Labeled(file + s.rank().map(r -> " [" + r.label() + "]").orElse(""), s));
                }
                return new Outcome(ranks, 0);
            }
            return one(file, KinetoTraceReader.read(file, KernelCategories.defaults(), true, pipe));
        } catch (TraceFormatException e) {
            if (input.fromDirectory()) {
                err.println("analyze: skipped " + e.getMessage());
                return new Outcome(List.of(), 0);
            }
            err.println("analyze: " + e.getMessage());
        } catch (IOException e) {
            err.println("analyze: cannot read " + input.file() + ": " + e);
        }
        return new Outcome(List.of(), 1);
    }

    private static Outcome one(Path file, TraceSummary summary) {
        return new Outcome(List.of(new Labeled(file.toString(), summary)), 0);
    }

    /**
     * For {@code --all-ranks}: traces from different directories (the {@code traces/worker-<n>/} of several engines, or
     * two runs) are told apart by their directory ({@code worker-1/TP-0}) and form one rank set per directory, since
     * ranks of different engines do not wait for each other. The directory's name labels it, or its whole path when
     * two directories share a name. Traces all from one directory keep their plain labels.
     */
    static TraceSet byDirectory(TraceSet set) {
        Map<Path, String> names = directoryLabels(set.traces().stream().map(TraceSummary::file).toList());
        if (names.isEmpty()) {
            return set;
        }
        return set.withWorkers(file -> names.getOrDefault(directory(file), ""), Map.of());
    }

    /**
     * The label of each directory holding {@code files}: its name, or its whole path when two share a name; empty
     * when the files are all in one directory.
     */
    private static Map<Path, String> directoryLabels(List<Path> files) {
        Map<Path, String> names = new LinkedHashMap<>();
        files.forEach(f -> names.put(directory(f), ""));
        if (names.size() < 2) {
            return Map.of();
        }
        Set<String> seen = new HashSet<>();
        boolean unique = names.keySet().stream().allMatch(d -> seen.add(String.valueOf(d.getFileName())));
        names.replaceAll((d, none) -> unique ? String.valueOf(d.getFileName()) : d.toString());
        return names;
    }

    private static Path directory(Path file) {
        Path parent = file.toAbsolutePath().normalize().getParent();
        return parent == null ? Path.of("/") : parent;
    }
}
