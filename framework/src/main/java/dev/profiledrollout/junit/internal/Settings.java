package dev.profiledrollout.junit.internal;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
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
    public static final String LOAD_TIMEOUT = "profiledrollout.load.timeout";
    public static final String HEALTH_TIMEOUT = "profiledrollout.health.timeout";
    public static final String STOP_TIMEOUT = "profiledrollout.stop.timeout";

    /** Where the engine comes from. */
    public enum EngineKind { EMBEDDED, ATTACH }

    private final Function<String, Optional<String>> parameters;
    private final Map<String, String> environment;

    public Settings(Function<String, Optional<String>> parameters, Map<String, String> environment) {
        this.parameters = parameters;
        this.environment = environment;
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
                throw invalid(ENGINE, value, "'container' engines are not available yet; use 'embedded' or 'attach'");
            default:
                throw invalid(ENGINE, value, "allowed values: embedded, attach");
        }
    }

    /** The engine URL for {@code attach}; several comma-separated URLs are not supported yet (the first is refused). */
    public URI engineUrl() {
        String value = get(ENGINE_URL).orElseThrow(() -> new ExtensionConfigurationException(
                ENGINE + "=attach needs " + ENGINE_URL + ": set it to the engine's base URL, for example "
                        + "-D" + ENGINE_URL + "=http://127.0.0.1:30000 or PROFILEDROLLOUT_ENGINE_URL"));
        if (value.contains(",")) {
            throw invalid(ENGINE_URL, value, "one URL is supported for now; routers and several engines come later");
        }
        try {
            URI uri = new URI(value);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw invalid(ENGINE_URL, value, "expected an http(s) base URL such as http://127.0.0.1:30000");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw invalid(ENGINE_URL, value, "not a URL (" + e.getReason() + "); expected http://host:port");
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

    public Duration loadTimeout() {
        return duration(LOAD_TIMEOUT, Duration.ofMinutes(10));
    }

    public Duration healthTimeout() {
        return duration(HEALTH_TIMEOUT, Duration.ofMinutes(2));
    }

    public Duration stopTimeout() {
        return duration(STOP_TIMEOUT, Duration.ofMinutes(10));
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
