package dev.profiledrollout.junit;

import static org.apiguardian.api.API.Status.STABLE;

import dev.profiledrollout.Backend;
import dev.profiledrollout.EngineProfile;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.RegressionCheck;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSweep;
import dev.profiledrollout.RolloutCapacity;
import dev.profiledrollout.RolloutRecipe;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.SimulatedEngine;
import dev.profiledrollout.engine.EngineTarget;
import dev.profiledrollout.engine.ManagedEngine;
import dev.profiledrollout.junit.internal.ConfigurationProblems;
import dev.profiledrollout.junit.internal.EngineProfiles;
import dev.profiledrollout.junit.internal.CaptureAttempt;
import dev.profiledrollout.junit.internal.EngineHandle;
import dev.profiledrollout.junit.internal.HistoryRecorder;
import dev.profiledrollout.junit.internal.ManagedEngines;
import dev.profiledrollout.junit.internal.ProfileWindow;
import dev.profiledrollout.junit.internal.RecipeWindows;
import dev.profiledrollout.recipe.SrtctlRecipe;
import dev.profiledrollout.report.AllureSteps;
import dev.profiledrollout.verdict.BudgetFailuresError;
import dev.profiledrollout.report.TestOutcome;
import dev.profiledrollout.report.TestReport;
import dev.profiledrollout.verdict.Verdicts;
import dev.profiledrollout.junit.internal.Settings;
import dev.profiledrollout.junit.internal.UnknownKeys;
import dev.profiledrollout.junit.internal.WindowSpec;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;
import org.apiguardian.api.API;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
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
 *   <li>Budgets are soft by default ({@link ProfiledRollout#softBudgets()}): a failed budget assertion does not end the
 *       body; the test fails once after it with every failed budget.</li>
 *   <li>After the body, the budget verdicts its assertions recorded, the test's {@code outcome}, the charts and
 *       {@code report.html} are added to the output directory and, under {@code allure-jupiter}, each phase is an Allure step (see
 *       {@link TestReport}; {@link ProfiledRolloutKeys#REPORT_ATTACH_TRACES} and
 *       {@link ProfiledRolloutKeys#REPORT_ATTACH_MAX_BYTES} choose whether trace files are attached).</li>
 *   <li>After each capture, the engine steps of every rank trace are counted ({@code steps} in {@code summary.json})
 *       and, with {@code numSteps}, compared with it in a {@code CAPTURE} verdict {@code "steps captured"}: a warning,
 *       or a failure with {@code @ProfiledRollout(strictSteps = true)} / {@link ProfiledRolloutKeys#STEPS_STRICT}.</li>
 *   <li>With {@link ProfiledRolloutKeys#HISTORY_ENABLED} (the default) the result gets its history access
 *       ({@code RolloutResult#history()}); after the body the class's {@code @RegressionCheck} metrics are checked
 *       against the earlier runs of the same test and configuration ({@code HISTORY} verdicts, a REGRESSION fails with
 *       the budgets), the run is recorded with the outcome it ends with (one record per phase) in the store of
 *       {@link ProfiledRolloutKeys#HISTORY_URL}, opened once per test class and closed after it, and
 *       {@code summary.json} gets its {@code history} block. A store that cannot be used is a warning, never a
 *       failure.</li>
 *   <li>A test that fails before or while opening its window (engine unreachable, configuration error, profiler
 *       start refused) still gets {@code summary.json} with what it {@code attempted}, the {@code error} and an
 *       {@code ERROR} {@code outcome}, and {@code report.html}.</li>
 * </ul>
 *
 * <h2>Configuration keys</h2>
 * {@link ProfiledRolloutKeys} lists every key, where it is read from and its default; all are validated before
 * anything starts, and every invalid key and annotation attribute is listed in one error. A class chooses its engine
 * with {@code @EngineProfile} (named configuration, {@link ProfiledRolloutKeys#PROFILE_KEY_PATTERN}) or a
 * {@code @RolloutEngine} member; the engines are opened once per test class, backend and chosen engine.
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
        Settings settings;
        try {
            // the class's engine profile, as the window would have used it
            settings = EngineProfiles.apply(settings(context), closest(context, EngineProfile.class), System.getenv());
        } catch (RuntimeException invalid) {
            settings = settings(context); // the profile itself is what failed
        }
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
            options = TestReport.Options.from(settings::get);
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

    /**
     * Runs the body inside the profile window with a {@link Verdicts} recording (soft unless
     * {@link ProfiledRollout#softBudgets()} is false), then writes the report and its {@code outcome} and fails the test
     * once: with the body's exception (soft budget failures before it added: to an assertion failure as further
     * failures, to any other exception as suppressed), else with all soft budget failures, else with a failure of the
     * window itself.
     */
    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> invocationContext,
            ExtensionContext extensionContext) throws Throwable {
        Optional<ProfiledRollout> profile = profiledRollout(extensionContext);
        if (profile.isEmpty()) {
            invocation.proceed();
            return;
        }
        ProfileWindow window = window(extensionContext);
        Optional<HistoryRecorder> history = history(extensionContext, window);
        history.ifPresent(h -> window.onCompletion(h::attach));
        try {
            window.open();
        } catch (RuntimeException | Error openFailure) {
            try {
                TestReport.writeOutcome(window.outputDirectory(), List.of(), TestOutcome.of(List.of(), openFailure,
                        false));
            } catch (RuntimeException e) {
                openFailure.addSuppressed(e);
            }
            throw openFailure;
        }
        TestReport.Options options = TestReport.Options.from(window.settings()::get);
        try (Verdicts.Recording verdicts = Verdicts.start(profile.get().softBudgets())) {
            try {
                invocation.proceed();
            } catch (Throwable bodyFailure) {
                Throwable reported = withBudgetFailures(verdicts, bodyFailure);
                window.abort(reported);
                history.ifPresent(h -> h.record(TestOutcome.of(verdicts.verdicts(), reported, true)));
                window.finishReport(verdicts.verdicts(), options, reported,
                        TestOutcome.of(verdicts.verdicts(), reported, true));
                throw reported;
            }
            BudgetFailuresError budgets = verdicts.failuresError();
            try {
                window.awaitResult();
            } catch (RuntimeException | Error windowFailure) {
                if (budgets != null) {
                    budgets.getFailures().forEach(windowFailure::addSuppressed);
                }
                if (window.completedResult() != null) {
                    history.ifPresent(h -> h.record(TestOutcome.of(verdicts.verdicts(), windowFailure, false)));
                }
                window.finishReport(verdicts.verdicts(), options, windowFailure,
                        TestOutcome.of(verdicts.verdicts(), windowFailure, false));
                throw windowFailure;
            }
            if (history.isPresent()) {
                List<AssertionError> regressions = history.get().check();
                if (!regressions.isEmpty()) {
                    List<Throwable> failures = new ArrayList<>(verdicts.failures());
                    failures.addAll(regressions);
                    budgets = BudgetFailuresError.of(verdicts.verdicts(), failures, null);
                }
                history.get().record(TestOutcome.of(verdicts.verdicts(), budgets, false));
            }
            window.finishReport(verdicts.verdicts(), options, budgets,
                    TestOutcome.of(verdicts.verdicts(), budgets, false));
            if (budgets != null) {
                throw budgets;
            }
        }
    }

    /**
     * What the test reports when its body threw {@code thrown} after the soft budget failures collected so far: an
     * assertion failure joins them in one {@link BudgetFailuresError}, any other exception is reported as itself with
     * them suppressed.
     */
    private static Throwable withBudgetFailures(Verdicts.Recording verdicts, Throwable thrown) {
        List<AssertionError> collected = verdicts.failures();
        if (collected.isEmpty()) {
            return thrown;
        }
        if (!(thrown instanceof AssertionError)) {
            collected.forEach(thrown::addSuppressed);
            return thrown;
        }
        if (thrown instanceof BudgetFailuresError inner) {
            // A soft-assertion block in the body: its failures are budgets too, none stopped the body.
            List<Throwable> all = new ArrayList<>(collected);
            all.addAll(inner.getFailures());
            return BudgetFailuresError.of(verdicts.verdicts(), all, null);
        }
        return BudgetFailuresError.of(verdicts.verdicts(), collected, thrown);
    }

    /**
     * The test's history recorder ({@link ProfiledRolloutKeys#HISTORY_ENABLED}), with the class's stores (opened once
     * per class, closed after it), its {@code @RegressionCheck} and its test id {@code <class name>#<method>}.
     */
    private static Optional<HistoryRecorder> history(ExtensionContext context, ProfileWindow window) {
        HistoryRecorder.Stores stores = classContext(context).getStore(NAMESPACE).getOrComputeIfAbsent(
                HistoryRecorder.Stores.class, key -> new HistoryRecorder.Stores(), HistoryRecorder.Stores.class);
        String testId = context.getRequiredTestClass().getName() + "#" + context.getRequiredTestMethod().getName();
        try {
            return HistoryRecorder.of(stores, window.settings()::get,
                    closest(context, RegressionCheck.class).orElse(null), testId, window.outputDirectory(),
                    window::runModel);
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException(e.getMessage(), e);
        }
    }

    private static ProfileWindow window(ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        return store.getOrComputeIfAbsent(ProfileWindow.class, key -> newWindow(context), ProfileWindow.class);
    }

    private static ProfileWindow newWindow(ExtensionContext context) {
        ProfiledRollout profile = profiledRollout(context).orElseThrow();
        RolloutLoad load = closest(context, RolloutLoad.class).orElse(null);
        // Every configuration problem (annotations, recipe, keys, engine profile) is reported at once, before any
        // engine starts; only a @RolloutEngine container's own keys are known after its start.
        ConfigurationProblems problems = new ConfigurationProblems();
        UnknownKeys.check(problems, System.getProperties().stringPropertyNames(),
                EngineProfiles.junitPlatformProperties().stringPropertyNames(), System.getenv().keySet());
        Optional<RolloutRecipe> recipeAnnotation = closest(context, RolloutRecipe.class);
        Optional<SrtctlRecipe> recipe = recipeAnnotation
                .flatMap(r -> problems.attempt(() -> RecipeWindows.load(r, context.getRequiredTestClass())));
        problems.check(recipeAnnotation.isEmpty() || (closest(context, RolloutSweep.class).isEmpty()
                        && closest(context, RolloutCapacity.class).isEmpty()),
                "@RolloutSweep or @RolloutCapacity with @RolloutRecipe", "one or the other: the recipe's benchmark"
                        + " section sets the load");
        Optional<WindowSpec> specified = recipeAnnotation.isPresent()
                ? recipe.flatMap(r -> problems.attempt(() -> RecipeWindows.spec(r, recipeAnnotation.get(), profile, load,
                        phases(context))))
                : problems.attempt(() -> WindowSpec.of(profile, load, phases(context))
                        .withSweep(closest(context, RolloutSweep.class).orElse(null))
                        .withCapacity(closest(context, RolloutCapacity.class).orElse(null)));
        AnnotationSupport.findAnnotation(context.getRequiredTestClass(), SimulatedEngine.class)
                .ifPresent(shape -> EngineHandle.checkShape(shape, problems));
        Backend backend = specified.map(WindowSpec::backend).orElse(profile.backend());
        Optional<Settings> configured = problems.attempt(() -> EngineProfiles.apply(settings(context),
                closest(context, EngineProfile.class), System.getenv()));
        Optional<Optional<ManagedEngines.Declaration>> declared =
                problems.attempt(() -> ManagedEngines.declaration(context.getRequiredTestClass()));
        Optional<ManagedEngines.Declaration> own = configured.isEmpty() || configured.get().namesEngine()
                ? Optional.empty() : declared.flatMap(d -> d);
        Optional<Settings> chosen = configured;
        if (own.isPresent() && own.get().target()) {
            chosen = problems.attempt(() -> ManagedEngines.attach(target(context, own.get()), configured.get()));
        }
        if (chosen.isPresent() && (own.isEmpty() || own.get().target())) {
            chosen.get().validate(problems);
            Settings keys = chosen.get();
            recipe.ifPresent(r -> problems.attempt(() -> RecipeWindows.checkServerSteps(r, keys::get)));
            specified.ifPresent(s -> problems.attempt(() -> s.checkBackend(keys::get)));
        }
        if (configured.isPresent()) {
            // the history keys and @RegressionCheck, read as the test's recorder will read them (no store is opened)
            Settings keys = configured.get();
            problems.attempt(() -> {
                try {
                    return HistoryRecorder.of(new HistoryRecorder.Stores(), keys::get,
                            closest(context, RegressionCheck.class).orElse(null), "validation", Path.of(""),
                            List::of);
                } catch (IllegalArgumentException e) {
                    throw new ExtensionConfigurationException(e.getMessage(), e);
                }
            });
        }
        problems.throwIfAny();
        WindowSpec spec = specified.orElseThrow();
        Settings settings = own.isPresent() && !own.get().target()
                ? managedEngine(context, backend, chosen.get(), (ManagedEngine) own.get().value().get())
                : defaultContainer(context, backend, chosen.get());
        settings.validate();
        recipe.ifPresent(r -> RecipeWindows.checkServerSteps(r, settings::get));
        // A managed engine is attached through the settings; the handle still has to know it runs in a container.
        boolean container = (own.isPresent() && !own.get().target())
                || chosen.get().engineKind() == Settings.EngineKind.CONTAINER;
        EngineHandle engine = engine(context, settings, spec.backend(), container);
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
        return recipe.isPresent() ? RecipeWindows.spec(recipe.get(), closest(context, RolloutRecipe.class).orElseThrow(),
                profile, load, phases(context))
                : WindowSpec.of(profile, load, phases(context))
                        .withSweep(closest(context, RolloutSweep.class).orElse(null))
                        .withCapacity(closest(context, RolloutCapacity.class).orElse(null));
    }

    private static String testName(ExtensionContext context) {
        return context.getRequiredTestClass().getSimpleName() + "." + context.getRequiredTestMethod().getName();
    }

    /**
     * One engine handle per test class, backend and chosen engine (a class may mix SGLang and vLLM methods, and
     * methods may choose different engine profiles).
     */
    private static EngineHandle engine(ExtensionContext context, Settings settings, Backend backend,
            boolean container) {
        ExtensionContext classContext = classContext(context);
        Optional<SimulatedEngine> shape = AnnotationSupport.findAnnotation(context.getRequiredTestClass(),
                SimulatedEngine.class);
        String chosen = Settings.LOCATION_KEYS.stream().map(k -> k + "=" + settings.get(k).orElse(""))
                .collect(Collectors.joining(",", settings.profile().orElse("") + "[", "]"));
        return classContext.getStore(NAMESPACE).getOrComputeIfAbsent(EngineHandle.class.getName() + "-" + backend
                + "-" + chosen, key -> EngineHandle.open(settings, shape, backend).inContainer(container), EngineHandle.class);
    }

    /** @return the key's value, or null when it is invalid (and so already reported) */
    /** The class's {@code @RolloutEngine} {@link EngineTarget}, read (a method: called) once for the class. */
    private static EngineTarget target(ExtensionContext context, ManagedEngines.Declaration declaration) {
        ExtensionContext.Store store = classContext(context).getStore(NAMESPACE);
        return store.getOrComputeIfAbsent(ManagedEngines.Target.class, key -> {
            Object value = declaration.value().get();
            return new ManagedEngines.Target((EngineTarget) value);
        }, ManagedEngines.Target.class).target();
    }

    /**
     * With a {@code @RolloutEngine} {@link ManagedEngine}: starts it once for the class (stopping it after the class
     * when the extension started it) and returns settings that attach to it.
     */
    private static Settings managedEngine(ExtensionContext context, Backend backend, Settings settings,
            ManagedEngine engine) {
        ExtensionContext.Store store = classContext(context).getStore(NAMESPACE);
        if (!engine.isRunning()) {
            store.getOrComputeIfAbsent(ManagedEngines.Started.class, key -> {
                engine.start();
                return new ManagedEngines.Started(engine);
            }, ManagedEngines.Started.class);
        }
        return ManagedEngines.attach(engine, backend, settings);
    }

    /**
     * With {@code profiledrollout.engine=container} and no {@code @RolloutEngine}: one default container per class,
     * backend and profile, created from the {@code profiledrollout.container.*} keys; otherwise the settings unchanged.
     */
    private static Settings defaultContainer(ExtensionContext context, Backend backend, Settings settings) {
        if (settings.engineKind() != Settings.EngineKind.CONTAINER) {
            return settings;
        }
        ExtensionContext.Store store = classContext(context).getStore(NAMESPACE);
        ManagedEngine engine = store.getOrComputeIfAbsent("default-container-" + backend + "-"
                + settings.profile().orElse(""), key -> ManagedEngines.createDefault(backend, settings),
                ManagedEngine.class);
        return managedEngine(context, backend, settings, engine);
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
