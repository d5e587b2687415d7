package dev.profiledrollout.simulator;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import static org.awaitility.Awaitility.await;

/** Test helper: HTTP calls against a simulator and trace-file reading. */
final class SimClient {

    static final ObjectMapper EXACT = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES).build();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final URI base;

    SimClient(EngineSimulator sim) {
        this.base = sim.baseUri();
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        return post(path, json, "application/json");
    }

    HttpResponse<String> post(String path, String body, String contentType) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A non-streaming completion with ignore_eos, so it takes exactly 1 prefill + (maxTokens − 1) decode steps. */
    void complete(int maxTokens) throws IOException, InterruptedException {
        HttpResponse<String> r = post("/v1/completions",
                "{\"prompt\":[1,2,3,4,5,6,7,8],\"max_tokens\":" + maxTokens + ",\"ignore_eos\":true}");
        if (r.statusCode() != 200) {
            throw new AssertionError("completion failed: " + r.statusCode() + " " + r.body());
        }
    }

    static List<Path> traceFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".trace.json.gz")).sorted()
                    .collect(Collectors.toList());
        }
    }

    static List<String> names(List<Path> files) {
        List<String> out = new ArrayList<>();
        files.forEach(p -> out.add(p.getFileName().toString()));
        return out;
    }

    /** Waits until {@code dir} holds at least {@code count} trace files, or fails after 20 s. */
    static List<Path> awaitTraceFiles(Path dir, int count) {
        return await().atMost(Duration.ofSeconds(20)).alias(count + " trace files in " + dir)
                .until(() -> traceFiles(dir), files -> files.size() >= count);
    }

    static JsonNode readTrace(Path file) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            return EXACT.readTree(in);
        }
    }

    static List<JsonNode> events(JsonNode trace, String cat) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (cat.equals(e.path("cat").asText())) {
                out.add(e);
            }
        }
        return out;
    }

    /** Parses a Kineto µs decimal into ns exactly. */
    static long ns(JsonNode value) {
        return value.decimalValue().movePointRight(3).longValueExact();
    }
}
