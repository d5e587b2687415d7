package dev.profiledrollout.containers;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.Backend;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apiguardian.api.API;
import org.testcontainers.utility.DockerImageName;

/**
 * A vLLM OpenAI-compatible server in a container, for profiled tests on GPU runners.
 *
 * <p>Supported image: {@code vllm/vllm-openai} (or an image declared a compatible substitute), whose entrypoint is
 * {@code vllm serve}. Exposed port: {@value #PORT}. The launch command is
 * {@code vllm serve M --host 0.0.0.0 --port 8000 --tensor-parallel-size T [--data-parallel-size D] …}.
 * {@code VLLM_RPC_TIMEOUT} is raised to 30 minutes, as vLLM's profiling docs advised for versions whose stop went
 * through that RPC timeout.
 *
 * <h2>Turning the profiler on: two eras</h2>
 * vLLM mounts {@code /start_profile} and {@code /stop_profile} only when its profiler is configured at start; without
 * it they answer 404. How it is configured depends on the version in the image:
 * <ul>
 *   <li>{@link ProfilerMechanism#PROFILER_CONFIG_FLAG}, vLLM 0.13 and later: the server flag
 *       {@code --profiler-config {"profiler":"torch","torch_profiler_dir":"/profiles"}} (vllm-project/vllm
 *       {@code vllm/config/profiler.py}, added by PR #29912 and first released in 0.13.0). From 0.16 it is the only
 *       way: PR #33536 removed the environment variables.</li>
 *   <li>{@link ProfilerMechanism#ENVIRONMENT}, before 0.13: the flag does not exist (the server refuses to start
 *       with it) and the environment variable {@code VLLM_TORCH_PROFILER_DIR=/profiles} enables the torch profiler
 *       ({@code vllm/envs.py}; 0.13 to 0.15 still read it, with a deprecation warning).</li>
 * </ul>
 * The mechanism follows, in this order: {@link #withProfilerMechanism(ProfilerMechanism)}; the version given to
 * {@link #withVllmVersion(String)}; the version in the image tag ({@code v0.11.0}, {@code 0.12.0},
 * {@code v0.20.0-cu129}, {@code v0.11.0rc1} all name one); otherwise the newest, {@link
 * ProfilerMechanism#PROFILER_CONFIG_FLAG} — for {@code latest}, {@code nightly}, digests and tags of one's own. The
 * image is not run to ask it for {@code vllm.__version__}: that would pull and start a multi-gigabyte image before the
 * test's own start, for a fact the tag nearly always states; declare the version instead.
 *
 * <h2>Image and driver</h2>
 * {@link #VllmContainer()} runs {@value #DEFAULT_TAG}, pinned rather than {@code latest}: vLLM 0.30.0 (released
 * September 2026), whose profile contract ({@code --profiler-config}, 0.13 and later) was checked here. From 0.20.0
 * the unsuffixed tags are CUDA 13.0, which needs an R580 or newer NVIDIA driver, and CUDA 12.9 moved to {@code -cu129}
 * tags (vllm-project/vllm PR #39878; {@code docs/getting_started/installation/gpu.cuda.inc.md} for the R580 minimum):
 * {@link #CUDA12_IMAGE}, {@value #CUDA12_TAG}, is the variant for R575 hosts (CUDA 12.9's minimum Linux driver is
 * 575.51.03, NVIDIA CUDA Toolkit release notes; the tag follows PR #39878's naming and was not looked up on Docker
 * Hub). This
 * project's CI has no GPU, so the pinned tag's command line is checked by inspection and its protocol against the
 * engine simulator, not by running the image.
 *
 * <pre>{@code
 * @RolloutEngine
 * static VllmContainer engine = new VllmContainer("vllm/vllm-openai:v0.19.0")   // --profiler-config
 *         .withModel("Qwen/Qwen3-0.6B")
 *         .withGpus()
 *         .withProfilerDirectory(Path.of("target/profiles"));
 *
 * @RolloutEngine
 * static VllmContainer older = new VllmContainer("vllm/vllm-openai:v0.11.0")    // VLLM_TORCH_PROFILER_DIR
 *         .withModel("Qwen/Qwen3-0.6B")
 *         .withGpus()
 *         .withProfilerDirectory(Path.of("target/profiles"));
 * }</pre>
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1")
public class VllmContainer extends EngineContainer<VllmContainer> {

    /** The official image, untagged: what {@link #VllmContainer(DockerImageName)} accepts. */
    public static final DockerImageName DEFAULT_IMAGE_NAME = DockerImageName.parse("vllm/vllm-openai");

    /** The pinned tag of {@link #DEFAULT_IMAGE}: vLLM 0.30.0 on CUDA 13.0, needing an R580+ NVIDIA driver. */
    public static final String DEFAULT_TAG = "v0.30.0";

    /** The CUDA 12.9 variant of {@link #DEFAULT_TAG}, for R575+ drivers. */
    public static final String CUDA12_TAG = "v0.30.0-cu129";

    /** {@link #CUDA12_TAG} of the official image. */
    public static final DockerImageName CUDA12_IMAGE = DockerImageName.parse("vllm/vllm-openai").withTag(CUDA12_TAG);

    /** The image {@link #VllmContainer()} runs. */
    public static final DockerImageName DEFAULT_IMAGE = DEFAULT_IMAGE_NAME.withTag(DEFAULT_TAG);

    /** vLLM's default HTTP port. */
    public static final int PORT = 8000;

    /** The model served when {@link #withModel(String)} is not called. */
    public static final String DEFAULT_MODEL = "meta-llama/Llama-3.1-8B-Instruct";

    /** How the server's profiler is switched on; see the class documentation. */
    @API(status = API.Status.EXPERIMENTAL, since = "0.1")
    public enum ProfilerMechanism {
        /** {@code --profiler-config JSON}: vLLM 0.13 and later, the only way from 0.16. */
        PROFILER_CONFIG_FLAG,
        /** {@code VLLM_TORCH_PROFILER_DIR} and its companion variables: vLLM before 0.13 (read until 0.15). */
        ENVIRONMENT
    }

    // The first release with --profiler-config (vllm-project/vllm PR #29912).
    private static final Version PROFILER_CONFIG_SINCE = new Version(0, 13, 0);

    // major.minor[.patch] at the start of a tag or version, not followed by a further digit: v0.11.0, 0.12,
    // v0.20.0-cu129, v0.11.0rc1, 0.10.1.1.
    private static final Pattern VERSION = Pattern.compile("v?(\\d{1,9})\\.(\\d{1,9})(?:\\.(\\d{1,9}))?(?!\\d)");

    /*
     * --profiler-config fields and the environment variables vLLM read for them before the flag: the deprecated
     * fallbacks of vllm-project/vllm vllm/config/profiler.py at 0.13 (ProfilerConfig._validate_profiler_config,
     * PR #29912), the same names vllm/envs.py declared before. A vLLM older than a variable ignores it.
     */
    private static final Map<String, String> BOOLEAN_FIELD_VARIABLES = Map.of(
            "torch_profiler_record_shapes", "VLLM_TORCH_PROFILER_RECORD_SHAPES",
            "torch_profiler_with_memory", "VLLM_TORCH_PROFILER_WITH_PROFILE_MEMORY",
            "torch_profiler_with_stack", "VLLM_TORCH_PROFILER_WITH_STACK",
            "torch_profiler_with_flops", "VLLM_TORCH_PROFILER_WITH_FLOPS",
            "torch_profiler_use_gzip", "VLLM_TORCH_PROFILER_USE_GZIP",
            "torch_profiler_dump_cuda_time_total", "VLLM_TORCH_PROFILER_DUMP_CUDA_TIME_TOTAL",
            "ignore_frontend", "VLLM_TORCH_PROFILER_DISABLE_ASYNC_LLM");
    private static final Map<String, String> INTEGER_FIELD_VARIABLES = Map.of(
            "delay_iterations", "VLLM_PROFILER_DELAY_ITERS",
            "max_iterations", "VLLM_PROFILER_MAX_ITERS");

    /*
     * Variables that came after v0.11: VLLM_PROFILER_DELAY_ITERS / VLLM_PROFILER_MAX_ITERS (vllm-project/vllm PR #28987,
     * opened 2025-11-19) and VLLM_TORCH_PROFILER_USE_GZIP / VLLM_TORCH_PROFILER_DUMP_CUDA_TIME_TOTAL (PR #29568,
     * opened 2025-11-27), both after v0.11.2 was cut, so first released in 0.12 (inferred from the dates). A v0.11
     * image knows only VLLM_TORCH_PROFILER_DIR and the RECORD_SHAPES / WITH_PROFILE_MEMORY / WITH_STACK / WITH_FLOPS
     * flags; given a later variable it would silently ignore it.
     */
    private static final Version ITERATION_LIMIT_SINCE = new Version(0, 12, 0);
    private static final Map<String, String> FIELD_DEFAULTS_BEFORE_0_12 = Map.of(
            "delay_iterations", "0", "max_iterations", "0",
            "torch_profiler_use_gzip", "true", "torch_profiler_dump_cuda_time_total", "true");

    /*
     * The fields of ProfilerConfig (vllm-project/vllm vllm/config/profiler.py @04b02293; proton_* on newer main, as the
     * vllm.config.profiler reference lists). vLLM validates the JSON against this dataclass, and an unknown key aborts
     * the server at start, so it is refused here first. Which release first had capture_torch_profiler,
     * detailed_trace_annotation and the schedule fields is not confirmed; they are passed through.
     */
    private static final java.util.List<String> PROFILER_CONFIG_FIELDS = java.util.List.of("profiler",
            "torch_profiler_dir", "torch_profiler_with_stack", "torch_profiler_with_flops", "torch_profiler_use_gzip",
            "torch_profiler_dump_cuda_time_total", "torch_profiler_record_shapes", "torch_profiler_with_memory",
            "capture_torch_profiler", "detailed_trace_annotation", "ignore_frontend", "delay_iterations",
            "max_iterations", "warmup_iterations", "active_iterations", "wait_iterations", "proton_profiler_dir");

    /** Levenshtein distance, for the nearest field name. */
    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1),
                        prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private String profilerConfig;
    private ProfilerMechanism mechanism;
    private Version declaredVersion;

    /** Runs {@link #DEFAULT_IMAGE}. */
    public VllmContainer() {
        this(DEFAULT_IMAGE);
    }

    /** @param image e.g. {@code "vllm/vllm-openai:v0.19.0"} */
    public VllmContainer(String image) {
        this(DockerImageName.parse(image));
    }

    /** @param image {@code vllm/vllm-openai:…} or an image declared {@code asCompatibleSubstituteFor("vllm/vllm-openai")} */
    public VllmContainer(DockerImageName image) {
        super(image, DEFAULT_IMAGE_NAME, PORT, DEFAULT_MODEL);
        addEnv("VLLM_RPC_TIMEOUT", "1800000");
    }

    /**
     * Replaces the generated profiler configuration with vLLM's {@code --profiler-config} JSON (fields of
     * vllm-project/vllm {@code vllm/config/profiler.py}), e.g. to set {@code max_iterations} or the {@code cuda}
     * profiler. Its {@code torch_profiler_dir} should be {@value #CONTAINER_PROFILER_DIR} for the traces to reach the
     * mounted directory. Under {@link ProfilerMechanism#ENVIRONMENT} each field becomes its environment variable
     * ({@code torch_profiler_dir} → {@code VLLM_TORCH_PROFILER_DIR}, {@code max_iterations} →
     * {@code VLLM_PROFILER_MAX_ITERS}, {@code "profiler":"cuda"} → {@code VLLM_TORCH_CUDA_PROFILE=1}, …).
     *
     * @throws IllegalArgumentException when {@code json} is not a JSON object
     */
    public VllmContainer withProfilerConfig(String json) {
        JsonNode config = parseProfilerConfig(json);
        for (java.util.Iterator<String> names = config.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!PROFILER_CONFIG_FIELDS.contains(name) && !name.startsWith("proton_")) {
                String nearest = PROFILER_CONFIG_FIELDS.stream().min(java.util.Comparator.comparingInt(
                        f -> distance(f, name))).orElseThrow();
                throw new IllegalArgumentException("vLLM's ProfilerConfig has no field '" + name + "'"
                        + (distance(nearest, name) <= 3 ? " (did you mean '" + nearest + "'?)" : "") + ": its schema"
                        + " forbids unknown keys, so the server would refuse to start (vllm-project/vllm"
                        + " vllm/config/profiler.py). Known fields: " + String.join(", ", PROFILER_CONFIG_FIELDS));
            }
        }
        this.profilerConfig = json;
        return self();
    }

    /**
     * Chooses how the profiler is switched on, whatever the image's version; see the class documentation.
     */
    public VllmContainer withProfilerMechanism(ProfilerMechanism mechanism) {
        this.mechanism = Objects.requireNonNull(mechanism, "mechanism");
        return self();
    }

    /**
     * Declares the vLLM version in the image, for tags that do not state it ({@code latest}, {@code nightly}, a
     * digest, a tag of one's own); it takes precedence over the tag.
     *
     * @param version {@code major.minor[.patch]}, optionally with a leading {@code v}, e.g. {@code "0.11.0"}
     * @throws IllegalArgumentException when {@code version} does not start with {@code major.minor}
     */
    public VllmContainer withVllmVersion(String version) {
        this.declaredVersion = Version.parse(version).orElseThrow(() -> new IllegalArgumentException(
                "vLLM version '" + version + "' is not major.minor[.patch], e.g. 0.11.0"));
        return self();
    }

    /**
     * @return the vLLM version as {@code major.minor.patch}: the {@link #withVllmVersion(String) declared} one, else
     *         the one the image tag states; empty when neither says
     */
    public Optional<String> vllmVersion() {
        return version().map(Version::toString);
    }

    /** @return the mechanism that switches the profiler on for this image; see the class documentation */
    public ProfilerMechanism profilerMechanism() {
        if (mechanism != null) {
            return mechanism;
        }
        return version().map(v -> v.compareTo(PROFILER_CONFIG_SINCE) < 0 ? ProfilerMechanism.ENVIRONMENT
                : ProfilerMechanism.PROFILER_CONFIG_FLAG).orElse(ProfilerMechanism.PROFILER_CONFIG_FLAG);
    }

    /**
     * @return the environment variables that switch the profiler on under {@link ProfilerMechanism#ENVIRONMENT}
     *         (empty under {@link ProfilerMechanism#PROFILER_CONFIG_FLAG}, or without a profiler)
     * @throws IllegalArgumentException when the {@link #withProfilerConfig(String) profiler config} has a field with
     *                                  no environment variable (it names the field)
     */
    public Map<String, String> profilerEnvironment() {
        if (profilerMechanism() != ProfilerMechanism.ENVIRONMENT) {
            return Map.of();
        }
        Optional<String> config = effectiveProfilerConfig();
        return config.isEmpty() ? Map.of() : toEnvironment(parseProfilerConfig(config.get()), version());
    }

    @Override
    public Backend backend() {
        return Backend.VLLM;
    }

    @Override
    protected void configure() {
        profilerEnvironment().forEach(this::addEnv);
        super.configure();
    }

    @Override
    public List<String> launchCommand() {
        List<String> command = new ArrayList<>(List.of("vllm", "serve", getModel(), "--host", "0.0.0.0",
                "--port", String.valueOf(PORT), "--tensor-parallel-size", String.valueOf(getTensorParallelSize())));
        if (getDataParallelSize() > 1) {
            command.add("--data-parallel-size");
            command.add(String.valueOf(getDataParallelSize()));
        }
        Optional<String> config = effectiveProfilerConfig();
        if (config.isPresent() && profilerMechanism() == ProfilerMechanism.PROFILER_CONFIG_FLAG) {
            command.add("--profiler-config");
            command.add(config.get());
        }
        command.addAll(getServerArgs());
        return command;
    }

    @Override
    protected boolean usesImageEntrypoint() {
        return true;
    }

    @Override
    protected int entrypointLength() {
        return 2; // "vllm serve"
    }

    private Optional<String> effectiveProfilerConfig() {
        if (profilerConfig != null) {
            return Optional.of(profilerConfig);
        }
        return hasProfilerDirectory()
                ? Optional.of("{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + CONTAINER_PROFILER_DIR + "\"}")
                : Optional.empty();
    }

    private Optional<Version> version() {
        if (declaredVersion != null) {
            return Optional.of(declaredVersion);
        }
        return Version.parse(imageName().getVersionPart());
    }

    private static JsonNode parseProfilerConfig(String json) {
        JsonNode node;
        try {
            node = JSON.readTree(Objects.requireNonNull(json, "json"));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("vLLM profiler config is not valid JSON (" + e.getOriginalMessage()
                    + "): " + json, e);
        }
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("vLLM profiler config must be a JSON object such as "
                    + "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/profiles\"}, got: " + json);
        }
        return node;
    }

    private static Map<String, String> toEnvironment(JsonNode config, Optional<Version> version) {
        Map<String, String> env = new LinkedHashMap<>();
        String profiler = config.path("profiler").asText("");
        if (profiler.equals("cuda")) {
            env.put("VLLM_TORCH_CUDA_PROFILE", "1");
        } else if (!profiler.equals("torch") && !profiler.isEmpty()) {
            throw new IllegalArgumentException("vLLM before 0.13 has no '" + profiler + "' profiler: use \"torch\" "
                    + "or \"cuda\" in the profiler config, or a newer image");
        }
        for (Map.Entry<String, JsonNode> field : config.properties()) {
            String name = field.getKey();
            JsonNode value = field.getValue();
            if (name.equals("profiler")) {
                continue;
            } else if (FIELD_DEFAULTS_BEFORE_0_12.containsKey(name) && version.isPresent()
                    && version.get().compareTo(ITERATION_LIMIT_SINCE) < 0) {
                if (!value.asText().equals(FIELD_DEFAULTS_BEFORE_0_12.get(name))) {
                    throw new IllegalArgumentException("profiler config field " + name + "=" + value + " cannot be"
                            + " honoured by vLLM " + version.get() + ": its variable ("
                            + (INTEGER_FIELD_VARIABLES.containsKey(name) ? INTEGER_FIELD_VARIABLES.get(name)
                                    : BOOLEAN_FIELD_VARIABLES.get(name)) + ") came in 0.12 (vllm-project/vllm PR "
                            + (INTEGER_FIELD_VARIABLES.containsKey(name) ? "#28987" : "#29568") + "), so this image"
                            + " would ignore it" + (name.equals("max_iterations") ? " and record until /stop_profile:"
                                    + " numSteps cannot be enforced" : "") + ". Use a vLLM 0.12+ image or drop the"
                            + " field");
                }
                continue;
            } else if (name.equals("torch_profiler_dir")) {
                env.put("VLLM_TORCH_PROFILER_DIR", value.asText());
            } else if (BOOLEAN_FIELD_VARIABLES.containsKey(name) && value.isBoolean()) {
                env.put(BOOLEAN_FIELD_VARIABLES.get(name), value.booleanValue() ? "1" : "0");
            } else if (INTEGER_FIELD_VARIABLES.containsKey(name) && value.canConvertToInt()) {
                env.put(INTEGER_FIELD_VARIABLES.get(name), String.valueOf(value.intValue()));
            } else if (BOOLEAN_FIELD_VARIABLES.containsKey(name) || INTEGER_FIELD_VARIABLES.containsKey(name)) {
                throw new IllegalArgumentException("profiler config field " + name + " must be a "
                        + (BOOLEAN_FIELD_VARIABLES.containsKey(name) ? "boolean" : "integer") + ", got " + value);
            } else {
                throw new IllegalArgumentException("profiler config field " + name + " has no environment variable "
                        + "in vLLM before 0.13, which this image is taken to be: drop the field, use an image of vLLM "
                        + "0.13 or later, or withProfilerMechanism(PROFILER_CONFIG_FLAG) if the image is newer "
                        + "than its tag says");
            }
        }
        if (profiler.equals("torch") && !env.containsKey("VLLM_TORCH_PROFILER_DIR")) {
            throw new IllegalArgumentException("the torch profiler needs torch_profiler_dir in the profiler config "
                    + "(vLLM before 0.13 enables it through VLLM_TORCH_PROFILER_DIR)");
        }
        return env;
    }

    /** A vLLM release number; ordered. */
    record Version(int major, int minor, int patch) implements Comparable<Version> {

        /** @return the version at the start of {@code text} (a tag or a version), if it starts with one */
        static Optional<Version> parse(String text) {
            if (text == null) {
                return Optional.empty();
            }
            Matcher m = VERSION.matcher(text.trim());
            if (!m.lookingAt()) {
                return Optional.empty();
            }
            return Optional.of(new Version(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                    m.group(3) == null ? 0 : Integer.parseInt(m.group(3))));
        }

        @Override
        public int compareTo(Version other) {
            int c = Integer.compare(major, other.major);
            if (c == 0) {
                c = Integer.compare(minor, other.minor);
            }
            return c != 0 ? c : Integer.compare(patch, other.patch);
        }

        @Override
        public String toString() {
            return major + "." + minor + "." + patch;
        }
    }
}
