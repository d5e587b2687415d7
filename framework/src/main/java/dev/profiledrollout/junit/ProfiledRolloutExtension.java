package dev.profiledrollout.junit;

import static org.apiguardian.api.API.Status.STABLE;

import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutRecipe;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.SimulatedEngine;
import dev.profiledrollout.engine.ManagedEngine;
import dev.profiledrollout.junit.internal.CaptureAttempt;
import dev.profiledrollout.junit.internal.EngineHandle;
import dev.profiledrollout.junit.internal.ManagedEngines;
import dev.profiledrollout.junit.internal.ProfileWindow;
import dev.profiledrollout.junit.internal.RecipeWindows;
import dev.profiledrollout.recipe.SrtctlRecipe;
import dev.profiledrollout.report.AllureSteps;
import dev.profiledrollout.report.TestReport;
import dev.profiledrollout.report.Verdicts;
import dev.profiledrollout.junit.internal.Settings;
import dev.profiledrollout.junit.internal.WindowSpec;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apiguardian.api.API;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit 5 extension behind {@link ProfiledRollout}: wraps each test method in an engine profile window and
 * resolves the {@link RolloutSession} parameter.
 *
 * <h2>Lifecycle</h2>
 * <ul>
 *   <li>The engine (see {@link ProfiledRolloutKeys#ENGINE}) is opened once per test class, on first use, and kept in the class's
 *       {@link ExtensionContext.Store}; JUnit closes it (stopping the embedded simulator) after the class.</li>
 *   <li>Each test method gets a {@link ProfileWindow} in its own store, opened right before the body
 *       (warm-up, {@code /start_profile}, load) and completed right after it ({@code RolloutSession#awaitResult()}
 *       if the body did not call it). A body that throws still gets the profiler stopped, the load cancelled and
 *       the partial results written; its exception is what the test reports.</li>
 *   <li>After the body, the budget verdicts its assertions recorded, the charts and {@code report.html} are added to
 *       the output directory and, under {@code allure-jupiter}, each phase is an Allure step (see
 *       {@link TestReport}; {@link ProfiledRolloutKeys#REPORT_ATTACH_TRACES} and
 *       {@link ProfiledRolloutKeys#REPORT_ATTACH_MAX_BYTES} choose whether trace files are attached).</li>
 *   <li>After each capture, the engine steps of every rank trace are counted ({@code steps} in {@code summary.json})
 *       and, with {@code numSteps}, compared with it in a {@code CAPTURE} verdict {@code "steps captured"}: a warning,
 *       or a failure with {@code @ProfiledRollout(strictSteps = true)} / {@link ProfiledRolloutKeys#STEPS_STRICT}.</li>
 *   <li>A test that fails before or while opening its window (engine unreachable, configuration error, profiler
 *       start refused) still gets {@code summary.json} with what it {@code attempted}, the {@code error} and an
 *       {@code ERROR} {@code outcome}, and {@code report.html}.</li>
 * </ul>
 *
 * <h2>Configuration keys</h2>
 * {@link ProfiledRolloutKeys} lists every key, where it is read from and its default; all are validated before
 * anything starts (errors name the key). The engines are opened once per test class and backend.
 *
 * <h2>A JVM stopped mid-window</h2>
 * On SIGTERM or SIGINT (an IDE's stop button, a cancelled CI job, a build tool ending its fork), a JVM shutdown hook
 * stops every engine that is profiling, cancels the load and writes the partial {@code summary.json} with an
 * {@code error}, within {@link ProfiledRolloutKeys#SHUTDOWN_TIMEOUT}. It cannot run when the JVM is killed
 * outright (SIGKILL, {@code Runtime.halt}).
 *
 * <h2>Several engines</h2>
 * With a router, several engine URLs or prefill/decode URLs, every engine is started and stopped concurrently; one
 * that fails to start is reported ({@code RolloutResult#workers()}, {@code summary.json}) while the others are
 * profiled and stopped. With {@code @RolloutPhase}, each phase is its own window on that phase's engines; with
 * {@code @RolloutRecipe}, the phases come from an srtctl recipe.
 *
 * Registered by {@code @ProfiledRollout}; not meant to be registered on its own.
 */
@API(status = STABLE, since = "0.1")
public final class ProfiledRolloutExtension implements BeforeEachCallback, ParameterResolver, InvocationInterceptor {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(ProfiledRolloutExtension.class);

    /**
     * Validates the annotations and resolves the engine before the test's parameters are resolved, so that a
     * configuration error surfaces as itself rather than wrapped in a parameter-resolution failure.
     */
    @Override
    public void beforeEach(ExtensionContext context) {
        if (profiledRollout(context).isPresent()) {
            try {
                AllureSteps.step("engine ready", () -> window(context));
            } catch (RuntimeException | Error e) {
                reportAttempt(context, e);
                throw e;
            }
        }
    }

    /**
     * Writes {@code summary.json} and {@code report.html} for a test that failed before its window existed: what it
     * attempted, and why it failed (see {@link CaptureAttempt}).
     */
    private static void reportAttempt(ExtensionContext context, Throwable failure) {
        Settings settings = settings(context);
        List<RolloutPhase> phases = phases(context);
        CaptureAttempt attempt = CaptureAttempt.of(profiledRollout(context).orElseThrow(), phases, settings,
                () -> spec(context));
        Path output;
        try {
            output = outputDirectory(context, settings);
        } catch (RuntimeException invalid) {
            // An invalid output directory is what failed: the default one still holds the report.
            output = outputDirectory(context, settings.withOverrides(Map.of(ProfiledRolloutKeys.OUTPUT_DIR,
                    ProfiledRolloutKeys.defaultValue(ProfiledRolloutKeys.OUTPUT_DIR).orElseThrow())));
        }
        TestReport.Options options;
        try {
            options = TestReport.Options.from(context::getConfigurationParameter);
        } catch (RuntimeException invalid) {
            options = TestReport.Options.DEFAULTS;
        }
        attempt.write(output, testName(context), failure, options, System.out);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == RolloutSession.class
                && extensionContext.getTestMethod().isPresent();
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        if (profiledRollout(extensionContext).isEmpty()) {
            throw new ParameterResolutionException("A RolloutSession parameter needs @ProfiledRollout on the test "
                    + "method or its class");
        }
        return window(extensionContext);
    }

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> invocationContext,
            ExtensionContext extensionContext) throws Throwable {
        if (profiledRollout(extensionContext).isEmpty()) {
            invocation.proceed();
            return;
        }
        ProfileWindow window = window(extensionContext);
        window.open();
        TestReport.Options options = TestReport.Options.from(extensionContext::getConfigurationParameter);
        try (Verdicts.Recording verdicts = Verdicts.start()) {
            try {
                invocation.proceed();
            } catch (Throwable bodyFailure) {
                window.abort(bodyFailure);
                window.finishReport(verdicts.verdicts(), options, bodyFailure);
                throw bodyFailure;
            }
            window.awaitResult();
            window.finishReport(verdicts.verdicts(), options, null);
        }
    }

    private static ProfileWindow window(ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        return store.getOrComputeIfAbsent(ProfileWindow.class, key -> newWindow(context), ProfileWindow.class);
    }

    private static ProfileWindow newWindow(ExtensionContext context) {
        ProfiledRollout profile = profiledRollout(context).orElseThrow();
        Optional<SrtctlRecipe> recipe = recipe(context);
        WindowSpec spec = spec(context);
        Settings settings = managedEngine(context, spec.backend(), settings(context));
        settings.validate();
        recipe.ifPresent(r -> RecipeWindows.checkVllm(r, settings.vllmMaxIterations()));
        EngineHandle engine = engine(context, settings, spec.backend());
        recipe.ifPresent(r -> RecipeWindows.warnOnWorkerCounts(r, engine.workers()));
        Path output = outputDirectory(context, settings);
        return new ProfileWindow(engine, spec, settings, output, testName(context),
                profile.strictSteps());
    }

    private static Optional<SrtctlRecipe> recipe(ExtensionContext context) {
        return closest(context, RolloutRecipe.class).map(r -> RecipeWindows.load(r, context.getRequiredTestClass()));
    }

    /** The validated window of the test: its annotations, or its srtctl recipe's phases. */
    private static WindowSpec spec(ExtensionContext context) {
        ProfiledRollout profile = profiledRollout(context).orElseThrow();
        RolloutLoad load = closest(context, RolloutLoad.class).orElse(null);
        Optional<SrtctlRecipe> recipe = recipe(context);
        return recipe.isPresent() ? RecipeWindows.spec(recipe.get(), profile, load, phases(context))
                : WindowSpec.of(profile, load, phases(context));
    }

    private static String testName(ExtensionContext context) {
        return context.getRequiredTestClass().getSimpleName() + "." + context.getRequiredTestMethod().getName();
    }

    /** One engine handle per test class and backend (a class may mix SGLang and vLLM methods). */
    private static EngineHandle engine(ExtensionContext context, Settings settings, Backend backend) {
        ExtensionContext classContext = classContext(context);
        Optional<SimulatedEngine> shape = AnnotationSupport.findAnnotation(context.getRequiredTestClass(),
                SimulatedEngine.class);
        return classContext.getStore(NAMESPACE).getOrComputeIfAbsent(EngineHandle.class.getName() + "-" + backend,
                key -> EngineHandle.open(settings, shape, backend), EngineHandle.class);
    }

    /**
     * With a {@code @RolloutEngine} field: starts that engine once for the class (stopping it after the class when the
     * extension started it) and returns settings that attach to it; otherwise the settings unchanged.
     */
    private static Settings managedEngine(ExtensionContext context, Backend backend, Settings settings) {
        ExtensionContext.Store store = classContext(context).getStore(NAMESPACE);
        Optional<ManagedEngine> declared = ManagedEngines.declared(context.getRequiredTestClass());
        if (declared.isEmpty() && settings.engineKind() == Settings.EngineKind.CONTAINER) {
            // One default container per class and backend, created from profiledrollout.container.* keys.
            declared = Optional.of(store.getOrComputeIfAbsent("default-container-" + backend,
                    key -> ManagedEngines.createDefault(backend, settings), ManagedEngine.class));
        }
        if (declared.isEmpty()) {
            return settings;
        }
        ManagedEngine engine = declared.get();
        if (!engine.isRunning()) {
            store.getOrComputeIfAbsent(ManagedEngines.Started.class, key -> {
                engine.start();
                return new ManagedEngines.Started(engine);
            }, ManagedEngines.Started.class);
        }
        return ManagedEngines.attach(engine, backend, settings);
    }

    /** The {@code @RolloutPhase}s of the test method, else of its class, in declaration order. */
    private static List<RolloutPhase> phases(ExtensionContext context) {
        List<RolloutPhase> onMethod = context.getTestMethod()
                .map(m -> AnnotationSupport.findRepeatableAnnotations(m, RolloutPhase.class)).orElse(List.of());
        if (!onMethod.isEmpty()) {
            return onMethod;
        }
        Optional<ExtensionContext> current = Optional.of(context);
        while (current.isPresent()) {
            Optional<Class<?>> testClass = current.get().getTestClass();
            if (testClass.isPresent()) {
                List<RolloutPhase> found = AnnotationSupport.findRepeatableAnnotations(testClass.get(),
                        RolloutPhase.class);
                if (!found.isEmpty()) {
                    return found;
                }
            }
            current = current.get().getParent();
        }
        return List.of();
    }

    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext current = context;
        while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
            current = current.getParent().get();
        }
        return current;
    }

    /** {@code <output.dir>/<TestClass>/<method>}, with a numeric suffix for repeated or parameterized invocations. */
    private static Path outputDirectory(ExtensionContext context, Settings settings) {
        // Once per test: the early-failure report must use the directory the window would have used.
        return context.getStore(NAMESPACE).getOrComputeIfAbsent("outputDirectory",
                key -> newOutputDirectory(context, settings), Path.class);
    }

    private static Path newOutputDirectory(ExtensionContext context, Settings settings) {
        String className = context.getRequiredTestClass().getName();
        className = className.substring(className.lastIndexOf('.') + 1);
        String method = context.getRequiredTestMethod().getName();
        @SuppressWarnings("unchecked")
        Set<String> used = context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent("usedOutputDirectories", key -> new HashSet<String>(), Set.class);
        String name = method;
        synchronized (used) {
            for (int i = 2; !used.add(className + "/" + name); i++) {
                name = method + "-" + i;
            }
        }
        return settings.outputDir().resolve(className).resolve(name);
    }

    private static Settings settings(ExtensionContext context) {
        return new Settings(context::getConfigurationParameter, System.getenv());
    }

    private static Optional<ProfiledRollout> profiledRollout(ExtensionContext context) {
        return closest(context, ProfiledRollout.class);
    }

    /** The annotation on the test method, else on its class (or an enclosing class for {@code @Nested} tests). */
    private static <A extends java.lang.annotation.Annotation> Optional<A> closest(ExtensionContext context,
            Class<A> type) {
        Optional<A> onMethod = context.getTestMethod().flatMap(m -> AnnotationSupport.findAnnotation(m, type));
        if (onMethod.isPresent()) {
            return onMethod;
        }
        Optional<ExtensionContext> current = Optional.of(context);
        while (current.isPresent()) {
            Optional<Class<?>> testClass = current.get().getTestClass();
            if (testClass.isPresent()) {
                Optional<A> found = AnnotationSupport.findAnnotation(testClass.get(), type);
                if (found.isPresent()) {
                    return found;
                }
            }
            current = current.get().getParent();
        }
        return Optional.empty();
    }
}
