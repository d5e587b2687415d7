package dev.profiledrollout.containers;

import dev.profiledrollout.Backend;
import dev.profiledrollout.engine.ManagedEngine;
import dev.profiledrollout.engine.ManagedEngineProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.testcontainers.utility.DockerImageName;

/**
 * The engine of {@code profiledrollout.engine=container}: an {@link SglangContainer} or {@link VllmContainer} built from
 * configuration, so a suite can move from the simulator to a GPU runner without code changes.
 *
 * <table>
 *   <caption>Keys (JUnit configuration parameter, system property or {@code PROFILEDROLLOUT_…} variable)</caption>
 *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@code profiledrollout.container.image}</td><td>the image; taken as a substitute for the official one</td>
 *       <td>{@code lmsysorg/sglang:latest} / {@code vllm/vllm-openai:latest}</td></tr>
 *   <tr><td>{@code profiledrollout.container.model}</td><td>hub id or path in the container</td>
 *       <td>{@code meta-llama/Llama-3.1-8B-Instruct}</td></tr>
 *   <tr><td>{@code profiledrollout.container.tp}</td><td>tensor-parallel size</td><td>1</td></tr>
 *   <tr><td>{@code profiledrollout.container.gpus}</td><td>{@code all}, a count, comma-separated device ids, or
 *       {@code none}</td><td>{@code all}</td></tr>
 *   <tr><td>{@code profiledrollout.container.model.cache}</td><td>host Hugging Face cache, mounted read-only</td>
 *       <td>none</td></tr>
 *   <tr><td>{@code profiledrollout.container.args}</td><td>extra server arguments, space-separated</td><td>none</td></tr>
 *   <tr><td>{@code profiledrollout.container.startup.timeout}</td><td>seconds to wait for {@code /health}</td>
 *       <td>1200</td></tr>
 * </table>
 * The profiler directory is mounted from {@code <output dir>/container-profiles/<backend>}.
 */
public final class DefaultContainerEngines implements ManagedEngineProvider {

    public static final String IMAGE = "profiledrollout.container.image";
    public static final String MODEL = "profiledrollout.container.model";
    public static final String TP = "profiledrollout.container.tp";
    public static final String GPUS = "profiledrollout.container.gpus";
    public static final String MODEL_CACHE = "profiledrollout.container.model.cache";
    public static final String ARGS = "profiledrollout.container.args";
    public static final String STARTUP_TIMEOUT = "profiledrollout.container.startup.timeout";

    @Override
    public ManagedEngine create(Backend backend, Function<String, Optional<String>> settings, Path profilerRoot) {
        DockerImageName official = backend == Backend.VLLM ? VllmContainer.DEFAULT_IMAGE_NAME
                : SglangContainer.DEFAULT_IMAGE_NAME;
        DockerImageName image = settings.apply(IMAGE).map(DockerImageName::parse)
                .map(name -> name.asCompatibleSubstituteFor(official))
                .orElse(official.withTag("latest"));
        EngineContainer<?> engine = backend == Backend.VLLM ? new VllmContainer(image) : new SglangContainer(image);
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
        settings.apply(MODEL_CACHE).ifPresent(dir -> engine.withModelCache(Path.of(dir)));
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
            throw new IllegalArgumentException("Invalid " + key + "='" + value + "': expected a positive integer");
        }
    }
}
