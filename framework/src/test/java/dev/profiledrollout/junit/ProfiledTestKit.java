package dev.profiledrollout.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * Runs a user's test class (a nested {@code …TestCase}) through {@link EngineTestKit} with the extension's
 * configuration parameters, and reads what the run left: the outcome, {@code summary.json}, the threads still alive.
 *
 * <p>Every run writes below {@code output} ({@code profiledrollout.output.dir}); further parameters come as key,
 * value pairs, e.g. {@code run(MyTestCase.class, output, "profiledrollout.read.timeout", "1")}.
 */
public final class ProfiledTestKit {

    public static final ObjectMapper JSON = new ObjectMapper();

    /** Thread names that must not outlive a run: the load, the simulators, the router, OkHttp calls, trace reading. */
    private static final List<String> OWNED_THREADS = List.of("profiledrollout-load", "simulator-", "router-http",
            "OkHttp http", "trace-reader");

    private ProfiledTestKit() {
    }

    /**
     * Runs {@code testCase} through the Jupiter engine.
     *
     * @param keyValues configuration parameters as key, value, key, value…
     * @throws IllegalArgumentException if a key has no value
     */
    public static EngineExecutionResults run(Class<?> testCase, Path output, String... keyValues) {
        if (keyValues.length % 2 != 0) {
            throw new IllegalArgumentException("configuration parameters come in key, value pairs; the last key, "
                    + keyValues[keyValues.length - 1] + ", has no value");
        }
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("profiledrollout.output.dir", output.toString());
        for (int i = 0; i < keyValues.length; i += 2) {
            parameters.put(keyValues[i], keyValues[i + 1]);
        }
        return EngineTestKit.engine("junit-jupiter").selectors(selectClass(testCase))
                .configurationParameters(parameters).execute();
    }

    /** Runs {@code testCase} attached to the engine at {@code engine} ({@code profiledrollout.engine.url}). */
    public static EngineExecutionResults attach(Class<?> testCase, Path output, URI engine, String... keyValues) {
        return attachVia("profiledrollout.engine.url", testCase, output, engine, keyValues);
    }

    /**
     * Runs {@code testCase} attached to the workers of the router at {@code router}
     * ({@code profiledrollout.router.url}).
     */
    public static EngineExecutionResults attachRouter(Class<?> testCase, Path output, URI router,
            String... keyValues) {
        return attachVia("profiledrollout.router.url", testCase, output, router, keyValues);
    }

    private static EngineExecutionResults attachVia(String key, Class<?> testCase, Path output, URI url,
            String... keyValues) {
        return run(testCase, output, Stream.concat(Stream.of("profiledrollout.engine", "attach", key, url.toString()),
                Stream.of(keyValues)).toArray(String[]::new));
    }

    /** The failure of the run's single test, or null when it passed; fails unless exactly one test finished. */
    public static Throwable failure(EngineExecutionResults results) {
        List<Event> finished = results.testEvents().finished().list();
        assertThat(finished).as("finished tests").hasSize(1);
        return finished.get(0).getPayload(TestExecutionResult.class).orElseThrow().getThrowable().orElse(null);
    }

    /** Asserts that test method {@code method} failed exactly once with a {@code type} whose message matches. */
    public static void assertFailed(EngineExecutionResults results, String method, Class<? extends Throwable> type,
            Predicate<String> message) {
        results.testEvents().assertThatEvents().haveExactly(1, event(test(method),
                finishedWithFailure(instanceOf(type), message(message))));
    }

    /**
     * POSTs {@code /stop_profile} to {@code engine} now.
     *
     * @param apiKey the engine's API key, or null
     * @return the HTTP status; SGLang answers 500 when no capture is in progress
     */
    public static int stopProfile(URI engine, String apiKey) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(engine.resolve("/stop_profile"))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody());
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** The SGLang profiler of {@code engine} is not left running: a stop now finds nothing in progress (500). */
    public static void assertProfilerStopped(URI engine, String apiKey) throws IOException, InterruptedException {
        assertThat(stopProfile(engine, apiKey)).as("a later /stop_profile (500 = not in progress)").isEqualTo(500);
    }

    /** {@code summary.json} in a test's output directory {@code dir}. */
    public static JsonNode summary(Path dir) {
        try {
            return JSON.readTree(dir.resolve("summary.json").toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** No thread a run or a simulator owns is alive within 5 s (they are joined on close, not at once). */
    public static void assertNoThreadsLeft() {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(ownedThreads())
                .as("threads left running").isEmpty());
    }

    /** Names of the live threads a run or a simulator owns, sorted. */
    public static List<String> ownedThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> OWNED_THREADS.stream().anyMatch(n::startsWith)).sorted().toList();
    }
}
