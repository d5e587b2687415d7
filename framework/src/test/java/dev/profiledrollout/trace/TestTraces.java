package dev.profiledrollout.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Locates the real traces in the repository's {@code testdata/traces} (origin and licences in its README) and their
 * reference summaries in {@code expected/}.
 */
public final class TestTraces {

    private TestTraces() {
    }

    /** The {@code test.traces} system property (set by surefire), else {@code ../testdata/traces} from the module. */
    public static Path root() {
        String property = System.getProperty("test.traces");
        Path root = property != null && !property.isBlank() ? Path.of(property)
                : Path.of("").toAbsolutePath().resolve("../testdata/traces");
        root = root.normalize();
        if (!Files.isDirectory(root)) {
            throw new IllegalStateException("test traces not found at " + root
                    + "; run Maven from the repository (they live in testdata/traces) or pass -Dtest.traces=DIR");
        }
        return root;
    }

    /** A file under the root, e.g. {@code tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz}. */
    public static Path resolve(String relative) {
        return root().resolve(relative);
    }

    /** Every JSON trace under the root (not {@code expected/}), sorted. */
    public static List<Path> jsonTraces() {
        try (Stream<Path> files = Files.walk(root())) {
            return files.filter(p -> p.getFileName().toString().endsWith(".json.gz")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Path traceFilter(int rank) {
        return root().resolve("hta/trace_filter/sampled_rank-" + rank + ".json.gz");
    }

    /** The expected summary whose {@code "file"} is this trace's file name. */
    public static JsonNode expectedFor(Path trace) {
        Map<String, JsonNode> byFile = new HashMap<>();
        ObjectMapper mapper = new ObjectMapper();
        try (Stream<Path> files = Files.list(root().resolve("expected"))) {
            for (Path p : files.filter(f -> f.toString().endsWith(".summary.json")).toList()) {
                JsonNode node = mapper.readTree(p.toFile());
                byFile.put(node.get("file").asText(), node);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        JsonNode expected = byFile.get(trace.getFileName().toString());
        if (expected == null) {
            throw new IllegalStateException("no expected/*.summary.json has \"file\": \"" + trace.getFileName()
                    + "\"; found " + byFile.keySet());
        }
        return expected;
    }
}
