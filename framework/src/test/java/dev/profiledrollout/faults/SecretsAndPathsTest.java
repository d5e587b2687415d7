package dev.profiledrollout.faults;

import static dev.profiledrollout.junit.ProfiledTestKit.assertNoThreadsLeft;
import static dev.profiledrollout.junit.ProfiledTestKit.attach;
import static dev.profiledrollout.junit.ProfiledTestKit.attachRouter;
import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.RouterSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.simulator.SimulatorFaults;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * Secrets and boundaries: a planted API key and planted tokens in the trace metadata appear nowhere the framework
 * writes (its output files, stdout, stderr, log records, exception messages and stack traces), and names that come
 * from servers cannot make it write outside its output directory.
 *
 * <p>The raw trace files under {@code traces/} are the engine's own artefacts, kept byte for byte (the embedded or
 * same-host engine writes them there itself); they are excluded from the scan, and nothing the framework derives from
 * them (summary, console, reports) carries their metadata.
 */
class SecretsAndPathsTest {

    private static final String API_KEY = "sk-planted-API-KEY-7f3a9c";
    private static final String HF_TOKEN = "hf_plantedHFTOKEN4d2e8b";
    private static final String DB_SECRET = "planted-db-secret-55aa01";

    @TempDir
    Path root;

    @FaultCase
    @ProfiledRollout(activities = {Activity.GPU, Activity.CPU})
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 8, warmupRequests = 1)
    static class SecretTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void profiled(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void planted_secrets_appear_in_no_file_stream_log_or_exception_of_a_passing_or_failing_run() throws Exception {
        Path output = root.resolve("out");
        SimulatorFaults faults = SimulatorFaults.builder().apiKey(API_KEY).traceEnv("HF_TOKEN", HF_TOKEN)
                .traceEnv("DB_SECRET", DB_SECRET).traceEnv("PATH", "/usr/bin").build();
        try (EngineSimulator engine = EngineSimulator.start(SimulatorConfig.builder().faults(faults).build())) {
            List<String> seen = new ArrayList<>();
            // a passing run with the right key, then a failing one with a wrong key that is also secret
            EngineExecutionResults ok = captured(seen, () -> attach(SecretTestCase.class, output, engine.baseUri(),
                    "profiledrollout.api.key", API_KEY));
            ok.testEvents().assertStatistics(s -> s.succeeded(1));
            assertThat(SecretTestCase.RESULT.get().traceFiles()).hasSize(1);
            String wrongKey = API_KEY + "-wrong";
            EngineExecutionResults bad = captured(seen, () -> attach(SecretTestCase.class, root.resolve("out2"),
                    engine.baseUri(), "profiledrollout.api.key", wrongKey));
            Throwable failure = failure(bad);
            assertThat(failure).hasMessageContaining("401");
            seen.add(stackTrace(failure));
            for (EngineExecutionResults r : List.of(ok, bad)) {
                r.allEvents().list().forEach(e -> e.getPayload(TestExecutionResult.class)
                        .flatMap(TestExecutionResult::getThrowable).ifPresent(t -> seen.add(stackTrace(t))));
            }
            for (Path dir : List.of(output, root.resolve("out2"))) {
                assertThat(dir).as("both runs write their output").isDirectory();
                filesUnder(dir).forEach((file, text) -> {
                    if (!dir.relativize(file).toString().contains("traces")) {
                        seen.add(file + "\n" + text);
                    }
                });
            }
            assertThat(seen).isNotEmpty();
            for (String secret : List.of(API_KEY, wrongKey, HF_TOKEN, DB_SECRET)) {
                assertThat(seen).as("nothing written may contain " + secret).noneMatch(s -> s.contains(secret));
            }
        }
        assertNoThreadsLeft();
    }

    @Test
    void a_worker_url_with_dot_dot_segments_cannot_make_the_framework_write_outside_its_output_directory()
            throws Exception {
        Path output = root.resolve("out");
        try (EngineSimulator engine = EngineSimulator.start(SimulatorConfig.builder()
                .profilerDir(root.resolve("server")).build());
                RouterSimulator router = RouterSimulator.builder()
                        .workerUrl(URI.create(engine.baseUri() + "/../../../escape"), "regular").start()) {

            // the URL is used as given, not normalised: the engine answers 404 under it, so the run fails at /health
            Throwable t = failure(attachRouter(FaultCases.Profiled.class, output, router.baseUri(),
                    "profiledrollout.health.timeout", "2"));
            assertThat(t).isNotNull().hasMessageContaining(engine.baseUri() + "/../../../escape/health was not healthy")
                    .hasMessageContaining("HTTP 404");

            // the profiler never started (no "server" directory), and nothing was written beside "out"
            try (Stream<Path> top = Files.list(root)) {
                assertThat(top.map(p -> p.getFileName().toString())).containsExactly("out");
            }
            // the failed run still writes its report, and only inside its output directory
            List<Path> written;
            try (Stream<Path> all = Files.walk(output)) {
                written = all.collect(Collectors.toList());
            }
            assertThat(written).anyMatch(p -> p.getFileName().toString().equals("summary.json"))
                    .allSatisfy(p -> assertThat(p.toRealPath()).startsWith(output.toRealPath()));
        }
        assertNoThreadsLeft();
    }

    /** Every regular file under {@code dir}, as text (gzip files decompressed when possible). */
    private static Map<Path, String> filesUnder(Path dir) throws IOException {
        Map<Path, String> out = new LinkedHashMap<>();
        if (!Files.exists(dir)) {
            return out;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
                byte[] bytes = Files.readAllBytes(f);
                if (bytes.length > 2 && (bytes[0] & 0xff) == 0x1f && (bytes[1] & 0xff) == 0x8b) {
                    try (var in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
                        bytes = in.readAllBytes();
                    } catch (IOException e) {
                        // a damaged gzip: scan the raw bytes
                    }
                }
                out.put(f, new String(bytes, StandardCharsets.ISO_8859_1));
            }
        }
        return out;
    }

    /** Runs {@code body} with stdout, stderr and every JUL record captured into {@code seen}. */
    private static EngineExecutionResults captured(List<String> seen, Supplier<EngineExecutionResults> body) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StringWriter logs = new StringWriter();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                logs.append(r.getLevel() + " " + r.getLoggerName() + " " + r.getMessage() + " "
                        + (r.getParameters() == null ? "" : List.of(r.getParameters())) + "\n");
                if (r.getThrown() != null) {
                    logs.append(stackTrace(r.getThrown()));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        handler.setLevel(java.util.logging.Level.ALL);
        Logger rootLogger = Logger.getLogger("");
        java.util.logging.Level level = rootLogger.getLevel();
        rootLogger.addHandler(handler);
        rootLogger.setLevel(java.util.logging.Level.ALL);
        PrintStream tee = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        System.setOut(tee);
        System.setErr(tee);
        try {
            return body.get();
        } finally {
            System.setOut(out);
            System.setErr(err);
            rootLogger.removeHandler(handler);
            rootLogger.setLevel(level);
            seen.add(bytes.toString(StandardCharsets.UTF_8));
            seen.add(logs.toString());
        }
    }

    private static String stackTrace(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }
}
