package dev.profiledrollout.backend;

import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_DIR;
import static dev.profiledrollout.ProfiledRolloutKeys.TRTLLM_PROFILE_START_STOP;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.engine.EngineClient;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.engine.ServerProbe;
import dev.profiledrollout.engine.TrtllmClient;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.simulator.TrtllmEnvironment;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * TensorRT-LLM ({@code trtllm-serve} with the PyTorch executor, {@code docs/PROTOCOLS.md} §6). There is no HTTP start or
 * stop: the server captures the iteration span of {@code TLLM_PROFILE_START_STOP} set in its environment at launch,
 * calling {@code cudaProfilerStart/Stop} for an nsys run with {@code -c cudaProfilerApi}, and, with
 * {@code TLLM_TORCH_PROFILE_TRACE}, writing a torch trace per rank (NVIDIA/TensorRT-LLM
 * {@code tensorrt_llm/_torch/pyexecutor/py_executor.py}, {@code _profiler}, commit 9521caf). srt-slurm launches its
 * TensorRT-LLM workers the same way ({@code src/srtctl/core/schema.py}, {@code ProfilingConfig.get_env_vars};
 * {@code src/srtctl/benchmarks/scripts/lib/profiling_trtllm.sh}). A test states the span it was launched with
 * ({@code profiledrollout.trtllm.profile.start.stop}) and its {@code numSteps}/{@code startStep} are checked against it.
 */
final class TrtllmSupport extends BackendSupport {

    private static final Pattern SPAN = Pattern.compile("\\s*(\\d+)\\s*-\\s*(\\d+)\\s*");

    /** The torch trace file name the embedded simulator is launched with; ranks become {@code trtllm-rank-<r>.json}. */
    static final String SIMULATED_TRACE = "trtllm.json";

    @Override
    public Backend backend() {
        return Backend.TRTLLM;
    }

    @Override
    public String displayName() {
        return "TensorRT-LLM";
    }

    @Override
    public EngineClient client(URI uri, ClientOptions options) {
        return withOptions(TrtllmClient.builder(uri), options).build();
    }

    /** Nothing is stopped over HTTP; the trace files are awaited under {@code profiledrollout.trace.timeout}. */
    @Override
    public Duration defaultStopTimeout() {
        return Duration.ofMinutes(1);
    }

    /** {@code trtllm-serve} reports no layout: it comes from {@code profiledrollout.engine.ranks}. */
    @Override
    public ServerInfo serverInfo(EngineClient first, OptionalInt ranks, int embeddedTp) {
        return configuredLayout(name(), ranks, embeddedTp,
                first instanceof TrtllmClient trtllm ? trtllm.version() : Optional.empty());
    }

    @Override
    public Optional<String> otherBackendAt(EngineClient client, String source) {
        URI url = client.baseUri();
        Optional<JsonNode> info = ServerProbe.sglangServerInfo(client.httpClient(), url);
        return info.map(i -> url + " (" + source + ") answers GET /server_info like SGLang (tp_size "
                + i.path("tp_size").asText("?") + "), but the test declares @ProfiledRollout(backend = TRTLLM). Set"
                + " backend = SGLANG, or point " + source + " at the trtllm-serve server");
    }

    @Override
    public Control control() {
        return Control.LAUNCH_RANGE;
    }

    @Override
    public String fixedTraceDirectory() {
        return "the directory of the server's TLLM_TORCH_PROFILE_TRACE";
    }

    /**
     * The torch trace marks no iteration: the executor's iteration ranges are NVTX ranges, which the torch profiler
     * does not record, so steps are checked against the configured span, not counted.
     */
    @Override
    public boolean annotatesSteps(Set<Activity> activities) {
        return false;
    }

    @Override
    public boolean stepAnnotationsGuaranteed() {
        return false;
    }

    @Override
    public String overCaptureFix(int n) {
        return "the server's TLLM_PROFILE_START_STOP span is longer than " + n + " iterations; relaunch it with a"
                + " span of " + n;
    }

    @Override
    public Optional<String> serverStepsKey() {
        return Optional.of(TRTLLM_PROFILE_START_STOP);
    }

    @Override
    public String serverStepsName() {
        return "TLLM_PROFILE_START_STOP span";
    }

    @Override
    public String serverStartedWith(int steps, Integer startStep) {
        int start = startStep == null ? 0 : startStep;
        return "TLLM_PROFILE_START_STOP=" + start + "-" + (start + steps);
    }

    /** @return the configured span's start, when set */
    OptionalInt spanStart(Function<String, Optional<String>> settings) {
        return span(settings).map(m -> OptionalInt.of(Integer.parseInt(m[0]))).orElse(OptionalInt.empty());
    }

    @Override
    public OptionalInt serverSteps(Function<String, Optional<String>> settings) {
        return span(settings).map(m -> OptionalInt.of(Integer.parseInt(m[1]) - Integer.parseInt(m[0])))
                .orElse(OptionalInt.empty());
    }

