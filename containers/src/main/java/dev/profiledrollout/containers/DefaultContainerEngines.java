package dev.profiledrollout.containers;

import dev.profiledrollout.Backend;
import dev.profiledrollout.engine.ManagedEngine;
import dev.profiledrollout.engine.ManagedEngineProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apiguardian.api.API;
import org.testcontainers.utility.DockerImageName;

/**
 * The engine of {@code profiledrollout.engine=container}: an {@link SglangContainer} or {@link VllmContainer} built from
 * configuration, so a suite can move from the simulator to a GPU runner without code changes.
 *
 * <table>
 *   <caption>Keys (JUnit configuration parameter, system property or {@code PROFILEDROLLOUT_…} variable)</caption>
 *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@code profiledrollout.container.image}</td><td>the image; taken as a substitute for the official one</td>
 *       <td>{@link SglangContainer#DEFAULT_IMAGE} / {@link VllmContainer#DEFAULT_IMAGE}</td></tr>
 *   <tr><td>{@code profiledrollout.container.model}</td><td>hub id or path in the container</td>
 *       <td>{@code meta-llama/Llama-3.1-8B-Instruct}</td></tr>
 *   <tr><td>{@code profiledrollout.container.tp}</td><td>tensor-parallel size</td><td>1</td></tr>
 *   <tr><td>{@code profiledrollout.container.gpus}</td><td>{@code all}, a count, comma-separated device ids, or
 *       {@code none}</td><td>{@code all}</td></tr>
 *   <tr><td>{@code profiledrollout.container.ipc}</td><td>Docker IPC mode: {@code host}, {@code private},
 *       {@code shareable}, {@code none} or {@code container:<name|id>}</td><td>{@code host}</td></tr>
 *   <tr><td>{@code profiledrollout.container.shm.size}</td><td>size of {@code /dev/shm} when the IPC mode is not
 *       {@code host}: bytes, or a number with unit {@code k}, {@code m} or {@code g} (binary, as
 *       {@code docker run --shm-size}), e.g. {@code 16g}</td><td>Docker's 64 MB</td></tr>
 *   <tr><td>{@code profiledrollout.container.model.cache}</td><td>host Hugging Face cache to mount</td>
 *       <td>none</td></tr>
 *   <tr><td>{@code profiledrollout.container.model.cache.readonly}</td><td>{@code true} mounts the model cache
 *       read-only</td><td>{@code false}</td></tr>
 *   <tr><td>{@code profiledrollout.container.vllm.version}</td><td>the vLLM version in the image, when its tag does
 *       not say; picks {@code --profiler-config} (0.13 and later) or {@code VLLM_TORCH_PROFILER_DIR}</td>
 *       <td>from the tag, else newest</td></tr>
 *   <tr><td>{@code profiledrollout.container.args}</td><td>extra server arguments, space-separated</td><td>none</td></tr>
 *   <tr><td>{@code profiledrollout.container.startup.timeout}</td><td>seconds to wait for {@code /health}</td>
 *       <td>1200</td></tr>
 * </table>
 * The profiler directory is mounted from {@code <output dir>/container-profiles/<backend>}.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1")
public final class DefaultContainerEngines implements ManagedEngineProvider {

    public static final String IMAGE = "profiledrollout.container.image";
    public static final String MODEL = "profiledrollout.container.model";
    public static final String TP = "profiledrollout.container.tp";
    public static final String GPUS = "profiledrollout.container.gpus";
    public static final String IPC = "profiledrollout.container.ipc";
    public static final String SHM_SIZE = "profiledrollout.container.shm.size";
    public static final String MODEL_CACHE = "profiledrollout.container.model.cache";
    public static final String MODEL_CACHE_READONLY = "profiledrollout.container.model.cache.readonly";
    public static final String VLLM_VERSION = "profiledrollout.container.vllm.version";
    public static final String ARGS = "profiledrollout.container.args";
    public static final String STARTUP_TIMEOUT = "profiledrollout.container.startup.timeout";

    // docker run --shm-size: a number and an optional unit b, k, m or g (binary multiples); "gb"/"GiB" tolerated.
    private static final Pattern SIZE = Pattern.compile("(\\d{1,15})\\s*(?:([kmg])i?b?|b)?", Pattern.CASE_INSENSITIVE);

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException for a bad value of a key above, naming the key and what it accepts
     */
    @Override
    public ManagedEngine create(Backend backend, Function<String, Optional<String>> settings, Path profilerRoot) {
        DockerImageName official = backend == Backend.VLLM ? VllmContainer.DEFAULT_IMAGE_NAME
                : SglangContainer.DEFAULT_IMAGE_NAME;
        DockerImageName image = settings.apply(IMAGE).map(DockerImageName::parse)
                .map(name -> name.asCompatibleSubstituteFor(official))
                .orElse(backend == Backend.VLLM ? VllmContainer.DEFAULT_IMAGE : SglangContainer.DEFAULT_IMAGE);
        EngineContainer<?> engine;
        if (backend == Backend.VLLM) {
            VllmContainer vllm = new VllmContainer(image);
            settings.apply(VLLM_VERSION).ifPresent(v -> {
                try {
                    vllm.withVllmVersion(v);
                } catch (IllegalArgumentException e) {
                    throw invalid(VLLM_VERSION, v, "expected a vLLM version such as 0.11.0");
                }
            });
            engine = vllm;
        } else {
            engine = new SglangContainer(image);
        }
        settings.apply(MODEL).ifPresent(engine::withModel);
        settings.apply(TP).ifPresent(tp -> engine.withTensorParallelSize(number(TP, tp)));
        String gpus = settings.apply(GPUS).orElse("all").trim().toLowerCase(Locale.ROOT);
        if (gpus.equals("all")) {
            engine.withGpus();
        } else if (gpus.matches("\\d+")) {
            engine.withGpuCount(number(GPUS, gpus));
        } else if (!gpus.equals("none")) {
            engine.withGpuDeviceIds(gpus.split("\\s*,\\s*"));
        }
        settings.apply(IPC).map(String::trim).ifPresent(mode -> {
            try {
                engine.withIpcMode(mode);
            } catch (IllegalArgumentException e) {
                throw invalid(IPC, mode, "expected host, private, shareable, none or container:<name|id>");
            }
        });
        settings.apply(SHM_SIZE).ifPresent(size -> engine.withSharedMemorySize(bytes(SHM_SIZE, size)));
        boolean readOnly = settings.apply(MODEL_CACHE_READONLY).map(v -> bool(MODEL_CACHE_READONLY, v)).orElse(false);
        settings.apply(MODEL_CACHE).ifPresent(dir -> engine.withModelCache(Path.of(dir), readOnly));
        settings.apply(ARGS).ifPresent(args -> engine.withServerArgs(args.trim().split("\\s+")));
        settings.apply(STARTUP_TIMEOUT)
                .ifPresent(s -> engine.withStartupTimeout(Duration.ofSeconds(number(STARTUP_TIMEOUT, s))));
        engine.withProfilerDirectory(profilerRoot.resolve(backend.name().toLowerCase(Locale.ROOT)));
        return engine;
    }

    private static int number(String key, String value) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n < 1) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw invalid(key, value, "expected a positive integer");
        }
    }

    private static long bytes(String key, String value) {
        Matcher m = SIZE.matcher(value.trim());
        if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
            throw invalid(key, value, "expected a positive size in bytes or with unit k, m or g, e.g. 16g");
        }
        int shift = m.group(2) == null ? 0 : switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            default -> 30;
        };
        long n = Long.parseLong(m.group(1));
        if (n > Long.MAX_VALUE >> shift) {
            throw invalid(key, value, "the size is too large");
        }
        return n << shift;
    }

    private static boolean bool(String key, String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw invalid(key, value, "expected true or false");
        };
    }

    private static IllegalArgumentException invalid(String key, String value, String expected) {
        return new IllegalArgumentException("Invalid " + key + "='" + value + "': " + expected);
    }
}
