package dev.profiledrollout.simulator;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apiguardian.api.API;

/**
 * How an {@link EngineSimulator} is launched: the engine it imitates, the server arguments it reports, the hardware
 * its cost model assumes, and the faults it injects. Immutable; built with {@link #builder()}.
 *
 * <pre>{@code
 * SimulatorConfig config = SimulatorConfig.builder()
 *         .tpSize(2)
 *         .profilerDir(tempDir)
 *         .slowRank(1, 1.5)                        // TP rank 1 runs every kernel 1.5x slower
 *         .slowKernel("flashinfer::norm", 3.0)     // regressed kernel
 *         .build();
 * }</pre>
 *
 * <p>Defaults follow SGLang's server arguments: port 0 means an ephemeral port; {@code profilerDir} defaults to
 * {@code $SGLANG_TORCH_PROFILER_DIR}, else {@code java.io.tmpdir} (SGLang defaults to the root temp dir,
 * {@code docs/PROTOCOLS.md} §1.1).
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class SimulatorConfig {

    /**
     * Log-normal sigma of the per-launch kernel jitter measured on the repository's real traces: the median over
     * kernels (same name, grid, block and launching operator's input shapes, at least 10 launches of at least 10 µs)
     * of the standard deviation of ln(duration) within one trace, 5 % trimmed at each end, NCCL kernels left out, was
     * 0.012 (a V100 ResNet rank), 0.022 (a training rank on six streams) and 0.040 (SGLang decode on MI300X); 0.03 lies
     * between them. Measured by
     * {@code KernelJitterMeasurementTest} (framework tests); method in docs/TRACES.md §8.
     */
    public static final double MEASURED_KERNEL_JITTER = 0.03;

    /**
     * Default log-normal sigma of the per-run clock factor: 0.01, one GPU against itself from run to run (a CI runner
     * with its own GPU). The published measurement it rests on: ROCm/FlyDSL pull request #924 (comment of 2026-08-18,
     * "Noise is dominated by occupancy"), five runs per shape on an idle MI355X, whose max−min spread was 0.5–1.5 % of
     * the median for kernels with at least one block per CU (0.43 % over three runs of another kernel); for five normal
     * draws the expected range is 2.33σ, so σ ≈ 0.2–0.65 %. 0.01 sits above the largest of them. A pool of GPUs is
     * noisier: {@link #POOL_CLOCK_SPREAD}. docs/TRACES.md §8.
     */
    public static final double DEFAULT_CLOCK_SPREAD = 0.01;

    /**
     * Log-normal sigma of the per-run clock factor when each run may land on another GPU of one SKU (a pool of
     * runners): 0.08, Sinha et al., "Not All GPUs Are Created Equal" (SC'22, arXiv:2208.11035), 8 % average (22 %
     * maximum) performance variation across the GPUs of one cluster under power management. docs/TRACES.md §8.
     */
    public static final double POOL_CLOCK_SPREAD = 0.08;

    /** The backends the simulator can imitate. */
    public static final List<String> BACKENDS = List.of("sglang", "vllm", "trtllm");

    private final String backend;
    private final String host;
    private final int port;
    private final int tpSize;
    private final int maxRunningRequests;
    private final String servedModelName;
    private final Path profilerDir;
    private final ModelSpec model;
    private final GpuSpec gpu;
    private final Map<String, Double> kernelSlowdowns;
    private final Map<Integer, Double> rankSlowdowns;
    private final double decodeSlowdown;
    private final double prefillSlowdown;
    private final double hostSlowdown;
    private final double kernelJitter;
    private final double clockSpread;
    private final long noiseSeed;
    private final long seed;
    private final VllmProfilerConfig vllmProfilerConfig;
    private final VllmNamingEra vllmNamingEra;
    private final TrtllmEnvironment trtllmEnvironment;
    private final int dpSize;
    private final int dpRank;
    private final int failStartProfileStatus;
    private final SimulatorFaults faults;
    private final boolean dpController;
    private final String apiKey;
    private final String adminApiKey;

    private SimulatorConfig(Builder b) {
        this.backend = b.backend;
        this.host = b.host;
        this.port = b.port;
        this.tpSize = b.tpSize;
        this.maxRunningRequests = b.maxRunningRequests;
        this.servedModelName = b.servedModelName;
        this.profilerDir = b.profilerDir != null ? b.profilerDir : defaultProfilerDir();
        this.model = b.model;
        this.gpu = b.gpu;
        this.kernelSlowdowns = Collections.unmodifiableMap(new LinkedHashMap<>(b.kernelSlowdowns));
        this.rankSlowdowns = Collections.unmodifiableMap(new LinkedHashMap<>(b.rankSlowdowns));
        this.decodeSlowdown = b.decodeSlowdown;
        this.prefillSlowdown = b.prefillSlowdown;
        this.hostSlowdown = b.hostSlowdown;
        this.kernelJitter = b.kernelJitter;
        this.clockSpread = b.clockSpread;
        this.noiseSeed = b.noiseSeed != null ? b.noiseSeed : b.seed;
        this.seed = b.seed;
        this.vllmProfilerConfig = b.vllmProfilerConfig;
        this.trtllmEnvironment = b.trtllmEnvironment;
        this.vllmNamingEra = b.vllmNamingEra;
        this.dpSize = b.dpSize;
        this.dpRank = b.dpRank;
        this.failStartProfileStatus = b.failStartProfileStatus;
        this.faults = b.faults;
        this.dpController = b.dpController;
        this.apiKey = b.apiKey;
        this.adminApiKey = b.adminApiKey;
    }

    /** A builder holding every value of this configuration, to derive a variant (e.g. one per DP replica). */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.backend = backend;
        b.host = host;
        b.port = port;
        b.tpSize = tpSize;
        b.maxRunningRequests = maxRunningRequests;
        b.servedModelName = servedModelName;
        b.profilerDir = profilerDir;
        b.model = model;
        b.gpu = gpu;
        b.kernelSlowdowns.putAll(kernelSlowdowns);
        b.rankSlowdowns.putAll(rankSlowdowns);
        b.decodeSlowdown = decodeSlowdown;
        b.prefillSlowdown = prefillSlowdown;
        b.hostSlowdown = hostSlowdown;
        b.kernelJitter = kernelJitter;
        b.clockSpread = clockSpread;
        b.noiseSeed = noiseSeed;
        b.seed = seed;
        b.vllmProfilerConfig = vllmProfilerConfig;
        b.trtllmEnvironment = trtllmEnvironment;
        b.vllmNamingEra = vllmNamingEra;
        b.dpSize = dpSize;
        b.dpRank = dpRank;
        b.failStartProfileStatus = failStartProfileStatus;
        b.faults = faults;
        b.dpController = dpController;
        b.apiKey = apiKey;
        b.adminApiKey = adminApiKey;
        return b;
    }

    /** A builder with every default set. */
    public static Builder builder() {
        return new Builder();
    }

    private static Path defaultProfilerDir() {
        String env = System.getenv("SGLANG_TORCH_PROFILER_DIR");
        return Path.of(env != null && !env.isBlank() ? env : System.getProperty("java.io.tmpdir"));
    }

    /** The engine imitated; one of {@link #BACKENDS}. Default {@code "sglang"}. */
    public String backend() {
        return backend;
    }

    /** Address the HTTP server binds to. Default {@code "127.0.0.1"}. */
    public String host() {
        return host;
    }

    /** Port the HTTP server binds to; 0 (default) picks an ephemeral port, see {@link EngineSimulator#port()}. */
    public int port() {
        return port;
    }

    /** Tensor-parallel size: the number of simulated GPUs, and of trace files per capture. Default 1. */
    public int tpSize() {
        return tpSize;
    }

    /** Most requests in one decode batch (SGLang {@code --max-running-requests}). Default 64. */
    public int maxRunningRequests() {
        return maxRunningRequests;
    }

    /** Model name reported by {@code /v1/models} and {@code /server_info}. */
    public String servedModelName() {
        return servedModelName;
    }

    /** Default {@code output_dir} of {@code /start_profile}, on this machine's filesystem. */
    public Path profilerDir() {
        return profilerDir;
    }

    /** The model the cost model assumes. Default {@link ModelSpec#LLAMA_3_1_8B}. */
    public ModelSpec model() {
        return model;
    }

    /** The GPU the cost model assumes, one per TP rank. Default {@link GpuSpec#H100_SXM}. */
    public GpuSpec gpu() {
        return gpu;
    }

    /**
     * Regressed-kernel faults: a regular expression found ({@link java.util.regex.Matcher#find()}) in a kernel name,
     * mapped to the factor its duration is multiplied by. When several match, the factors multiply.
     */
    public Map<String, Double> kernelSlowdowns() {
        return kernelSlowdowns;
    }

    /** Straggler faults: TP rank mapped to the factor every kernel on that rank is multiplied by. */
    public Map<Integer, Double> rankSlowdowns() {
        return rankSlowdowns;
    }

    /** Factor every decode step's kernel durations are multiplied by (see {@link Builder#slowDecode}). Default 1. */
    public double decodeSlowdown() {
        return decodeSlowdown;
    }

    /**
     * Factor every prefill (extend) step's kernel durations are multiplied by (see {@link Builder#slowPrefill}).
     * Default 1.
     */
    public double prefillSlowdown() {
        return prefillSlowdown;
    }

    /**
     * Factor every step's wall time is multiplied by through host time alone (see {@link Builder#slowHost}); the
     * kernels' durations are not changed. Default 1.
     */
    public double hostSlowdown() {
        return hostSlowdown;
    }

    /**
     * Log-normal sigma of the per-launch kernel-duration jitter (see {@link Builder#kernelJitter}); 0 (default): every
     * kernel takes exactly its cost-model time.
     */
    public double kernelJitter() {
        return kernelJitter;
    }

    /**
     * Log-normal sigma of the per-run GPU clock factor (see {@link Builder#clockSpread}); 0 (default): none.
     */
    public double clockSpread() {
        return clockSpread;
    }

    /** Seed of the GPU noise ({@link #kernelJitter()}, {@link #clockSpread()}). Default {@link #seed()}. */
    public long noiseSeed() {
        return noiseSeed;
    }

    /** Whether any performance fault is injected: slowed kernels, ranks, decode or host time. */
    public boolean slowdownInjected() {
        return !kernelSlowdowns.isEmpty() || !rankSlowdowns.isEmpty() || decodeSlowdown != 1.0
                || prefillSlowdown != 1.0 || hostSlowdown != 1.0;
    }

    /** Seed for every random choice (output lengths without {@code ignore_eos}, token ids). Default 0. */
    public long seed() {
        return seed;
    }

    /**
     * vLLM's {@code --profiler-config} (backend {@code "vllm"} only); null when the server was "started without it",
     * so {@code /start_profile} and {@code /stop_profile} answer {@code 404 {"detail":"Not Found"}}
     * ({@code docs/PROTOCOLS.md} §2.1).
     */
    public VllmProfilerConfig vllmProfilerConfig() {
        return vllmProfilerConfig;
    }

    /**
     * The profiling environment of a TensorRT-LLM server (backend {@code "trtllm"} only), fixed at its launch:
     * {@code TLLM_PROFILE_START_STOP} and {@code TLLM_TORCH_PROFILE_TRACE} ({@code docs/PROTOCOLS.md} §6). Default
     * {@link TrtllmEnvironment#NONE}. The other backends ignore it, as an SGLang worker ignores these variables when
     * srt-slurm sets them on every worker (NVIDIA/srt-slurm {@code src/srtctl/core/schema.py}, {@code get_env_vars}).
     */
    public TrtllmEnvironment trtllmEnvironment() {
        return trtllmEnvironment;
    }

    /**
     * Worker trace-file naming of a vLLM server ({@code docs/PROTOCOLS.md} §2.4). Default
     * {@link VllmNamingEra#NEWEST}.
     */
    public VllmNamingEra vllmNamingEra() {
        return vllmNamingEra;
    }

    /**
     * Data-parallel size of the deployment this server is one replica of; reported as {@code dp_size} by
     * {@code /server_info}. With {@code dpSize > 1}, SGLang file names carry {@code -DP-{dpRank}}
     * ({@code docs/PROTOCOLS.md} §1.4) and vLLM NEWEST names carry {@code dp{dpRank}} and a global rank
     * {@code dpRank * tpSize + tp}. Default 1.
     */
    public int dpSize() {
        return dpSize;
    }

    /** This replica's data-parallel rank, in {@code 0..dpSize-1}. Default 0. */
    public int dpRank() {
        return dpRank;
    }

    /**
     * Whether this server is SGLang's data-parallel controller over all {@link #dpSize()} replicas, as one
     * {@code sglang.launch_server --dp-size N} is (SGLang backend only), rather than one replica of a group launched
     * as separate servers. Then {@code /server_info} reports {@code dp_size} without a {@code dp_rank}, and every
     * capture writes the files of every DP rank, {@code …-TP-{tp}-DP-{dp}.trace.json.gz}, into one
     * {@code output_dir}. One scheduler serves all replicas, so every DP rank's file holds the same steps. Default
     * false.
     */
    public boolean dpController() {
        return dpController;
    }

    /**
     * The server's {@code --api-key}, or null for none (the default). Each backend demands it where the engine does
     * (SGLang: every route except {@code /health*}, {@code /ready*} and {@code /metrics*}; vLLM: routes under
     * {@code /v1}, {@code /v2}, {@code /inference} and {@code /cohere}) as {@code Authorization: Bearer <key>}
     * (SGLang also takes {@code x-api-key: <key>}), and answers {@code 401 {"error":"Unauthorized"}} without it.
     * Falls back to {@link SimulatorFaults#apiKey()}.
     */
    /**
     * SGLang's {@code --admin-api-key}, or null: with it the profile routes ({@code /start_profile},
     * {@code /stop_profile}) and {@code /flush_cache} accept only this key, while generation routes keep needing
     * {@link #apiKey()} (sgl-project/sglang {@code python/sglang/srt/utils/auth.py}, {@code decide_request_auth}).
     */
    public String adminApiKey() {
        return adminApiKey;
    }

    public String apiKey() {
        return apiKey != null ? apiKey : faults.apiKey();
    }

    /**
     * Fault: the HTTP status {@code /start_profile} answers instead of starting a capture, or 0 (default) for none.
     * The body is {@code {"detail":"simulated fault: …"}}; no capture starts.
     */
    public int failStartProfileStatus() {
        return failStartProfileStatus;
    }

    /** Injected faults. Default {@link SimulatorFaults#NONE}. */
    public SimulatorFaults faults() {
        return faults;
    }

    @Override
    public String toString() {
        return "SimulatorConfig{backend=" + backend + ", host=" + host + ", port=" + port + ", tpSize=" + tpSize
                + ", maxRunningRequests=" + maxRunningRequests + ", model=" + model.name() + ", gpu=" + gpu.name()
                + ", profilerDir=" + profilerDir + ", kernelSlowdowns=" + kernelSlowdowns
                + ", rankSlowdowns=" + rankSlowdowns
                + (decodeSlowdown != 1.0 ? ", decodeSlowdown=" + decodeSlowdown : "")
                + (prefillSlowdown != 1.0 ? ", prefillSlowdown=" + prefillSlowdown : "")
                + (hostSlowdown != 1.0 ? ", hostSlowdown=" + hostSlowdown : "")
                + (kernelJitter != 0 || clockSpread != 0 ? ", kernelJitter=" + kernelJitter + ", clockSpread="
                + clockSpread + ", noiseSeed=" + noiseSeed : "")
                + ", seed=" + seed + ", dpSize=" + dpSize + ", dpRank=" + dpRank
                + (dpController ? ", dpController" : "") + (apiKey() != null ? ", apiKey=set" : "")
                + (vllmProfilerConfig != null ? ", vllmProfilerConfig=" + vllmProfilerConfig : "")
                + (failStartProfileStatus != 0 ? ", failStartProfile=" + failStartProfileStatus : "") + "}";
    }

    /** Fluent builder for {@link SimulatorConfig}; every setter validates its argument at once. Not thread-safe. */
    public static final class Builder {
        private String backend = "sglang";
        private String host = "127.0.0.1";
        private int port = 0;
        private int tpSize = 1;
        private int maxRunningRequests = 64;
        private String servedModelName = "meta-llama/Llama-3.1-8B-Instruct";
        private Path profilerDir;
        private ModelSpec model = ModelSpec.LLAMA_3_1_8B;
        private GpuSpec gpu = GpuSpec.H100_SXM;
        private final Map<String, Double> kernelSlowdowns = new LinkedHashMap<>();
        private final Map<Integer, Double> rankSlowdowns = new LinkedHashMap<>();
        private double decodeSlowdown = 1.0;
        private double prefillSlowdown = 1.0;
        private double hostSlowdown = 1.0;
        private double kernelJitter = 0;
        private double clockSpread = 0;
        private Long noiseSeed;
        private long seed = 0;
        private VllmProfilerConfig vllmProfilerConfig;
        private VllmNamingEra vllmNamingEra = VllmNamingEra.NEWEST;
        private TrtllmEnvironment trtllmEnvironment = TrtllmEnvironment.NONE;
        private String adminApiKey;
        private int dpSize = 1;
        private int dpRank = 0;
        private int failStartProfileStatus = 0;
        private SimulatorFaults faults = SimulatorFaults.NONE;
        private boolean dpController;
        private String apiKey;

        private Builder() {
        }

        /** @param dpController see {@link SimulatorConfig#dpController()}; checked against the backend in {@link #build()} */
        public Builder dpController(boolean dpController) {
            this.dpController = dpController;
            return this;
        }

        /** @param adminApiKey SGLang's {@code --admin-api-key}, null for none (backend {@code "sglang"} only) */
        public Builder adminApiKey(String adminApiKey) {
            this.adminApiKey = adminApiKey;
            return this;
        }

        /**
         * @param apiKey the key to demand, not blank; null removes it. See {@link SimulatorConfig#apiKey()}.
         * @throws IllegalArgumentException when blank
         */
        public Builder apiKey(String apiKey) {
            if (apiKey != null && apiKey.isBlank()) {
                throw new IllegalArgumentException("apiKey must not be blank; pass null for a server without one");
            }
            this.apiKey = apiKey;
            return this;
        }

        /** @param faults the faults to inject, not null; see {@link SimulatorFaults} */
        public Builder faults(SimulatorFaults faults) {
            if (faults == null) {
                throw new IllegalArgumentException("faults must not be null; use SimulatorFaults.NONE");
            }
            this.faults = faults;
            return this;
        }

        /**
         * vLLM's {@code --profiler-config} JSON ({@code docs/PROTOCOLS.md} §2.2), e.g.
         * {@code {"profiler":"torch","torch_profiler_dir":"/abs/dir"}}; null means "started without it".
         * Checked against the backend in {@link #build()}.
         *
         * @throws IllegalArgumentException naming the field, see {@link VllmProfilerConfig#parse(String)}
         */
        public Builder profilerConfig(String json) {
            this.vllmProfilerConfig = json == null ? null : VllmProfilerConfig.parse(json);
            return this;
        }

        /** The parsed form of {@link #profilerConfig(String)}; null removes it. */
        public Builder vllmProfilerConfig(VllmProfilerConfig config) {
            this.vllmProfilerConfig = config;
            return this;
        }

        /** @param era not null; see {@link SimulatorConfig#vllmNamingEra()} */
        public Builder trtllmEnvironment(TrtllmEnvironment environment) {
            this.trtllmEnvironment = java.util.Objects.requireNonNull(environment, "environment");
            return this;
        }

        public Builder vllmNamingEra(VllmNamingEra era) {
            Require.notNull(era, "vllmNamingEra");
            this.vllmNamingEra = era;
            return this;
        }

        /** @param dpSize at least 1; see {@link SimulatorConfig#dpSize()} */
        public Builder dpSize(int dpSize) {
            Require.atLeast(dpSize, 1, "dpSize");
            this.dpSize = dpSize;
            return this;
        }

        /** @param dpRank not negative; checked against {@code dpSize} in {@link #build()} */
        public Builder dpRank(int dpRank) {
            Require.atLeast(dpRank, 0, "dpRank");
            this.dpRank = dpRank;
            return this;
        }

        /**
         * Fault: {@code /start_profile} answers {@code status} and starts nothing; 0 removes the fault.
         *
         * @param status 0, or an HTTP status in 400..599
         */
        public Builder failStartProfile(int status) {
            if (status != 0 && (status < 400 || status > 599)) {
                throw new IllegalArgumentException("failStartProfile status must be 0 or in 400..599, was " + status);
            }
            this.failStartProfileStatus = status;
            return this;
        }

        /** @throws IllegalArgumentException unless {@code backend} is one of {@link #BACKENDS} */
        public Builder backend(String backend) {
            if (!BACKENDS.contains(backend)) {
                throw new IllegalArgumentException("unsupported simulator backend '" + backend
                        + "'; allowed values: " + BACKENDS);
            }
            this.backend = backend;
            return this;
        }

        /** @param host bind address, not null */
        public Builder host(String host) {
            Require.notBlank(host, "host");
            this.host = host;
            return this;
        }

        /** @param port 0..65535; 0 = ephemeral */
        public Builder port(int port) {
            Require.port(port);
            this.port = port;
            return this;
        }

        /** @param tpSize at least 1 */
        public Builder tpSize(int tpSize) {
            Require.atLeast(tpSize, 1, "tpSize");
            this.tpSize = tpSize;
            return this;
        }

        /** @param maxRunningRequests at least 1 */
        public Builder maxRunningRequests(int maxRunningRequests) {
            Require.atLeast(maxRunningRequests, 1, "maxRunningRequests");
            this.maxRunningRequests = maxRunningRequests;
            return this;
        }

        /** @param servedModelName not blank */
        public Builder servedModelName(String servedModelName) {
            Require.notBlank(servedModelName, "servedModelName");
            this.servedModelName = servedModelName;
            return this;
        }

        /** @param profilerDir default trace directory; null restores the environment default */
        public Builder profilerDir(Path profilerDir) {
            this.profilerDir = profilerDir;
            return this;
        }

        /** @param model not null */
        public Builder model(ModelSpec model) {
            Require.notNull(model, "model");
            this.model = model;
            return this;
        }

        /** @param gpu not null */
        public Builder gpu(GpuSpec gpu) {
            Require.notNull(gpu, "gpu");
            this.gpu = gpu;
            return this;
        }

        /**
         * Multiplies the duration of every kernel whose name contains a match of {@code regex}.
         *
         * @throws IllegalArgumentException if the regex does not compile or the factor is not positive and finite
         */
        public Builder slowKernel(String regex, double factor) {
            try {
                Pattern.compile(regex);
            } catch (PatternSyntaxException | NullPointerException e) {
                throw new IllegalArgumentException("slowKernel regex does not compile: " + regex, e);
            }
            checkFactor(factor);
            kernelSlowdowns.put(regex, factor);
            return this;
        }

        /**
         * Multiplies the duration of every kernel on TP rank {@code tp}. Validated against {@code tpSize} in
         * {@link #build()}.
         */
        public Builder slowRank(int tp, double factor) {
            Require.atLeast(tp, 0, "slowRank tp");
            checkFactor(factor);
            rankSlowdowns.put(tp, factor);
            return this;
        }

        /**
         * Multiplies the duration of every kernel of every decode step (not of prefill steps), on top of
         * {@link #slowKernel} and {@link #slowRank}; the scheduler's CPU overhead per step is not scaled. Models a
         * change that makes decode slower (or, below 1, faster), e.g. to inject a known shift into a history of runs.
         * Default 1.
         *
         * @throws IllegalArgumentException if the factor is not positive and finite
         */
        public Builder slowDecode(double factor) {
            checkFactor(factor);
            this.decodeSlowdown = factor;
            return this;
        }

        /**
         * Multiplies the duration of every kernel of every prefill (extend) step (not of decode steps), on top of
         * {@link #slowKernel} and {@link #slowRank}; the scheduler's CPU overhead per step is not scaled. The prefill
         * counterpart of {@link #slowDecode}, e.g. to inject a known prefill shift into a history of runs. Default 1.
         *
         * @throws IllegalArgumentException if the factor is not positive and finite
         */
        public Builder slowPrefill(double factor) {
            checkFactor(factor);
            this.prefillSlowdown = factor;
            return this;
        }

        /**
         * Makes every step take {@code factor} times its normal wall time by adding host time (the scheduler's CPU
         * work before the step's first kernel, while the GPU idles); the kernels' durations are unchanged. With the
         * step's normal wall time {@code w = CostModel.CPU_OVERHEAD_NS + GPU busy time}, the host time becomes
         * {@code CPU_OVERHEAD_NS + (factor − 1)·w}. Models a regression outside the GPU (a slower scheduler,
         * tokenizer or sampler on the CPU) that client latency shows and the trace's kernel times do not. Default 1.
         *
         * @throws IllegalArgumentException unless the factor is finite and at least 1
         */
        public Builder slowHost(double factor) {
            if (!(factor >= 1) || Double.isInfinite(factor)) {
                throw new IllegalArgumentException("slowHost factor must be finite and at least 1, was " + factor);
            }
            this.hostSlowdown = factor;
            return this;
        }

        /**
         * Per-launch jitter of kernel durations: every kernel launch's cost-model duration is multiplied by
         * {@code exp(sigma·Z)}, {@code Z} standard normal (a log-normal factor with median 1), drawn from
         * {@link #noiseSeed}. {@link #MEASURED_KERNEL_JITTER} is what the repository's real traces show
         * (docs/TRACES.md §8). Default 0: no jitter.
         *
         * @param sigma log-normal sigma, in [0, 1]
         * @throws IllegalArgumentException outside [0, 1]
         */
        public Builder kernelJitter(double sigma) {
            this.kernelJitter = sigma(sigma, "kernelJitter");
            return this;
        }

        /**
         * Per-run GPU clock factor: once per simulator start, every kernel duration of the run is multiplied by
         * {@code exp(sigma·Z)} (log-normal, median 1), drawn from {@link #noiseSeed}; models a GPU whose clocks are
         * not locked running a whole benchmark faster or slower. {@link #DEFAULT_CLOCK_SPREAD} is one GPU against
         * itself, {@link #POOL_CLOCK_SPREAD} runs that land on different GPUs (docs/TRACES.md §8). Default 0: none.
         *
         * @param sigma log-normal sigma, in [0, 1]
         * @throws IllegalArgumentException outside [0, 1]
         */
        public Builder clockSpread(double sigma) {
            this.clockSpread = sigma(sigma, "clockSpread");
            return this;
        }

        /** {@link #kernelJitter(double)} and {@link #clockSpread(double)} at their documented realistic values. */
        public Builder realisticGpuNoise() {
            return kernelJitter(MEASURED_KERNEL_JITTER).clockSpread(DEFAULT_CLOCK_SPREAD);
        }

        /**
         * @param noiseSeed seed of the GPU noise ({@link #kernelJitter}, {@link #clockSpread}); reruns that should
         *                  differ as reruns on a real GPU do need different noise seeds. Default {@link #seed(long)}.
         */
        public Builder noiseSeed(long noiseSeed) {
            this.noiseSeed = noiseSeed;
            return this;
        }

        private static double sigma(double sigma, String name) {
            if (!(sigma >= 0 && sigma <= 1)) {
                throw new IllegalArgumentException(name + " is a log-normal sigma in [0, 1], was " + sigma);
            }
            return sigma;
        }

        /** @param seed seed for the simulator's random choices */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * @throws IllegalArgumentException if a slowed rank is not below {@code tpSize}, {@code dpRank} is not below
         *                                  {@code dpSize}, or a profiler config is given to the SGLang backend
         */
        public SimulatorConfig build() {
            if (dpRank >= dpSize) {
                throw new IllegalArgumentException("dpRank " + dpRank + " is outside dpSize " + dpSize);
            }
            if (dpController && (!backend.equals("sglang") || dpRank != 0)) {
                throw new IllegalArgumentException("dpController is SGLang's DP controller over every replica: it needs"
                        + " backend(\"sglang\") and dpRank 0 (backend is " + backend + ", dpRank " + dpRank + ")");
            }
            faults.profilerFailsOnDpRank().ifPresent(d -> {
                if (!dpController || d >= dpSize) {
                    throw new IllegalArgumentException("faults.profilerFailsOnDpRank(" + d + ") needs dpController(true)"
                            + " and a DP rank below dpSize " + dpSize + " (dpController is " + dpController + ")");
                }
            });
            if (vllmProfilerConfig != null && !backend.equals("vllm")) {
                throw new IllegalArgumentException("profilerConfig is vLLM's --profiler-config; set backend(\"vllm\")"
                        + " or drop it (backend is " + backend + ")");
            }
            if (adminApiKey != null && !backend.equals("sglang")) {
                throw new IllegalArgumentException("adminApiKey is SGLang's --admin-api-key; set backend(\"sglang\") or"
                        + " drop it (backend is " + backend + ")");
            }
            if (apiKey != null && backend.equals("trtllm")) {
                throw new IllegalArgumentException("trtllm-serve takes no API key (NVIDIA/TensorRT-LLM"
                        + " tensorrt_llm/serve/openai_server.py); drop apiKey");
            }
            for (int tp : rankSlowdowns.keySet()) {
                if (tp >= tpSize) {
                    throw new IllegalArgumentException("slowRank(" + tp + ", …) names a rank outside tpSize "
                            + tpSize + "; use a rank in 0.." + (tpSize - 1));
                }
            }
            return new SimulatorConfig(this);
        }

        private static void checkFactor(double factor) {
            if (!(factor > 0) || Double.isInfinite(factor)) {
                throw new IllegalArgumentException("slowdown factor must be positive and finite, was " + factor);
            }
        }
    }
}
