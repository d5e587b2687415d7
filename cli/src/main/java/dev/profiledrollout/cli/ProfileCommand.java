package dev.profiledrollout.cli;

import dev.profiledrollout.backend.BackendSupport;
import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.Profiler;
import dev.profiledrollout.engine.EngineClient;
import dev.profiledrollout.engine.EngineException;
import dev.profiledrollout.engine.FanOut;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.RouterClient;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.recipe.RecipeException;
import dev.profiledrollout.recipe.SrtctlRecipe;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import okhttp3.OkHttpClient;
import org.apiguardian.api.API;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code profile --router-url URL --action start|stop}: what slime's {@code tools/profile_rollout.py} does
 * ({@code docs/PROTOCOLS.md} §5), but concurrent and for both backends: list the router's workers, send
 * {@code /start_profile} (or {@code /stop_profile}) to every healthy one at once, print one outcome line per worker.
 * {@code profile --url URL [--url URL …]} does the same for engines without a router, in the order given.
 *
 * <p>Workers are labelled {@code worker-1}, {@code worker-2}, … in the router's order (or the {@code --url} order), as
 * the framework labels them. Several SGLang workers each write to their own {@code <output-dir>/worker-N}, so their
 * trace files, whose names do not say which engine wrote them, cannot mix; a single engine writes to
 * {@code <output-dir>} itself, and vLLM servers to their own {@code torch_profiler_dir}.
 *
 * <p>SGLang start body, with slime's defaults: {@code {"output_dir":<tmp>/sglang_profile,"num_steps":3,
 * "activities":["GPU"],"profile_by_stage":false,"with_stack":false,"record_shapes":false}}; {@code --num-steps 0}
 * omits {@code num_steps} (capture until {@code --action stop}). vLLM ({@code --backend vllm}): an empty body to both
 * routes (its settings are fixed by {@code --profiler-config}); the SGLang options are then ignored, with a note.
 * Stop waits up to {@code --stop-timeout} seconds (default 1800). Bearer token from {@code PROFILEDROLLOUT_API_KEY}.
 *
 * <p>{@code profile --router-url URL --recipe FILE}: runs the profile windows of an srtctl recipe
 * ({@link SrtctlRecipe}) one after the other: per window, {@code /start_profile} on the workers of its phase
 * ({@code worker_type} prefill or decode; every worker for an aggregated window, or when the router lists none of the
 * type) with {@code start_step} and {@code num_steps = stop_step − start_step}, {@code --requests} random-token
 * requests of the recipe's ISL/OSL/concurrency through the router, then {@code /stop_profile}. Each window writes to
 * {@code <output-dir>/prefill|decode|agg}, srtctl's folders (several SGLang workers of one window: each to its own
 * {@code worker-N} below it). Activities: {@code CUDA_PROFILER} for an {@code nsys}
 * recipe; for {@code torch}, {@code --activities} if given, else srtctl's {@code CPU GPU}; {@code with_stack} and
 * {@code record_shapes} only when their flags are given (srtctl sends neither). Backend, steps and the load
 * come from the recipe, so {@code --backend} (when it disagrees), {@code --num-steps} and {@code --profile-by-stage}
 * are refused with it. With a single {@code --url} instead of a router, the load goes to that engine.
 *
 * <p>A recipe whose benchmark lists several concurrencies ({@code "1x2x4x…"}) runs as srtctl runs it
 * ({@link RecipeSweepRun}): every window armed once, the sweep's stages ({@code --requests} each) as the load, stopped
 * once every window's traces are in ({@code --full-sweep} runs every stage); the output says which stage(s) each
 * worker's captured steps fell in. {@code --max-isl}, {@code --max-osl} and {@code --max-concurrency} cap the load
 * for a small engine. An {@code nsys} recipe's windows fail, saying how to get the report of the {@code nsys} process
 * that wraps the servers. The recipe's warnings (fields srtctl applies that are not applied here, such as
 * {@code benchmark.slow_down_*}) are printed first.
 *
 * <p>Exit code: 0 when every healthy worker succeeded; 1 when any failed, when there are no workers (with a recipe:
 * when a window profiled none), or when the router cannot be read; 2 on bad flags or a recipe that cannot be run.
 * Unhealthy workers are skipped and listed.
 */
