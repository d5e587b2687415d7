package dev.profiledrollout.junit.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.Activity;
import dev.profiledrollout.backend.BackendSupport;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.Profiler;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.RolloutRecipe;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.load.ArrivalProcess;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.load.LoadStage;
import dev.profiledrollout.load.LoadSweep;
import java.util.LinkedHashSet;
import dev.profiledrollout.recipe.RecipeException;
import dev.profiledrollout.recipe.SrtctlRecipe;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import org.apiguardian.api.API;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * {@code @RolloutRecipe} for one test: reads the srtctl recipe and turns its windows into a {@link WindowSpec}, with
 * the phases a {@code @RolloutPhase} list would give, refusing annotations that contradict it.
 */
@API(status = INTERNAL, since = "0.1")
public final class RecipeWindows {

    private static final System.Logger LOG = System.getLogger(RecipeWindows.class.getName());

    private RecipeWindows() {
    }

    /**
     * @param annotation the test's {@code @RolloutRecipe}
     * @param testClass  resolves a {@code resource}
     * @return the recipe
     * @throws ExtensionConfigurationException when the annotation is malformed or the recipe cannot be read or run
     */
    public static SrtctlRecipe load(RolloutRecipe annotation, Class<?> testClass) {
        String given = describe(annotation);
        boolean resource = !annotation.resource().isBlank();
        check(resource != !annotation.file().isBlank(), given, "give exactly one of resource (a classpath resource,"
                + " e.g. \"/recipes/decode.yaml\") and file (a path)");
        try {
            if (resource) {
                URL url = testClass.getResource(annotation.resource());
                check(url != null, given, annotation.resource() + " is not on the classpath of "
                        + testClass.getName() + "; put it under src/test/resources" + (annotation.resource()
                        .startsWith("/") ? "" : "/" + testClass.getPackageName().replace('.', '/')) + "/"
                        + annotation.resource().replaceFirst("^/", "") + " (a leading / resolves from the"
                        + " classpath root, none from the test class's package)");
                try (InputStream in = url.openStream()) {
                    return logWarnings(SrtctlRecipe.read(in, annotation.resource()));
                }
            }
            return logWarnings(SrtctlRecipe.read(Path.of(annotation.file())));
        } catch (RecipeException e) {
            throw new ExtensionConfigurationException(given + ": " + e.getMessage(), e);
        } catch (InvalidPathException e) {
            throw new ExtensionConfigurationException(given + " is invalid: file is not a path: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new ExtensionConfigurationException(given + ": the resource cannot be read: " + e, e);
        }
    }

    private static SrtctlRecipe logWarnings(SrtctlRecipe recipe) {
        recipe.warnings().forEach(w -> LOG.log(System.Logger.Level.WARNING, "srtctl recipe " + recipe.source() + ": "
                + w));
        return recipe;
    }

    /** As {@link #spec(SrtctlRecipe, ProfiledRollout, RolloutLoad, List, int, int, int)} with the annotation's caps. */
    public static WindowSpec spec(SrtctlRecipe recipe, RolloutRecipe annotation, ProfiledRollout profile,
            RolloutLoad load, List<RolloutPhase> phases) {
        WindowSpec spec = spec(recipe, profile, load, phases, annotation.maxInputTokens(),
                annotation.maxOutputTokens(), annotation.maxConcurrency());
        return annotation.fullSweep() ? spec.withFullSweep() : spec;
    }

    /** As {@link #spec(SrtctlRecipe, ProfiledRollout, RolloutLoad, List, int, int, int)} without load caps. */
    public static WindowSpec spec(SrtctlRecipe recipe, ProfiledRollout profile, RolloutLoad load,
            List<RolloutPhase> phases) {
        return spec(recipe, profile, load, phases, 0, 0, 0);
    }

    /**
     * The window specification of a test whose windows come from {@code recipe}.
     *
     * @param recipe  the test's recipe
     * @param profile the test's {@code @ProfiledRollout}: activities, with_stack, record_shapes, output
     * @param load    the test's {@code @RolloutLoad}, or null: requests, warm-up, seed and the rest of the load
     * @param phases  the test's {@code @RolloutPhase}s, which must be empty
     * @param maxIsl  {@code @RolloutRecipe(maxInputTokens)}: cap on the recipe's ISL, 0 for none
     * @param maxOsl  {@code @RolloutRecipe(maxOutputTokens)}: cap on the recipe's OSL, 0 for none
     * @param maxConcurrency {@code @RolloutRecipe(maxConcurrency)}: cap on every concurrency, 0 for none
     * @return the specification: one phase per prefill/decode window, or the aggregated window; with the recipe's
     *         sweep ({@link SrtctlRecipe#sweep()}) as the staged load of every window, stopped once every window's
     *         traces are in ({@code LoadSweep.untilTracesIn()}; {@link WindowSpec#withFullSweep()} runs it whole)
     * @throws ExtensionConfigurationException when the annotations contradict the recipe
     */
    public static WindowSpec spec(SrtctlRecipe recipe, ProfiledRollout profile, RolloutLoad load,
            List<RolloutPhase> phases, int maxIsl, int maxOsl, int maxConcurrency) {
        String recipeName = "the recipe " + recipe.source();
        ConfigurationProblems problems = new ConfigurationProblems();
        problems.check(phases.isEmpty(), "@RolloutPhase together with @RolloutRecipe", recipeName + " already gives the phases"
                + " (profiling.prefill / profiling.decode); remove the @RolloutPhase annotations or the recipe");
        problems.check(profile.numSteps() == 0 && profile.startStep() == -1, "@ProfiledRollout(numSteps = "
                + profile.numSteps() + ", startStep = " + profile.startStep() + ") with @RolloutRecipe", recipeName
                + " gives the capture steps (start_step, stop_step); remove numSteps and startStep");
        problems.check(BackendSupport.isDefault(profile.backend()) || profile.backend() == recipe.backend(), "@ProfiledRollout(backend = "
                + profile.backend() + ") with @RolloutRecipe", recipeName + " has backend.type "
                + BackendSupport.of(recipe.backend()).name() + "; remove backend from"
                + " @ProfiledRollout or change the recipe");
        problems.check(profile.profiler() == Profiler.TORCH || profile.profiler() == recipe.profiler(), "@ProfiledRollout("
                + "profiler = " + profile.profiler() + ") with @RolloutRecipe", recipeName + " has profiling.type "
                + recipe.profiler().name().toLowerCase(java.util.Locale.ROOT) + "; remove profiler from"
                + " @ProfiledRollout or change the recipe");
        java.util.Optional<WindowSpec> spec = problems.attempt(() -> WindowSpec.of(profile, load));
        problems.check(maxIsl >= 0 && maxOsl >= 0 && maxConcurrency >= 0, "@RolloutRecipe(maxInputTokens = "
                + maxIsl + ", maxOutputTokens = " + maxOsl + ", maxConcurrency = " + maxConcurrency + ")",
                "each 0 (the recipe's value) or a positive cap");
        problems.check(spec.isEmpty() || spec.get().load().arrival().isClosedLoop(), "@RolloutLoad(requestRate / rampUp…) with @RolloutRecipe",
                recipeName + " shapes the load (concurrency, benchmark.req_rate); remove the arrival attributes");
        problems.throwIfAny();
        WindowSpec base = spec.orElseThrow();
        Set<Activity> activities = recipe.profiler() == Profiler.NSYS
                ? EnumSet.of(Activity.CUDA_PROFILER) : base.activities();
        List<WindowSpec.PhaseSpec> phaseSpecs = new ArrayList<>();
        Integer numSteps = null;
        Integer startStep = null;
        LoadSpec windowLoad = base.load();
        BackendSupport support = BackendSupport.of(recipe.backend());
        for (SrtctlRecipe.Window w : recipe.windows()) {
            // vLLM nsys: start_step is the server's delay_iterations (--profiler-config), not part of the request
            Integer windowStart = recipe.profiler() == Profiler.NSYS
                    && support.recipeNsysServerConfig(w.startStep(), w.numSteps()).isPresent()
                    ? null : w.profileStartStep();
            if (w.aggregated()) {
                numSteps = w.numSteps();
                startStep = windowStart;
                windowLoad = load(base.load(), w, w.concurrency(), maxIsl, maxOsl, maxConcurrency);
            } else {
                phaseSpecs.add(new WindowSpec.PhaseSpec(w.phase(), w.numSteps(), windowStart,
                        load(base.load(), w, w.concurrency(), maxIsl, maxOsl, maxConcurrency)));
            }
        }
        LoadSweep sweep = null;
        if (recipe.isSweep()) {
            SrtctlRecipe.Window first = recipe.windows().get(0);
            LinkedHashSet<Integer> levels = new LinkedHashSet<>();
            recipe.sweep().forEach(c -> levels.add(cap(c, maxConcurrency)));
            LoadSweep.Builder b = LoadSweep.builder(windowLoad);
            for (int c : levels) {
                b.stage(new LoadStage(load(base.load(), first, c, maxIsl, maxOsl, maxConcurrency)));
            }
            sweep = b.build().withUntilTracesIn(true);
        }
        return new WindowSpec(recipe.backend(), recipe.profiler(), numSteps, startStep, activities,
                base.profileByStage(), base.withStack(), base.recordShapes(), base.outputDir(), base.profilePrefix(),
                windowLoad, List.copyOf(phaseSpecs), base.goodput(), base.dataset(), base.profileId(),
                base.mergeProfiles(), base.profileStages(), base.shapeDiscovery(), sweep, null, false, null);
    }

    /**
     * A window's (or sweep stage's) load: the recipe's lengths and {@code concurrency}, capped, everything else from
     * {@code @RolloutLoad}.
     */
    private static LoadSpec load(LoadSpec base, SrtctlRecipe.Window w, int concurrency, int maxIsl, int maxOsl,
            int maxConcurrency) {
        int lanes = cap(concurrency, maxConcurrency);
        LoadSpec spec = new LoadSpec(lanes, base.requests(), cap(w.inputTokens(), maxIsl),
                cap(w.outputTokens(), maxOsl), base.rangeRatio(), base.warmupRequests(), base.seed(),
                ArrivalProcess.closedLoop(), base.prefixTokens(), base.maxDuration(), base.endpoint());
        return Double.isInfinite(w.requestRate())
                ? spec : spec.withArrival(ArrivalProcess.poisson(w.requestRate()), lanes);
    }

    private static int cap(int value, int max) {
        return max > 0 ? Math.min(value, max) : value;
    }

    /**
     * Checks a recipe's step counts against the steps its server was started with, for a backend that fixes them at
     * server start (vLLM's {@code max_iterations}, {@code docs/PROTOCOLS.md} §2.2); nothing for the others.
     *
     * @param settings the configuration, by key
     * @throws ExtensionConfigurationException naming the recipe's field when they cannot agree
     */
    public static void checkServerSteps(SrtctlRecipe recipe, java.util.function.Function<String,
            java.util.Optional<String>> settings) {
        BackendSupport support = BackendSupport.of(recipe.backend());
        if (support.serverStepsKey().isEmpty()) {
            return;
        }
        String key = support.serverStepsKey().get();
        String name = support.serverStepsName();
        OptionalInt fixed;
        try {
            fixed = support.serverSteps(settings);
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException(e.getMessage(), e);
        }
        for (SrtctlRecipe.Window w : recipe.windows()) {
            String field = "profiling." + (w.aggregated() ? "aggregated" : w.mode());
            String what = "The recipe " + recipe.source() + " (" + field + ": start_step " + w.startStep()
                    + ", stop_step " + w.stopStep() + ") with backend.type " + support.name();
            String startedWith = recipe.profiler() == Profiler.NSYS
                    ? support.recipeNsysServerConfig(w.startStep(), w.numSteps())
                            .map(c -> "--profiler-config '" + c + "' inside nsys").orElse(
                                    support.serverStartedWith(w.numSteps(), w.startStep()))
                    : support.serverStartedWith(w.numSteps(), w.startStep());
            check(fixed.isPresent(), what, support.displayName() + " takes num_steps = stop_step - start_step = "
                    + w.numSteps() + " only as " + name + " at server start. Set " + key + " to confirm the server"
                    + " was started with " + startedWith);
            check(fixed.getAsInt() == w.numSteps(), what, "the server's " + name + " is " + fixed.getAsInt() + " ("
                    + key + "), but the recipe asks for " + w.numSteps() + " steps; make stop_step - start_step match"
                    + " it, or restart the server with " + startedWith);
        }
    }

    /**
     * Logs a warning when the engine's prefill or decode workers are not as many as the recipe's {@code resources}
     * say: every worker listed is profiled, so the windows cover a deployment other than the recipe's.
     *
     * @param workers the engine's workers (a router's, or the configured ones)
     */
    public static void warnOnWorkerCounts(SrtctlRecipe recipe, List<Worker> workers) {
        warnOnCount(recipe, workers, "prefill", recipe.resources().prefillWorkers());
        warnOnCount(recipe, workers, "decode", recipe.resources().decodeWorkers());
    }

    private static void warnOnCount(SrtctlRecipe recipe, List<Worker> workers, String type, Integer expected) {
        long found = workers.stream().filter(w -> w.workerType().equals(type)).count();
        if (expected != null && found > 0 && found != expected) {
            LOG.log(System.Logger.Level.WARNING, "The recipe " + recipe.source() + " has resources." + type
                    + "_workers: " + expected + ", but the engine lists " + found + " " + type + " workers; all "
                    + found + " are profiled");
        }
    }

    private static String describe(RolloutRecipe annotation) {
        return "@RolloutRecipe(" + (annotation.resource().isEmpty() ? "" : "resource = \"" + annotation.resource()
                + "\"" + (annotation.file().isEmpty() ? "" : ", ")) + (annotation.file().isEmpty() ? ""
                : "file = \"" + annotation.file() + "\"") + ")";
    }

    private static void check(boolean ok, String what, String fix) {
        if (!ok) {
            throw new ExtensionConfigurationException(what + " is invalid: " + Objects.requireNonNull(fix));
        }
    }
}
