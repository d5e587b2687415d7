package dev.profiledrollout.junit.internal;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * The extension's configuration keys, resolved in this order: JUnit configuration parameter (which JUnit itself backs
 * with system properties and {@code junit-platform.properties}), then the environment variable named by upper-casing
 * the key and replacing dots with underscores ({@code profiledrollout.engine.url} → {@code PROFILEDROLLOUT_ENGINE_URL}).
 */
public final class Settings {

    public static final String ENGINE = "profiledrollout.engine";
    public static final String ENGINE_URL = "profiledrollout.engine.url";
    public static final String API_KEY = "profiledrollout.api.key";
    public static final String TRACE_DIR = "profiledrollout.trace.dir";
    public static final String TRACE_DIR_SERVER = "profiledrollout.trace.dir.server";
    public static final String OUTPUT_DIR = "profiledrollout.output.dir";
    public static final String TRACE_TIMEOUT = "profiledrollout.trace.timeout";
    public static final String TRACE_MISSING_GRACE = "profiledrollout.trace.missing.grace";
    public static final String LOAD_TIMEOUT = "profiledrollout.load.timeout";
    public static final String HEALTH_TIMEOUT = "profiledrollout.health.timeout";
    public static final String STOP_TIMEOUT = "profiledrollout.stop.timeout";
    public static final String READ_TIMEOUT = "profiledrollout.read.timeout";
    public static final String CONNECT_TIMEOUT = "profiledrollout.connect.timeout";
    public static final String SHUTDOWN_TIMEOUT = "profiledrollout.shutdown.timeout";
    public static final String ROUTER_URL = "profiledrollout.router.url";
    public static final String PREFILL_URL = "profiledrollout.prefill.url";
    public static final String DECODE_URL = "profiledrollout.decode.url";
    public static final String ENGINE_RANKS = "profiledrollout.engine.ranks";
    public static final String VLLM_MAX_ITERATIONS = "profiledrollout.vllm.max.iterations";
    public static final String NSYS_PATH = "profiledrollout.nsys.path";
    public static final String NSYS_SESSION = "profiledrollout.nsys.session";
    public static final String NSYS_REPORT = "profiledrollout.nsys.report";

    /** Where the engine comes from. */
    public enum EngineKind { EMBEDDED, ATTACH, CONTAINER }

    private final Function<String, Optional<String>> parameters;
    private final Map<String, String> environment;

    public Settings(Function<String, Optional<String>> parameters, Map<String, String> environment) {
        this.parameters = parameters;
        this.environment = environment;
    }

    /**
     * @return these settings with {@code overrides} taking precedence over every other source, e.g. the URL and trace
     *         directories of a {@code @RolloutEngine} container
     */
    public Settings withOverrides(Map<String, String> overrides) {
        Map<String, String> copy = Map.copyOf(overrides);
        return new Settings(key -> copy.containsKey(key) ? Optional.of(copy.get(key)) : parameters.apply(key),
                environment);
    }

    public Optional<String> get(String key) {
        Optional<String> value = parameters.apply(key).map(String::trim).filter(s -> !s.isEmpty());
        if (value.isPresent()) {
            return value;
        }
        String env = environment.get(key.toUpperCase(Locale.ROOT).replace('.', '_'));
        return Optional.ofNullable(env).map(String::trim).filter(s -> !s.isEmpty());
    }

    public EngineKind engineKind() {
        String value = get(ENGINE).orElse("embedded").toLowerCase(Locale.ROOT);
        switch (value) {
            case "embedded":
                return EngineKind.EMBEDDED;
            case "attach":
                return EngineKind.ATTACH;
            case "container":
                return EngineKind.CONTAINER;
            default:
                throw invalid(ENGINE, value, "allowed values: embedded, attach, container");
        }
    }

    /**
     * The engine URLs for {@code attach}: one, or several comma-separated (fan-out without a router: every one is
     * profiled; the load goes to the first). Empty when {@link #routerUrl()} or the prefill/decode URLs are set
     * instead.
     */
    public List<URI> engineUrls() {
        return urls(ENGINE_URL);
    }

    /** The first of {@link #engineUrls()}. */
    public URI engineUrl() {
        List<URI> urls = engineUrls();
        if (urls.isEmpty()) {
            throw new ExtensionConfigurationException(ENGINE + "=attach needs " + ENGINE_URL + " or " + ROUTER_URL
                    + ": set it to the engine's base URL, for example -D" + ENGINE_URL + "=http://127.0.0.1:30000 or "
                    + "PROFILEDROLLOUT_ENGINE_URL");
        }
        return urls.get(0);
    }