@Command(name = "profile", mixinStandardHelpOptions = true,
        description = "Start or stop the profiler on every worker behind a router (or on the engines given by --url),"
                + " concurrently; or run the profile windows of an srtctl recipe.")
@API(status = INTERNAL, since = "0.1")
public final class ProfileCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--router-url", paramLabel = "URL", description = "The router whose /workers to profile")
    URI routerUrl;

    @Option(names = "--url", paramLabel = "URL", description = "An engine to profile directly, without a router;"
            + " repeatable for several engines (numbered worker-1, worker-2, … in the order given)")
    List<URI> urls;

    @Option(names = "--action", paramLabel = "start|stop", description = "start or stop (or give --recipe)")
    String action;

    @Option(names = "--recipe", paramLabel = "FILE",
            description = "An srtctl recipe (job YAML with a profiling: section): run its prefill/decode or aggregated"
                    + " windows, each with its steps and load")
    Path recipe;

    @Option(names = "--requests", defaultValue = "32", paramLabel = "N",
            description = "With --recipe: requests sent through the router in each window. Default: ${DEFAULT-VALUE}")
    int requests;

    @Option(names = "--full-sweep", description = "With --recipe whose benchmark lists several concurrencies: run"
            + " every stage of the sweep, as a benchmark, instead of stopping once every window's traces are in")
    boolean fullSweep;

    @Option(names = "--max-isl", defaultValue = "0", paramLabel = "TOKENS", description = "With --recipe: cap the"
            + " recipe's ISL (to run a production recipe against a small engine); 0 keeps it")
    int maxIsl;

    @Option(names = "--max-osl", defaultValue = "0", paramLabel = "TOKENS", description = "With --recipe: cap the"
            + " recipe's OSL; 0 keeps it")
    int maxOsl;

    @Option(names = "--max-concurrency", defaultValue = "0", paramLabel = "N", description = "With --recipe: cap"
            + " every window's and stage's concurrency (stages that become equal run once); 0 keeps it")
    int maxConcurrency;

    @Option(names = "--backend", defaultValue = "sglang", paramLabel = "sglang|vllm|…",
            description = "The engines' backend, one of the backends' names. Default: ${DEFAULT-VALUE}")
    String backend;

    @Option(names = "--num-steps", defaultValue = "3", description = "SGLang num_steps; 0 omits it. Default: ${DEFAULT-VALUE}")
    int numSteps;

    @Option(names = "--output-dir", paramLabel = "DIR", description = "SGLang output_dir, a path on the servers. Default: <tmp>/sglang_profile")
    String outputDir;

    @Option(names = "--activities", arity = "1..*", defaultValue = "GPU", paramLabel = "ACTIVITY",
            description = "SGLang activities (CPU GPU MEM CUDA_PROFILER RPD). Default: ${DEFAULT-VALUE}")
    List<String> activities;

    @Option(names = "--profile-by-stage", description = "SGLang profile_by_stage (separate EXTEND/DECODE captures)")
    boolean profileByStage;

    @Option(names = "--with-stack", description = "SGLang with_stack (default false, as slime)")
    boolean withStack;

    @Option(names = "--record-shapes", description = "SGLang record_shapes (default false, as slime)")
    boolean recordShapes;

    @Option(names = "--stop-timeout", defaultValue = "1800", paramLabel = "SECONDS",
            description = "How long a stop may take (trace export). Default: ${DEFAULT-VALUE}")
    long stopTimeoutSeconds;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if ((routerUrl == null) == (urls == null || urls.isEmpty())) {
            err.println("Give --router-url URL (the router's workers) or --url URL (an engine; repeat it for several),"
                    + " not both");
            err.flush();
            return 2;
        }
        if ((action == null) == (recipe == null)) {
            err.println("Give --action start|stop, or --recipe FILE to run an srtctl recipe's windows (not both)");
            err.flush();
            return 2;
        }
        if (recipe != null) {
            return runRecipe(out, err);
        }
        String act = action.toLowerCase(Locale.ROOT);
        java.util.Optional<BackendSupport> support = BackendSupport.named(backend);
        if (!act.equals("start") && !act.equals("stop")) {
            err.println("--action must be start or stop, was " + action);
            err.flush();
            return 2;
        }
        if (support.isEmpty()) {
            err.println("--backend must be one of " + BackendSupport.names() + ", was " + backend);
            err.flush();
            return 2;
        }
        if (profileByStage && numSteps <= 0) {
            err.println("--profile-by-stage needs --num-steps > 0 (SGLang raises at the next prefill otherwise)");
            err.flush();
            return 2;
        }
        List<Worker> workers = workers(err);
        if (workers == null) {
            return 1;
        }
        BackendSupport be = support.get();
        if (act.equals("start")) {
            be.startNote().ifPresent(out::println);
        }
        List<WorkerOutcome> outcomes;
        try (FanOut fanOut = new FanOut(workers, w -> client(be, w.url()))) {
            outcomes = act.equals("start")
                    ? fanOut.start(i -> request(workerOutputDir(serverOutputDir(), i, workers.size(), be)))
                    : fanOut.stopAll();
        }
        for (int i = 0; i < outcomes.size(); i++) {
            String where = act.equals("start") && be.tracesWhereRequested()
                    ? " → " + workerOutputDir(serverOutputDir(), i, workers.size(), be) : "";
            out.println(workerLabel(i) + " " + outcomes.get(i).describe() + where);
        }
        long failed = outcomes.stream().filter(WorkerOutcome::failed).count();
        long ok = outcomes.size() - failed - outcomes.stream()
                .filter(o -> o.state() == WorkerOutcome.State.SKIPPED_UNHEALTHY).count();
        out.println(act + ": " + ok + " ok, " + failed + " failed, " + (outcomes.size() - ok - failed) + " skipped (unhealthy)");
        out.flush();
        return failed > 0 || ok == 0 ? 1 : 0;
    }

    /**
     * @return the engines of {@code --url} in the order given, or the router's workers in its order, or null after
     *         printing why there are none to profile
     */
    private List<Worker> workers(PrintWriter err) {
        if (routerUrl == null) {
            return urls.stream().map(u -> new Worker(u, "regular", true, 0, null)).toList();
        }
        OkHttpClient http = CliHttp.client(Duration.ofSeconds(30));
        try {
            List<Worker> workers = new RouterClient(routerUrl, http).workers();
            if (workers.isEmpty()) {
                err.println("The router at " + routerUrl + " lists no workers");
                err.flush();
                return null;
            }
            return workers;
        } catch (EngineException e) {
            err.println(e.getMessage());
            err.flush();
            return null;
        } finally {
            CliHttp.close(http);
        }
    }

    private int runRecipe(PrintWriter out, PrintWriter err) throws InterruptedException {
        SrtctlRecipe parsed;
        try {
            parsed = SrtctlRecipe.read(recipe);
        } catch (RecipeException e) {
            err.println(e.getMessage());
            err.flush();
            return 2;
        }
        String refused = refusedWithRecipe(parsed);
        if (refused != null) {
            err.println(refused);
            err.flush();
            return 2;
        }
        if (routerUrl == null && urls.size() > 1) {
            err.println("--recipe sends each window's load through one endpoint: give --router-url, or a single --url");
            err.flush();
            return 2;
        }
        List<Worker> workers = workers(err);
        if (workers == null) {
            return 1;
        }
        URI loadUrl = routerUrl != null ? routerUrl : urls.get(0);
        BackendSupport be = BackendSupport.of(parsed.backend());
        List<String> torchActivities = matched("--activities")
                ? activities.stream().map(a -> a.toUpperCase(Locale.ROOT)).toList() : List.of("CPU", "GPU");
        OkHttpClient models = CliHttp.client(Duration.ofSeconds(30));
        try {
            boolean ok = new RecipeRun(parsed, loadUrl, serverOutputDir(), torchActivities,
                    withStack ? Boolean.TRUE : null, recordShapes ? Boolean.TRUE : null, requests,
                    url -> client(be, url), out, new RecipeLoadCaps(maxIsl, maxOsl, maxConcurrency), fullSweep)
                    .run(workers, models);
            return ok ? 0 : 1;
        } finally {
            CliHttp.close(models);
        }
    }

    /** @return why a flag cannot go with {@code recipe}, or null */
    private String refusedWithRecipe(SrtctlRecipe parsed) {
        String recipeBackend = parsed.backend().name().toLowerCase(Locale.ROOT);
        if (matched("--backend") && !backend.toLowerCase(Locale.ROOT).equals(recipeBackend)) {
            return "--backend " + backend + " disagrees with the recipe's backend.type " + recipeBackend
                    + "; drop --backend (the recipe gives it)";
        }
        if (matched("--num-steps")) {
            return "--num-steps cannot go with --recipe: the recipe's start_step and stop_step give the steps";
        }
        if (matched("--profile-by-stage")) {
            return "--profile-by-stage cannot go with --recipe: srtctl profiles each phase's workers in its own window";
        }
        if (matched("--activities") && parsed.profiler() == Profiler.NSYS) {
            return "--activities cannot go with an nsys recipe: its capture is the CUDA_PROFILER activity";
        }
        if (requests < 1) {
            return "--requests must be at least 1, was " + requests;
        }
        if (maxIsl < 0 || maxOsl < 0 || maxConcurrency < 0) {
            return "--max-isl, --max-osl and --max-concurrency must be positive (0 keeps the recipe's value)";
        }
        return null;
    }

    private boolean matched(String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    private String serverOutputDir() {
        return outputDir != null ? outputDir : Path.of(System.getProperty("java.io.tmpdir"), "sglang_profile").toString();
    }

    /**
     * The label of the worker at {@code index} (0-based) of the router's list or of the {@code --url}s:
     * {@code worker-<index + 1>}, as the framework labels workers in the router's order.
     */
    static String workerLabel(int index) {
        return "worker-" + (index + 1);
    }

    /**
     * Where the worker at {@code index} writes: {@code <outputDir>/worker-N} when several SGLang engines would
     * otherwise write into one directory under names that cannot be told apart, else {@code outputDir} itself
     * (one engine; or vLLM, whose {@code torch_profiler_dir} the server fixes and the request cannot change).
     */
    static String workerOutputDir(String outputDir, int index, int workers, BackendSupport backend) {
        if (workers < 2 || !backend.tracesWhereRequested()) {
            return outputDir;
        }
        return (outputDir.endsWith("/") ? outputDir : outputDir + "/") + workerLabel(index);
    }

    /** @return the start request with the default {@code output_dir} */
    ProfileRequest request() {
        return request(serverOutputDir());
    }

    ProfileRequest request(String outputDir) {
        ProfileRequest.Builder b = ProfileRequest.builder()
                .outputDir(outputDir)
                .activities(activities.stream().map(a -> a.toUpperCase(Locale.ROOT)).toList())
                .profileByStage(profileByStage)
                .withStack(withStack)
                .recordShapes(recordShapes);
        if (numSteps > 0) {
            b.numSteps(numSteps);
        }
        return b.build();
    }

    private EngineClient client(BackendSupport be, URI url) {
        Duration stop = Duration.ofSeconds(Math.max(1, stopTimeoutSeconds));
        return be.client(url, new BackendSupport.ClientOptions(CliHttp.apiKey(), CliHttp.adminApiKey(), stop, null));
    }
}
