package dev.profiledrollout.junit.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.EngineProfile;
import dev.profiledrollout.ProfiledRolloutKeys;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apiguardian.api.API;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * {@link EngineProfile @EngineProfile}: the settings of a class read through its profile, and the profiles that can be
 * listed when a name is unknown.
 */
@API(status = INTERNAL, since = "0.1")
public final class EngineProfiles {

    private static final String ENV_PREFIX = "PROFILEDROLLOUT_PROFILES_";

    private EngineProfiles() {
    }

    /**
     * @param settings    the global settings
     * @param annotation  the closest {@code @EngineProfile}, if any
     * @param environment the process environment, to list profiles defined there
     * @return {@code settings} read through the profile; unchanged without an annotation, or for an undefined
     *         {@link EngineProfile#optional() optional} one
     * @throws ExtensionConfigurationException for an invalid name, or an undefined profile that is not optional
     */
    public static Settings apply(Settings settings, Optional<EngineProfile> annotation,
            Map<String, String> environment) {
        if (annotation.isEmpty()) {
            return settings;
        }
        String name = annotation.get().value();
        Settings profiled = settings.forProfile(name);
        if (settings.profileDefined(name)) {
            return profiled;
        }
        if (annotation.get().optional()) {
            return settings;
        }
        Set<String> found = discovered(environment);
        String example = ProfiledRolloutKeys.profileKey(name, ProfiledRolloutKeys.ENGINE);
        throw new ExtensionConfigurationException("@EngineProfile(\"" + name + "\") names no defined profile: no "
                + ProfiledRolloutKeys.profileKey(name, "profiledrollout.*") + " key is set. Profiles defined in system"
                + " properties, junit-platform.properties and the environment: "
                + (found.isEmpty() ? "none" : String.join(", ", found)) + ". Fix the name, or define the profile, e.g. "
                + example + "=attach and " + ProfiledRolloutKeys.profileKey(name, ProfiledRolloutKeys.ENGINE_URL)
                + "=http://host:port (environment: " + ProfiledRolloutKeys.environmentVariable(example) + "=attach"
                + ", …), or mark it @EngineProfile(value = \"" + name + "\", optional = true) to run on the class's"
                + " own engine when it is not defined");
    }

    /**
     * The profile names that can be listed: from system properties, the first {@code junit-platform.properties} on the
     * class path (the one JUnit reads) and {@code PROFILEDROLLOUT_PROFILES_*} environment variables (there the name
     * is in its environment form, e.g. {@code VLLM_A100}). Launcher configuration parameters cannot be enumerated
     * through JUnit's extension API.
     */
    static Set<String> discovered(Map<String, String> environment) {
        Set<String> names = new TreeSet<>();
        System.getProperties().stringPropertyNames().forEach(key -> profileName(key).ifPresent(names::add));
        junitPlatformProperties().stringPropertyNames().forEach(key -> profileName(key).ifPresent(names::add));
        List<String> suffixes = ProfiledRolloutKeys.all().stream()
                .filter(k -> k.scope() != ProfiledRolloutKeys.Scope.SYSTEM_PROPERTY)
                .filter(k -> !k.name().equals(ProfiledRolloutKeys.PROFILE_KEY_PATTERN))
                .map(k -> ProfiledRolloutKeys.environmentVariable(k.name()).substring("PROFILEDROLLOUT".length()))
                .sorted(Comparator.comparingInt(String::length).reversed()).toList();
        for (String variable : environment.keySet()) {
            if (!variable.startsWith(ENV_PREFIX)) {
                continue;
            }
            String rest = variable.substring(ENV_PREFIX.length());
            suffixes.stream().filter(suffix -> rest.endsWith(suffix) && rest.length() > suffix.length()).findFirst()
                    .ifPresent(suffix -> names.add(rest.substring(0, rest.length() - suffix.length())));
        }
        return names;
    }

    private static Optional<String> profileName(String key) {
        String prefix = ProfiledRolloutKeys.profileKey("", ProfiledRolloutKeys.ENGINE);
        prefix = prefix.substring(0, prefix.length() - ".engine".length()); // "profiledrollout.profiles."
        if (!key.startsWith(prefix)) {
            return Optional.empty();
        }
        String rest = key.substring(prefix.length());
        int dot = rest.indexOf('.');
        return dot > 0 ? Optional.of(rest.substring(0, dot)) : Optional.empty();
    }

    /** The first {@code junit-platform.properties} on the class path, the one JUnit reads; empty when there is none. */
    public static Properties junitPlatformProperties() {
        Properties properties = new Properties();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        URL url = (loader != null ? loader : EngineProfiles.class.getClassLoader())
                .getResource("junit-platform.properties");
        if (url != null) {
            try (InputStream in = url.openStream()) {
                properties.load(in);
            } catch (IOException e) {
                // JUnit itself reports an unreadable file; here it only lists no profiles
            }
        }
        return properties;
    }
}
