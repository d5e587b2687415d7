package dev.profiledrollout.cli;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.report.ReportRenderer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apiguardian.api.API;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code report PATH...}: renders the offline report (charts, {@code kernels.csv}, {@code report.html}) of runs made
 * outside JUnit, from their summary directories, with the same code the JUnit extension uses
 * ({@link ReportRenderer}).
 *
 * <p>Each PATH is one of:
 * <ul>
 *   <li>a run directory holding {@code summary.json} (plus, optionally, {@code requests.jsonl},
 *       {@code timeseries.csv} and {@code latency.hlog}), or a directory above such directories, e.g.
 *       {@code target/profiled-rollout}: every directory below it with a {@code summary.json} is rendered; the
 *       {@code <name>-details} directory {@code bench --save-result} writes is such a run directory (latency tables and
 *       charts, no trace sections), and so is the result directory above it;</li>
 *   <li>a {@code summary.json} file: its directory;</li>
 *   <li>a {@code bench --save-result} result JSON {@code <name>.json}: its {@code <name>-details} directory.</li>
 * </ul>
 * Prints the path of each {@code report.html} written.
 *
 * <h2>Exit codes</h2>
 * 0 when every run was rendered; 1 when a run could not be read or written; 2 when a PATH does not exist or leads to
 * no {@code summary.json}.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Render charts, kernels.csv and report.html from summary directories (summary.json, "
                + "requests.jsonl, timeseries.csv, latency.hlog).")
@API(status = INTERNAL, since = "0.1")
public final class ReportCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "A run directory with summary.json, a directory "
            + "above several (e.g. target/profiled-rollout), or a `bench --save-result` result JSON or directory.")
    private List<Path> directories = new ArrayList<>();

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int exit = 0;
        for (Path dir : directories) {
            List<Path> runs = runs(dir);
            if (runs.isEmpty()) {
                err.println("report: " + notARun(dir) + "; point at a test's output directory, e.g. "
                        + "target/profiled-rollout/<Class>/<method>, or at a `bench --save-result` result JSON or its "
                        + "<name>-details directory (bench --save-result writes summary.json there; run it again for a "
                        + "result saved without one)");
                err.flush();
                return 2;
            }
            for (Path run : runs) {
                try {
                    ReportRenderer.Rendered rendered = ReportRenderer.render(run);
                    out.println(rendered.html() + " (" + rendered.charts().size() + " charts)");
                } catch (UncheckedIOException | IllegalArgumentException e) {
                    err.println("report: " + run + ": " + e.getMessage());
                    exit = 1;
                }
            }
        }
        out.flush();
        return exit;
    }

    private static String notARun(Path path) {
        if (!Files.exists(path)) {
            return path + " does not exist";
        }
        if (Files.isRegularFile(path)) {
            return path + " is neither a summary.json nor a bench result with a "
                    + path.getFileName().toString().replaceAll("\\.json$", "") + "-details/summary.json next to it";
        }
        return "no summary.json in or below " + path;
    }

    private static List<Path> runs(Path dir) {
        if (Files.isRegularFile(dir)) {
            String name = dir.getFileName().toString();
            Path run = name.equals("summary.json") ? dir.toAbsolutePath().getParent()
                    : dir.resolveSibling(name.replaceAll("\\.json$", "") + "-details");
            return Files.isRegularFile(run.resolve("summary.json")) ? List.of(run) : List.of();
        }
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().equals("summary.json") && Files.isRegularFile(p))
                    .map(Path::getParent).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
