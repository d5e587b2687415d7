package dev.profiledrollout.containers;

import static dev.profiledrollout.ProfiledRolloutKeys.CONTAINER_ARGS;
import static dev.profiledrollout.ProfiledRolloutKeys.CONTAINER_GPUS;
import static dev.profiledrollout.ProfiledRolloutKeys.CONTAINER_IMAGE;
import static dev.profiledrollout.ProfiledRolloutKeys.CONTAINER_IPC;
import static dev.profiledrollout.ProfiledRolloutKeys.CONTAINER_MODEL;
import static dev.profiledrollout.ProfiledRolloutKeys.CONTAINER_MODEL_CACHE;
import static dev.profiledrollout.ProfiledRolloutKeys.CONTAINER_MODEL_CACHE_READONLY;
import static dev.profiledrollout.ProfiledRolloutKeys.CONTAINER_SHM_SIZE;
import static dev.profiledrollout.ProfiledRolloutKeys.CONTAINER_STARTUP_TIMEOUT;
import static dev.profiledrollout.ProfiledRolloutKeys.CONTAINER_TP;
import static dev.profiledrollout.ProfiledRolloutKeys.CONTAINER_VLLM_VERSION;

import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.engine.ManagedEngine;
import dev.profiledrollout.engine.ManagedEngineProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apiguardian.api.API;
import org.testcontainers.utility.DockerImageName;

/**
 * The engine of {@code profiledrollout.engine=container}: an {@link SglangContainer} or {@link VllmContainer} built from
 * the {@code profiledrollout.container.*} keys of {@link ProfiledRolloutKeys} (scope
 * {@link ProfiledRolloutKeys.Scope#CONTAINER}: image, model, TP size, GPUs, IPC mode, shared memory, model cache, vLLM
 * version, extra server arguments, startup timeout), so a suite can move from the simulator to a GPU runner without
 * code changes. The profiler directory is mounted from {@code <output dir>/container-profiles/<backend>}.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1")
public final class DefaultContainerEngines implements ManagedEngineProvider {

    /**
     * The container of one backend: its official image name (what a substitute image stands for), the pinned default
     * image, and how a container is made from an image and the settings.
     */
    private record Kind(Backend backend, DockerImageName official, DockerImageName defaultImage,
            BiFunction<DockerImageName, Function<String, Optional<String>>, EngineContainer<?>> create) {
    }

    /** One entry per backend that has an official image; a new backend's container is one more entry. */
    private static final List<Kind> KINDS = List.of(
            new Kind(Backend.SGLANG, SglangContainer.DEFAULT_IMAGE_NAME, SglangContainer.DEFAULT_IMAGE,
                    (image, settings) -> new SglangContainer(image)),
            new Kind(Backend.VLLM, VllmContainer.DEFAULT_IMAGE_NAME, VllmContainer.DEFAULT_IMAGE,
                    DefaultContainerEngines::vllm),
            new Kind(Backend.TRTLLM, TrtllmContainer.DEFAULT_IMAGE_NAME, TrtllmContainer.DEFAULT_IMAGE,
                    DefaultContainerEngines::trtllm));

    /** The span of {@code profiledrollout.trtllm.profile.start.stop}, set in the container's launch environment. */
    private static EngineContainer<?> trtllm(DockerImageName image, Function<String, Optional<String>> settings) {
        TrtllmContainer trtllm = new TrtllmContainer(image);
        settings.apply(ProfiledRolloutKeys.TRTLLM_PROFILE_START_STOP).ifPresent(span -> {
            Matcher m = Pattern.compile("\\s*(\\d{1,9})\\s*-\\s*(\\d{1,9})\\s*").matcher(span);
            try {
                if (!m.matches()) {
                    throw new IllegalArgumentException(span);
                }
                trtllm.withProfileRange(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
            } catch (IllegalArgumentException e) {
                throw invalid(ProfiledRolloutKeys.TRTLLM_PROFILE_START_STOP, span,
                        "expected one span <start>-<stop> with stop > start, e.g. 10-20");
            }
        });
        return trtllm;
    }

    private static EngineContainer<?> vllm(DockerImageName image, Function<String, Optional<String>> settings) {
        VllmContainer vllm = new VllmContainer(image);
        settings.apply(CONTAINER_VLLM_VERSION).ifPresent(v -> {
            try {
                vllm.withVllmVersion(v);
            } catch (IllegalArgumentException e) {
                throw invalid(CONTAINER_VLLM_VERSION, v, "expected a vLLM version such as 0.11.0");
            }
        });
        return vllm;
    }

    // docker run --shm-size: a number and an optional unit b, k, m or g (binary multiples); "gb"/"GiB" tolerated.
    private static final Pattern SIZE = Pattern.compile("(\\d{1,15})\\s*(?:([kmg])i?b?|b)?", Pattern.CASE_INSENSITIVE);

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException for a bad value of a container key, naming the key and what it accepts
     */
    @Override
    public ManagedEngine create(Backend backend, Function<String, Optional<String>> settings, Path profilerRoot) {
        Kind kind = KINDS.stream().filter(k -> k.backend() == backend).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("No container image is known for backend " + backend
                        + "; attach to a running server instead (profiledrollout.engine.url)"));
        DockerImageName image = settings.apply(CONTAINER_IMAGE).map(DockerImageName::parse)
                .map(name -> name.asCompatibleSubstituteFor(kind.official()))
                .orElse(kind.defaultImage());
        EngineContainer<?> engine = kind.create().apply(image, settings);
        settings.apply(CONTAINER_MODEL).ifPresent(engine::withModel);
        settings.apply(CONTAINER_TP).ifPresent(tp -> engine.withTensorParallelSize(number(CONTAINER_TP, tp)));
        String gpus = settings.apply(CONTAINER_GPUS)
                .orElseGet(() -> ProfiledRolloutKeys.defaultValue(CONTAINER_GPUS).orElseThrow())
                .trim().toLowerCase(Locale.ROOT);
        if (gpus.equals("all")) {
            engine.withGpus();
        } else if (gpus.matches("\\d+")) {
            engine.withGpuCount(number(CONTAINER_GPUS, gpus));
        } else if (!gpus.equals("none")) {
            engine.withGpuDeviceIds(gpus.split("\\s*,\\s*"));
        }
        settings.apply(CONTAINER_IPC).map(String::trim).ifPresent(mode -> {
            try {
                engine.withIpcMode(mode);
            } catch (IllegalArgumentException e) {
                throw invalid(CONTAINER_IPC, mode, "expected host, private, shareable, none or container:<name|id>");
            }
        });
        settings.apply(CONTAINER_SHM_SIZE)
                .ifPresent(size -> engine.withSharedMemorySize(bytes(CONTAINER_SHM_SIZE, size)));
        boolean readOnly = settings.apply(CONTAINER_MODEL_CACHE_READONLY)
                .map(v -> bool(CONTAINER_MODEL_CACHE_READONLY, v)).orElse(false);
        settings.apply(CONTAINER_MODEL_CACHE).ifPresent(dir -> engine.withModelCache(Path.of(dir), readOnly));
        settings.apply(CONTAINER_ARGS).ifPresent(args -> engine.withServerArgs(args.trim().split("\\s+")));
        settings.apply(CONTAINER_STARTUP_TIMEOUT)
                .ifPresent(s -> engine.withStartupTimeout(Duration.ofSeconds(number(CONTAINER_STARTUP_TIMEOUT, s))));
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
