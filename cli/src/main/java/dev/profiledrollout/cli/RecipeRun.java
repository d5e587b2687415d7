package dev.profiledrollout.cli;

import dev.profiledrollout.Backend;
import dev.profiledrollout.Profiler;
import dev.profiledrollout.engine.EngineClient;
import dev.profiledrollout.engine.FanOut;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.cli.bench.LoadTest;
import dev.profiledrollout.cli.bench.LoadTestResult;
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
                + recipe.backend().name().toLowerCase(Locale.ROOT) + ", " + recipe.profiler().name()
                .toLowerCase(Locale.ROOT) + ", " + recipe.windows().size() + " window(s), model " + model);
        if (recipe.backend() == Backend.VLLM) {
            out.println("vLLM: sending an empty body; the servers' --profiler-config must say max_iterations = "
                    + recipe.windows().stream().map(w -> String.valueOf(w.numSteps())).distinct().toList()
                    + " and torch_profiler_dir");
        }
        boolean ok = true;
        for (SrtctlRecipe.Window w : recipe.windows()) {
            ok &= window(w, workers, model);
        }
        out.flush();
        return ok;
    }

    private boolean window(SrtctlRecipe.Window w, List<Worker> workers, String model) throws InterruptedException {
        List<Worker> ofPhase = w.aggregated() ? workers
                : workers.stream().filter(x -> x.workerType().equals(w.phase().workerType())).toList();
        if (ofPhase.isEmpty()) {
            // As a test's phase does on one regular engine: no worker of the type, so every worker is the phase's.
            ofPhase = workers;
        }
        out.println(w.mode() + ": steps " + w.startStep() + ".." + w.stopStep() + " (num_steps " + w.numSteps()
                + ") on " + ofPhase.size() + " worker(s); load ISL " + w.inputTokens() + ", OSL " + w.outputTokens()
                + ", concurrency " + w.concurrency() + (Double.isInfinite(w.requestRate()) ? ""
                : ", " + w.requestRate() + " req/s") + ", " + requests + " requests");
        out.flush();
        List<WorkerOutcome> outcomes;
        LoadTestResult load = null;
        String loadError = null;
        List<Worker> phaseWorkers = ofPhase;
        IntFunction<String> dir = i -> ProfileCommand.workerOutputDir(outputDir + "/" + w.mode(),
                workers.indexOf(phaseWorkers.get(i)), phaseWorkers.size(),
                recipe.backend().name().toLowerCase(Locale.ROOT));
        try (FanOut fanOut = new FanOut(ofPhase, worker -> clients.apply(worker.url()))) {
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
                    + outcomes.get(i).describe() + (recipe.backend() == Backend.SGLANG ? " → " + dir.apply(i) : ""));
        }
        if (load != null) {
            LatencyReport latency = load.latency();
            out.println("  load: " + latency.completed() + " completed, " + latency.failed() + " failed, "
                    + latency.inputTokens() + " input and " + latency.outputTokens() + " output tokens");
        } else {
            out.println("  load: not sent" + (loadError != null ? " (" + loadError + ")" : ": no worker started"));
        }
        long profiled = outcomes.stream().filter(o -> o.state() == WorkerOutcome.State.PROFILED).count();
        return profiled > 0 && outcomes.stream().noneMatch(WorkerOutcome::failed) && loadError == null;
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
                .randomTokens(w.inputTokens(), w.outputTokens(), 0.0);
        return (Double.isInfinite(w.requestRate()) ? b.closedLoop(w.concurrency())
                : b.requestRate(w.requestRate()).maxConcurrency(w.concurrency())).build();
    }
}
