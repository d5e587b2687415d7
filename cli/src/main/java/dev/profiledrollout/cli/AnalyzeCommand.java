package dev.profiledrollout.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.profiledrollout.cli.internal.SummaryTable;
import dev.profiledrollout.cli.internal.TraceFiles;
import dev.profiledrollout.report.TraceSummaryJson;
import dev.profiledrollout.trace.KinetoTraceReader;
import dev.profiledrollout.trace.TraceFormatException;
import dev.profiledrollout.trace.TraceSummary;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code analyze [--format table|json] PATH...}: kernel and GPU busy/span summaries of Kineto trace files.
 *
 * <p>Each PATH is a trace file or a directory; a directory stands for every {@code *.json} and
 * {@code *.json.gz} file below it, sorted, and files there that turn out not to be traces are skipped with
 * a note on stderr. Definitions and units are those of {@link dev.profiledrollout.trace} (all times ns).
 *
 * <h2>Output</h2>
 * {@code --format json} prints {@code {"traces":[{"file", "kernelEvents", "memoryEvents", "distinctKernels",
 * "kernelTotalNs", "devices":[{"id","busyNs","spanNs"}], "kernels":[{"name","count","totalNs","minNs","maxNs",
 * "meanNs"}], "rank", "warnings"}]}} with every kernel, sorted by totalNs descending; fields may be added later,
 * never renamed. {@code --format table} (the default) prints per file a header and the top 15 kernels.
 *
 * <h2>Exit codes</h2>
 * 0 when every file was summarised; 1 when a file named on the command line is not a trace or cannot be
 * read; 2 for usage errors, including a PATH that does not exist or cannot be read.
 */
@Command(name = "analyze", mixinStandardHelpOptions = true,
        description = "Summarise kernels and GPU busy time of PyTorch profiler (Kineto) traces.")
public final class AnalyzeCommand implements Callable<Integer> {

    /** Output formats. */
    public enum Format { TABLE, JSON }

    static final class FormatConverter implements ITypeConverter<Format> {
        @Override
        public Format convert(String value) {
            try {
                return Format.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(
                        "'" + value + "' is not a format; use table or json");
            }
        }
    }

    @Spec
    private CommandSpec spec;

    @Option(names = "--format", defaultValue = "table", converter = FormatConverter.class,
            paramLabel = "table|json", description = "Output format: table (default) or json.")
    private Format format;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Trace files (.json, .json.gz) or directories.")
    private List<Path> paths = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
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
        int exit = format == Format.JSON ? writeJson(inputs, out, err) : writeTable(inputs, out, err);
        out.flush();
        err.flush();
        return exit;
    }

    private record Input(Path file, boolean fromDirectory) {
    }

    private int writeJson(List<Input> inputs, PrintWriter out, PrintWriter err) throws IOException {
        int exit = 0;
        JsonGenerator json = new JsonFactory().createGenerator(out)
                .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
                .useDefaultPrettyPrinter();
        json.writeStartObject();
        json.writeArrayFieldStart("traces");
        for (Input input : inputs) {
            Outcome outcome = read(input, err);
            exit = Math.max(exit, outcome.exit());
            if (outcome.summary() != null) {
                TraceSummaryJson.write(json, input.file().toString(), outcome.summary());
            }
        }
        json.writeEndArray();
        json.writeEndObject();
        json.flush();
        out.println();
        return exit;
    }

    private int writeTable(List<Input> inputs, PrintWriter out, PrintWriter err) {
        int exit = 0;
        for (Input input : inputs) {
            Outcome outcome = read(input, err);
            exit = Math.max(exit, outcome.exit());
            if (outcome.summary() != null) {
                SummaryTable.print(out, input.file().toString(), outcome.summary());
            }
        }
        return exit;
    }

    /** A file's summary (null when it was not summarised) and the exit code it calls for. */
    private record Outcome(TraceSummary summary, int exit) {
    }

    /**
     * Reads one file, reporting on {@code err} why a file was not summarised. A non-trace found in a directory
     * is only skipped; a non-trace named on the command line, or a file that cannot be read, fails with 1.
     */
    private static Outcome read(Input input, PrintWriter err) {
        try {
            return new Outcome(KinetoTraceReader.read(input.file()), 0);
        } catch (TraceFormatException e) {
            if (input.fromDirectory()) {
                err.println("analyze: skipped " + e.getMessage());
                return new Outcome(null, 0);
            }
            err.println("analyze: " + e.getMessage());
        } catch (IOException e) {
            err.println("analyze: cannot read " + input.file() + ": " + e);
        }
        return new Outcome(null, 1);
    }
}
