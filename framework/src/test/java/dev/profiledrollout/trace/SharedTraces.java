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

/** Locates the real traces in {@code shared/traces} and their reference summaries in {@code expected/}. */
final class SharedTraces {

    private SharedTraces() {
    }

    /** The {@code shared.traces} system property (set by surefire), else {@code ../../shared/traces}. */
    static Path root() {
        String property = System.getProperty("shared.traces");
        Path root = property != null && !property.isBlank() ? Path.of(property)
                : Path.of("").toAbsolutePath().resolve("../../shared/traces");
        root = root.normalize();
        if (!Files.isDirectory(root)) {
            throw new IllegalStateException("shared traces not found at " + root
                    + "; run from the project or pass -Dshared.traces=/path/to/shared/traces");
        }
        return root;
    }

    /** Every JSON trace under the root (not {@code expected/}), sorted. */
    static List<Path> jsonTraces() {
        try (Stream<Path> files = Files.walk(root())) {
            return files.filter(p -> p.getFileName().toString().endsWith(".json.gz")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path traceFilter(int rank) {
        return root().resolve("hta/trace_filter/sampled_rank-" + rank + ".json.gz");
    }

    /** The expected summary whose {@code "file"} is this trace's file name. */
    static JsonNode expectedFor(Path trace) {
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
