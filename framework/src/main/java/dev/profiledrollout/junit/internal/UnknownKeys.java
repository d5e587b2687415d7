package dev.profiledrollout.junit.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.ProfiledRolloutKeys.Key;
import dev.profiledrollout.ProfiledRolloutKeys.Scope;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * Finds the {@code profiledrollout.*} keys that no component reads: a misspelt key would otherwise be silently
 * ignored and the run would use the default. Each is a configuration problem naming the key, where it was set and the
 * nearest known key ({@link Suggestions}); the known keys are {@link ProfiledRolloutKeys#all()}.
 *
 * <p>Only sources that can be listed are checked: JVM system properties, the {@code junit-platform.properties} JUnit
 * reads, and {@code PROFILEDROLLOUT_*} environment variables. Configuration parameters handed to a launcher
 * programmatically (an IDE, {@code EngineTestKit}) cannot be enumerated through JUnit's extension API and are not
 * checked. Keys under {@value #TEST_PREFIX} (environment {@code PROFILEDROLLOUT_TEST_*}) are left to test suites and
 * never read by the framework.
 *
 * <p>Also rejected, because they would be ignored: a {@link Scope#SYSTEM_PROPERTY} key set anywhere but as a system
 * property, and under an engine profile ({@code profiledrollout.profiles.<name>.load.threads}), since it is read
 * once per JVM and cannot apply per test class.
 */
@API(status = INTERNAL, since = "0.1")
public final class UnknownKeys {

    /** Keys under this prefix belong to test suites (e.g. a soak test's duration); the framework never reads them. */
    public static final String TEST_PREFIX = "profiledrollout.test.";

    private static final String PREFIX = "profiledrollout.";
    private static final String PROFILES = "profiledrollout.profiles.";
    private static final String ENV_PREFIX = "PROFILEDROLLOUT_";
    private static final String ENV_TEST_PREFIX = "PROFILEDROLLOUT_TEST_";
    private static final String ENV_PROFILES = "PROFILEDROLLOUT_PROFILES_";
    private static final Pattern PROFILE_NAME = Pattern.compile("[A-Za-z0-9_-]+");

    /** Where a key was found. */
    public enum Source {
        SYSTEM_PROPERTY("system property"),
        PLATFORM_PROPERTIES("junit-platform.properties"),
        ENVIRONMENT("environment variable");

        private final String label;

        Source(String label) {
            this.label = label;
        }
    }

    private UnknownKeys() {
    }

    /**
     * Adds a problem for each key of the listable sources that nothing reads.
     *
     * @param systemProperties   the names of the JVM's system properties
     * @param platformProperties the names in {@code junit-platform.properties}
     * @param environment        the names of the environment variables
     */
    public static void check(ConfigurationProblems problems, Collection<String> systemProperties,
            Collection<String> platformProperties, Collection<String> environment) {
        new TreeSet<>(systemProperties).forEach(k -> problem(k, Source.SYSTEM_PROPERTY).ifPresent(problems::add));
        new TreeSet<>(platformProperties).forEach(k -> problem(k, Source.PLATFORM_PROPERTIES)
                .ifPresent(problems::add));
        new TreeSet<>(environment).forEach(k -> problem(k, Source.ENVIRONMENT).ifPresent(problems::add));
    }

    /**
     * @param name   a system property, {@code junit-platform.properties} key or environment variable name
     * @param source where it was set
     * @return the problem with it, or empty when it is known, or not Profiled Rollout's
     */
    public static Optional<String> problem(String name, Source source) {
        return source == Source.ENVIRONMENT ? environmentProblem(name) : keyProblem(name, source);
    }

    private static Optional<String> keyProblem(String name, Source source) {
        if (!name.startsWith(PREFIX) || name.startsWith(TEST_PREFIX)) {
            return Optional.empty();
        }
        String where = name + " (" + source.label + ")";
        if (name.startsWith(PROFILES)) {
            String rest = name.substring(PROFILES.length());
            int dot = rest.indexOf('.');
            if (dot <= 0 || dot == rest.length() - 1) {
                return Optional.of("Unknown key " + where + ": an engine profile key is "
                        + ProfiledRolloutKeys.PROFILE_KEY_PATTERN + ", e.g. "
                        + ProfiledRolloutKeys.profileKey("vllm-a100", ProfiledRolloutKeys.ENGINE_URL));
            }
            String profile = rest.substring(0, dot);
            String key = PREFIX + rest.substring(dot + 1);
            if (!PROFILE_NAME.matcher(profile).matches()) {
                return Optional.of("Invalid key " + where + ": the profile name '" + profile + "' may only have"
                        + " letters, digits, '-' and '_'; rename the profile");
            }
            Optional<Key> known = ProfiledRolloutKeys.find(key).filter(k -> !isPattern(k));
            if (known.isPresent() && known.get().scope() == Scope.SYSTEM_PROPERTY) {
                return Optional.of("Invalid key " + where + ": " + key + " cannot be set per engine profile, it is a"
                        + " JVM system property read once for the whole JVM (" + known.get().description()
                        + "); set -D" + key + " instead");
            }
            if (known.isPresent()) {
                return Optional.empty();
            }
            return Optional.of("Unknown key " + where + ": " + key + " is not a configuration key, so the profile"
                    + " value would be ignored" + suggestion(key, profileable().stream().map(Key::name).toList())
                    .map(k -> "; did you mean " + ProfiledRolloutKeys.profileKey(profile, k) + "?")
                    .orElse(noneNear()) + listed());
        }
        Optional<Key> known = ProfiledRolloutKeys.find(name).filter(k -> !isPattern(k));
        if (known.isPresent()) {
            if (known.get().scope() == Scope.SYSTEM_PROPERTY && source != Source.SYSTEM_PROPERTY) {
                return Optional.of("Invalid key " + where + ": " + name + " is read from JVM system properties only,"
                        + " so this value would be ignored; pass -D" + name + "=… to the test JVM (e.g. Surefire's"
                        + " systemPropertyVariables)");
            }
            return Optional.empty();
        }
        return Optional.of("Unknown key " + where + ": no component reads it, so it would be ignored"
                + suggestion(name, ProfiledRolloutKeys.all().stream().filter(k -> !isPattern(k)).map(Key::name)
                        .toList()).map(k -> "; did you mean " + k + "?").orElse(noneNear()) + listed());
    }

    private static Optional<String> environmentProblem(String name) {
        if (!name.startsWith(ENV_PREFIX) || name.startsWith(ENV_TEST_PREFIX)) {
            return Optional.empty();
        }
        String where = name + " (environment variable)";
        for (Key k : ProfiledRolloutKeys.all()) {
            if (!isPattern(k) && ProfiledRolloutKeys.environmentVariable(k.name()).equals(name)) {
                return k.scope() == Scope.SYSTEM_PROPERTY ? Optional.of("Invalid key " + where + ": " + k.name()
                        + " is read from JVM system properties only, not from the environment, so this value would be"
                        + " ignored; pass -D" + k.name() + "=… to the test JVM instead") : Optional.empty();
            }
        }
        if (name.startsWith(ENV_PROFILES)) {
            String rest = name.substring(ENV_PROFILES.length());
            for (Key k : ProfiledRolloutKeys.all()) {
                String suffix = "_" + envSuffix(k);
                if (!isPattern(k) && rest.endsWith(suffix) && rest.length() > suffix.length()) {
                    return k.scope() == Scope.SYSTEM_PROPERTY ? Optional.of("Invalid key " + where + ": " + k.name()
                            + " cannot be set per engine profile, it is a JVM system property read once for the whole"
                            + " JVM (" + k.description() + "); set -D" + k.name() + " instead") : Optional.empty();
                }
            }
            // <NAME>_<KEY>, where both may hold '_': the split whose key part is nearest a known key
            String best = null;
            int bestDistance = Integer.MAX_VALUE;
            for (int i = rest.indexOf('_'); i > 0; i = rest.indexOf('_', i + 1)) {
                String profile = rest.substring(0, i);
                String part = rest.substring(i + 1);
                for (Key k : profileable()) {
                    int d = Suggestions.distance(part, envSuffix(k));
                    if (d < bestDistance && Suggestions.nearest(part, List.of(envSuffix(k))).isPresent()) {
                        best = ENV_PROFILES + profile + "_" + envSuffix(k);
                        bestDistance = d;
                    }
                }
            }
            return Optional.of("Unknown key " + where + ": it is no engine profile key"
                    + " PROFILEDROLLOUT_PROFILES_<NAME>_<KEY> of a known key, so it would be ignored"
                    + (best != null ? "; did you mean " + best + "?" : noneNear())
                    + listed());
        }
        List<String> known = profileable().stream().map(k -> ProfiledRolloutKeys.environmentVariable(k.name()))
                .toList();
        return Optional.of("Unknown key " + where + ": no component reads it, so it would be ignored"
                + suggestion(name, known).map(k -> "; did you mean " + k + "?").orElse(noneNear()) + listed());
    }

    /** The keys an engine profile and the environment can set. */
    private static List<Key> profileable() {
        return ProfiledRolloutKeys.all().stream().filter(k -> !isPattern(k))
                .filter(k -> k.scope() != Scope.SYSTEM_PROPERTY).toList();
    }

    private static String envSuffix(Key k) {
        return ProfiledRolloutKeys.environmentVariable(k.name()).substring(ENV_PREFIX.length());
    }

    private static boolean isPattern(Key k) {
        return k.name().equals(ProfiledRolloutKeys.PROFILE_KEY_PATTERN);
    }

    private static Optional<String> suggestion(String given, List<String> known) {
        return Suggestions.nearest(given, known);
    }

    private static String noneNear() {
        return "; no known key is near it: fix or remove it";
    }

    private static String listed() {
        return " (every key: ProfiledRolloutKeys.all() and the README's configuration table; keys under "
                + TEST_PREFIX + " are left to test suites)";
    }
}
