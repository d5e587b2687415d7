package dev.profiledrollout.engine.nsys;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.reading.SqliteTraceReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apiguardian.api.API;

/**
 * Drives the Nsight Systems CLI for an engine launched under {@code nsys profile --start-later}
 * ({@code docs/PROTOCOLS.md} §4) and summarises the reports it writes.
 *
 * <h2>Commands (exact argument lists)</h2>
 * <ul>
 *   <li>{@link #sessions()}: {@code nsys sessions list -p true -f json}; when that fails or prints no JSON (older nsys
 *       has no {@code -f}), {@code nsys sessions list} and the plain table
 *       ({@code ID TIME STATE LAUNCH NAME}; the {@code ID} header row skipped; column 1 the ID, the last the name).</li>
 *   <li>{@link #start(String)}: {@code nsys start --session=<s>}; {@link #stop(String)}: {@code nsys stop --session=<s>}
 *       (stop writes a report and leaves the application running).</li>
 *   <li>{@link #kernelSummary(Path)}: {@code nsys stats --report cuda_gpu_kern_sum --format csv <report>}.</li>
 *   <li>{@link #exportSqlite(Path, Path)}: {@code nsys export --type sqlite --output <out> <report>}.</li>
 * </ul>
 * Every command must exit 0 within the timeout; otherwise an {@link NsysException} quotes the command, the exit code
 * and its standard error. Thread-safe (each call runs its own process).
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class NsysController {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String executable;
    private final Duration timeout;

    /**
     * @param executable the nsys executable, a path or a name on the {@code PATH} ({@code profiledrollout.nsys.path}); not null
     * @param timeout    how long one command may run (stats on a large report takes minutes); positive
     */
    public NsysController(String executable, Duration timeout) {
        this.executable = Objects.requireNonNull(executable, "executable");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * @return the sessions nsys knows, in printed order; empty when none
     * @throws NsysException when {@code nsys sessions list} fails in both formats
     */
    public List<NsysSession> sessions() {
        Result json = run(List.of("sessions", "list", "-p", "true", "-f", "json"));
        if (json.exitCode == 0) {
            Optional<List<NsysSession>> parsed = parseJson(json.stdout);
            if (parsed.isPresent()) {
                return parsed.get();
            }
        }
        return parsePlain(check(run(List.of("sessions", "list")), "sessions list").stdout);
    }

    /**
     * The session to control: {@code configured} when given; else the session named {@code preferredName} (your own
     * {@code --session-new}); else the only session; else the only one in {@code DelayedCollection}.
     *
     * @throws NsysException naming the sessions seen when none or several could be meant
     */
    public String resolveSession(Optional<String> configured, Optional<String> preferredName) {
        if (configured.isPresent()) {
            return configured.get();
        }
        List<NsysSession> sessions = sessions();
        if (preferredName.isPresent()) {
            for (NsysSession s : sessions) {
                if (s.name().equals(preferredName.get()) || s.id().equals(preferredName.get())) {
                    return s.id();
                }
            }
        }
        if (sessions.size() == 1) {
            return sessions.get(0).id();
        }
        List<NsysSession> delayed = sessions.stream().filter(s -> s.state().equals("DelayedCollection")).toList();
        if (delayed.size() == 1) {
            return delayed.get(0).id();
        }
        throw new NsysException((sessions.isEmpty() ? "No nsys session is running" : "Several nsys sessions are running "
                + sessions) + ". Launch the engine under nsys profile --start-later=true --session-new=<name>, and set"
                + " " + ProfiledRolloutKeys.NSYS_SESSION + "=<name>.");
    }

    /** {@code nsys start --session=<session>}. @throws NsysException on a non-zero exit */
    public void start(String session) {
        check(run(List.of("start", "--session=" + session)), "start --session=" + session);
    }

    /** {@code nsys stop --session=<session>}: writes the session's report. @throws NsysException on a non-zero exit */
    public void stop(String session) {
        check(run(List.of("stop", "--session=" + session)), "stop --session=" + session);
    }

    /**
     * {@code nsys stats --report cuda_gpu_kern_sum --format csv <report>}, kept beside the report as
     * {@code <report>.cuda_gpu_kern_sum.csv} and parsed by the trace package's reader
     * ({@link SqliteTraceReader#readNsysKernelSummaryCsv(Path)}).
     *
     * @param report an {@code .nsys-rep} (or exported {@code .sqlite}) file; must exist
     * @return one aggregate per kernel name (ns), ordered as nsys prints them (total time descending)
     * @throws NsysException when the command fails or prints no kernel summary
     */
    public List<KernelStats> kernelSummary(Path report) {
        if (!Files.isRegularFile(report)) {
            throw new NsysException("No nsys report at " + report + "; check " + ProfiledRolloutKeys.NSYS_REPORT
                    + " (the session's --output) and that nsys stop has written it.");
        }
        Result r = check(run(List.of("stats", "--report", "cuda_gpu_kern_sum", "--format", "csv", report.toString())),
                "stats");
        Path csv = report.resolveSibling(report.getFileName() + ".cuda_gpu_kern_sum.csv");
        try {
            Files.writeString(csv, r.stdout);
            return SqliteTraceReader.readNsysKernelSummaryCsv(csv).kernels();
        } catch (IOException e) {
            throw new NsysException("nsys stats printed no CUDA kernel summary for " + report + " (" + e.getMessage()
                    + "); was the capture empty, or the engine run without --cuda-graph-trace=node?", e);
        }
    }

    /**
     * {@code nsys export --type sqlite --output <sqlite> <report>}, for the trace package's SQLite reader.
     *
     * @return {@code sqlite}
     * @throws NsysException on a non-zero exit
     */
    public Path exportSqlite(Path report, Path sqlite) {
        check(run(List.of("export", "--type", "sqlite", "--output", sqlite.toString(), report.toString())), "export");
        return sqlite;
    }

    static Optional<List<NsysSession>> parseJson(String stdout) {
        String text = stdout.strip();
        if (!(text.startsWith("[") || text.startsWith("{"))) {
            return Optional.empty();
        }
        try {
            JsonNode root = JSON.readTree(text);
            JsonNode array = root.isArray() ? root : root.path("sessions").isArray() ? root.path("sessions")
                    : root.path("Sessions");
            if (!array.isArray()) {
                return Optional.empty();
            }
            List<NsysSession> sessions = new ArrayList<>();
            for (JsonNode s : array) {
                sessions.add(new NsysSession(field(s, "id"), field(s, "name"), field(s, "state")));
            }
            return Optional.of(List.copyOf(sessions));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static String field(JsonNode node, String name) {
        for (var e : node.properties()) {
            if (e.getKey().toLowerCase(Locale.ROOT).equals(name)) {
                return e.getValue().asText();
            }
        }
        return "";
    }

    /**
     * The plain table of {@code docs/PROTOCOLS.md} §4: rows {@code ID TIME STATE LAUNCH NAME}; the {@code ID} header
     * skipped.
     */
    static List<NsysSession> parsePlain(String stdout) {
        List<NsysSession> sessions = new ArrayList<>();
        for (String line : stdout.split("\\R")) {
            String[] cols = line.trim().split("\\s+");
            if (cols.length < 2 || cols[0].equals("ID") || !cols[0].chars().allMatch(Character::isDigit)) {
                continue;
            }
            String state = cols.length >= 5 ? cols[2] : "";
            sessions.add(new NsysSession(cols[0], cols[cols.length - 1], state));
        }
        return List.copyOf(sessions);
    }

    private record Result(int exitCode, String stdout, String stderr, List<String> command) {
    }

    private Result check(Result r, String what) {
        if (r.exitCode != 0) {
            throw new NsysException("'" + String.join(" ", r.command) + "' exited with " + r.exitCode + ": "
                    + r.stderr.strip() + (r.stderr.isBlank() ? r.stdout.strip() : "")
                    + (what.startsWith("start") || what.startsWith("stop")
                    ? " (is the engine running under nsys profile --start-later=true? see nsys sessions list)" : ""));
        }
        return r;
    }

    private Result run(List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(executable);
        command.addAll(args);
        Path stderr = null;
        try {
            stderr = Files.createTempFile("nsys-stderr", ".txt");
            Process p = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new NsysException("'" + String.join(" ", command) + "' did not finish within " + timeout
                        + "; raise the timeout (" + ProfiledRolloutKeys.STOP_TIMEOUT + " in the JUnit extension)");
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8),
                    Files.readString(stderr, StandardCharsets.UTF_8), command);
        } catch (IOException e) {
            throw new NsysException("Could not run '" + String.join(" ", command) + "': " + e.getMessage()
                    + ". Install Nsight Systems or set " + ProfiledRolloutKeys.NSYS_PATH + " to the nsys executable.",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NsysException("Interrupted while running '" + String.join(" ", command) + "'", e);
        } finally {
            if (stderr != null) {
                try {
                    Files.deleteIfExists(stderr);
                } catch (IOException ignored) {
                    // a leftover temp file is harmless
                }
            }
        }
    }
}
