package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.ENGINE;
import static dev.profiledrollout.ProfiledRolloutKeys.ENGINE_URL;
import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_DIR;
import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_DIR_SERVER;
import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.Backend;
import dev.profiledrollout.RolloutEngine;
import dev.profiledrollout.engine.EngineTarget;
import dev.profiledrollout.engine.ManagedEngine;
import dev.profiledrollout.engine.ManagedEngineProvider;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
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
 * Finds the {@link RolloutEngine @RolloutEngine} member of a test class, starts its engine once for the class, and
 * turns it into settings: the engine is then attached to like any other ({@code profiledrollout.engine=attach}), with
 * its URL and its mounted profiler directory ({@code trace.dir} / {@code trace.dir.server}), or with the keys of an
 * {@link EngineTarget}.
 */
@API(status = INTERNAL, since = "0.1")
public final class ManagedEngines {

    private ManagedEngines() {
    }

    /**
     * The class's {@code @RolloutEngine} member: a static field holding, or a static no-argument method returning, a
     * {@link ManagedEngine} or an {@link EngineTarget}. A method is called only by {@link Declaration#value()}.
     *
     * @param name  {@code Class.member} (methods with {@code ()}), for messages
     * @param type  the member's declared type
     * @param value reads the field or calls the method
     */
    public record Declaration(String name, Class<?> type, java.util.function.Supplier<Object> value) {

        /** @return whether the member is an {@link EngineTarget} (else a {@link ManagedEngine}) */
        public boolean target() {
            return EngineTarget.class.isAssignableFrom(type);
        }
    }

    /**
     * @return the class's {@code @RolloutEngine} member, if it has one
     * @throws ExtensionConfigurationException when there are several, or the member is not static, has parameters or
     *                                         has another type
     */
    public static Optional<Declaration> declaration(Class<?> testClass) {
        List<Field> fields = AnnotationSupport.findAnnotatedFields(testClass, RolloutEngine.class,
                f -> true, HierarchyTraversalMode.TOP_DOWN);
        List<Method> methods = AnnotationSupport.findAnnotatedMethods(testClass, RolloutEngine.class,
                HierarchyTraversalMode.TOP_DOWN);
        if (fields.isEmpty() && methods.isEmpty()) {
            return Optional.empty();
        }
        if (fields.size() + methods.size() > 1) {
            throw new ExtensionConfigurationException(testClass.getSimpleName() + " declares "
                    + (fields.size() + methods.size()) + " @RolloutEngine members; declare one (a router, several"
                    + " engines or prefill/decode engines are one EngineTarget)");
        }
        if (!fields.isEmpty()) {
            Field field = fields.get(0);
            String name = testClass.getSimpleName() + "." + field.getName();
            checkMember(name, "field", field.getModifiers(), field.getType());
            return Optional.of(new Declaration(name, field.getType(), () -> {
                try {
                    field.setAccessible(true);
                    return nonNull(name, field.get(null));
                } catch (IllegalAccessException e) {
                    throw new ExtensionConfigurationException("Cannot read @RolloutEngine field " + name, e);
                }
            }));
        }
        Method method = methods.get(0);
        String name = testClass.getSimpleName() + "." + method.getName() + "()";
        checkMember(name, "method", method.getModifiers(), method.getReturnType());
        if (method.getParameterCount() != 0) {
            throw new ExtensionConfigurationException("@RolloutEngine method " + name + " takes parameters; it must"
                    + " take none");
        }
        return Optional.of(new Declaration(name, method.getReturnType(), () -> {
            try {
                method.setAccessible(true);
                return nonNull(name, method.invoke(null));
            } catch (IllegalAccessException e) {
                throw new ExtensionConfigurationException("Cannot call @RolloutEngine method " + name, e);
            } catch (InvocationTargetException e) {
                throw new ExtensionConfigurationException("@RolloutEngine method " + name + " failed: "
                        + e.getCause(), e.getCause());
            }
        }));
    }

    private static void checkMember(String name, String kind, int modifiers, Class<?> type) {
        if (!Modifier.isStatic(modifiers)) {
            throw new ExtensionConfigurationException("@RolloutEngine " + kind + " " + name + " must be static: the"
                    + " engine is chosen once for the class");
        }
        if (!ManagedEngine.class.isAssignableFrom(type) && !EngineTarget.class.isAssignableFrom(type)) {
            throw new ExtensionConfigurationException("@RolloutEngine " + kind + " " + name + " has type "
                    + type.getName() + ", which is neither a " + ManagedEngine.class.getName() + " (SglangContainer,"
                    + " VllmContainer from profiled-rollout-containers) nor an " + EngineTarget.class.getName()
                    + " (an engine or router the class started itself)");
        }
    }

    private static Object nonNull(String name, Object value) {
        if (value == null) {
            throw new ExtensionConfigurationException("@RolloutEngine " + name + " is null; start the engine in"
                    + " the member itself (a method is called only when the configuration names no engine), or"
                    + " assign the field before the first test");
        }
        return value;
    }

    /**
     * The settings of a class whose {@code @RolloutEngine} is an {@link EngineTarget}: its keys over everything else.
     */
    public static Settings attach(EngineTarget target, Settings settings) {
        return settings.withOverrides(target.keys());
    }

    /** Closes, after the class, what an {@link EngineTarget} asks to close, last given first; kept in its store. */
    public record Target(EngineTarget target) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            Exception failure = null;
            List<AutoCloseable> resources = new java.util.ArrayList<>(target.resourcesToClose());
            java.util.Collections.reverse(resources);
            for (AutoCloseable resource : resources) {
                try {
                    resource.close();
                } catch (Exception e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
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
