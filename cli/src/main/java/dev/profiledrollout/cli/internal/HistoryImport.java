package dev.profiledrollout.cli.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.report.ReportData;
import dev.profiledrollout.report.RunHeader;
import dev.profiledrollout.history.HistoryStore;
import dev.profiledrollout.history.RunIdentity;
import dev.profiledrollout.history.RunRecord;
import dev.profiledrollout.history.RunRecords;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apiguardian.api.API;

/**
 * Records test output directories of earlier runs in a {@link HistoryStore} through {@link RunRecords}, once each.
 *
 * <h2>Identity of an imported run</h2>
 * <ul>
 *   <li>Test id: {@code history.testId} of {@code summary.json} (a phased test's: of {@code phases[0].history},
 *       without its {@code /<PHASE>}) when the extension wrote one; else from
 *       {@code summary.json} {@code test}: {@code <Class>.<method>} becomes {@code [<package>.]<Class>#<method>},
 *       {@code bench <name>} (a {@code bench --save-result} details directory) becomes {@code bench:<name>}.</li>
 *   <li>Start: the earliest last-modified time of the directory's {@code latency.hlog}, {@code requests.jsonl} and
 *       {@code summary.json} (the first two are written once, when the window ends; {@code summary.json} is rewritten
 *       when the outcome or the history block is added). No commit, branch or build: they are not known after the
 *       fact.</li>
 * </ul>
 *
 * <h2>Idempotence</h2>
 * A directory is skipped when its {@code summary.json} {@code history} blocks (the test's, or each phase's in
 * {@code phases[i].history}) say the extension recorded it and this store holds each {@code runId} with that test id
 * and configuration fingerprint; or when the store already holds a run of the same test id and start (an earlier
 * import).
 */
@API(status = INTERNAL)
public final class HistoryImport {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HistoryStore store;
    private final String packageName;

    /**
     * @param store       where to record
     * @param packageName package prefixed to class names that {@code summary.json} gives without one, or null
     */
    public HistoryImport(HistoryStore store, String packageName) {
        this.store = store;
        this.packageName = packageName == null || packageName.isBlank() ? null : packageName.strip();
    }

    /**
     * What became of one directory.
     *
     * @param testId   the test id of the run (without a phase)
     * @param imported true when recorded now, false when skipped
     * @param runIds   the run ids recorded now, or those already stored when skipped
     * @param reason   why it was skipped, or null
     */
    @API(status = INTERNAL)
    public record Result(String testId, boolean imported, List<Long> runIds, String reason) {
    }