    private static Optional<String[]> span(Function<String, Optional<String>> settings) {
        Optional<String> text = settings.apply(TRTLLM_PROFILE_START_STOP);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        Matcher m = SPAN.matcher(text.get());
        if (!m.matches() || Long.parseLong(m.group(2)) <= Long.parseLong(m.group(1))
                || Long.parseLong(m.group(2)) > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Invalid " + TRTLLM_PROFILE_START_STOP + "='" + text.get() + "':"
                    + " expected the one span <start>-<stop> (stop > start) of TLLM_PROFILE_START_STOP the server was"
                    + " launched with, e.g. 10-20; a test window captures one span");
        }
        return Optional.of(new String[] {m.group(1), m.group(2)});
    }

    @Override
    public Verdict checkRequest(CaptureRequest r, Function<String, Optional<String>> settings) {
        OptionalInt steps = serverSteps(settings);
        OptionalInt start = spanStart(settings);
        List<Problem> problems = new ArrayList<>();
        for (Window w : r.windows()) {
            String subject = "@ProfiledRollout(numSteps = " + w.numSteps() + ") with backend = TRTLLM";
            if (w.numSteps() != null && steps.isEmpty()) {
                problems.add(new Problem(subject, "TensorRT-LLM captures the span of TLLM_PROFILE_START_STOP fixed"
                        + " at server launch; set " + TRTLLM_PROFILE_START_STOP + " to the span it was launched with"
                        + " (e.g. " + serverStartedWith(w.numSteps(), w.startStep()).substring(24) + "), or remove"
                        + " numSteps"));
            } else if (w.numSteps() != null && steps.getAsInt() != w.numSteps()) {
                problems.add(new Problem(subject, "the server's span " + settings.apply(TRTLLM_PROFILE_START_STOP)
                        .orElse("") + " (" + TRTLLM_PROFILE_START_STOP + ") captures " + steps.getAsInt()
                        + " iterations; make numSteps match it, or relaunch the server with "
                        + serverStartedWith(w.numSteps(), start.isPresent() ? start.getAsInt() : null)));
            }
            if (w.startStep() != null && (start.isEmpty() || start.getAsInt() != w.startStep())) {
                problems.add(new Problem("@ProfiledRollout(startStep = " + w.startStep() + ") with backend = TRTLLM",
                        "the capture starts where the server's TLLM_PROFILE_START_STOP span starts ("
                                + (start.isPresent() ? "iteration " + start.getAsInt() : TRTLLM_PROFILE_START_STOP
                                        + " is not set") + "); make startStep match it, or remove startStep"));
            }
        }
        if (r.profileByStage()) {
            problems.add(new Problem("@ProfiledRollout(profileByStage = true) with backend = TRTLLM",
                    "profile_by_stage is SGLang-only; remove it"));
        }
        if (!r.outputDir().isEmpty()) {
            problems.add(new Problem("@ProfiledRollout(outputDir = \"" + r.outputDir() + "\") with backend = TRTLLM",
                    "TensorRT-LLM writes its torch trace where TLLM_TORCH_PROFILE_TRACE says at launch; set " + TRACE_DIR
                            + " to that file's directory as this machine sees it instead"));
        }
        if (!r.profilePrefix().isEmpty() || r.perCallFields()) {
            problems.add(new Problem("@ProfiledRollout(profilePrefix, profileId, mergeProfiles, profileStages or"
                    + " shapeDiscovery) with backend = TRTLLM", "these are SGLang /start_profile fields and"
                    + " TensorRT-LLM has no profile request; remove them"));
        }
        List<String> warnings = new ArrayList<>();
        if (!r.activities().contains(Activity.CPU) || !r.activities().contains(Activity.GPU)) {
            warnings.add("TensorRT-LLM's torch trace always records CPU and CUDA activities (py_executor.py"
                    + " _profiler); @ProfiledRollout(activities) does not change what the server writes");
        }
        return new Verdict(problems, warnings);
    }

    /**
     * The simulated server is launched as a user's would be: {@code TLLM_PROFILE_START_STOP} from
     * {@code profiledrollout.trtllm.profile.start.stop} and {@code TLLM_TORCH_PROFILE_TRACE} in a fresh directory
     * under the output directory.
     */
    @Override
    public Optional<Path> configureSimulator(SimulatorConfig.Builder config, Path outputDir,
            Function<String, Optional<String>> settings) {
        try {
            Files.createDirectories(outputDir);
            Path dir = Files.createTempDirectory(outputDir, "trtllm-profiler-");
            String range = settings.apply(TRTLLM_PROFILE_START_STOP).map(String::strip).orElse(null);
            config.backend(name()).trtllmEnvironment(new TrtllmEnvironment(range, dir.resolve(SIMULATED_TRACE)));
            return Optional.of(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create the embedded TensorRT-LLM trace directory under "
                    + outputDir, e);
        }
    }
}
