package dev.profiledrollout.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/** Shared steps of the fault-matrix tests: run a user's test class, ask the engine, check threads and files. */
final class FaultSupport {

    static final ObjectMapper JSON = new ObjectMapper();
    /** Thread names that must not outlive a run: the load, the simulators, the router, OkHttp dispatchers. */
    static final List<String> OWNED_THREADS = List.of("profiledrollout-load", "simulator-", "router-http",
            "OkHttp http", "trace-reader");

    private FaultSupport() {
    }

    /** Runs {@code testCase} through JUnit with {@code key=value} configuration parameters. */
    static EngineExecutionResults run(Class<?> testCase, Path output, String... keyValues) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("profiledrollout.output.dir", output.toString());
        for (int i = 0; i < keyValues.length; i += 2) {
            params.put(keyValues[i], keyValues[i + 1]);
        }
        return EngineTestKit.engine("junit-jupiter").selectors(selectClass(testCase)).configurationParameters(params)
                .execute();
    }

    /** Runs {@code testCase} attached to the engine at {@code engine}. */
    static EngineExecutionResults attach(Class<?> testCase, Path output, URI engine, String... keyValues) {
        String[] all = Stream.concat(Stream.of("profiledrollout.engine", "attach", "profiledrollout.engine.url",
                engine.toString()), Stream.of(keyValues)).toArray(String[]::new);
        return run(testCase, output, all);
    }

    /** The single test's failure, or null when it passed. */
    static Throwable failure(EngineExecutionResults results) {
        List<Event> finished = results.testEvents().finished().list();
        assertThat(finished).as("finished tests").hasSize(1);
        return finished.get(0).getPayload(org.junit.platform.engine.TestExecutionResult.class).orElseThrow()
                .getThrowable().orElse(null);
    }

    /** POST {@code /stop_profile} now; SGLang answers 500 when nothing is in progress. */
    static int stopProfile(URI engine, String apiKey) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(engine.resolve("/stop_profile"))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody());
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** The profiler of {@code engine} is not running: a stop finds nothing in progress. */
    static void assertProfilerStopped(URI engine, String apiKey) throws IOException, InterruptedException {
        assertThat(stopProfile(engine, apiKey)).as("a later /stop_profile (500 = not in progress)").isEqualTo(500);
    }

    static JsonNode summary(Path dir) {
        try {
            return JSON.readTree(dir.resolve("summary.json").toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** No thread named in {@link #OWNED_THREADS} is alive within 5 s. */
    static void assertNoThreadsLeft() {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        List<String> left;
        do {
            left = ownedThreads();
        } while (!left.isEmpty() && System.nanoTime() < deadline && pause());
        assertThat(left).as("threads left running").isEmpty();
    }

    static List<String> ownedThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> OWNED_THREADS.stream().anyMatch(n::startsWith)).sorted().collect(Collectors.toList());
    }

    /** Every regular file under {@code dir}, as text (gzip files decompressed when possible). */
    static Map<Path, String> filesUnder(Path dir) throws IOException {
        Map<Path, String> out = new LinkedHashMap<>();
        if (!Files.exists(dir)) {
            return out;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
                byte[] bytes = Files.readAllBytes(f);
                if (bytes.length > 2 && (bytes[0] & 0xff) == 0x1f && (bytes[1] & 0xff) == 0x8b) {
                    try (var in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(bytes))) {
                        bytes = in.readAllBytes();
                    } catch (IOException e) {
                        // a damaged gzip: scan the raw bytes
                    }
                }
                out.put(f, new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1));
            }
        }
        return out;
    }

    static boolean pause() {
        try {
            Thread.sleep(50);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
