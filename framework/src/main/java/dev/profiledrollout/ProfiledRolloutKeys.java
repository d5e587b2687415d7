package dev.profiledrollout;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apiguardian.api.API;

/**
 * Every configuration key of Profiled Rollout: the JUnit extension's, the Testcontainers engine's
 * ({@code profiledrollout.container.*}) and the load generator's system property, each as a constant, and all of them
 * as data in {@link #all()}.
 *
 * <h2>Where a value comes from</h2>
 * Keys of {@link Scope#EXTENSION} and {@link Scope#CONTAINER} are read, first to last: a JUnit configuration parameter
 * (which JUnit itself backs with {@code -D} system properties and {@code junit-platform.properties}), then the
 * environment variable {@link #environmentVariable(String)} names ({@code profiledrollout.engine.url} →
 * {@code PROFILEDROLLOUT_ENGINE_URL}). Blank values count as unset. Keys of {@link Scope#SYSTEM_PROPERTY} are JVM
 * system properties only.
 *
 * <h2>Value formats</h2>
 * <ul>
 *   <li>Durations: a number of seconds ({@code 300}, {@code 2.5}) or an ISO-8601 duration ({@code PT5M}); positive.
 *       The defaults below are in seconds.</li>
 *   <li>URLs: {@code http} or {@code https} base URLs such as {@code http://127.0.0.1:30000}; where several are
 *       allowed, comma-separated.</li>
 *   <li>Booleans: {@code true} or {@code false}.</li>
 * </ul>
 * The extension reads every {@link Scope#EXTENSION} key once before anything starts: invalid values fail the test
 * with one {@code ExtensionConfigurationException} that lists each key, its value and what is accepted (together with
 * any invalid annotation attribute). So does a {@code profiledrollout.*} key that is none of {@link #all()}, with the
 * nearest known key as the fix, wherever it can be listed: system properties, {@code junit-platform.properties} and
 * {@code PROFILEDROLLOUT_*} environment variables (configuration parameters a launcher is handed programmatically
 * cannot be listed). Keys under {@code profiledrollout.test.} ({@code PROFILEDROLLOUT_TEST_*}) are left to test
 * suites and never read.
 *
 * <h2>Per test class</h2>
 * A class annotated {@code @EngineProfile("<name>")} reads {@link #PROFILE_KEY_PATTERN} keys first, so one build can
 * test several deployments; a class's {@code @RolloutEngine} member supplies an engine it started itself.
 *
 * <p>Engine facts behind some keys are cited where they matter; {@code docs/PROTOCOLS.md} collects them.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class ProfiledRolloutKeys {

    /** Who reads a key, and from which sources. */
    @API(status = EXPERIMENTAL, since = "0.1")
    public enum Scope {
        /** The JUnit extension: configuration parameter, system property or environment variable. */
        EXTENSION,
        /**
         * The Testcontainers engine of {@code profiledrollout.engine=container}
         * ({@code dev.profiledrollout.containers.DefaultContainerEngines}, module {@code profiled-rollout-containers});
         * read through the extension, so from the same sources as {@link #EXTENSION}.
         */
        CONTAINER,
        /** A JVM system property, read wherever the component runs (tests, CLI, benchmarks). */
        SYSTEM_PROPERTY
    }

    /**
     * One key as data.
     *
     * @param name         the key, e.g. {@code profiledrollout.engine}
     * @param defaultValue the value that behaves like the default when set explicitly, in the key's own format
     *                     (durations in seconds); empty when there is no default or it is computed (e.g. depends on
     *                     the backend or the machine)
     * @param scope        who reads it
     * @param description  one sentence; the constant's Javadoc has the details
     */
    @API(status = EXPERIMENTAL, since = "0.1")
    public record Key(String name, Optional<String> defaultValue, Scope scope, String description) {

        public Key {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(defaultValue, "defaultValue");
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(description, "description");
        }

        /**
         * @return the environment variable read after the configuration parameter; empty for
         *         {@link Scope#SYSTEM_PROPERTY} keys
         */
        public Optional<String> environmentVariable() {
            return scope == Scope.SYSTEM_PROPERTY ? Optional.empty()
                    : Optional.of(ProfiledRolloutKeys.environmentVariable(name));
        }
    }

    // --- where the engine is ---------------------------------------------------------------------------------

    /**
     * Where the engine comes from: {@code embedded} (the in-process simulator), {@code attach} (a running server at
     * {@link #ENGINE_URL}, {@link #ROUTER_URL} or {@link #PREFILL_URL} / {@link #DECODE_URL}) or {@code container}
     * (a Testcontainers engine built from the {@code profiledrollout.container.*} keys, needs
     * {@code profiled-rollout-containers} on the test class path). Set to {@code embedded} or {@code attach} (globally or in
     * the class's engine profile), it replaces the class's {@code @RolloutEngine}; unset or {@code container}, that
     * member is the engine. Default {@code embedded}. Case-insensitive.
     */
    public static final String ENGINE = "profiledrollout.engine";

    /**
     * With {@code attach}: the engine base URL, or several comma-separated: every one is profiled and the load goes to
     * the first. No default.
     */
    public static final String ENGINE_URL = "profiledrollout.engine.url";

    /**
     * With {@code attach}: one router base URL (sgl-model-gateway or vllm-router); the engines of its
     * {@code GET /workers} are profiled and the load goes through it. No default.
     */
    public static final String ROUTER_URL = "profiledrollout.router.url";

    /**
     * With {@code attach}: the prefill engines of a disaggregated deployment, comma-separated, when no router lists
     * them; the load goes to {@link #ENGINE_URL}. No default.
     */
    public static final String PREFILL_URL = "profiledrollout.prefill.url";

    /** As {@link #PREFILL_URL}, for the decode engines. No default. */
    public static final String DECODE_URL = "profiledrollout.decode.url";

    /**
     * The bearer token sent as {@code Authorization: Bearer <key>} to engines and router, load included. Set it in the
     * environment ({@code PROFILEDROLLOUT_API_KEY}) so it stays out of build files; it is never logged or written.
     * No default. An SGLang server started with {@code --api-key} demands it on every path but those under
     * {@code /health}, {@code /ready} and {@code /metrics} (sgl-project/sglang {@code python/sglang/srt/utils/auth.py},
     * {@code decide_request_auth}); a vLLM server on the paths under {@code /v1} (vllm-project/vllm
     * {@code vllm/entrypoints/openai/server_utils.py}, {@code AuthenticationMiddleware}).
     */
    public static final String API_KEY = "profiledrollout.api.key";

    /**
     * SGLang's {@code --admin-api-key}: with it set on the server, {@code /start_profile} and {@code /stop_profile}
     * accept only this key (the API key is refused there), while generation routes keep needing
     * {@link #API_KEY} (sgl-project/sglang {@code python/sglang/srt/utils/auth.py}, {@code decide_request_auth},
     * {@code AuthLevel.ADMIN_OPTIONAL}). Set it in the environment ({@code PROFILEDROLLOUT_ADMIN_API_KEY}); never
     * logged or written. No default: the profile routes get {@link #API_KEY}.
     */
    public static final String ADMIN_API_KEY = "profiledrollout.admin.api.key";

    /**
     * A named engine profile: {@code profiledrollout.profiles.<name>.<key>} sets {@code profiledrollout.<key>} for
     * the test classes annotated {@code @EngineProfile("<name>")} only, e.g.
     * {@code profiledrollout.profiles.vllm-a100.engine.url=http://gpu-node:8000}. {@code <key>} is any
     * {@link Scope#EXTENSION} or {@link Scope#CONTAINER} key without its {@code profiledrollout.} prefix; build one
     * with {@link #profileKey(String, String)}. A profile that sets any of {@link #ENGINE}, {@link #ENGINE_URL},
     * {@link #ROUTER_URL}, {@link #PREFILL_URL} or {@link #DECODE_URL} names the whole deployment: the global values
     * of those five are then not read for its classes; every other key falls back to its global value. Profile names
     * are letters, digits, {@code '-'} and {@code '_'}. Environment form: {@link #environmentVariable(String)} of
     * the key, e.g. {@code PROFILEDROLLOUT_PROFILES_VLLM_A100_ENGINE_URL}. No default (no profiles).
     */
    public static final String PROFILE_KEY_PATTERN = "profiledrollout.profiles.<name>.<key>";

    // --- traces ----------------------------------------------------------------------------------------------

    /**
     * The directory, on this machine, where the server's trace files are read (a shared filesystem); must exist.
     * Required for attached vLLM: the {@code torch_profiler_dir} of the server's {@code --profiler-config} as seen
     * here (vllm-project/vllm {@code vllm/config/profiler.py}). Default: none; the embedded engine and attached SGLang
     * on this host write straight into the test's {@code traces/} directory.
     */
    public static final String TRACE_DIR = "profiledrollout.trace.dir";

    /**
     * The same directory as {@link #TRACE_DIR}, as the server sees it, when the paths differ (a mount). Needs
     * {@link #TRACE_DIR}. Default: {@link #TRACE_DIR}'s value.
     */
    public static final String TRACE_DIR_SERVER = "profiledrollout.trace.dir.server";

    /**
     * The rank trace files one engine writes per capture (an integer ≥ 1), for vLLM, which cannot report its layout.
     * Default: unset, and the trace watcher waits until the file count has not changed for 2 s.
     */
    public static final String ENGINE_RANKS = "profiledrollout.engine.ranks";

    /**
     * The {@code max_iterations} the vLLM server was started with in {@code --profiler-config} (an integer ≥ 0; 0
     * means no limit, vllm-project/vllm {@code vllm/config/profiler.py}); checked against
     * {@code @ProfiledRollout(numSteps)}, because vLLM cannot report it. Default: unset, which fails a vLLM test that
     * sets {@code numSteps}.
     */
    public static final String VLLM_MAX_ITERATIONS = "profiledrollout.vllm.max.iterations";

    /**
     * The {@code TLLM_PROFILE_START_STOP} the TensorRT-LLM server was launched with, one span {@code <start>-<stop>}
     * of executor iterations (NVIDIA/TensorRT-LLM {@code tensorrt_llm/_torch/pyexecutor/py_executor.py}); it captures
     * {@code stop - start} iterations, which {@code @ProfiledRollout(numSteps)} must equal, and {@code startStep}, when
     * set, must equal {@code start}. The embedded simulator is launched with it. Default: unset, which fails a
     * TensorRT-LLM test that sets {@code numSteps}; docs/PROTOCOLS.md §6.
     */
    public static final String TRTLLM_PROFILE_START_STOP = "profiledrollout.trtllm.profile.start.stop";

    /**
     * {@code true} fails a test whose capture holds another number of engine steps than
     * {@code @ProfiledRollout(numSteps)} asked for, as {@code @ProfiledRollout(strictSteps = true)} does for one test.
     * Default {@code false}: the mismatch is a warning verdict.
     */
    public static final String STEPS_STRICT = "profiledrollout.steps.strict";

    /** {@code Profiler.NSYS}: the nsys executable, a path or a name on the {@code PATH}. Default {@code nsys}. */
    public static final String NSYS_PATH = "profiledrollout.nsys.path";

    /**
     * {@code Profiler.NSYS}: the session name or id to {@code nsys start} / {@code nsys stop}. Default: discovered
     * with {@code nsys sessions list}.
     */
    public static final String NSYS_SESSION = "profiledrollout.nsys.session";

    /**
     * {@code Profiler.NSYS}: the report file the session writes on stop (a local path), summarised with
     * {@code nsys stats}. Default: unset, and the result has no kernel summary.
     */
    public static final String NSYS_REPORT = "profiledrollout.nsys.report";

    // --- results ---------------------------------------------------------------------------------------------

    /**
     * Where results go: {@code <dir>/<TestClass>/<method>/} per test. Relative paths are against the working
     * directory. Default {@code target/profiled-rollout}.
     */
    public static final String OUTPUT_DIR = "profiledrollout.output.dir";

    /**
     * A directory of per-test kernel baselines, {@code <TestClass>.<method>.json}: when one exists the run is compared
     * with it ({@code RolloutResult.baseline()}, {@code summary.json} {@code baseline}, the {@code baseline-diff}
     * chart). Default: unset, no comparison.
     */
    public static final String BASELINE_DIR = "profiledrollout.baseline.dir";

    /**
     * {@code true}: (re)record each test's baseline in {@link #BASELINE_DIR} from this run instead of comparing.
     * Default {@code false}.
     */
    public static final String BASELINE_UPDATE = "profiledrollout.baseline.update";

    /**
     * {@code true}: record every profiled run in the history store ({@link #HISTORY_URL}), evaluate the declared
     * regression checks and write {@code summary.json} {@code history}. Default {@code true}.
     */
    public static final String HISTORY_ENABLED = "profiledrollout.history.enabled";

    /**
     * The history store's JDBC URL: a SQLite file ({@code jdbc:sqlite:<path>}, relative to the working directory) or
     * any JDBC database (e.g. {@code jdbc:postgresql://host/db}). Default {@code jdbc:sqlite:.profiled-rollout/history.db}.
     */
    public static final String HISTORY_URL = "profiledrollout.history.url";

    /** The history database's user; default none. */
    public static final String HISTORY_USER = "profiledrollout.history.user";

    /** The history database's password; default none. */
    public static final String HISTORY_PASSWORD = "profiledrollout.history.password";

    /** How many earlier runs of the same test and configuration a regression check uses. Default {@code 20}. */
    public static final String HISTORY_WINDOW = "profiledrollout.history.window";

    /**
     * The regression threshold model: {@code relative}, {@code z-score}, {@code t-test}, {@code mann-whitney} or
     * {@code welch} (docs/METRICS.md §8). Default {@code t-test}.
     */
    public static final String HISTORY_THRESHOLD = "profiledrollout.history.threshold";

    /**
     * The threshold's boundary on each metric's regression side: a fraction of the baseline for {@code relative}
     * (e.g. {@code 0.10}), else a cumulative probability in {@code [0.5, 1]} (1: the model off, the relative floor alone);
     * when set it applies to every metric. Unset: the relative floor alone on the client's metrics, 0.999 on the trace's
     * ({@code HistoryThreshold.DEFAULT}), 0.9999 when a model is named ({@code 0.10} for {@code relative}).
     */
    public static final String HISTORY_BOUNDARY = "profiledrollout.history.boundary";

    /**
     * The relative floor of a statistical threshold model: a value beyond the median of the last 3 earlier runs by
     * more than this fraction on the regression side is a REGRESSION whatever the model says (docs/METRICS.md §8.1);
     * {@code Infinity} for none. Default {@code 0.5}.
     */
    public static final String HISTORY_RELATIVE_LIMIT = "profiledrollout.history.relative.limit";

    /**
     * The Hampel cut-off of the statistical threshold models, in robust standard deviations: the window's runs farther
     * than this many {@code 1.4826 · MAD} from its median are left out of its mean and spread (docs/METRICS.md §8.1);
     * {@code Infinity} uses every run. Default {@code 5}.
     */
    public static final String HISTORY_OUTLIER_CUTOFF = "profiledrollout.history.outlier.cutoff";

    /** {@code true}: attach the trace files to the Allure test case. Default {@code false}. */
    public static final String REPORT_ATTACH_TRACES = "profiledrollout.report.attach.traces";

    /**
     * With {@link #REPORT_ATTACH_TRACES}: the largest trace file attached, in bytes; larger ones are listed by path in
     * {@code summary.json} only. Default {@code 20971520} (20 MiB).
     */
    public static final String REPORT_ATTACH_MAX_BYTES = "profiledrollout.report.attach.maxBytes";

    // --- time limits -----------------------------------------------------------------------------------------

    /** How long to wait for every rank's trace file to appear and stop growing (duration). Default 300 s. */
    public static final String TRACE_TIMEOUT = "profiledrollout.trace.timeout";

    /**
     * Once some rank files of a capture are complete, how long the directory may stay unchanged before the ranks still
     * missing are reported by (DP, TP, PP, EP) and the window fails (duration). SGLang answers a profile call with
     * DP rank 0's result only (sgl-project/sglang {@code python/sglang/srt/managers/tokenizer_control_mixin.py},
     * {@code _execute_profile}), so a profiler failure on another DP rank shows only as missing files. Default 60 s.
     */
    public static final String TRACE_MISSING_GRACE = "profiledrollout.trace.missing.grace";

    /**
     * The read timeout of {@code /stop_profile}, which blocks while the engine exports its traces (duration). Default
     * 600 s for SGLang, 1800 s for vLLM (whose stop exports every worker's trace first).
     */
    public static final String STOP_TIMEOUT = "profiledrollout.stop.timeout";

    /** How long the load of one window may take before it is cancelled and the test fails (duration). Default 600 s. */
    public static final String LOAD_TIMEOUT = "profiledrollout.load.timeout";

    /** How long an engine may take to answer {@code GET /health} with 200 (duration). Default 120 s. */
    public static final String HEALTH_TIMEOUT = "profiledrollout.health.timeout";

    /**
     * The longest silence on one load stream, the wait for its first token included; a stalled stream ends as a
     * {@code TIMEOUT} record (duration). Default 300 s.
     */
    public static final String READ_TIMEOUT = "profiledrollout.read.timeout";

    /**
     * How long an engine may refuse connections (nothing listening, unknown host, no route) while {@code /health} is
     * polled; once it accepts one, {@link #HEALTH_TIMEOUT} alone applies (duration). Default 5 s, so that a wrong URL
     * fails fast; raise it when the engine starts beside the tests.
     */
    public static final String CONNECT_TIMEOUT = "profiledrollout.connect.timeout";

    /**
     * When the JVM is stopped mid-window (SIGTERM, SIGINT, a build tool ending its fork), how long the shutdown hook
     * may take to stop every profiler, cancel the load and write the partial results (duration). Default 15 s: within
     * Maven Surefire's default {@code forkedProcessExitTimeoutInSeconds} of 30 s, after which the fork is halted
     * (maven.apache.org/surefire/maven-surefire-plugin/examples/shutdown.html).
     */
    public static final String SHUTDOWN_TIMEOUT = "profiledrollout.shutdown.timeout";

    // --- load generator --------------------------------------------------------------------------------------

    /**
     * JVM system property: the event-loop threads of the load generator's HTTP client, an integer ≥ 1, read when a
     * {@code LoadGenerator} is created. Default {@code min(2, max(1, cores - 1))}, which leaves a core to a server
     * sharing the machine.
     */
    public static final String LOAD_THREADS = "profiledrollout.load.threads";

    /**
     * A GPU peaks table (JSON, format in {@code dev.profiledrollout.trace.roofline.GpuPeaks}) whose entries are looked up
     * before the built-in datasheet table: for other parts or clocks. Default: the built-in table only.
     */
    public static final String GPU_PEAKS_FILE = "profiledrollout.gpu.peaks.file";

    // --- profiledrollout.engine=container --------------------------------------------------------------------

    /**
     * The engine image, taken as a compatible substitute for the official one. Default: the pinned
     * {@code SglangContainer.DEFAULT_IMAGE} or {@code VllmContainer.DEFAULT_IMAGE}, by backend.
     */
    public static final String CONTAINER_IMAGE = "profiledrollout.container.image";

    /**
     * The model to serve: a Hugging Face hub id or a path inside the container. Default
     * {@code meta-llama/Llama-3.1-8B-Instruct}.
     */
    public static final String CONTAINER_MODEL = "profiledrollout.container.model";

    /** The tensor-parallel size, an integer ≥ 1. Default {@code 1}. */
    public static final String CONTAINER_TP = "profiledrollout.container.tp";

    /**
     * The GPUs handed to the container: {@code all}, a count, comma-separated device ids, or {@code none}. Default
     * {@code all}.
     */
    public static final String CONTAINER_GPUS = "profiledrollout.container.gpus";

    /**
     * Docker's IPC mode ({@code docker run --ipc}): {@code host}, {@code private}, {@code shareable}, {@code none} or
     * {@code container:<name|id>}. Default {@code host}.
     */
    public static final String CONTAINER_IPC = "profiledrollout.container.ipc";

    /**
     * The size of {@code /dev/shm} when the IPC mode is not {@code host}: bytes, or a number with unit {@code k},
     * {@code m} or {@code g} (binary multiples, as {@code docker run --shm-size}), e.g. {@code 16g}. Default: Docker's
     * 64 MiB.
     */
    public static final String CONTAINER_SHM_SIZE = "profiledrollout.container.shm.size";

    /** A host Hugging Face cache directory to mount into the container. Default: none. */
    public static final String CONTAINER_MODEL_CACHE = "profiledrollout.container.model.cache";

    /** {@code true} mounts {@link #CONTAINER_MODEL_CACHE} read-only. Default {@code false}. */
    public static final String CONTAINER_MODEL_CACHE_READONLY = "profiledrollout.container.model.cache.readonly";

    /**
     * The vLLM version in the image, e.g. {@code 0.11.0}, when its tag does not say; it picks {@code --profiler-config}
     * (0.13 and later) or {@code VLLM_TORCH_PROFILER_DIR}. Default: read from the tag, else the newest behaviour.
     */
    public static final String CONTAINER_VLLM_VERSION = "profiledrollout.container.vllm.version";

    /** Extra server arguments, space-separated. Default: none. */
    public static final String CONTAINER_ARGS = "profiledrollout.container.args";

    /** Seconds to wait for the container's {@code /health} (an integer ≥ 1). Default {@code 1200}. */
    public static final String CONTAINER_STARTUP_TIMEOUT = "profiledrollout.container.startup.timeout";

    private static final List<Key> ALL = List.of(
            key(ENGINE, "embedded", Scope.EXTENSION, "where the engine comes from: embedded, attach or container"),
            key(ENGINE_URL, null, Scope.EXTENSION, "the engine base URL(s) to attach to, comma-separated"),
            key(ROUTER_URL, null, Scope.EXTENSION, "a router whose /workers are profiled; the load goes through it"),
            key(PREFILL_URL, null, Scope.EXTENSION, "prefill engines of a disaggregated deployment"),
            key(DECODE_URL, null, Scope.EXTENSION, "decode engines of a disaggregated deployment"),
            key(API_KEY, null, Scope.EXTENSION, "bearer token for engines and router"),
            key(ADMIN_API_KEY, null, Scope.EXTENSION, "SGLang's --admin-api-key, for the profile routes"),
            key(PROFILE_KEY_PATTERN, null, Scope.EXTENSION,
                    "a named engine profile's value of profiledrollout.<key>, for @EngineProfile(\"<name>\") classes"),
            key(TRACE_DIR, null, Scope.EXTENSION, "where this machine reads the server's trace files"),
            key(TRACE_DIR_SERVER, null, Scope.EXTENSION, "the trace directory as the server sees it"),
            key(ENGINE_RANKS, null, Scope.EXTENSION, "rank trace files one vLLM engine writes per capture"),
            key(VLLM_MAX_ITERATIONS, null, Scope.EXTENSION, "the max_iterations of the vLLM server's --profiler-config"),
            key(TRTLLM_PROFILE_START_STOP, null, Scope.EXTENSION, "the TLLM_PROFILE_START_STOP span the TensorRT-LLM"
                    + " server was launched with, e.g. 10-20"),
            key(STEPS_STRICT, "false", Scope.EXTENSION, "fail when the steps captured differ from numSteps"),
            key(NSYS_PATH, "nsys", Scope.EXTENSION, "the nsys executable"),
            key(NSYS_SESSION, null, Scope.EXTENSION, "the nsys session to start and stop"),
            key(NSYS_REPORT, null, Scope.EXTENSION, "the nsys report file to summarise"),
            key(OUTPUT_DIR, "target/profiled-rollout", Scope.EXTENSION, "where results go"),
            key(BASELINE_DIR, null, Scope.EXTENSION, "per-test kernel baselines to compare with"),
            key(BASELINE_UPDATE, "false", Scope.EXTENSION, "record the baselines instead of comparing"),
            key(HISTORY_ENABLED, "true", Scope.EXTENSION, "record each profiled run in the history store"),
            key(HISTORY_URL, "jdbc:sqlite:.profiled-rollout/history.db", Scope.EXTENSION,
                    "the history store's JDBC URL"),
            key(HISTORY_USER, null, Scope.EXTENSION, "the history database's user"),
            key(HISTORY_PASSWORD, null, Scope.EXTENSION, "the history database's password"),
            key(HISTORY_WINDOW, "20", Scope.EXTENSION, "earlier runs a regression check compares with"),
            key(HISTORY_THRESHOLD, "t-test", Scope.EXTENSION,
                    "regression threshold model: relative, z-score, t-test, mann-whitney or welch"),
            key(HISTORY_BOUNDARY, null, Scope.EXTENSION,
                    "threshold boundary for every metric: a fraction for relative, else a cumulative probability"
                    + " (1: the relative floor alone); unset: the floor alone on client metrics, 0.999 on trace"
                    + " metrics, 0.9999 with a named model"),
            key(HISTORY_RELATIVE_LIMIT, "0.5", Scope.EXTENSION,
                    "relative floor: REGRESSION beyond this fraction over the median of the last 3 runs"),
            key(HISTORY_OUTLIER_CUTOFF, "5", Scope.EXTENSION,
                    "runs beyond this many robust SDs (1.4826 MAD) of the window's median are left out of the t-test"),
            key(REPORT_ATTACH_TRACES, "false", Scope.EXTENSION, "attach the trace files to Allure"),
            key(REPORT_ATTACH_MAX_BYTES, String.valueOf(20L << 20), Scope.EXTENSION,
                    "the largest trace file attached, bytes"),
            key(TRACE_TIMEOUT, "300", Scope.EXTENSION, "wait for the trace files, seconds"),
            key(TRACE_MISSING_GRACE, "60", Scope.EXTENSION, "wait for missing rank files once others are complete, seconds"),
            key(STOP_TIMEOUT, null, Scope.EXTENSION, "read timeout of /stop_profile, seconds (600 SGLang, 1800 vLLM)"),
            key(LOAD_TIMEOUT, "600", Scope.EXTENSION, "bound on one window's load, seconds"),
            key(HEALTH_TIMEOUT, "120", Scope.EXTENSION, "wait for /health, seconds"),
            key(READ_TIMEOUT, "300", Scope.EXTENSION, "longest silence on one load stream, seconds"),
            key(CONNECT_TIMEOUT, "5", Scope.EXTENSION, "how long an engine may refuse connections, seconds"),
            key(SHUTDOWN_TIMEOUT, "15", Scope.EXTENSION, "bound on the shutdown hook's clean-up, seconds"),
            key(LOAD_THREADS, null, Scope.SYSTEM_PROPERTY, "event-loop threads of the load generator"),
            key(GPU_PEAKS_FILE, null, Scope.SYSTEM_PROPERTY, "a GPU peaks table looked up before the built-in one"),
            key(CONTAINER_IMAGE, null, Scope.CONTAINER, "the engine image"),
            key(CONTAINER_MODEL, "meta-llama/Llama-3.1-8B-Instruct", Scope.CONTAINER, "the model to serve"),
            key(CONTAINER_TP, "1", Scope.CONTAINER, "tensor-parallel size"),
            key(CONTAINER_GPUS, "all", Scope.CONTAINER, "GPUs: all, a count, device ids or none"),
            key(CONTAINER_IPC, "host", Scope.CONTAINER, "Docker IPC mode"),
            key(CONTAINER_SHM_SIZE, null, Scope.CONTAINER, "size of /dev/shm when the IPC mode is not host"),
            key(CONTAINER_MODEL_CACHE, null, Scope.CONTAINER, "host Hugging Face cache to mount"),
            key(CONTAINER_MODEL_CACHE_READONLY, "false", Scope.CONTAINER, "mount the model cache read-only"),
            key(CONTAINER_VLLM_VERSION, null, Scope.CONTAINER, "the vLLM version in the image"),
            key(CONTAINER_ARGS, null, Scope.CONTAINER, "extra server arguments, space-separated"),
            key(CONTAINER_STARTUP_TIMEOUT, "1200", Scope.CONTAINER, "wait for the container's /health, seconds"));

    private static final java.util.Map<String, Key> BY_NAME =
            ALL.stream().collect(Collectors.toUnmodifiableMap(Key::name, Function.identity()));

    private static final String PREFIX = "profiledrollout.";

    /** What every {@link #PROFILE_KEY_PATTERN} key starts with. */
    private static final String PROFILES_PREFIX = "profiledrollout.profiles.";

    private ProfiledRolloutKeys() {
    }

    /** @return every key, in the order of the README's configuration table; unmodifiable */
    public static List<Key> all() {
        return ALL;
    }

    /**
     * @param name a key, e.g. {@link #TRACE_TIMEOUT}
     * @return that key's entry, or empty when no such key exists
     */
    public static Optional<Key> find(String name) {
        return Optional.ofNullable(BY_NAME.get(name));
    }

    /**
     * @param name a key, e.g. {@link #TRACE_TIMEOUT}
     * @return its default as in {@link Key#defaultValue()}
     * @throws IllegalArgumentException when {@code name} is not a key of this class
     */
    public static Optional<String> defaultValue(String name) {
        return find(name).orElseThrow(() -> new IllegalArgumentException("'" + name + "' is not a Profiled Rollout"
                + " configuration key; see ProfiledRolloutKeys.all()")).defaultValue();
    }

    /**
     * @param name a key
     * @return the environment variable read for it: upper case, dots and hyphens replaced by underscores
     *         ({@code profiledrollout.report.attach.maxBytes} → {@code PROFILEDROLLOUT_REPORT_ATTACH_MAXBYTES},
     *         {@code profiledrollout.profiles.vllm-a100.engine.url} →
     *         {@code PROFILEDROLLOUT_PROFILES_VLLM_A100_ENGINE_URL})
     */
    public static String environmentVariable(String name) {
        return name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /**
     * @param profile a profile name: letters, digits, {@code '-'} and {@code '_'}
     * @param key     a key of this class, e.g. {@link #ENGINE_URL}
     * @return the key {@link #PROFILE_KEY_PATTERN} describes, e.g. {@code profiledrollout.profiles.vllm-a100.engine.url}
     * @throws IllegalArgumentException when {@code key} does not start with {@code profiledrollout.}
     */
    public static String profileKey(String profile, String key) {
        if (!key.startsWith(PREFIX)) {
            throw new IllegalArgumentException("'" + key + "' is not a Profiled Rollout key (profiledrollout.…)");
        }
        return PROFILES_PREFIX + profile + "." + key.substring(PREFIX.length());
    }

    private static Key key(String name, String defaultValue, Scope scope, String description) {
        return new Key(name, Optional.ofNullable(defaultValue), scope, description);
    }
}
