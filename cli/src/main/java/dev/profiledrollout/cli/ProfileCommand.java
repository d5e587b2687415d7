package dev.profiledrollout.cli;

import dev.profiledrollout.engine.EngineClient;
import dev.profiledrollout.engine.EngineException;
import dev.profiledrollout.engine.FanOut;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.RouterClient;
import dev.profiledrollout.engine.SglangClient;
import dev.profiledrollout.engine.VllmClient;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.WorkerOutcome;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import okhttp3.OkHttpClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code profile --router-url URL --action start|stop}: what slime's {@code tools/profile_rollout.py} does
 * ({@code docs/PROTOCOLS.md} §5), but concurrent and for both backends: list the router's workers, send
 * {@code /start_profile} (or {@code /stop_profile}) to every healthy one at once, print one outcome line per worker.
 *
 * <p>SGLang start body, with slime's defaults: {@code {"output_dir":<tmp>/sglang_profile,"num_steps":3,
 * "activities":["GPU"],"profile_by_stage":false,"with_stack":false,"record_shapes":false}}; {@code --num-steps 0}
 * omits {@code num_steps} (capture until {@code --action stop}). vLLM ({@code --backend vllm}): an empty body to both
 * routes (its settings are fixed by {@code --profiler-config}); the SGLang options are then ignored, with a note.
 * Stop waits up to {@code --stop-timeout} seconds (default 1800). Bearer token from {@code PROFILEDROLLOUT_API_KEY}.
 *
 * <p>Exit code: 0 when every healthy worker succeeded; 1 when any failed, when there are no workers, or when the
 * router cannot be read. Unhealthy workers are skipped and listed.
 */
@Command(name = "profile", mixinStandardHelpOptions = true,
        description = "Start or stop the profiler on every worker behind a router, concurrently.")
public final class ProfileCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--router-url", required = true, paramLabel = "URL", description = "The router whose /workers to profile")
    URI routerUrl;

    @Option(names = "--action", required = true, paramLabel = "start|stop", description = "start or stop")
    String action;

    @Option(names = "--backend", defaultValue = "sglang", paramLabel = "sglang|vllm", description = "Default: ${DEFAULT-VALUE}")
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
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String act = action.toLowerCase(Locale.ROOT);
        String be = backend.toLowerCase(Locale.ROOT);
        if (!act.equals("start") && !act.equals("stop")) {
            err.println("--action must be start or stop, was " + action);
            err.flush();
            return 2;
        }
        if (!be.equals("sglang") && !be.equals("vllm")) {
            err.println("--backend must be sglang or vllm, was " + backend);
            err.flush();
            return 2;
        }
        if (profileByStage && numSteps <= 0) {
            err.println("--profile-by-stage needs --num-steps > 0 (SGLang raises at the next prefill otherwise)");
            err.flush();
            return 2;
        }
        OkHttpClient http = CliHttp.client(Duration.ofSeconds(30));
        List<Worker> workers;
        try {
            workers = new RouterClient(routerUrl, http).workers();
        } catch (EngineException e) {
            err.println(e.getMessage());
            err.flush();
            return 1;
        } finally {
            CliHttp.close(http);
        }
        if (workers.isEmpty()) {
            err.println("The router at " + routerUrl + " lists no workers");
            err.flush();
            return 1;
        }
        if (be.equals("vllm") && act.equals("start")) {
            out.println("vLLM: sending an empty body; num_steps, output_dir and activities are fixed by the servers'"
                    + " --profiler-config (max_iterations, torch_profiler_dir)");
        }
        List<WorkerOutcome> outcomes;
        try (FanOut fanOut = new FanOut(workers, w -> client(be, w.url()))) {
            outcomes = act.equals("start") ? fanOut.start(request()) : fanOut.stopAll();
        }
        for (WorkerOutcome o : outcomes) {
            out.println(o.describe());
        }
        long failed = outcomes.stream().filter(WorkerOutcome::failed).count();
        long ok = outcomes.size() - failed - outcomes.stream()
                .filter(o -> o.state() == WorkerOutcome.State.SKIPPED_UNHEALTHY).count();
        out.println(act + ": " + ok + " ok, " + failed + " failed, " + (outcomes.size() - ok - failed) + " skipped (unhealthy)");
        out.flush();
        return failed > 0 || ok == 0 ? 1 : 0;
    }

    ProfileRequest request() {
        ProfileRequest.Builder b = ProfileRequest.builder()
                .outputDir(outputDir != null ? outputDir
                        : Path.of(System.getProperty("java.io.tmpdir"), "sglang_profile").toString())
                .activities(activities.stream().map(a -> a.toUpperCase(Locale.ROOT)).toList())
                .profileByStage(profileByStage)
                .withStack(withStack)
                .recordShapes(recordShapes);
        if (numSteps > 0) {
            b.numSteps(numSteps);
        }
        return b.build();
    }

    private EngineClient client(String be, URI url) {
        String key = CliHttp.apiKey();
        Duration stop = Duration.ofSeconds(Math.max(1, stopTimeoutSeconds));
        if (be.equals("vllm")) {
            return VllmClient.builder(url).apiKey(key).stopProfileTimeout(stop).build();
        }
        return SglangClient.builder(url).apiKey(key).stopProfileTimeout(stop).build();
    }
}
