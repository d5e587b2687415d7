package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.API_KEY;
import static dev.profiledrollout.ProfiledRolloutKeys.CONNECT_TIMEOUT;
import static dev.profiledrollout.ProfiledRolloutKeys.DECODE_URL;
import static dev.profiledrollout.ProfiledRolloutKeys.ENGINE;
import static dev.profiledrollout.ProfiledRolloutKeys.ENGINE_RANKS;
import static dev.profiledrollout.ProfiledRolloutKeys.ENGINE_URL;
import static dev.profiledrollout.ProfiledRolloutKeys.HEALTH_TIMEOUT;
import static dev.profiledrollout.ProfiledRolloutKeys.LOAD_TIMEOUT;
import static dev.profiledrollout.ProfiledRolloutKeys.NSYS_PATH;
import static dev.profiledrollout.ProfiledRolloutKeys.NSYS_REPORT;
import static dev.profiledrollout.ProfiledRolloutKeys.NSYS_SESSION;
import static dev.profiledrollout.ProfiledRolloutKeys.OUTPUT_DIR;
import static dev.profiledrollout.ProfiledRolloutKeys.PREFILL_URL;
import static dev.profiledrollout.ProfiledRolloutKeys.READ_TIMEOUT;
import static dev.profiledrollout.ProfiledRolloutKeys.ROUTER_URL;
import static dev.profiledrollout.ProfiledRolloutKeys.SHUTDOWN_TIMEOUT;
import static dev.profiledrollout.ProfiledRolloutKeys.STOP_TIMEOUT;
import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_DIR;
import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_DIR_SERVER;
import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_MISSING_GRACE;
import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_TIMEOUT;
import static dev.profiledrollout.ProfiledRolloutKeys.VLLM_MAX_ITERATIONS;
import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.ProfiledRolloutKeys;
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
import org.apiguardian.api.API;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * The extension's view of the {@link ProfiledRolloutKeys}: each key resolved as that class describes (JUnit
 * configuration parameter, then environment variable), parsed and checked, with the defaults of
 * {@link ProfiledRolloutKeys#all()}.
 *
 * <p>For a class that chooses an engine profile ({@link #forProfile(String)}), a key's value comes from
 * {@code profiledrollout.profiles.<name>.<key>} when set, else from the global key; when the profile sets any of the
 * {@link #LOCATION_KEYS} it names the whole deployment and the global values of those are not read. Overrides
 * ({@link #withOverrides(Map)}: the engine a class started itself) take precedence over both.
 */
@API(status = INTERNAL, since = "0.1")
public final class Settings {

    /** Where the engine comes from. */
    public enum EngineKind { EMBEDDED, ATTACH, CONTAINER }

    /** The keys that together say where the engine is; a profile that sets one of them replaces all of them. */
    public static final List<String> LOCATION_KEYS = List.of(ENGINE, ENGINE_URL, ROUTER_URL, PREFILL_URL, DECODE_URL);

    private static final java.util.regex.Pattern PROFILE_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9_-]+");

    private final Function<String, Optional<String>> parameters;
    private final Map<String, String> environment;
    private final String profile; // null: no profile
    private final Map<String, String> overrides;

    public Settings(Function<String, Optional<String>> parameters, Map<String, String> environment) {
        this(parameters, environment, null, Map.of());
    }

    private Settings(Function<String, Optional<String>> parameters, Map<String, String> environment, String profile,
            Map<String, String> overrides) {
        this.parameters = parameters;
        this.environment = environment;
        this.profile = profile;
        this.overrides = overrides;
    }

    /**
     * @return these settings with {@code overrides} taking precedence over every other source, e.g. the URL and trace
     *         directories of a {@code @RolloutEngine} container
     */
    public Settings withOverrides(Map<String, String> overrides) {
        Map<String, String> merged = new java.util.HashMap<>(this.overrides);
        merged.putAll(overrides);
        return new Settings(parameters, environment, profile, Map.copyOf(merged));
    }

    /**
     * @param name an engine profile's name, as in {@code @EngineProfile}
     * @return these settings read through that profile (see the class comment)
     * @throws ExtensionConfigurationException when the name has characters other than letters, digits, '-' and '_'
     */
    public Settings forProfile(String name) {
        if (!PROFILE_NAME.matcher(name).matches()) {
            throw new ExtensionConfigurationException("@EngineProfile(\"" + name + "\") is invalid: a profile name is"
                    + " letters, digits, '-' and '_' (it becomes part of the keys "
                    + ProfiledRolloutKeys.PROFILE_KEY_PATTERN + " and their environment variables)");
        }
        return new Settings(parameters, environment, name, overrides);
    }

    /** @return the profile these settings are read through, if any */
    public Optional<String> profile() {
        return Optional.ofNullable(profile);
    }

    /**
     * @param name a profile name
     * @return whether any {@code profiledrollout.profiles.<name>.<key>} of a known key is set, in any source
     */
    public boolean profileDefined(String name) {
        return ProfiledRolloutKeys.all().stream()
                .filter(k -> k.scope() != ProfiledRolloutKeys.Scope.SYSTEM_PROPERTY)
                .filter(k -> !k.name().equals(ProfiledRolloutKeys.PROFILE_KEY_PATTERN))
                .anyMatch(k -> raw(ProfiledRolloutKeys.profileKey(name, k.name())).isPresent());
    }

    /**
     * @return whether the configuration itself says which engine to use ({@code profiledrollout.engine} set to
     *         {@code embedded} or {@code attach}, globally or in the profile): it then takes precedence over an engine
     *         the test class supplies
     */
    public boolean namesEngine() {
        return get(ENGINE).filter(v -> !v.equalsIgnoreCase("container")).isPresent();
    }

    public Optional<String> get(String key) {
        String overridden = overrides.get(key);
        if (overridden != null) {
            return Optional.of(overridden).map(String::trim).filter(s -> !s.isEmpty());
        }
        if (profile != null && key.startsWith("profiledrollout.")) {
            Optional<String> fromProfile = raw(ProfiledRolloutKeys.profileKey(profile, key));
            if (fromProfile.isPresent() || (LOCATION_KEYS.contains(key) && profileNamesLocation())) {
                return fromProfile;
            }
        }
        return raw(key);
    }

    /** The key whose value {@link #get(String)} returns for {@code key}, for messages. */
    public String source(String key) {
        if (overrides.containsKey(key)) {
            return key + " (from the test class's @RolloutEngine)";
        }
        if (profile != null && key.startsWith("profiledrollout.")) {
            String profileKey = ProfiledRolloutKeys.profileKey(profile, key);
            if (raw(profileKey).isPresent() || (LOCATION_KEYS.contains(key) && profileNamesLocation())) {
                return profileKey;
            }
        }
        return key;
    }

    private boolean profileNamesLocation() {
        return LOCATION_KEYS.stream().anyMatch(k -> raw(ProfiledRolloutKeys.profileKey(profile, k)).isPresent());
    }

    /** The configuration parameter, else the environment variable; blank counts as unset. */
    private Optional<String> raw(String key) {
        Optional<String> value = parameters.apply(key).map(String::trim).filter(s -> !s.isEmpty());
        if (value.isPresent()) {
            return value;
        }
        String env = environment.get(ProfiledRolloutKeys.environmentVariable(key));
        return Optional.ofNullable(env).map(String::trim).filter(s -> !s.isEmpty());
    }

    public EngineKind engineKind() {
        String value = string(ENGINE).toLowerCase(Locale.ROOT);
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
            String url = profile == null ? ENGINE_URL : ProfiledRolloutKeys.profileKey(profile, ENGINE_URL);
            throw new ExtensionConfigurationException(source(ENGINE) + "=attach needs " + url + " or "
                    + (profile == null ? ROUTER_URL : ProfiledRolloutKeys.profileKey(profile, ROUTER_URL))
                    + ": set it to the engine's base URL, for example -D" + url + "=http://127.0.0.1:30000 or "
                    + ProfiledRolloutKeys.environmentVariable(url));
        }
        return urls.get(0);
    }

    /** {@link ProfiledRolloutKeys#ROUTER_URL}: at most one. */
    public Optional<URI> routerUrl() {
        List<URI> urls = urls(ROUTER_URL);
        if (urls.size() > 1) {
            throw invalid(ROUTER_URL, get(ROUTER_URL).orElse(""), "one router URL; list engines in " + ENGINE_URL);
        }
        return urls.stream().findFirst();
    }

    /** {@link ProfiledRolloutKeys#PREFILL_URL}, in order. */
    public List<URI> prefillUrls() {
        return urls(PREFILL_URL);
    }

    /** {@link ProfiledRolloutKeys#DECODE_URL}, in order. */
    public List<URI> decodeUrls() {
        return urls(DECODE_URL);
    }

    /** {@link ProfiledRolloutKeys#ENGINE_RANKS}, ≥ 1. */
    public OptionalInt engineRanks() {
        return integer(ENGINE_RANKS, 1);
    }

    /** {@link ProfiledRolloutKeys#VLLM_MAX_ITERATIONS}, ≥ 0 (0: no limit). */
    public OptionalInt vllmMaxIterations() {
        return integer(VLLM_MAX_ITERATIONS, 0);
    }

    /** @return {@link ProfiledRolloutKeys#NSYS_PATH} */
    public String nsysPath() {
        return string(NSYS_PATH);
    }

    /** @return {@link ProfiledRolloutKeys#NSYS_SESSION} */
    public Optional<String> nsysSession() {
        return get(NSYS_SESSION);
    }

    /** @return {@link ProfiledRolloutKeys#NSYS_REPORT} */
    public Optional<Path> nsysReport() {
        return get(NSYS_REPORT).map(Path::of);
    }

    /**
     * Reads every key once so that a bad value fails before anything starts, with an error naming the key.
     *
     * @throws ExtensionConfigurationException naming every invalid key, its value and the fix
     */
    public void validate() {
        ConfigurationProblems problems = new ConfigurationProblems();
        validate(problems);
        problems.throwIfAny();
    }

    /** As {@link #validate()}, adding each invalid key to {@code problems} instead of throwing. */
    public void validate(ConfigurationProblems problems) {
        Optional<EngineKind> kind = problems.attempt(this::engineKind);
        Optional<List<URI>> engines = problems.attempt(this::engineUrls);
        Optional<Optional<URI>> router = problems.attempt(this::routerUrl);
        Optional<List<URI>> prefill = problems.attempt(this::prefillUrls);
        Optional<List<URI>> decode = problems.attempt(this::decodeUrls);
        problems.attempt(this::engineRanks);
        problems.attempt(this::vllmMaxIterations);
        problems.attempt(this::traceTimeout);
        problems.attempt(this::traceMissingGrace);
        problems.attempt(this::loadTimeout);
        problems.attempt(this::healthTimeout);
        if (get(STOP_TIMEOUT).isPresent()) {
            problems.attempt(() -> stopTimeout());
        }
        problems.attempt(this::readTimeout);
        problems.attempt(this::connectTimeout);
        problems.attempt(this::shutdownTimeout);
        for (String key : List.of(ProfiledRolloutKeys.STEPS_STRICT, ProfiledRolloutKeys.BASELINE_UPDATE,
                ProfiledRolloutKeys.REPORT_ATTACH_TRACES)) {
            get(key).filter(v -> !v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")).ifPresent(v ->
                    problems.add(invalid(key, v, "expected true or false").getMessage()));
        }
        problems.attempt(() -> {
            try {
                return dev.profiledrollout.report.TestReport.Options.from(this::get);
            } catch (IllegalArgumentException e) {
                throw invalid(ProfiledRolloutKeys.REPORT_ATTACH_MAX_BYTES,
                        get(ProfiledRolloutKeys.REPORT_ATTACH_MAX_BYTES).orElse(""), "expected a number of bytes,"
                                + " e.g. 20971520 (20 MiB)");
            }
        });
        if (traceDir().isPresent() && !java.nio.file.Files.isDirectory(traceDir().get())) {
            problems.add(invalid(TRACE_DIR, get(TRACE_DIR).orElse(""), "must be an existing directory (the local"
                    + " path where this machine reads the server's trace files); create it or fix the path")
                    .getMessage());
        }
        if (traceDirOnServer().isPresent() && traceDir().isEmpty()) {
            problems.add(invalid(TRACE_DIR_SERVER, traceDirOnServer().get(), "needs " + TRACE_DIR + " too: the local"
                    + " path where this machine sees the server's " + TRACE_DIR_SERVER).getMessage());
        }
        if (kind.isEmpty() || engines.isEmpty() || router.isEmpty() || prefill.isEmpty() || decode.isEmpty()) {
            return; // the engine's location is already reported invalid
        }
        if (kind.get() == EngineKind.ATTACH && engines.get().isEmpty() && router.get().isEmpty()
                && prefill.get().isEmpty() && decode.get().isEmpty()) {
            problems.attempt(this::engineUrl);
        }
        if (kind.get() == EngineKind.EMBEDDED && (router.get().isPresent() || !engines.get().isEmpty())) {
            String set = router.get().isPresent() ? ROUTER_URL : ENGINE_URL;
            problems.add(invalid(ENGINE, "embedded", source(set) + " is set, but the embedded simulator is used;"
                    + " set " + source(ENGINE).replaceFirst(" .*", "") + "=attach to use it").getMessage());
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

    /** @return {@link ProfiledRolloutKeys#ADMIN_API_KEY} */
    public Optional<String> adminApiKey() {
        return get(ProfiledRolloutKeys.ADMIN_API_KEY).filter(k -> !k.isBlank());
    }

    /** @return {@link ProfiledRolloutKeys#API_KEY} */
    public Optional<String> apiKey() {
        return get(API_KEY);
    }

    /** @return {@link ProfiledRolloutKeys#OUTPUT_DIR}, absolute */
    public Path outputDir() {
        return Path.of(string(OUTPUT_DIR)).toAbsolutePath().normalize();
    }

    /** @return {@link ProfiledRolloutKeys#TRACE_DIR} */
    public Optional<Path> traceDir() {
        return get(TRACE_DIR).map(Path::of);
    }

    /** @return {@link ProfiledRolloutKeys#TRACE_DIR_SERVER} */
    public Optional<String> traceDirOnServer() {
        return get(TRACE_DIR_SERVER);
    }

    /** @return {@link ProfiledRolloutKeys#TRACE_TIMEOUT} */
    public Duration traceTimeout() {
        return duration(TRACE_TIMEOUT);
    }

    /** @return {@link ProfiledRolloutKeys#TRACE_MISSING_GRACE} */
    public Duration traceMissingGrace() {
        return duration(TRACE_MISSING_GRACE);
    }

    /** @return {@link ProfiledRolloutKeys#LOAD_TIMEOUT} */
    public Duration loadTimeout() {
        return duration(LOAD_TIMEOUT);
    }

    /** @return {@link ProfiledRolloutKeys#READ_TIMEOUT} */
    public Duration readTimeout() {
        return duration(READ_TIMEOUT);
    }

    /** @return {@link ProfiledRolloutKeys#HEALTH_TIMEOUT} */
    public Duration healthTimeout() {
        return duration(HEALTH_TIMEOUT);
    }

    /** @return {@link ProfiledRolloutKeys#CONNECT_TIMEOUT} */
    public Duration connectTimeout() {
        return duration(CONNECT_TIMEOUT);
    }

    /** @return {@link ProfiledRolloutKeys#SHUTDOWN_TIMEOUT} */
    public Duration shutdownTimeout() {
        return duration(SHUTDOWN_TIMEOUT);
    }

    /**
     * @param backendDefault the backend's default ({@code BackendSupport.defaultStopTimeout()})
     * @return {@link ProfiledRolloutKeys#STOP_TIMEOUT}, else {@code backendDefault}
     */
    public Duration stopTimeout(Duration backendDefault) {
        return duration(STOP_TIMEOUT, backendDefault);
    }

    /** @return {@link ProfiledRolloutKeys#STOP_TIMEOUT} for an nsys session, by default 10 min */
    public Duration stopTimeout() {
        return stopTimeout(Duration.ofMinutes(10));
    }

    /** The key's value, else its default from {@link ProfiledRolloutKeys#all()}. */
    private String string(String key) {
        return get(key).orElseGet(() -> ProfiledRolloutKeys.defaultValue(key).orElseThrow());
    }

    /** A duration key whose default is in {@link ProfiledRolloutKeys#all()}. */
    private Duration duration(String key) {
        return parseDuration(key, string(key));
    }

    Duration duration(String key, Duration fallback) {
        return get(key).map(text -> parseDuration(key, text)).orElse(fallback);
    }

    /** Accepts ISO-8601 ({@code PT30S}) or a number of seconds ({@code 30}, {@code 2.5}). */
    private Duration parseDuration(String key, String text) {
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

    private ExtensionConfigurationException invalid(String key, String value, String fix) {
        return new ExtensionConfigurationException("Invalid " + source(key) + "='" + value + "': " + fix);
    }
}