    /** {@code profiledrollout.router.url}: a router whose {@code /workers} are profiled; the load goes through it. */
    public Optional<URI> routerUrl() {
        List<URI> urls = urls(ROUTER_URL);
        if (urls.size() > 1) {
            throw invalid(ROUTER_URL, get(ROUTER_URL).orElse(""), "one router URL; list engines in " + ENGINE_URL);
        }
        return urls.stream().findFirst();
    }

    /** {@code profiledrollout.prefill.url}: prefill engines of a disaggregated deployment (comma-separated). */
    public List<URI> prefillUrls() {
        return urls(PREFILL_URL);
    }

    /** {@code profiledrollout.decode.url}: decode engines of a disaggregated deployment (comma-separated). */
    public List<URI> decodeUrls() {
        return urls(DECODE_URL);
    }

    /** {@code profiledrollout.engine.ranks}: rank trace files one engine writes per capture, when the engine cannot say. */
    public OptionalInt engineRanks() {
        return integer(ENGINE_RANKS, 1);
    }

    /**
     * {@code profiledrollout.vllm.max.iterations}: the {@code max_iterations} the vLLM server was started with
     * ({@code --profiler-config}); 0 means unlimited. vLLM cannot report it, so configuration has to.
     */
    public OptionalInt vllmMaxIterations() {
        return integer(VLLM_MAX_ITERATIONS, 0);
    }

    /** {@code profiledrollout.nsys.path}: the nsys executable; default {@code nsys} on the PATH. */
    public String nsysPath() {
        return get(NSYS_PATH).orElse("nsys");
    }

    /** {@code profiledrollout.nsys.session}: the session name or id to control; default: discovered. */
    public Optional<String> nsysSession() {
        return get(NSYS_SESSION);
    }

    /**
     * {@code profiledrollout.nsys.report}: the {@code .nsys-rep} file (local path) the session writes on stop, to
     * summarise with {@code nsys stats}; absent: no kernel summary.
     */
    public Optional<Path> nsysReport() {
        return get(NSYS_REPORT).map(Path::of);
    }

    /**
     * Reads every key once so that a bad value fails before anything starts, with an error naming the key.
     *
     * @throws ExtensionConfigurationException naming the first invalid key and the fix
     */
    public void validate() {
        EngineKind kind = engineKind();
        engineUrls();
        routerUrl();
        prefillUrls();
        decodeUrls();
        engineRanks();
        vllmMaxIterations();
        traceTimeout();
        traceMissingGrace();
        loadTimeout();
        healthTimeout();
        get(STOP_TIMEOUT).ifPresent(v -> stopTimeout());
        readTimeout();
        connectTimeout();
        shutdownTimeout();
        if (traceDir().isPresent() && !java.nio.file.Files.isDirectory(traceDir().get())) {
            throw invalid(TRACE_DIR, get(TRACE_DIR).orElse(""), "must be an existing directory (the local path where"
                    + " this machine reads the server's trace files); create it or fix the path");
        }
        if (traceDirOnServer().isPresent() && traceDir().isEmpty()) {
            throw invalid(TRACE_DIR_SERVER, traceDirOnServer().get(), "needs " + TRACE_DIR + " too: the local path"
                    + " where this machine sees the server's " + TRACE_DIR_SERVER);
        }
        if (kind == EngineKind.ATTACH && engineUrls().isEmpty() && routerUrl().isEmpty() && prefillUrls().isEmpty()
                && decodeUrls().isEmpty()) {
            engineUrl();
        }
        if (kind == EngineKind.EMBEDDED && (routerUrl().isPresent() || !engineUrls().isEmpty())) {
            throw invalid(ENGINE, "embedded", (routerUrl().isPresent() ? ROUTER_URL : ENGINE_URL)
                    + " is set, but the embedded simulator is used; set " + ENGINE + "=attach to use it");
        }
    }

