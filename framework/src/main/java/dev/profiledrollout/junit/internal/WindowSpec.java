package dev.profiledrollout.junit.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.Phase;
import dev.profiledrollout.Profiler;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSweep;
import dev.profiledrollout.RolloutCapacity;
import dev.profiledrollout.backend.BackendSupport;
import dev.profiledrollout.capacity.CapacitySearch;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.load.ArrivalProcess;
import dev.profiledrollout.load.Endpoint;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.load.LoadStage;
import dev.profiledrollout.load.LoadSweep;
import dev.profiledrollout.load.PromptWorkload;
import dev.profiledrollout.load.RandomTokenWorkload;
import dev.profiledrollout.load.Workload;
import dev.profiledrollout.metrics.Slo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apiguardian.api.API;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * The validated content of {@code @ProfiledRollout} and {@code @RolloutLoad} for one test: what to ask the profiler
 * for and what load to send. Validation happens before anything is started, with errors that name the attribute and
 * the allowed values.
 */
@API(status = INTERNAL, since = "0.1")
public record WindowSpec(
        Backend backend,
        Profiler profiler,
        Integer numSteps,
        Integer startStep,
        Set<Activity> activities,
        boolean profileByStage,
        boolean withStack,
        boolean recordShapes,
        String outputDir,
        String profilePrefix,
        LoadSpec load,
        List<PhaseSpec> phases,
        Slo goodput,
        Dataset dataset,
        String profileId,
        boolean mergeProfiles,
        List<String> profileStages,
        boolean shapeDiscovery,
        LoadSweep sweep,
        CapacitySearch capacity,
        boolean strictFidelity,
        Duration stageLagBound) {

    /**
     * Where the prompts come from ({@code @RolloutLoad(dataset, datasetPath)}).
     *
     * @param name {@code random}, {@code sharegpt} or {@code jsonl}
     * @param path the file of a file dataset, null for {@code random}
     */
    public record Dataset(String name, Path path) {

        /** vLLM's random token ids, the default. */
        public static final Dataset RANDOM = new Dataset("random", null);

        /**
         * @param load      the window's (or phase's) load: its output tokens and seed
         * @param vocabSize token ids of the random dataset are drawn from [0, vocabSize)
         * @return the workload
         * @throws IllegalArgumentException when the file is not in the dataset's format
         */
        public Workload workload(LoadSpec load, int vocabSize) {
            return switch (name) {
                case "sharegpt" -> PromptWorkload.fromShareGpt(path, load.outputTokens(), load.seed());
                case "jsonl" -> PromptWorkload.fromJsonl(path, load.outputTokens());
                default -> new RandomTokenWorkload(load, vocabSize);
            };
        }
    }

    /**
     * One {@code @RolloutPhase}, with its unset values filled from the test's annotations.
     *
     * @param phase     the phase
     * @param numSteps  {@code num_steps}, or null for none
     * @param startStep {@code start_step}, or null for none
     * @param load      the phase's load
     */
    public record PhaseSpec(Phase phase, Integer numSteps, Integer startStep, LoadSpec load) {
    }

    /** This spec with a phase's step window and load, and no phases of its own. */
    public WindowSpec forPhase(PhaseSpec p) {
        return new WindowSpec(backend, profiler, p.numSteps(), p.startStep(), activities, profileByStage, withStack,
                recordShapes, outputDir, profilePrefix, p.load(), List.of(), goodput, dataset, profileId, mergeProfiles,
                profileStages, shapeDiscovery, sweep == null ? null : rebased(sweep, p.load()), null, strictFidelity,
                stageLagBound);
    }

    /** A recipe's sweep (each phase rides the whole sweep) with the phase's request shape. */
    private static LoadSweep rebased(LoadSweep sweep, LoadSpec phaseLoad) {
        LoadSweep.Builder b = LoadSweep.builder(phaseLoad);
        for (dev.profiledrollout.load.LoadStage st : sweep.stages()) {
            LoadSpec s = st.spec();
            b.stage(new dev.profiledrollout.load.LoadStage(phaseLoad.withArrival(s.arrival(), s.concurrency())
                    .withMaxDuration(s.maxDuration())));
        }
        return b.windowPerStage(sweep.windowPerStage()).build().withUntilTracesIn(sweep.untilTracesIn());
    }

    /** @return this spec with its sweep (if any) run to the last stage ({@code @RolloutRecipe(fullSweep = true)}) */
    public WindowSpec withFullSweep() {
        return sweep == null ? this : new WindowSpec(backend, profiler, numSteps, startStep, activities,
                profileByStage, withStack, recordShapes, outputDir, profilePrefix, load, phases, goodput, dataset,
                profileId, mergeProfiles, profileStages, shapeDiscovery, sweep.withUntilTracesIn(false), capacity,
                strictFidelity, stageLagBound);
    }

    /** @return whether each stage of the sweep runs in its own profile window ({@code windowPerStage}) */
    public boolean windowPerStage() {
        return sweep != null && sweep.windowPerStage();
    }

    /**
     * The window of one stage of a {@link #windowPerStage()} sweep: a sweep of that stage alone, the load's warm-up
     * only before the first stage (the engine is warm after it).
     *
     * @param index the stage's position, from 0
     */
    public WindowSpec forStage(int index) {
        dev.profiledrollout.load.LoadStage stage = sweep.stages().get(index);
        LoadSpec stageLoad = index == 0 ? load : new LoadSpec(load.concurrency(), load.requests(), load.inputTokens(),
                load.outputTokens(), load.rangeRatio(), 0, load.seed(), load.arrival(), load.prefixTokens(),
                load.maxDuration(), load.endpoint());
        return new WindowSpec(backend, profiler, numSteps, startStep, activities, profileByStage, withStack,
                recordShapes, outputDir, profilePrefix, stageLoad, phases, goodput, dataset, profileId, mergeProfiles,
                profileStages, shapeDiscovery, new LoadSweep(List.of(stage)), null, strictFidelity, stageLagBound);
    }

    /**
     * Checks what the backend cannot take per window against what configuration says its server was started with
     * ({@link BackendSupport#checkRequest}, e.g. vLLM's {@code max_iterations}, {@code docs/PROTOCOLS.md} §2.2).
     *
     * @param settings the configuration, by key
     * @return the warnings to print
     * @throws ExtensionConfigurationException when the test asks for something the server will not do, listing every
     *         such attribute
     */
    public List<String> checkBackend(java.util.function.Function<String, Optional<String>> settings) {
        List<PhaseSpec> windows = phases.isEmpty() ? List.of(new PhaseSpec(null, numSteps, startStep, load)) : phases;
        BackendSupport.CaptureRequest request = new BackendSupport.CaptureRequest(windows.stream()
                .map(w -> new BackendSupport.Window(w.phase() == null ? null : w.phase().name(), w.numSteps(),
                        w.startStep())).toList(), profiler, activities, profileByStage, outputDir, withStack,
                recordShapes, profilePrefix, !profileId.isEmpty() || mergeProfiles || !profileStages.isEmpty()
                        || shapeDiscovery, shapeDiscovery);
        ConfigurationProblems problems = new ConfigurationProblems();
        BackendSupport.Verdict verdict;
        try {
            verdict = BackendSupport.of(backend).checkRequest(request, settings);
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException(e.getMessage(), e);
        }
        verdict.problems().forEach(p -> problems.check(false, p.subject(), p.fix()));
        problems.throwIfAny();
        return verdict.warnings();
    }

    /** The defaults of {@code @RolloutLoad} when the test has none. */
    @RolloutLoad
    private static final class Defaults {
    }

    public static WindowSpec of(ProfiledRollout profile, RolloutLoad load) {
        return of(profile, load, List.of());
    }

    public static WindowSpec of(ProfiledRollout profile, RolloutLoad load, List<RolloutPhase> phaseAnnotations) {
        RolloutLoad l = load != null ? load : Defaults.class.getAnnotation(RolloutLoad.class);
        ConfigurationProblems problems = new ConfigurationProblems();
        BackendSupport.of(profile.backend()).checkProfiler(profile.profiler(), Set.of(profile.activities()))
                .ifPresent(p -> problems.check(false, p.subject(), p.fix()));
        problems.check(profile.numSteps() >= 0, "@ProfiledRollout(numSteps = " + profile.numSteps() + ")",
                "0 (profile until the window ends) or a positive number of scheduler steps");
        problems.check(profile.startStep() >= -1, "@ProfiledRollout(startStep = " + profile.startStep() + ")",
                "-1 (start with the next batch) or an absolute step number ≥ 0");
        problems.check(profile.activities().length > 0, "@ProfiledRollout(activities = {})",
                "at least one of " + Arrays.toString(Activity.values()));
        problems.check(!profile.profileByStage() || profile.numSteps() > 0, "@ProfiledRollout(profileByStage = true)",
                "needs numSteps > 0: SGLang raises a TypeError at the next prefill otherwise (docs/PROTOCOLS.md §1.2)");
        problems.check(profile.profilePrefix().matches("[A-Za-z0-9._-]*") && !profile.profilePrefix().contains(".."),
                "@ProfiledRollout(profilePrefix = \"" + profile.profilePrefix() + "\")",
                "letters, digits, '.', '_' and '-' only, without '..': the prefix becomes part of a file name");
        problems.check(profile.profileId().matches("[A-Za-z0-9._]*") && !profile.profileId().contains(".."),
                "@ProfiledRollout(profileId = \"" + profile.profileId() + "\")",
                "letters, digits, '.' and '_' only, without '..': the id is the stem of every trace file name, and a"
                        + " '-' would make the rank part of the name ambiguous");
        problems.check(!profile.mergeProfiles() || profile.profilePrefix().isEmpty(),
                "@ProfiledRollout(mergeProfiles = true, profilePrefix = \"" + profile.profilePrefix() + "\")",
                "SGLang's merge looks for {profile_id}*.trace.json.gz, so prefixed rank files are never merged (the"
                        + " failure shows only in the server log); drop the prefix or mergeProfiles");
        problems.check(profile.profileStages().length == 0 || profile.profileByStage(),
                "@ProfiledRollout(profileStages = " + Arrays.toString(profile.profileStages()) + ")",
                "profile_stages selects the stages of a stage-based capture; set profileByStage = true (and numSteps)");
        for (String stage : profile.profileStages()) {
            problems.check(stage.equals("prefill") || stage.equals("decode"),
                    "@ProfiledRollout(profileStages = " + Arrays.toString(profile.profileStages()) + ")",
                    "each stage is \"prefill\" or \"decode\" (SGLang profiler V2's stage names), once");
        }
        problems.check(Arrays.stream(profile.profileStages()).distinct().count() == profile.profileStages().length,
                "@ProfiledRollout(profileStages = " + Arrays.toString(profile.profileStages()) + ")",
                "each stage is \"prefill\" or \"decode\" (SGLang profiler V2's stage names), once");
        checkNsysSession(profile, problems);
        int loadProblems = problems.list().size();
        problems.check(l.concurrency() >= 1, "@RolloutLoad(concurrency = " + l.concurrency() + ")", "at least 1");
        problems.check(l.requests() >= 1, "@RolloutLoad(requests = " + l.requests() + ")", "at least 1");
        problems.check(l.inputTokens() >= 1, "@RolloutLoad(inputTokens = " + l.inputTokens() + ")", "at least 1");
        problems.check(l.outputTokens() >= 1, "@RolloutLoad(outputTokens = " + l.outputTokens() + ")", "at least 1");
        problems.check(l.rangeRatio() >= 0 && l.rangeRatio() < 1, "@RolloutLoad(rangeRatio = " + l.rangeRatio() + ")",
                "in [0, 1)");
        problems.check(l.warmupRequests() >= 0, "@RolloutLoad(warmupRequests = " + l.warmupRequests() + ")", "0 or more");
        checkArrival(l, problems);
        // every attribute is checked on its own above, so the spec is built only from valid ones
        Optional<LoadSpec> shape = problems.list().size() > loadProblems ? Optional.empty()
                : problems.attempt(() -> loadShape(l));
        Slo slo = problems.attempt(() -> goodput(l)).orElse(null);
        Dataset dataset = problems.attempt(() -> dataset(l, shape.orElse(null))).orElse(null);
        problems.attempt(() -> checkDatasetAttributes(l));
        LoadSpec loadSpec = shape.orElse(null);
        List<PhaseSpec> phases = new java.util.ArrayList<>();
        Set<Phase> seen = EnumSet.noneOf(Phase.class);
        for (RolloutPhase p : phaseAnnotations) {
            problems.check(seen.add(p.phase()), "@RolloutPhase(phase = " + p.phase() + ") twice", "one window per phase");
            problems.check(p.numSteps() >= 0 && p.startStep() >= -1 && p.inputTokens() >= 0 && p.outputTokens() >= 0
                            && p.concurrency() >= 0 && p.requests() >= 0, "@RolloutPhase(phase = " + p.phase() + ")",
                    "numSteps, inputTokens, outputTokens, concurrency and requests ≥ 0 (0 = inherit), startStep ≥ -1");
            int steps = p.numSteps() > 0 ? p.numSteps() : profile.numSteps();
            int start = p.startStep() >= 0 ? p.startStep() : profile.startStep();
            problems.check(!profile.profileByStage() || steps > 0, "@RolloutPhase(phase = " + p.phase() + ") with profileByStage",
                    "needs numSteps > 0");
            String datasetName = l.dataset().strip().toLowerCase(java.util.Locale.ROOT);
            problems.check(p.inputTokens() <= 0 || !(datasetName.equals("sharegpt") || datasetName.equals("jsonl")),
                    "@RolloutPhase(phase = " + p.phase() + ", inputTokens = " + p.inputTokens() + ") with dataset = \""
                            + datasetName + "\"", "a " + datasetName + " file sends its own text prompts, so the"
                            + " phase's inputTokens would be ignored; remove it");
            problems.check((p.numSteps() <= 0 && p.startStep() < 0) || profile.profiler() != Profiler.NSYS
                            || Arrays.asList(profile.activities()).contains(Activity.CUDA_PROFILER),
                    "@RolloutPhase(phase = " + p.phase() + ", numSteps/startStep) with profiler = NSYS",
                    "an nsys session capture sends no profile call to the engine, so the phase's step window would be"
                            + " ignored; remove it, or use activities = CUDA_PROFILER");
            problems.check(p.maxConcurrency() >= 0, "@RolloutPhase(phase = " + p.phase() + ", maxConcurrency = "
                    + p.maxConcurrency() + ")", "0 (inherit @RolloutLoad(maxConcurrency)) or a positive cap");
            if (loadSpec == null) {
                continue; // the load is reported invalid
            }
            boolean closed = loadSpec.arrival().isClosedLoop();
            // concurrency is a closed loop's lanes, maxConcurrency an open loop's cap: each only where it means that
            problems.check(closed || p.concurrency() == 0, "@RolloutPhase(phase = " + p.phase() + ", concurrency = "
                    + p.concurrency() + ") under an open loop", "concurrency is a closed loop's lane count; cap the"
                    + " phase's requests in flight with maxConcurrency = " + p.concurrency() + " instead");
            problems.check(!closed || p.maxConcurrency() == 0, "@RolloutPhase(phase = " + p.phase()
                    + ", maxConcurrency = " + p.maxConcurrency() + ") under a closed loop", "a closed loop has exactly"
                    + " concurrency requests in flight; set concurrency = " + p.maxConcurrency() + " instead");
            int inFlight = closed ? (p.concurrency() > 0 ? p.concurrency() : loadSpec.lanes())
                    : (p.maxConcurrency() > 0 ? p.maxConcurrency() : loadSpec.maxInFlight());
            phases.add(new PhaseSpec(p.phase(), steps > 0 ? steps : null, start >= 0 ? start : null, new LoadSpec(
                    inFlight,
                    p.requests() > 0 ? p.requests() : loadSpec.requests(),
                    p.inputTokens() > 0 ? p.inputTokens() : loadSpec.inputTokens(),
                    p.outputTokens() > 0 ? p.outputTokens() : loadSpec.outputTokens(),
                    loadSpec.rangeRatio(), loadSpec.warmupRequests(), loadSpec.seed(), loadSpec.arrival(),
                    loadSpec.prefixTokens(), loadSpec.maxDuration(), loadSpec.endpoint())));
        }
        // every check above is independent of the others: all are reported together
        problems.throwIfAny();
        return new WindowSpec(
                profile.backend(),
                profile.profiler(),
                profile.numSteps() > 0 ? profile.numSteps() : null,
                profile.startStep() >= 0 ? profile.startStep() : null,
                EnumSet.copyOf(Arrays.asList(profile.activities())),
                profile.profileByStage(),
                profile.withStack(),
                profile.recordShapes(),
                profile.outputDir(),
                profile.profilePrefix(),
                loadSpec,
                List.copyOf(phases),
                slo,
                dataset,
                profile.profileId(),
                profile.mergeProfiles(),
                List.of(profile.profileStages()),
                profile.shapeDiscovery(),
                null, null, false, null);
    }

    /**
     * @param annotation the test's {@code @RolloutSweep}, or null for a single load
     * @return this window with its load as the annotation's stages (each sized {@code requestsPerStage}, without a
     *         warm-up of its own: the load's warm-up runs once before the window), or this window for null
     * @throws ExtensionConfigurationException listing every problem: no or both stage lists, a value out of range,
     *                                         phases, or an open-loop {@code @RolloutLoad}
     */
    public WindowSpec withSweep(RolloutSweep annotation) {
        if (annotation == null) {
            return this;
        }
        ConfigurationProblems problems = new ConfigurationProblems();
        int[] lanes = annotation.concurrency();
        double[] rates = annotation.rates();
        problems.check(lanes.length > 0 ^ rates.length > 0, "@RolloutSweep(concurrency = "
                + Arrays.toString(lanes) + ", rates = " + Arrays.toString(rates) + ")", "exactly one of concurrency"
                + " (closed-loop stages) or rates (open-loop stages), each a non-empty list");
        problems.check(Arrays.stream(lanes).allMatch(c -> c >= 1), "@RolloutSweep(concurrency = "
                + Arrays.toString(lanes) + ")", "each concurrency at least 1");
        problems.check(Arrays.stream(rates).allMatch(r -> r > 0 && Double.isFinite(r)), "@RolloutSweep(rates = "
                + Arrays.toString(rates) + ")", "each rate a finite number of requests/s above 0");
        problems.check(annotation.burstiness() > 0, "@RolloutSweep(burstiness = " + annotation.burstiness() + ")",
                "above 0 (1 Poisson, +∞ constant)");
        problems.check(annotation.maxConcurrency() >= 0 && (annotation.maxConcurrency() == 0 || rates.length > 0),
                "@RolloutSweep(maxConcurrency = " + annotation.maxConcurrency() + ")", "0, or a positive cap with"
                        + " rates; closed-loop stages have exactly their concurrency in flight");
        problems.check(annotation.requestsPerStage() >= 0, "@RolloutSweep(requestsPerStage = "
                + annotation.requestsPerStage() + ")", "0 (the load's requests) or more");
        problems.check(annotation.secondsPerStage() >= 0, "@RolloutSweep(secondsPerStage = "
                + annotation.secondsPerStage() + ")", "0 (no bound) or more");
        problems.check(phases.isEmpty(), "@RolloutSweep with @RolloutPhase", "one or the other: each phase's window"
                + " has its own load");
        problems.check(load.arrival().isClosedLoop(), "@RolloutSweep with an open-loop @RolloutLoad (requestRate or"
                + " a ramp)", "leave the arrival to the sweep's stages: remove requestRate and the ramp");
        problems.check(!annotation.windowPerStage()
                        || BackendSupport.of(backend).control() != BackendSupport.Control.LAUNCH_RANGE,
                "@RolloutSweep(windowPerStage = true) with backend " + backend, "windowPerStage = false (one window"
                        + " over the stages): a " + backend + " server captures only the iteration range it was"
                        + " launched with and has no profile routes to open a window per stage (docs/PROTOCOLS.md §6)");
        problems.throwIfAny();
        LoadSpec base = load.withMaxDuration(annotation.secondsPerStage() > 0
                ? Duration.ofNanos(Math.round(annotation.secondsPerStage() * 1e9)) : null);
        int perStage = annotation.requestsPerStage() > 0 ? annotation.requestsPerStage() : load.requests();
        LoadSweep.Builder b = LoadSweep.builder(base);
        for (int c : lanes) {
            b.stage(LoadStage.closedLoop(base, c).sized(perStage, base.maxDuration()).withWarmup(0));
        }
        for (double r : rates) {
            b.stage(LoadStage.atRate(base, ArrivalProcess.gamma(r, annotation.burstiness()),
                    annotation.maxConcurrency()).sized(perStage, base.maxDuration()).withWarmup(0));
        }
        b.windowPerStage(annotation.windowPerStage());
        return new WindowSpec(backend, profiler, numSteps, startStep, activities, profileByStage, withStack,
                recordShapes, outputDir, profilePrefix, load, phases, goodput, dataset, profileId, mergeProfiles,
                profileStages, shapeDiscovery, b.build(), null, false, null);
    }

    /**
     * @param annotation the test's {@code @RolloutCapacity}, or null
     * @return this window with its load as a capacity search, or this window for null
     * @throws ExtensionConfigurationException listing every problem with the annotation and what it cannot combine with
     */
    public WindowSpec withCapacity(RolloutCapacity annotation) {
        if (annotation == null) {
            return this;
        }
        ConfigurationProblems problems = new ConfigurationProblems();
        problems.check(annotation.maxLagMillis() >= 1, "@RolloutCapacity(maxLagMillis = "
                + annotation.maxLagMillis() + ")", "at least 1");
        problems.check(sweep == null, "@RolloutCapacity with @RolloutSweep", "one or the other: a capacity search"
                + " chooses its own stages");
        problems.check(phases.isEmpty(), "@RolloutCapacity with @RolloutPhase", "one or the other");
        problems.check(load.arrival().isClosedLoop(), "@RolloutCapacity with an open-loop @RolloutLoad (requestRate"
                + " or a ramp)", "leave the arrival to the search: remove requestRate and the ramp");
        Optional<CapacitySearch> search = problems.attempt(() -> {
            try {
                CapacitySearch.Builder b = CapacitySearch.builder().slo(annotation.slo())
                        .precision(annotation.precision()).maxStages(annotation.maxStages())
                        .stageSize(annotation.minRequestsPerStage(), annotation.secondsPerStage(), 4);
                if (annotation.startRate() > 0) {
                    b.byRate(annotation.startRate(), annotation.maxRate());
                } else {
                    b.byConcurrency(annotation.startConcurrency(), annotation.maxConcurrency());
                }
                return b.build();
            } catch (IllegalArgumentException e) {
                throw new ExtensionConfigurationException("@RolloutCapacity: " + e.getMessage(), e);
            }
        });
        problems.throwIfAny();
        return new WindowSpec(backend, profiler, numSteps, startStep, activities, profileByStage, withStack,
                recordShapes, outputDir, profilePrefix, load, phases, goodput, dataset, profileId, mergeProfiles,
                profileStages, shapeDiscovery, null, search.orElseThrow(), annotation.strict(),
                Duration.ofMillis(annotation.maxLagMillis()));
    }

    /**
     * An nsys interactive session ({@code profiler = NSYS} without {@code CUDA_PROFILER}) sends no profile call to the
     * engine: nsys records from {@code nsys start} to {@code nsys stop} around the window, so every torch-profiler
     * attribute set to other than its default would be silently ignored.
     */
    private static void checkNsysSession(ProfiledRollout profile, ConfigurationProblems problems) {
        if (profile.profiler() != Profiler.NSYS
                || Arrays.asList(profile.activities()).contains(Activity.CUDA_PROFILER)) {
            return;
        }
        ProfiledRollout d = NsysDefaults.class.getAnnotation(ProfiledRollout.class);
        List<String> set = new java.util.ArrayList<>();
        if (profile.numSteps() != d.numSteps()) {
            set.add("numSteps = " + profile.numSteps());
        }
        if (profile.startStep() != d.startStep()) {
            set.add("startStep = " + profile.startStep());
        }
        if (!Arrays.equals(profile.activities(), d.activities())) {
            set.add("activities = " + Arrays.toString(profile.activities()));
        }
        if (profile.profileByStage() != d.profileByStage()) {
            set.add("profileByStage = " + profile.profileByStage());
        }
        if (profile.withStack() != d.withStack()) {
            set.add("withStack = " + profile.withStack());
        }
        if (profile.recordShapes() != d.recordShapes()) {
            set.add("recordShapes = " + profile.recordShapes());
        }
        if (!profile.outputDir().equals(d.outputDir())) {
            set.add("outputDir = \"" + profile.outputDir() + "\"");
        }
        if (!profile.profilePrefix().equals(d.profilePrefix())) {
            set.add("profilePrefix = \"" + profile.profilePrefix() + "\"");
        }
        if (!profile.profileId().equals(d.profileId())) {
            set.add("profileId = \"" + profile.profileId() + "\"");
        }
        if (profile.mergeProfiles() != d.mergeProfiles()) {
            set.add("mergeProfiles = " + profile.mergeProfiles());
        }
        if (profile.profileStages().length > 0) {
            set.add("profileStages = " + Arrays.toString(profile.profileStages()));
        }
        if (profile.shapeDiscovery() != d.shapeDiscovery()) {
            set.add("shapeDiscovery = " + profile.shapeDiscovery());
        }
        problems.check(set.isEmpty(), "@ProfiledRollout(profiler = NSYS, " + String.join(", ", set) + ")",
                "an nsys session capture sends no profile call to the engine (nsys records from nsys start to nsys"
                        + " stop around the window), so " + (set.size() == 1 ? "this attribute" : "these attributes")
                        + " would be ignored; remove " + (set.size() == 1 ? "it" : "them") + ", or use activities ="
                        + " CUDA_PROFILER (SGLang's cudaProfilerApi capture, which takes numSteps and startStep)");
    }

    /** The defaults of {@code @ProfiledRollout}. */
    @ProfiledRollout
    private static final class NsysDefaults {
    }

    /**
     * Checks the arrival, prefix, duration and endpoint attributes of {@code @RolloutLoad} one by one, so that each
     * mistake is its own problem, and reports the combinations in which an attribute would be silently ignored.
     * Ramp-up follows {@code vllm bench serve} (vllm-project/vllm {@code vllm/benchmarks/serve.py}): a strategy needs
     * both rates, and the ramp replaces the request rate, which must then stay unset.
     */
    private static void checkArrival(RolloutLoad l, ConfigurationProblems problems) {
        RolloutLoad d = Defaults.class.getAnnotation(RolloutLoad.class);
        problems.check(l.requestRate() > 0, "@RolloutLoad(requestRate = " + l.requestRate() + ")",
                "a rate > 0 requests/s for an open loop, or leave it unset (Infinity) for a closed loop of"
                        + " concurrency");
        problems.check(l.burstiness() > 0, "@RolloutLoad(burstiness = " + l.burstiness() + ")",
                "burstiness must be > 0 (1 = Poisson, Infinity = constant gaps)");
        problems.check(l.maxConcurrency() >= 0, "@RolloutLoad(maxConcurrency = " + l.maxConcurrency() + ")",
                "0 (no cap) or a positive cap on the requests an open loop keeps in flight");
        problems.check(l.prefixTokens() >= 0, "@RolloutLoad(prefixTokens = " + l.prefixTokens() + ")", "0 or more");
        problems.check(l.durationSeconds() >= 0, "@RolloutLoad(durationSeconds = " + l.durationSeconds() + ")",
                "0 (bounded by requests only) or a positive number of seconds");
        problems.attempt(() -> {
            try {
                return Endpoint.parse(l.endpoint());
            } catch (IllegalArgumentException e) {
                throw new ExtensionConfigurationException("@RolloutLoad(endpoint = \"" + l.endpoint()
                        + "\") is invalid: " + e.getMessage(), e);
            }
        });
        boolean startSet = l.rampUpStartRate() != 0;
        boolean endSet = l.rampUpEndRate() != 0;
        boolean ramp = startSet || endSet;
        String rampGiven = "@RolloutLoad(rampUpStartRate = " + l.rampUpStartRate() + ", rampUpEndRate = "
                + l.rampUpEndRate() + ")";
        if (ramp) {
            problems.check(startSet && endSet, rampGiven, "a ramp needs both rates, in requests/s: set "
                    + (startSet ? "rampUpEndRate" : "rampUpStartRate") + " too, or remove the ramp");
            problems.check(validRampRate(l.rampUpStartRate()) && validRampRate(l.rampUpEndRate()), rampGiven,
                    "ramp rates are finite and > 0 requests/s");
            problems.check(l.requestRate() == d.requestRate(), "@RolloutLoad(requestRate = " + l.requestRate()
                    + ") with rampUpStartRate/rampUpEndRate", "the ramp sets the rate of every request and the"
                    + " request rate would be ignored (vLLM refuses --request-rate with --ramp-up-strategy);"
                    + " remove requestRate or the ramp");
            problems.attempt(() -> rampShape(l.rampUpStrategy()));
        } else {
            problems.check(l.rampUpStrategy().equals(d.rampUpStrategy()), "@RolloutLoad(rampUpStrategy = \""
                    + l.rampUpStrategy() + "\")", "a ramp-up strategy needs its rates: set rampUpStartRate and"
                    + " rampUpEndRate (requests/s), or remove rampUpStrategy");
        }
        boolean openLoop = ramp || (Double.isFinite(l.requestRate()) && l.requestRate() > 0);
        if (openLoop) {
            problems.check(l.concurrency() == d.concurrency(), "@RolloutLoad(concurrency = " + l.concurrency()
                    + ") with an open loop (" + (ramp ? "a ramp" : "requestRate") + ")", "concurrency is the size of a"
                    + " closed loop and would be ignored; cap the requests in flight with maxConcurrency instead");
        } else {
            problems.check(l.maxConcurrency() == d.maxConcurrency(), "@RolloutLoad(maxConcurrency = "
                    + l.maxConcurrency() + ") without requestRate", "maxConcurrency caps an open loop and would be"
                    + " ignored by the closed loop; use concurrency, or set requestRate (or a ramp)");
            problems.check(l.burstiness() == d.burstiness() || !(l.burstiness() > 0), "@RolloutLoad(burstiness = "
                    + l.burstiness() + ") without requestRate", "burstiness shapes the gaps of an open loop and would"
                    + " be ignored by the closed loop; set requestRate (or a ramp), or remove burstiness");
        }
    }

    /** 0 is "unset", reported on its own when the other rate is set. */
    private static boolean validRampRate(double rate) {
        return rate == 0 || (rate > 0 && Double.isFinite(rate));
    }

    /** {@code @RolloutLoad(goodput)} as an {@link Slo}, in vLLM's {@code --goodput} syntax. */
    private static Slo goodput(RolloutLoad l) {
        String given = "@RolloutLoad(goodput = " + Arrays.stream(l.goodput()).map(g -> "\"" + g + "\"")
                .collect(Collectors.joining(", ", "{", "}")) + ")";
        Set<String> keys = new java.util.HashSet<>();
        for (String pair : l.goodput()) {
            check(keys.add(pair.split(":", 2)[0].strip().toLowerCase(java.util.Locale.ROOT)), given,
                    "each key once; keys are ttft, tpot and e2el (vLLM's --goodput names), values in milliseconds ≥ 0,"
                            + " e.g. {\"ttft:250\", \"tpot:20\", \"e2el:2000\"}");
        }
        try {
            return Slo.parse(Arrays.asList(l.goodput()));
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException(given + " is invalid: " + e.getMessage() + ". Allowed keys: ttft,"
                    + " tpot, e2el (vLLM's --goodput names), values in milliseconds ≥ 0, e.g. {\"ttft:250\","
                    + " \"tpot:20\", \"e2el:2000\"}", e);
        }
    }

    /**
     * {@code @RolloutLoad(dataset, datasetPath)}, with the file read once here so a bad one fails before the run.
     *
     * @param load the window's load, or null when it is invalid (and so reported already): the file is then read with
     *             the attributes' own seed and output length
     */
    private static Dataset dataset(RolloutLoad l, LoadSpec load) {
        String name = l.dataset().strip().toLowerCase(java.util.Locale.ROOT);
        List<String> names = List.of("random", "sharegpt", "jsonl");
        check(names.contains(name), "@RolloutLoad(dataset = \"" + l.dataset() + "\")",
                "one of \"random\" (default), \"sharegpt\", \"jsonl\"" + Suggestions.nearest(name, names)
                        .map(n -> "; did you mean \"" + n + "\"?").orElse(""));
        String given = "@RolloutLoad(dataset = \"" + name + "\", datasetPath = \"" + l.datasetPath() + "\")";
        if (name.equals("random")) {
            check(l.datasetPath().isEmpty(), given, "datasetPath is for dataset = \"sharegpt\" or \"jsonl\"; remove"
                    + " it or set the dataset");
            return Dataset.RANDOM;
        }
        check(!l.datasetPath().isBlank(), given, "datasetPath must name the " + name + " file (absolute, or relative"
                + " to the working directory " + Path.of("").toAbsolutePath() + ")");
        Path path;
        try {
            path = Path.of(l.datasetPath()).toAbsolutePath();
        } catch (java.nio.file.InvalidPathException e) {
            throw new ExtensionConfigurationException(given + " is invalid: datasetPath is not a path: "
                    + e.getMessage(), e);
        }
        check(Files.isRegularFile(path) && Files.isReadable(path), given, "datasetPath " + path
                + " is not a readable file");
        Dataset dataset = new Dataset(name, path);
        LoadSpec reading = load != null ? load
                : new LoadSpec(1, 1, 1, Math.max(1, l.outputTokens()), 0, 0, l.seed());
        try {
            dataset.workload(reading, 1);
        } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
            throw new ExtensionConfigurationException(given + " is invalid: datasetPath " + path + " is not a "
                    + name + " file: " + e.getMessage(), e);
        }
        return dataset;
    }

    /** A file dataset with random-token attributes that it would ignore. */
    private static void checkDatasetAttributes(RolloutLoad l) {
        String name = l.dataset().strip().toLowerCase(java.util.Locale.ROOT);
        if (!name.equals("sharegpt") && !name.equals("jsonl")) {
            return;
        }
        RolloutLoad d = Defaults.class.getAnnotation(RolloutLoad.class);
        List<String> ignored = new java.util.ArrayList<>();
        if (l.inputTokens() != d.inputTokens()) {
            ignored.add("inputTokens = " + l.inputTokens());
        }
        if (l.rangeRatio() != d.rangeRatio()) {
            ignored.add("rangeRatio = " + l.rangeRatio());
        }
        if (l.prefixTokens() != d.prefixTokens()) {
            ignored.add("prefixTokens = " + l.prefixTokens());
        }
        check(ignored.isEmpty(), "@RolloutLoad(dataset = \"" + name + "\", " + String.join(", ", ignored) + ")",
                "a " + name + " file sends its own text prompts, so " + String.join(", ", ignored.stream()
                        .map(a -> a.substring(0, a.indexOf(' '))).toList()) + " would be ignored; remove "
                        + (ignored.size() == 1 ? "it" : "them") + ", or use dataset = \"random\"");
    }

    private static ArrivalProcess.RampShape rampShape(String strategy) {
        switch (strategy.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "linear":
                return ArrivalProcess.RampShape.LINEAR;
            case "exponential":
                return ArrivalProcess.RampShape.EXPONENTIAL;
            default:
                throw new ExtensionConfigurationException("@RolloutLoad(rampUpStrategy = \"" + strategy
                        + "\") is invalid: use \"linear\" or \"exponential\" (vLLM's --ramp-up-strategy)");
        }
    }

    /** Maps the arrival, prefix, duration and endpoint attributes of {@code @RolloutLoad} onto a {@link LoadSpec}. */
    private static LoadSpec loadShape(RolloutLoad l) {
        try {
            boolean ramp = l.rampUpStartRate() > 0 || l.rampUpEndRate() > 0;
            ArrivalProcess arrival = ramp ? new ArrivalProcess(l.rampUpStartRate(), l.burstiness(), l.rampUpEndRate(),
                    rampShape(l.rampUpStrategy())) : new ArrivalProcess(l.requestRate(), l.burstiness(), Double.NaN);
            LoadSpec spec = new LoadSpec(l.concurrency(), l.requests(), l.inputTokens(), l.outputTokens(),
                    l.rangeRatio(), l.warmupRequests(), l.seed())
                    .withPrefixTokens(l.prefixTokens()).withEndpoint(Endpoint.parse(l.endpoint()));
            if (!arrival.isClosedLoop()) {
                spec = spec.withArrival(arrival, l.maxConcurrency());
            }
            return l.durationSeconds() > 0
                    ? spec.withMaxDuration(Duration.ofNanos(Math.round(l.durationSeconds() * 1e9))) : spec;
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException("@RolloutLoad: " + e.getMessage(), e);
        }
    }

    /**
     * The SGLang {@code /start_profile} body of this window: {@code outputDir}, plus every attribute set to a value
     * other than SGLang's default ({@code activities} other than {@code CPU, GPU}, {@code with_stack} or
     * {@code record_shapes} false, and any other field the test set). A default is left out rather than spelled out,
     * so the server applies its own and a server older than a field never sees it.
     *
     * @param outputDir the capture directory on the server's filesystem
     */
    public ProfileRequest profileRequest(String outputDir) {
        ProfileRequest.Builder request = ProfileRequest.builder().outputDir(outputDir);
        if (!activities.equals(EnumSet.of(Activity.CPU, Activity.GPU))) {
            request.activities(activityNames());
        }
        if (!withStack) {
            request.withStack(false);
        }
        if (!recordShapes) {
            request.recordShapes(false);
        }
        request.numSteps(numSteps).startStep(startStep);
        if (profileByStage) {
            request.profileByStage(true);
        }
        if (!profilePrefix.isEmpty()) {
            request.profilePrefix(profilePrefix);
        }
        if (!profileId.isEmpty()) {
            request.profileId(profileId);
        }
        if (mergeProfiles) {
            request.mergeProfiles(true);
        }
        if (!profileStages.isEmpty()) {
            request.profileStages(profileStages);
        }
        if (shapeDiscovery) {
            request.shapeDiscovery(true);
        }
        return request.build();
    }

    /** Activities as SGLang's wire values, in enum order. */
    public List<String> activityNames() {
        return activities.stream().map(Activity::name).collect(Collectors.toList());
    }

    /** Whether the capture writes {@code .trace.json.gz} files: the torch profiler (CPU, GPU, XPU) or RPD. */
    public boolean writesTraceFiles() {
        return profiler == Profiler.TORCH && (activities.contains(Activity.CPU) || activities.contains(Activity.GPU)
                || activities.contains(Activity.XPU) || activities.contains(Activity.RPD));
    }

    /** Whether the capture is a ROCm RPD one, which replaces the torch profiler and names its files differently. */
    public boolean rpd() {
        return activities.contains(Activity.RPD);
    }

    /**
     * The files per rank and capture: with {@link #profileByStage()} one per stage, {@link #profileStages()} when
     * given (profiler V2), else both EXTEND and DECODE.
     */
    public int stagesPerCapture() {
        return !profileByStage ? 1 : profileStages.isEmpty() ? 2 : profileStages.size();
    }

    private static void check(boolean ok, String what, String allowed) {
        if (!ok) {
            throw new ExtensionConfigurationException(what + " is invalid: " + allowed);
        }
    }
}
