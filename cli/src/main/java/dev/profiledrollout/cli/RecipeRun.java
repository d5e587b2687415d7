package dev.profiledrollout.cli;

import dev.profiledrollout.Backend;
import dev.profiledrollout.Profiler;
import dev.profiledrollout.backend.BackendSupport;
import dev.profiledrollout.cli.bench.LoadTest;
import dev.profiledrollout.cli.bench.LoadTestResult;
import dev.profiledrollout.engine.EngineClient;
import dev.profiledrollout.engine.FanOut;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.recipe.SrtctlRecipe;
import java.io.PrintWriter;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.IntFunction;
import okhttp3.OkHttpClient;

/**
 * Runs the windows of an srtctl recipe through a router, one after the other: {@code /start_profile} on the window's
 * workers with the recipe's steps, a closed loop (or {@code benchmark.req_rate}) of random-token requests of the
 * recipe's ISL/OSL through the router, then {@code /stop_profile}. The outcome of every worker and of the load is
 * printed.
 */
final class RecipeRun {

    private final SrtctlRecipe recipe;
    private final URI routerUrl;
    private final String outputDir;
    private final List<String> torchActivities;
    private final Boolean withStack;
    private final Boolean recordShapes;
    private final int requests;
    private final Function<URI, EngineClient> clients;
    private final PrintWriter out;
    private final RecipeLoadCaps caps;
    private final boolean fullSweep;

    /**
     * @param outputDir       SGLang {@code output_dir} on the servers; each window writes to {@code <outputDir>/<mode>}
     *                        ({@code prefill}, {@code decode} or {@code agg}, srtctl's folders), and each of several
     *                        SGLang workers of a window to its own {@code <outputDir>/<mode>/worker-N} (N in the
     *                        router's worker order, {@link ProfileCommand#workerOutputDir})
     * @param torchActivities the activities of a {@code torch} recipe; an {@code nsys} one sends
     *                        {@code CUDA_PROFILER}, as srtctl does
     * @param withStack       SGLang {@code with_stack}, or null to leave SGLang's default (srtctl sends none)
     * @param recordShapes    SGLang {@code record_shapes}, or null to leave SGLang's default
     * @param requests        requests per window
     */
    RecipeRun(SrtctlRecipe recipe, URI routerUrl, String outputDir, List<String> torchActivities, Boolean withStack,
            Boolean recordShapes, int requests, Function<URI, EngineClient> clients, PrintWriter out) {
        this(recipe, routerUrl, outputDir, torchActivities, withStack, recordShapes, requests, clients, out,
                RecipeLoadCaps.NONE, false);
    }

    /**
     * @param caps      caps on the recipe's ISL, OSL and concurrencies ({@code --max-isl} …)
     * @param fullSweep run every stage of a sweep, not only until every window's traces are in
     */
    RecipeRun(SrtctlRecipe recipe, URI routerUrl, String outputDir, List<String> torchActivities, Boolean withStack,
            Boolean recordShapes, int requests, Function<URI, EngineClient> clients, PrintWriter out,
            RecipeLoadCaps caps, boolean fullSweep) {
        this.caps = caps;
        this.fullSweep = fullSweep;
        this.recipe = recipe;
        this.routerUrl = routerUrl;
        this.outputDir = outputDir;
        this.torchActivities = torchActivities;
        this.withStack = withStack;
        this.recordShapes = recordShapes;
        this.requests = requests;
        this.clients = clients;
        this.out = out;
    }

    /**
     * @param workers the router's workers
     * @param http    the client that asks the router for its models (the load has its own client)
     * @return whether every window profiled at least one worker and no worker failed
     */
    boolean run(List<Worker> workers, OkHttpClient http) throws InterruptedException {
        String model = BenchCommand.firstModel(http, routerUrl);
        out.println("Recipe " + recipe.source() + (recipe.name() == null ? "" : " (" + recipe.name() + ")") + ": "
                + BackendSupport.of(recipe.backend()).name() + ", " + recipe.profiler().name()
                .toLowerCase(Locale.ROOT) + ", " + recipe.windows().size() + " window(s), model " + model);
        BackendSupport support = BackendSupport.of(recipe.backend());
        support.serverStepsKey().ifPresent(key -> out.println(support.displayName() + ": the servers must have been"
                + " started to capture " + recipe.windows().stream().map(w -> recipe.profiler() == Profiler.NSYS
                        ? support.recipeNsysServerConfig(w.startStep(), w.numSteps()).map(c -> "--profiler-config '"
                                + c + "'").orElse(support.serverStartedWith(w.numSteps(), w.startStep()))
                        : support.serverStartedWith(w.numSteps(), w.startStep())).distinct().toList() + "; "
                + support.startNote().orElse("")));
        recipe.warnings().forEach(w -> out.println("WARNING: " + w));
        if (caps.any()) {
            out.println("load capped for this run: " + (caps.maxIsl() > 0 ? "ISL ≤ " + caps.maxIsl() + " " : "")
                    + (caps.maxOsl() > 0 ? "OSL ≤ " + caps.maxOsl() + " " : "")
                    + (caps.maxConcurrency() > 0 ? "concurrency ≤ " + caps.maxConcurrency() : "")
                    + "; steps are the recipe's");
        }
        boolean ok;
        if (recipe.isSweep()) {
            ok = sweep(workers, model);
        } else {
            ok = true;
            for (SrtctlRecipe.Window w : recipe.windows()) {
                ok &= window(w, workers, model);
            }
        }
        ok &= nsysReports();
        out.flush();
        return ok;
    }

