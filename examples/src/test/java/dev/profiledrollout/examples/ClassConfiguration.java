package dev.profiledrollout.examples;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Configuration keys for the profiled tests of one class: how an example points its class, and only it, at the
 * simulated deployment it started itself, with exactly the keys that name a real deployment
 * ({@code profiledrollout.engine=attach}, {@code .engine.url}, {@code .router.url}, …).
 *
 * <p>Why system properties: the extension reads its keys for every test as JUnit configuration parameters, and JUnit
 * answers a parameter the launcher was not given from the JVM's system properties at the moment it is asked, then
 * from {@code junit-platform.properties} ({@code junit-team/junit5}
 * {@code junit-platform-launcher/src/main/java/org/junit/platform/launcher/core/LauncherConfigurationParameters.java}).
 * Keys set in {@code @BeforeAll} and restored in {@code @AfterAll} therefore apply to that class's tests alone, as
 * long as test classes do not run concurrently (Surefire runs them one after another in one JVM unless JUnit's
 * parallel execution is switched on).
 *
 * <pre>{@code
 * @BeforeAll
 * static void startRouter() throws IOException {
 *     if (ClassConfiguration.namesAnEngine()) {
 *         return; // the run names a real deployment: profile that one
 *     }
 *     router = RouterSimulator.builder().workers(2).start();
 *     configuration = ClassConfiguration.set(Map.of("profiledrollout.engine", "attach",
 *             "profiledrollout.router.url", router.baseUri().toString()));
 * }
 * }</pre>
 */
final class ClassConfiguration implements AutoCloseable {

    private static final String ENGINE = "profiledrollout.engine";

    /** Each key's value before {@link #set}; null when it was unset. */
    private final Map<String, String> previous;

    private ClassConfiguration(Map<String, String> previous) {
        this.previous = previous;
    }

    /**
     * @return whether the run itself says where the engine is ({@code -Dprofiledrollout.engine=…} or
     *         {@code PROFILEDROLLOUT_ENGINE}); an example then starts no stand-in and profiles that engine
     */
    static boolean namesAnEngine() {
        return System.getProperty(ENGINE) != null || System.getenv("PROFILEDROLLOUT_ENGINE") != null;
    }

    /**
     * Sets {@code keys} as system properties until {@link #close()}.
     *
     * @param keys configuration keys and values, not null
     * @return the handle that restores the previous values
     */
    static ClassConfiguration set(Map<String, String> keys) {
        Map<String, String> previous = new LinkedHashMap<>();
        keys.forEach((key, value) -> {
            previous.put(key, System.getProperty(key));
            System.setProperty(key, value);
        });
        return new ClassConfiguration(previous);
    }

    /** Restores every key to what it was before {@link #set}. */
    @Override
    public void close() {
        previous.forEach((key, value) -> {
            if (value == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, value);
            }
        });
    }
}
