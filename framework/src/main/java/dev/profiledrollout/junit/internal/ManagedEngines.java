package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.ENGINE;
import static dev.profiledrollout.ProfiledRolloutKeys.ENGINE_URL;
import static dev.profiledrollout.ProfiledRolloutKeys.ROUTER_URL;
import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_DIR;
import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_DIR_SERVER;
import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.Backend;
import dev.profiledrollout.RolloutEngine;
import dev.profiledrollout.engine.ManagedEngine;
import dev.profiledrollout.engine.ManagedEngineProvider;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.apiguardian.api.API;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;

/**
 * Finds the {@link RolloutEngine @RolloutEngine} field of a test class, starts its engine once for the class, and
 * turns it into settings: the engine is then attached to like any other ({@code profiledrollout.engine=attach}), with
 * its URL and its mounted profiler directory ({@code trace.dir} / {@code trace.dir.server}).
 */
@API(status = INTERNAL, since = "0.1")
public final class ManagedEngines {

    private ManagedEngines() {
    }

    /** @return the engine in the class's {@code @RolloutEngine} static field, if it has one */
    public static Optional<ManagedEngine> declared(Class<?> testClass) {
        List<Field> fields = AnnotationSupport.findAnnotatedFields(testClass, RolloutEngine.class,
                f -> true, HierarchyTraversalMode.TOP_DOWN);
        if (fields.isEmpty()) {
            return Optional.empty();
        }
        if (fields.size() > 1) {
            throw new ExtensionConfigurationException(testClass.getSimpleName() + " declares " + fields.size()
                    + " @RolloutEngine fields; declare one (routers and several engines are configured with "
                    + ROUTER_URL + " or " + ENGINE_URL + ")");
        }
        Field field = fields.get(0);
        String name = testClass.getSimpleName() + "." + field.getName();
        if (!Modifier.isStatic(field.getModifiers())) {
            throw new ExtensionConfigurationException("@RolloutEngine field " + name + " must be static: the engine "
                    + "is started once for the class");
        }
        if (!ManagedEngine.class.isAssignableFrom(field.getType())) {
            throw new ExtensionConfigurationException("@RolloutEngine field " + name + " has type "
                    + field.getType().getName() + ", which does not implement " + ManagedEngine.class.getName()
                    + "; use SglangContainer or VllmContainer from profiled-rollout-containers");
        }
        try {
            field.setAccessible(true);
            Object value = field.get(null);
            if (value == null) {
                throw new ExtensionConfigurationException("@RolloutEngine field " + name + " is null");
            }
            return Optional.of((ManagedEngine) value);
        } catch (IllegalAccessException e) {
            throw new ExtensionConfigurationException("Cannot read @RolloutEngine field " + name, e);
        }
    }

    /**
     * Starts the engine if it is not running and returns the settings that attach to it.
     *
     * @throws ExtensionConfigurationException when the engine speaks another backend than the test asks for
     */
    public static Settings attach(ManagedEngine engine, Backend backend, Settings settings) {
        if (engine.backend() != backend) {
            throw new ExtensionConfigurationException("@ProfiledRollout(backend = " + backend + ") but the "
                    + "@RolloutEngine is a " + engine.backend() + " engine (" + engine + "); make them agree");
        }
        if (!engine.isRunning()) {
            engine.start();
        }
        Map<String, String> overrides = new HashMap<>();
        overrides.put(ENGINE, "attach");
        overrides.put(ENGINE_URL, engine.engineUri().toString());
        engine.traceDirectory().ifPresent(dir -> {
            overrides.put(TRACE_DIR, dir.localPath().toString());
            overrides.put(TRACE_DIR_SERVER, dir.serverPath());
        });
        return settings.withOverrides(overrides);
    }

    /**
     * The engine for {@code profiledrollout.engine=container} without a {@code @RolloutEngine} field, from the first
     * {@link ManagedEngineProvider} on the class path.
     *
     * @throws ExtensionConfigurationException when no provider is on the class path or a key is invalid
     */
    public static ManagedEngine createDefault(Backend backend, Settings settings) {
        ManagedEngineProvider provider = ServiceLoader.load(ManagedEngineProvider.class).findFirst()
                .orElseThrow(() -> new ExtensionConfigurationException(ENGINE + "=container needs "
                        + "dev.profiledrollout:profiled-rollout-containers on the test class path (it provides "
                        + "SglangContainer and VllmContainer), or declare a @RolloutEngine field"));
        try {
            return provider.create(backend, settings::get, settings.outputDir().resolve("container-profiles"));
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException(e.getMessage(), e);
        }
    }

    /** Stops, after the class, an engine the extension started; kept in the class's store. */
    public record Started(ManagedEngine engine) implements AutoCloseable {
        @Override
        public void close() {
            engine.stop();
        }
    }
}