    /**
     * The test output directories in or below {@code root}: every directory holding a {@code summary.json}, except
     * the phase directories of a phased test (they are read with their test's directory), sorted.
     */
    public static List<Path> testDirectories(Path root) {
        if (Files.isRegularFile(root) && root.getFileName().toString().equals("summary.json")) {
            return List.of(root.toAbsolutePath().getParent());
        }
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        List<Path> found;
        try (Stream<Path> files = Files.walk(root)) {
            found = files.filter(p -> p.getFileName().toString().equals("summary.json") && Files.isRegularFile(p))
                    .map(Path::getParent).map(p -> p.toAbsolutePath().normalize()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not list " + root, e);
        }
        Set<Path> phases = new HashSet<>();
        for (Path dir : found) {
            JsonNode summary;
            try {
                summary = read(dir);
            } catch (IllegalArgumentException e) {
                continue; // importDirectory reports it
            }
            for (RunHeader.PhaseEntry phase : RunHeader.of(summary).phases()) {
                phases.add(dir.resolve(phase.directoryName()).toAbsolutePath().normalize());
            }
        }
        return found.stream().filter(d -> !phases.contains(d)).toList();
    }

    /**
     * Records one test output directory unless its run is already stored.
     *
     * @throws IllegalArgumentException naming the directory when its {@code summary.json} is unreadable or names no
     *                                  test
     * @throws UncheckedIOException     when a file cannot be read
     */
    public Result importDirectory(Path directory) {
        JsonNode summary = read(directory);
        String testId = testId(directory, summary);
        Instant startedAt = startedAt(directory);
        RunIdentity identity = new RunIdentity(testId, startedAt, null, null, null, null, null);
        List<RunRecord> records = RunRecords.fromDirectory(directory, identity);
        List<Long> recordedByTest = recordedByTest(summary, records);
        if (recordedByTest.size() == records.size()) {
            return new Result(testId, false, recordedByTest, "recorded by the test as run " + join(recordedByTest));
        }
        List<Long> existing = new ArrayList<>();
        for (RunRecord record : records) {
            String id = record.identity().testId();
            store.list(id, Integer.MAX_VALUE).stream()
                    .filter(r -> r.identity().testId().equals(id) && r.identity().startedAt().equals(startedAt))
                    .findFirst().ifPresent(r -> existing.add(r.id()));
        }
        if (existing.size() == records.size()) {
            return new Result(testId, false, existing, "already imported as run " + join(existing));
        }
        List<Long> ids = new ArrayList<>();
        for (RunRecord record : records) {
            ids.add(store.record(record).id());
        }
        return new Result(testId, true, ids, null);
    }

    /**
     * The ids of the runs the extension recorded in this store for the records, as the {@code history} blocks say
     * (the test's, or each phase's in {@code phases[i].history}): a block counts when the store holds its
     * {@code runId} with its test id and the record's fingerprint.
     */
    private List<Long> recordedByTest(JsonNode summary, List<RunRecord> records) {
        RunHeader head = RunHeader.of(summary);
        List<ReportData.History> blocks = new ArrayList<>();
        if (!head.phases().isEmpty()) {
            head.phases().forEach(phase -> blocks.add(phase.history()));
        } else {
            blocks.add(head.history());
        }
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < blocks.size() && i < records.size(); i++) {
            ReportData.History block = blocks.get(i);
            if (block == null || !block.recorded() || block.runId() == null) {
                continue;
            }
            long runId = block.runId();
            String fingerprint = records.get(i).fingerprint();
            String blockTestId = block.testId();
            if (store.run(runId).filter(r -> r.identity().testId().equals(blockTestId)
                    && r.fingerprint().equals(fingerprint)).isPresent()) {
                ids.add(runId);
            }
        }
        return ids;
    }

    private static String join(List<Long> ids) {
        return ids.stream().map(String::valueOf).reduce((a, b) -> a + ", " + b).orElse("");
    }

    private String testId(Path directory, JsonNode summary) {
        RunHeader head = RunHeader.of(summary);
        boolean phased = !head.phases().isEmpty();
        ReportData.History block = phased ? head.phases().get(0).history() : head.history();
        String recorded = block == null ? "" : block.testId();
        if (!recorded.isBlank()) {
            // a phase's block names the phase's id, <test id>/<PHASE>
            return phased && recorded.contains("/") ? recorded.substring(0, recorded.lastIndexOf('/')) : recorded;
        }
        String test = head.test() == null ? "" : head.test();
        if (test.startsWith("bench ")) {
            return "bench:" + test.substring("bench ".length()).strip();
        }
        int dot = test.lastIndexOf('.');
        if (test.isBlank() || dot <= 0 || dot == test.length() - 1) {
            throw new IllegalArgumentException(directory.resolve("summary.json") + " names no test as "
                    + "<Class>.<method> in \"test\" (found \"" + test + "\"): it is not a profiled test's output");
        }
        String className = test.substring(0, dot);
        if (packageName != null && !className.contains(".")) {
            className = packageName + "." + className;
        }
        return className + "#" + test.substring(dot + 1);
    }

    private static Instant startedAt(Path directory) {
        Instant earliest = null;
        for (String name : List.of("latency.hlog", "requests.jsonl", "summary.json")) {
            Path file = directory.resolve(name);
            if (Files.isRegularFile(file)) {
                try {
                    Instant modified = Files.getLastModifiedTime(file).toInstant();
                    earliest = earliest == null || modified.isBefore(earliest) ? modified : earliest;
                } catch (IOException e) {
                    throw new UncheckedIOException("Could not read the time of " + file, e);
                }
            }
        }
        return earliest;
    }

    private static JsonNode read(Path directory) {
        Path file = directory.resolve("summary.json");
        try {
            return JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalArgumentException(file + " is not readable JSON (" + e.getMessage()
                    + "): re-run the test or remove the directory", e);
        }
    }
}
