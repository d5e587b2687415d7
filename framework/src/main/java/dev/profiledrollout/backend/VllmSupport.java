package dev.profiledrollout.backend;

import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_DIR;
import static dev.profiledrollout.ProfiledRolloutKeys.VLLM_MAX_ITERATIONS;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.Profiler;
import dev.profiledrollout.engine.EngineClient;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.engine.ServerProbe;
import dev.profiledrollout.engine.VllmClient;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;

/**
 * vLLM ({@code docs/PROTOCOLS.md} §2): {@code POST /start_profile} and {@code /stop_profile} take no body; the
 * profiler directory ({@code torch_profiler_dir}), {@code delay_iterations} and {@code max_iterations} are fixed by
 * {@code --profiler-config} at server start (vllm-project/vllm {@code vllm/config/profiler.py},
 * {@code vllm/profiler/wrapper.py}), so a test states them through configuration and they are checked, not sent.
 */
final class VllmSupport extends BackendSupport {

    @Override
    public Backend backend() {
        return Backend.VLLM;
    }

    @Override
    public String displayName() {
        return "vLLM";
    }

    @Override
    public EngineClient client(URI uri, ClientOptions options) {
        return withOptions(VllmClient.builder(uri), options)
                .stopProfileTimeout(options.stopTimeout() != null ? options.stopTimeout() : defaultStopTimeout())
                .build();
    }

    /**
     * 30 min: the stop returns only after every worker exported its trace, which took more than 20 min in
     * vllm-project/vllm#22748 ({@code docs/PROTOCOLS.md} §2.3).
     */
    @Override
    public Duration defaultStopTimeout() {
        return Duration.ofMinutes(30);
    }

    /** vLLM has no {@code /server_info}: the layout comes from {@code profiledrollout.engine.ranks}. */
    @Override
    public ServerInfo serverInfo(EngineClient first, OptionalInt ranks, int embeddedTp) {
        return configuredLayout(name(), ranks, embeddedTp,
                first instanceof VllmClient vllm ? vllm.version() : Optional.empty());
    }

    @Override
    public Optional<String> otherBackendAt(EngineClient client, String source) {
        URI url = client.baseUri();
        Optional<JsonNode> info = ServerProbe.sglangServerInfo(client.httpClient(), url);
        return info.map(i -> url + " (" + source + ") answers GET /server_info like SGLang (tp_size "
                + i.path("tp_size").asText("?") + ", model_path " + i.path("model_path").asText("?") + "), but the"
                + " test declares @ProfiledRollout(backend = VLLM). Set backend = SGLANG, or point " + source
                + " at the vLLM server");
    }

    @Override
    public Control control() {
        return Control.SERVER_CONFIG;
    }

    @Override
    public Optional<String> startNote() {
        return Optional.of("vLLM: sending an empty body; num_steps, output_dir and activities are fixed by the servers'"
                + " --profiler-config (max_iterations, torch_profiler_dir)");
    }

    @Override
    public String fixedTraceDirectory() {
        return "the server's torch_profiler_dir (from its --profiler-config)";
    }

    /** vLLM's worker traces carry {@code execute_…} step annotations (vllm-project/vllm {@code vllm/v1/worker}). */
    @Override
    public boolean annotatesSteps(Set<Activity> activities) {
        return true;
    }

    /** vLLM versions differ in whether they annotate steps, so no step is not proof that no batch ran. */
    @Override
    public boolean stepAnnotationsGuaranteed() {
        return false;
    }

    @Override
    public String overCaptureFix(int n) {
        return "the server's profiler config has no max_iterations (or another one) and recorded until"
                + " /stop_profile: start vLLM with --profiler-config"
                + " '{\"profiler\":\"torch\",\"torch_profiler_dir\":\"…\",\"max_iterations\":" + n + "}'"
                + " (vLLM 0.13 and later) or VLLM_PROFILER_MAX_ITERS=" + n + " (before 0.13), as "
                + VLLM_MAX_ITERATIONS + "=" + n + " says it was";
    }

    @Override
    public Optional<String> serverStepsKey() {
        return Optional.of(VLLM_MAX_ITERATIONS);
    }