    private List<URI> urls(String key) {
        Optional<String> value = get(key);
        if (value.isEmpty()) {
            return List.of();
        }
        List<URI> urls = new ArrayList<>();
        for (String part : value.get().split(",")) {
            String text = part.trim();
            if (text.isEmpty()) {
                continue;
            }
            try {
                URI uri = new URI(text);
                if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                    throw invalid(key, value.get(), "'" + text + "' is not an http(s) base URL such as"
                            + " http://127.0.0.1:30000 (several: comma-separated)");
                }
                urls.add(uri);
            } catch (URISyntaxException e) {
                throw invalid(key, value.get(), "'" + text + "' is not a URL (" + e.getReason()
                        + "); expected http://host:port");
            }
        }
        return List.copyOf(urls);
    }

    private OptionalInt integer(String key, int min) {
        Optional<String> value = get(key);
        if (value.isEmpty()) {
            return OptionalInt.empty();
        }
        try {
            int parsed = Integer.parseInt(value.get());
            if (parsed < min) {
                throw invalid(key, value.get(), "must be an integer ≥ " + min);
            }
            return OptionalInt.of(parsed);
        } catch (NumberFormatException e) {
            throw invalid(key, value.get(), "must be an integer ≥ " + min);
        }
    }

    public Optional<String> apiKey() {
        return get(API_KEY);
    }

    public Path outputDir() {
        return Path.of(get(OUTPUT_DIR).orElse("target/profiled-rollout")).toAbsolutePath().normalize();
    }

    public Optional<Path> traceDir() {
        return get(TRACE_DIR).map(Path::of);
    }

    public Optional<String> traceDirOnServer() {
        return get(TRACE_DIR_SERVER);
    }

    public Duration traceTimeout() {
        return duration(TRACE_TIMEOUT, Duration.ofMinutes(5));
    }

    /**
     * {@code profiledrollout.trace.missing.grace}: once some rank files of a capture are complete, how long the
     * directory may stay unchanged before the ranks still missing are reported as never coming (instead of waiting out
     * {@link #traceTimeout()}). SGLang reports only DP rank 0's result for a profile call, so this is how a profiler
     * failure on another DP rank shows. Default 60 s.
     */
    public Duration traceMissingGrace() {
        return duration(TRACE_MISSING_GRACE, Duration.ofSeconds(60));
    }

    public Duration loadTimeout() {
        return duration(LOAD_TIMEOUT, Duration.ofMinutes(10));
    }

    /**
     * {@code profiledrollout.read.timeout}: the longest silence allowed on one load stream (including the wait for
     * its first token); a stalled stream ends as a {@code TIMEOUT} record after it. Default 5 min.
     */
    public Duration readTimeout() {
        return duration(READ_TIMEOUT, Duration.ofMinutes(5));
    }

    public Duration healthTimeout() {
        return duration(HEALTH_TIMEOUT, Duration.ofMinutes(2));
    }

    /**
     * {@code profiledrollout.connect.timeout}: how long an engine may refuse connections (nothing listens at the URL,
     * unknown host, no route) while its {@code /health} is polled before the test fails; once it accepts a connection,
     * {@link #healthTimeout()} alone applies. Default 5 s, so that a wrong URL or port fails fast; raise it when the
     * engine is started beside the tests and may not be listening yet.
     */
    public Duration connectTimeout() {
        return duration(CONNECT_TIMEOUT, Duration.ofSeconds(5));
    }

    /**
     * {@code profiledrollout.shutdown.timeout}: when the JVM is stopped mid-window (SIGTERM, SIGINT, a build tool
     * killing its fork), how long its shutdown hook may take to stop every profiler, cancel the load and write the
     * partial results. Default 15 s: within Maven Surefire's default {@code forkedProcessExitTimeoutInSeconds} of
     * 30 s (maven.apache.org/plugins/maven-surefire-plugin/examples/shutdown.html), after which the fork is halted.
     */
    public Duration shutdownTimeout() {
        return duration(SHUTDOWN_TIMEOUT, Duration.ofSeconds(15));
    }

    /**
     * SGLang default 10 min; vLLM default 30 min (its stop exports every worker's trace first,
     * {@code docs/PROTOCOLS.md} §2.3).
     */
    public Duration stopTimeout(boolean vllm) {
        return duration(STOP_TIMEOUT, vllm ? Duration.ofMinutes(30) : Duration.ofMinutes(10));
    }

    public Duration stopTimeout() {
        return stopTimeout(false);
    }

    /** Accepts ISO-8601 ({@code PT30S}) or a number of seconds ({@code 30}, {@code 2.5}). */
    Duration duration(String key, Duration fallback) {
        Optional<String> value = get(key);
        if (value.isEmpty()) {
            return fallback;
        }
        String text = value.get();
        try {
            Duration parsed = text.toUpperCase(Locale.ROOT).startsWith("P")
                    ? Duration.parse(text)
                    : Duration.ofNanos(Math.round(Double.parseDouble(text) * 1e9));
            if (parsed.isNegative() || parsed.isZero()) {
                throw invalid(key, text, "must be positive");
            }
            return parsed;
        } catch (DateTimeParseException | NumberFormatException e) {
            throw invalid(key, text, "expected seconds (e.g. 300) or an ISO-8601 duration (e.g. PT5M)");
        }
    }

    private static ExtensionConfigurationException invalid(String key, String value, String fix) {
        return new ExtensionConfigurationException("Invalid " + key + "='" + value + "': " + fix);
    }
}