    private List<Worker> ofPhase(SrtctlRecipe.Window w, List<Worker> workers) {
        List<Worker> ofPhase = w.aggregated() ? workers
                : workers.stream().filter(x -> x.workerType().equals(w.phase().workerType())).toList();
        // As a test's phase does on one regular engine: no worker of the type, so every worker is the phase's.
        return ofPhase.isEmpty() ? workers : ofPhase;
    }

    private boolean sweep(List<Worker> workers, String model) throws InterruptedException {
        java.util.Map<SrtctlRecipe.Window, List<Worker>> of = new java.util.LinkedHashMap<>();
        java.util.Set<Worker> taken = new java.util.HashSet<>();
        for (SrtctlRecipe.Window w : recipe.windows()) {
            List<Worker> ws = ofPhase(w, workers);
            for (Worker x : ws) {
                if (!taken.add(x)) {
                    out.println(w.mode() + ": FAILED: the router lists no " + w.mode() + " workers, so the "
                            + recipe.windows().size() + " windows of this sweep would arm the same worker twice;"
                            + " srtctl arms prefill and decode workers at once. Give a router whose /workers have"
                            + " worker_type prefill and decode");
                    return false;
                }
            }
            of.put(w, ws);
        }
        BackendSupport support = BackendSupport.of(recipe.backend());
        return new RecipeSweepRun(recipe, routerUrl, outputDir, caps, fullSweep, requests, clients,
                w -> i -> request(w, ProfileCommand.workerOutputDir(outputDir + "/" + w.mode(),
                        workers.indexOf(of.get(w).get(i)), of.get(w).size(), support)), out)
                .run(workers, of, model);
    }

    /**
     * An nsys window's capture is the cudaProfilerApi range of the {@code nsys profile} process that wraps each
     * server; its report is written by that process, not returned by the engine. The CLI cannot summarise it, so
     * the windows fail, saying how to get and read the report (never a pass with nothing).
     */
    private boolean nsysReports() {
        if (recipe.profiler() != Profiler.NSYS) {
            return true;
        }
        BackendSupport support = BackendSupport.of(recipe.backend());
        for (SrtctlRecipe.Window w : recipe.windows()) {
            out.println(w.mode() + ": FAILED: no nsys report. profiling.type nsys captures the cudaProfilerApi range"
                    + " into the report of the nsys process that wraps each server, which this command does not"
                    + " see. Start the server as srtctl does: nsys profile -t cuda,nvtx --cuda-graph-trace=node -c"
                    + " cudaProfilerApi --capture-range-end stop --force-overwrite true -o <report> <server command>"
                    + support.recipeNsysServerConfig(w.startStep(), w.numSteps())
                            .map(c -> " with --profiler-config '" + c + "'").orElse("")
                    + "; then export it (nsys export --type sqlite <report>.nsys-rep) and read it with"
                    + " `profiled-rollout analyze <report>.sqlite`, or run the recipe as @RolloutRecipe with"
                    + " profiledrollout.nsys.report=<report> to have it summarised");
        }
        return false;
    }