    @Override
    public OptionalInt serverSteps(Function<String, Optional<String>> settings) {
        Optional<String> text = settings.apply(VLLM_MAX_ITERATIONS);
        if (text.isEmpty()) {
            return OptionalInt.empty();
        }
        try {
            int n = Integer.parseInt(text.get().trim());
            if (n >= 0) {
                return OptionalInt.of(n);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("Invalid " + VLLM_MAX_ITERATIONS + "='" + text.get() + "': expected the"
                + " max_iterations of the server's --profiler-config, an integer ≥ 0 (0: no limit)");
    }

    /**
     * vLLM bounds a capture only since {@code VLLM_PROFILER_MAX_ITERS} / {@code VLLM_PROFILER_DELAY_ITERS}
     * (vllm-project/vllm PR #28987, opened 2025-11-19 after v0.11.2 was cut; first released in 0.12, inferred from the
     * dates) and {@code max_iterations} of {@code --profiler-config} (PR #29912, 0.13). A v0.11 server records until
     * {@code /stop_profile} whatever it is told.
     */
    @Override
    public Optional<String> stepLimitUnsupported(ServerInfo info) {
        String version = info.raw().path("version").asText("");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^v?(\\d+)\\.(\\d+)").matcher(version);
        if (!m.find()) {
            return Optional.empty();
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        if (major > 0 || minor >= 12) {
            return Optional.empty();
        }
        return Optional.of("the vLLM server reports version " + version + ", which has no iteration limit: "
                + "VLLM_PROFILER_MAX_ITERS arrived after v0.11 (vllm-project/vllm PR #28987) and --profiler-config"
                + " max_iterations in 0.13, so it records every step until /stop_profile and numSteps cannot be"
                + " enforced. Use a vLLM 0.12+ server, or remove numSteps");
    }

    @Override
    public String serverStepsName() {
        return "max_iterations";
    }

    @Override
    public String serverStartedWith(int steps, Integer startStep) {
        return "\"max_iterations\":" + steps;
    }

    @Override
    public Verdict checkRequest(CaptureRequest r, Function<String, Optional<String>> settings) {
        OptionalInt maxIterations = serverSteps(settings);
        List<Problem> problems = new ArrayList<>();
        for (Window w : r.windows()) {
            if (w.startStep() != null) {
                problems.add(new Problem("@ProfiledRollout(startStep = " + w.startStep() + ") with backend = VLLM",
                        "vLLM has no per-call start step; its delay_iterations is fixed by --profiler-config at"
                                + " server start. Remove startStep"));
            }
            if (w.numSteps() != null) {
                String subject = "@ProfiledRollout(numSteps = " + w.numSteps() + ") with backend = VLLM";
                if (maxIterations.isEmpty()) {
                    problems.add(new Problem(subject, "vLLM cannot take num_steps per call: it is max_iterations in"
                            + " the server's --profiler-config. Set " + VLLM_MAX_ITERATIONS + "=" + w.numSteps()
                            + " to confirm the server was started with \"max_iterations\":" + w.numSteps()
                            + ", or remove numSteps"));
                } else if (maxIterations.getAsInt() != w.numSteps()) {
                    int m = maxIterations.getAsInt();
                    problems.add(new Problem(subject, "the server's max_iterations is " + m + " ("
                            + VLLM_MAX_ITERATIONS + "); vLLM would capture " + (m == 0 ? "until /stop_profile"
                            : m + " steps") + ". Make numSteps match it, or restart the server with"
                            + " \"max_iterations\":" + w.numSteps()));
                }
            }
        }
        if (r.profileByStage()) {
            problems.add(new Problem("@ProfiledRollout(profileByStage = true) with backend = VLLM",
                    "profile_by_stage is SGLang-only; remove it"));
        }
        if (!r.outputDir().isEmpty()) {
            problems.add(new Problem("@ProfiledRollout(outputDir = \"" + r.outputDir() + "\") with backend = VLLM",
                    "vLLM writes to the torch_profiler_dir of its --profiler-config; set " + TRACE_DIR
                            + " to where this machine reads it instead"));
        }
        if (!r.withStack() || !r.recordShapes()) {
            problems.add(new Problem("@ProfiledRollout(" + (r.withStack() ? "" : "withStack = false")
                    + (r.withStack() || r.recordShapes() ? "" : ", ") + (r.recordShapes() ? "" : "recordShapes = false")
                    + ") with backend = VLLM", "vLLM's /start_profile takes no body, so this would be ignored: set"
                    + " torch_profiler_with_stack / torch_profiler_record_shapes in the server's --profiler-config"
                    + " instead, and remove the attribute"));
        }
        if (!r.profilePrefix().isEmpty()) {
            problems.add(new Problem("@ProfiledRollout(profilePrefix = \"" + r.profilePrefix()
                    + "\") with backend = VLLM", "vLLM takes no per-call prefix; remove it"));
        }
        if (r.perCallFields()) {
            problems.add(new Problem("@ProfiledRollout(profileId, mergeProfiles, profileStages or shapeDiscovery) with"
                    + " backend = VLLM", "these are SGLang /start_profile fields and vLLM's /start_profile takes no"
                    + " body; remove them"));
        }
        List<String> warnings = new ArrayList<>();
        boolean stepsSet = r.windows().stream().anyMatch(w -> w.numSteps() != null);
        if (problems.isEmpty() && !stepsSet && maxIterations.isPresent() && maxIterations.getAsInt() > 0) {
            warnings.add("vLLM's max_iterations is " + maxIterations.getAsInt() + " (" + VLLM_MAX_ITERATIONS
                    + "): the capture stops by itself after that many steps, before the window ends; set"
                    + " @ProfiledRollout(numSteps = " + maxIterations.getAsInt() + ") to say so in the test");
        }
        return new Verdict(problems, warnings);
    }

    @Override
    public Optional<Problem> checkProfiler(Profiler profiler, Set<Activity> activities) {
        if (profiler == Profiler.NSYS && activities.contains(Activity.CUDA_PROFILER)) {
            return Optional.of(new Problem("@ProfiledRollout(profiler = NSYS, activities = CUDA_PROFILER) with"
                    + " backend = VLLM", "vLLM's cudaProfilerApi capture is --profiler-config"
                    + " '{\"profiler\":\"cuda\"}' at server start; leave CUDA_PROFILER out and use an nsys interactive"
                    + " session or the torch profiler"));
        }
        return Optional.empty();
    }

    @Override
    public Optional<String> refuseRecipeProfiler(String type) {
        // nsys: srtctl starts the server with --profiler-config {"profiler":"cuda",...} (backends/vllm.py), and the
        // window's /start_profile then opens the cudaProfilerApi range nsys captures; see recipeNsysServerConfig.
        return Optional.empty();
    }

    /**
     * srtctl's {@code --profiler-config} for an nsys recipe: {@code {"profiler":"cuda","delay_iterations":start_step,
     * "max_iterations":stop_step − start_step}} (NVIDIA/srt-slurm {@code src/srtctl/backends/vllm.py},
     * {@code ProfilingPhaseConfig.vllm_nsys_delay_iterations/max_iterations} in {@code src/srtctl/core/schema.py}).
     */
    @Override
    public Optional<String> recipeNsysServerConfig(int startStep, int steps) {
        return Optional.of("{\"profiler\":\"cuda\",\"delay_iterations\":" + startStep + ",\"max_iterations\":" + steps
                + "}");
    }

    @Override
    public Optional<String> refuseRecipeStartStep(String field, int startStep, String type) {
        // With nsys, start_step is delay_iterations of the server's --profiler-config (srtctl backends/vllm.py).
        return "nsys".equals(type) ? Optional.empty() : refuseRecipeStartStep(field, startStep);
    }

    @Override
    public Optional<String> refuseRecipeStartStep(String field, int startStep) {
        if (startStep > 0) {
            return Optional.of(field + " is " + startStep + " with backend.type vllm, which cannot be honoured: vLLM"
                    + " has no per-call start step (its delay_iterations is fixed by --profiler-config at server"
                    + " start). Set start_step: 0 and start the server with \"delay_iterations\":" + startStep
                    + " instead");
        }
        return Optional.empty();
    }

    /**
     * The simulated server gets a {@code --profiler-config} with a fresh {@code torch_profiler_dir} under the output
     * directory and {@code max_iterations} from {@code profiledrollout.vllm.max.iterations}, as a user's server would
     * be started.
     */
    @Override
    public Optional<Path> configureSimulator(SimulatorConfig.Builder config, Path outputDir,
            Function<String, Optional<String>> settings) {
        try {
            Files.createDirectories(outputDir);
            Path dir = Files.createTempDirectory(outputDir, "vllm-profiler-");
            ObjectNode profilerConfig = JsonNodeFactory.instance.objectNode();
            profilerConfig.put("profiler", "torch");
            profilerConfig.put("torch_profiler_dir", dir.toString());
            serverSteps(settings).ifPresent(n -> profilerConfig.put("max_iterations", n));
            config.backend(name()).profilerConfig(profilerConfig.toString());
            return Optional.of(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create the embedded vLLM profiler directory under " + outputDir,
                    e);
        }
    }
}
