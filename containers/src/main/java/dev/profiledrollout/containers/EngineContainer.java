package dev.profiledrollout.containers;

import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.DeviceRequest;
import com.github.dockerjava.api.model.HostConfig;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.engine.ManagedEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apiguardian.api.API;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * What {@link SglangContainer} and {@link VllmContainer} share: the model, parallelism, GPUs, IPC namespace and shared
 * memory, model cache, Hugging Face token, profiler-directory mount, Nsight Systems wrapping and the {@code /health}
 * readiness wait. Each subclass turns these into its engine's real launch command.
 *
 * <h2>Shared memory</h2>
 * PyTorch passes tensors between the engine's processes through {@code /dev/shm}, above all with tensor parallelism,
 * and Docker gives a container only 64 MB of it. Both projects therefore run their images with the host's IPC
 * namespace (sgl-project/sglang {@code docs/docs/get-started/install.mdx}: {@code --shm-size 32g --ipc=host};
 * vllm-project/vllm {@code docs/getting_started/installation/gpu.cuda.inc.md}, "pre-built images":
 * {@code --ipc=host}, or {@code --shm-size} instead). So does this class by default ({@value #DEFAULT_IPC_MODE});
 * {@link #withIpcMode(String)} chooses another namespace, and then {@link #withSharedMemorySize(Long)} sizes
 * {@code /dev/shm} (ignored by Docker with the host namespace).
 *
 * <h2>Model cache</h2>
 * {@link #withModelCache(Path)} mounts a host Hugging Face cache read-write, as both projects' Docker examples above
 * do: the hub client keeps lock files ({@code .locks/}) and revision refs in the cache and downloads whatever files of
 * a model are missing into it (Hugging Face Hub documentation, "Hub Local Cache"). Mount it
 * {@link #withModelCache(Path, boolean) read-only} when the cache is complete and shared; the engines run as root in
 * the official images, so what they write is owned by root.
 *
 * <p>Nothing secret is logged: {@code HF_TOKEN} goes into the container's environment only, and {@link #toString()}
 * shows the image and the model.
 *
 * @param <SELF> the concrete container type, for fluent setters
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1")
public abstract class EngineContainer<SELF extends EngineContainer<SELF>> extends GenericContainer<SELF>
        implements ManagedEngine {

    /** Where the profiler directory is mounted inside the container. */
    public static final String CONTAINER_PROFILER_DIR = "/profiles";

    /** Where the Hugging Face cache is mounted inside the container (the images' {@code HF_HOME} default). */
    public static final String CONTAINER_MODEL_CACHE = "/root/.cache/huggingface";

    /** Model loads and CUDA-graph capture take minutes on real GPUs. */
    public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofMinutes(20);

    /** The IPC namespace engines run in unless {@link #withIpcMode(String)} says otherwise: the host's. */
    public static final String DEFAULT_IPC_MODE = "host";

    private static final Logger LOG = LoggerFactory.getLogger(EngineContainer.class);

    // Docker's HostConfig.IpcMode values (docker run --ipc): host, private, shareable, none, container:<name|id>.
    private static final Pattern IPC_MODE = Pattern.compile("host|private|shareable|none|container:[\\w][\\w.-]*");

    private final DockerImageName image;
    private final int port;
    private String model;
    private int tensorParallelSize = 1;
    private int dataParallelSize = 1;
    private final List<String> serverArgs = new ArrayList<>();
    private DeviceRequest gpus;
    private String ipcMode = DEFAULT_IPC_MODE;
    private Path modelCache;
    private boolean modelCacheReadOnly;
    private Path profilerDirectory;
    private NsysCapture nsys;

    protected EngineContainer(DockerImageName image, DockerImageName compatibleWith, int port, String defaultModel) {
        super(Objects.requireNonNull(image, "image"));
        image.assertCompatibleWith(compatibleWith);
        this.image = image;
        this.port = port;
        this.model = defaultModel;
        addExposedPort(port);
        waitingFor(Wait.forHttp("/health").forPort(port).forStatusCode(200)
                .withStartupTimeout(DEFAULT_STARTUP_TIMEOUT));
        String token = System.getenv("HF_TOKEN");
        if (token != null && !token.isBlank()) {
            addEnv("HF_TOKEN", token);
        }
    }

    /** The model to serve: a Hugging Face hub id or a path inside the container. */
    public SELF withModel(String model) {
        this.model = Objects.requireNonNull(model, "model");
        return self();
    }

    /** Tensor-parallel size ({@code --tp-size} / {@code --tensor-parallel-size}); at least 1. */
    public SELF withTensorParallelSize(int size) {
        this.tensorParallelSize = positive(size, "tensor-parallel size");
        return self();
    }

    /** Data-parallel size ({@code --dp-size} / {@code --data-parallel-size}); at least 1. */
    public SELF withDataParallelSize(int size) {
        this.dataParallelSize = positive(size, "data-parallel size");
        return self();
    }

    /** Extra arguments appended verbatim to the engine's launch command. */
    public SELF withServerArgs(String... args) {
        serverArgs.addAll(Arrays.asList(args));
        return self();
    }

    /** All GPUs of the host, through a Docker device request (the {@code --gpus all} of {@code docker run}). */
    public SELF withGpus() {
        gpus = new DeviceRequest().withDriver("nvidia").withCount(-1).withCapabilities(List.of(List.of("gpu")));
        return self();
    }

    /** {@code count} GPUs of the host ({@code --gpus N}). */
    public SELF withGpuCount(int count) {
        gpus = new DeviceRequest().withDriver("nvidia").withCount(positive(count, "GPU count"))
                .withCapabilities(List.of(List.of("gpu")));
        return self();
    }

    /** The GPUs with these ids or UUIDs ({@code --gpus '"device=0,1"'}). */
    public SELF withGpuDeviceIds(String... ids) {
        if (ids.length == 0) {
            throw new IllegalArgumentException("withGpuDeviceIds needs at least one device id");
        }
        gpus = new DeviceRequest().withDriver("nvidia").withDeviceIds(List.of(ids))
                .withCapabilities(List.of(List.of("gpu")));
        return self();
    }

    /**
     * The IPC namespace of the container, Docker's {@code --ipc}: {@code host} (the default), {@code private},
     * {@code shareable}, {@code none} or {@code container:<name|id>}. Outside the host namespace {@code /dev/shm} is
     * Docker's 64 MB unless {@link #withSharedMemorySize(Long)} sets it.
     *
     * @throws IllegalArgumentException for any other value
     */
    public SELF withIpcMode(String mode) {
        if (mode == null || !IPC_MODE.matcher(mode).matches()) {
            throw new IllegalArgumentException("IPC mode '" + mode + "' is not one of Docker's: host, private, "
                    + "shareable, none or container:<name|id>");
        }
        this.ipcMode = mode;
        return self();
    }

    /** {@code true}: the host's IPC namespace (the default); {@code false}: a private one, see {@link #withIpcMode}. */
    public SELF withHostIpc(boolean host) {
        return withIpcMode(host ? "host" : "private");
    }

    /** Mounts a host Hugging Face cache read-write at {@value #CONTAINER_MODEL_CACHE}, so models are not downloaded. */
    public SELF withModelCache(Path hostDirectory) {
        return withModelCache(hostDirectory, false);
    }

    /**
     * Mounts a host Hugging Face cache at {@value #CONTAINER_MODEL_CACHE}, read-only or read-write; replaces an
     * earlier model cache.
     *
     * @throws IllegalArgumentException when {@code hostDirectory} is not a directory
     */
    public SELF withModelCache(Path hostDirectory, boolean readOnly) {
        if (!Files.isDirectory(hostDirectory)) {
            throw new IllegalArgumentException("model cache " + hostDirectory + " is not a directory");
        }
        List<Bind> others = new ArrayList<>(getBinds());
        others.removeIf(bind -> bind.getVolume().getPath().equals(CONTAINER_MODEL_CACHE));
        setBinds(others);
        this.modelCache = hostDirectory.toAbsolutePath().normalize();
        this.modelCacheReadOnly = readOnly;
        withFileSystemBind(modelCache.toString(), CONTAINER_MODEL_CACHE,
                readOnly ? BindMode.READ_ONLY : BindMode.READ_WRITE);
        return self();
    }

    /**
     * Bind-mounts {@code hostDirectory} (created if missing, made writable for the container's user) at
     * {@value #CONTAINER_PROFILER_DIR} and points the engine's profiler there; {@link #traceDirectory()} then maps
     * the one to the other for trace collection.
     */
    public SELF withProfilerDirectory(Path hostDirectory) {
        Path dir = hostDirectory.toAbsolutePath().normalize();
        try {
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        } catch (IOException | UnsupportedOperationException e) {
            throw new UncheckedIOException(new IOException("Cannot prepare profiler directory " + dir + " for the "
                    + "container to write into (" + e + "); create it writable by the container's user (root in "
                    + "the official images) or choose another directory", e));
        }
        this.profilerDirectory = dir;
        withFileSystemBind(dir.toString(), CONTAINER_PROFILER_DIR, BindMode.READ_WRITE);
        return self();
    }

    /** Runs the engine under Nsight Systems, see {@link NsysCapture}. Needs an image with {@code nsys} installed. */
    public SELF withNsys(NsysCapture capture) {
        this.nsys = Objects.requireNonNull(capture, "capture");
        return self();
    }

    /** Startup timeout of the {@code /health} wait (default {@link #DEFAULT_STARTUP_TIMEOUT}). */
    public SELF withStartupTimeout(Duration timeout) {
        waitingFor(Wait.forHttp("/health").forPort(port).forStatusCode(200).withStartupTimeout(timeout));
        return self();
    }

    @Override
    protected void configure() {
        List<String> launch = launchCommand();
        if (nsys != null) {
            launch = nsys.wrap(launch, CONTAINER_PROFILER_DIR);
            List<String> wrapped = launch;
            withCreateContainerCmdModifier(cmd -> cmd.withEntrypoint(wrapped.get(0)));
            setCommand(wrapped.subList(1, wrapped.size()).toArray(String[]::new));
        } else if (usesImageEntrypoint()) {
            setCommand(launch.subList(entrypointLength(), launch.size()).toArray(String[]::new));
        } else {
            setCommand(launch.toArray(String[]::new));
        }
        String ipc = ipcMode;
        DeviceRequest request = gpus;
        withCreateContainerCmdModifier(cmd -> {
            HostConfig host = cmd.getHostConfig();
            if (host == null) {
                host = HostConfig.newHostConfig();
                cmd.withHostConfig(host);
            }
            host.withIpcMode(ipc);
            if (request != null) {
                host.withDeviceRequests(List.of(request));
            }
        });
        if (!ipc.equals("host") && getShmSize() == null) {
            LOG.warn("{} runs with IPC mode {} and Docker's 64 MB /dev/shm, too small for PyTorch's "
                    + "inter-process tensors once TP > 1; set withSharedMemorySize(...) "
                    + "(" + ProfiledRolloutKeys.CONTAINER_SHM_SIZE + ") or keep the host IPC namespace", this, ipc);
        }
    }

    /** The engine's full launch command, entrypoint included, e.g. {@code python3 -m sglang.launch_server …}. */
    public abstract List<String> launchCommand();

    /** Whether the image's own entrypoint is the start of {@link #launchCommand()} (vLLM's {@code vllm serve}). */
    protected boolean usesImageEntrypoint() {
        return false;
    }

    /** How many leading words of {@link #launchCommand()} the image's entrypoint already supplies. */
    protected int entrypointLength() {
        return 0;
    }

    /**
     * Starts collection in the container's interactive Nsight Systems session ({@code nsys start --session=…}, run
     * with {@code execInContainer}).
     *
     * @return nsys's output
     * @throws IllegalStateException when the container was not configured {@link #withNsys(NsysCapture) with} an
     *                               interactive session, or nsys exits non-zero (the message holds its output)
     */
    public String nsysStart() {
        return nsysExec(requireNsys().startCommand());
    }

    /** Stops collection and writes a report into the profiler directory, leaving the engine running. */
    public String nsysStop() {
        return nsysExec(requireNsys().stopCommand());
    }

    private NsysCapture requireNsys() {
        if (nsys == null) {
            throw new IllegalStateException(this + " does not run under nsys; configure withNsys(...)");
        }
        return nsys;
    }

    private String nsysExec(List<String> command) {
        try {
            ExecResult result = execInContainer(command.toArray(String[]::new));
            if (result.getExitCode() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " exited " + result.getExitCode()
                        + ": " + result.getStderr() + result.getStdout());
            }
            return result.getStdout();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted running " + String.join(" ", command), e);
        }
    }

    /** @return the Docker device request this container will make, if GPUs were asked for */
    public Optional<DeviceRequest> gpuRequest() {
        return Optional.ofNullable(gpus);
    }

    /**
     * @return the image as given to the constructor, without resolving it (unlike {@link #getDockerImageName()},
     *         which pulls it when missing)
     */
    public DockerImageName imageName() {
        return image;
    }

    /** @return Docker's IPC mode for this container, {@value #DEFAULT_IPC_MODE} unless changed */
    public String getIpcMode() {
        return ipcMode;
    }

    /** @return the host directory mounted as the Hugging Face cache, if any */
    public Optional<Path> modelCache() {
        return Optional.ofNullable(modelCache);
    }

    /** @return whether the {@link #modelCache() model cache} is mounted read-only */
    public boolean isModelCacheReadOnly() {
        return modelCacheReadOnly;
    }

    /** @return the Nsight Systems capture this container runs under, if any */
    public Optional<NsysCapture> nsys() {
        return Optional.ofNullable(nsys);
    }

    public String getModel() {
        return model;
    }

    public int getTensorParallelSize() {
        return tensorParallelSize;
    }

    public int getDataParallelSize() {
        return dataParallelSize;
    }

    protected List<String> getServerArgs() {
        return List.copyOf(serverArgs);
    }

    protected int enginePort() {
        return port;
    }

    protected boolean hasProfilerDirectory() {
        return profilerDirectory != null;
    }

    /** @return {@code http://<host>:<mapped port>} */
    public String getEndpoint() {
        return "http://" + getHost() + ":" + getMappedPort(port);
    }

    @Override
    public boolean isRunning() {
        return super.isRunning();
    }

    @Override
    public URI engineUri() {
        return URI.create(getEndpoint());
    }

    @Override
    public Optional<TraceDirectory> traceDirectory() {
        return Optional.ofNullable(profilerDirectory)
                .map(dir -> new TraceDirectory(CONTAINER_PROFILER_DIR, dir));
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + image.asCanonicalNameString() + ", model " + model + "]";
    }

    private static int positive(int value, String what) {
        if (value < 1) {
            throw new IllegalArgumentException(what + " must be at least 1, was " + value);
        }
        return value;
    }
}