    private boolean window(SrtctlRecipe.Window w, List<Worker> workers, String model) throws InterruptedException {
        List<Worker> ofPhase = ofPhase(w, workers);
        out.println(w.mode() + ": steps " + w.startStep() + ".." + w.stopStep() + " (num_steps " + w.numSteps()
                + ") on " + ofPhase.size() + " worker(s); load "
                + RecipeLoadCaps.shown("ISL", w.inputTokens(), caps.isl(w.inputTokens())) + ", "
                + RecipeLoadCaps.shown("OSL", w.outputTokens(), caps.osl(w.outputTokens())) + ", "
                + RecipeLoadCaps.shown("concurrency", w.concurrency(), caps.concurrency(w.concurrency()))
                + (Double.isInfinite(w.requestRate()) ? ""
                : ", " + w.requestRate() + " req/s") + ", " + requests + " requests");
        out.flush();
        List<WorkerOutcome> outcomes;
        LoadTestResult load = null;
        String loadError = null;
        List<Worker> phaseWorkers = ofPhase;
        List<java.util.Set<String>> before = new java.util.ArrayList<>();
        IntFunction<String> dir = i -> ProfileCommand.workerOutputDir(outputDir + "/" + w.mode(),
                workers.indexOf(phaseWorkers.get(i)), phaseWorkers.size(),
                BackendSupport.of(recipe.backend()));
        try (FanOut fanOut = new FanOut(ofPhase, worker -> clients.apply(worker.url()))) {
            for (int i = 0; i < ofPhase.size(); i++) {
                before.add(snapshot(dir.apply(i)));
            }
            List<WorkerOutcome> started = fanOut.start(i -> request(w, dir.apply(i)));
            if (started.stream().anyMatch(o -> o.state() == WorkerOutcome.State.STARTED)) {
                try {
                    load = loadTest(w, model).run();
                } catch (TimeoutException e) {
                    loadError = "the load did not finish in time: " + e.getMessage();
                }
            }
            outcomes = fanOut.stop();
        }
        for (int i = 0; i < outcomes.size(); i++) {
            out.println("  " + ProfileCommand.workerLabel(workers.indexOf(phaseWorkers.get(i))) + " "
                    + outcomes.get(i).describe() + (BackendSupport.of(recipe.backend()).tracesWhereRequested() ? " → " + dir.apply(i) : ""));
        }
        if (load != null) {
            LatencyReport latency = load.latency();
            out.println("  load: " + latency.completed() + " completed, " + latency.failed() + " failed, "
                    + latency.inputTokens() + " input and " + latency.outputTokens() + " output tokens");
        } else {
            out.println("  load: not sent" + (loadError != null ? " (" + loadError + ")" : ": no worker started"));
        }
        long profiled = outcomes.stream().filter(o -> o.state() == WorkerOutcome.State.PROFILED).count();
        boolean complete = true;
        for (int i = 0; i < outcomes.size() && BackendSupport.of(recipe.backend()).tracesWhereRequested()
                && recipe.profiler() == Profiler.TORCH; i++) {
            String shortBy = RecipeSweepRun.shortCapture(java.nio.file.Path.of(dir.apply(i)), before.get(i), w,
                    "the window's load");
            if (shortBy != null) {
                out.println("  " + ProfileCommand.workerLabel(workers.indexOf(phaseWorkers.get(i))) + ": FAILED: "
                        + shortBy);
                complete = false;
            }
        }
        return profiled > 0 && outcomes.stream().noneMatch(WorkerOutcome::failed) && loadError == null && complete;
    }

    private static java.util.Set<String> snapshot(String serverDir) {
        java.nio.file.Path p = java.nio.file.Path.of(serverDir);
        return p.isAbsolute() ? dev.profiledrollout.trace.files.TraceFiles.snapshot(p) : java.util.Set.of();
    }

    private ProfileRequest request(SrtctlRecipe.Window w, String windowOutputDir) {
        return ProfileRequest.builder()
                .outputDir(windowOutputDir)
                .startStep(w.profileStartStep())
                .numSteps(w.numSteps())
                .activities(recipe.profiler() == Profiler.NSYS ? List.of("CUDA_PROFILER") : torchActivities)
                .withStack(withStack)
                .recordShapes(recordShapes)
                .build();
    }

    private LoadTest loadTest(SrtctlRecipe.Window w, String model) {
        LoadTest.Builder b = LoadTest.builder().target(CliHttp.loadTarget(routerUrl)).model(model)
                .backend(recipe.backend().name().toLowerCase(Locale.ROOT)).requests(requests)
                .randomTokens(caps.isl(w.inputTokens()), caps.osl(w.outputTokens()), 0.0);
        int concurrency = caps.concurrency(w.concurrency());
        return (Double.isInfinite(w.requestRate()) ? b.closedLoop(concurrency)
                : b.requestRate(w.requestRate()).maxConcurrency(concurrency)).build();
    }
}
