package dev.profiledrollout.containers;

import dev.profiledrollout.Backend;
import java.util.ArrayList;
import java.util.List;
import org.testcontainers.utility.DockerImageName;

/**
 * An SGLang server in a container, for profiled tests on GPU runners.
 *
 * <p>Supported image: {@code lmsysorg/sglang} (or an image declared a compatible substitute). Exposed port:
 * {@value #PORT}. The launch command is SGLang's own:
 * {@code python3 -m sglang.launch_server --model-path M --host 0.0.0.0 --port 30000 --tp-size T [--dp-size D] …};
 * with {@link #withProfilerDirectory(java.nio.file.Path)} the environment gets
 * {@code SGLANG_TORCH_PROFILER_DIR=/profiles} ({@code docs/PROTOCOLS.md} §1.1: the profiler's default
 * {@code output_dir}).
 *
 * <pre>{@code
 * @RolloutEngine
 * static SglangContainer engine = new SglangContainer("lmsysorg/sglang:v0.5.5-cu129")
 *         .withModel("Qwen/Qwen3-8B")
 *         .withTensorParallelSize(2)
 *         .withGpus()
 *         .withSharedMemorySize(16L << 30)
 *         .withModelCache(Path.of(System.getProperty("user.home"), ".cache/huggingface"))
 *         .withProfilerDirectory(Path.of("target/profiles"));
 * }</pre>
 */
public class SglangContainer extends EngineContainer<SglangContainer> {

    /** The official image. */
    public static final DockerImageName DEFAULT_IMAGE_NAME = DockerImageName.parse("lmsysorg/sglang");

    /** SGLang's default HTTP port. */
    public static final int PORT = 30000;

    /** The model served when {@link #withModel(String)} is not called. */
    public static final String DEFAULT_MODEL = "meta-llama/Llama-3.1-8B-Instruct";

    /** @param image e.g. {@code "lmsysorg/sglang:v0.5.5-cu129"} */
    public SglangContainer(String image) {
        this(DockerImageName.parse(image));
    }

    /** @param image {@code lmsysorg/sglang:…} or an image declared {@code asCompatibleSubstituteFor("lmsysorg/sglang")} */
    public SglangContainer(DockerImageName image) {
        super(image, DEFAULT_IMAGE_NAME, PORT, DEFAULT_MODEL);
    }

    @Override
    public Backend backend() {
        return Backend.SGLANG;
    }

    @Override
    protected void configure() {
        if (hasProfilerDirectory()) {
            addEnv("SGLANG_TORCH_PROFILER_DIR", CONTAINER_PROFILER_DIR);
        }
        super.configure();
    }

    @Override
    public List<String> launchCommand() {
        List<String> command = new ArrayList<>(List.of("python3", "-m", "sglang.launch_server",
                "--model-path", getModel(), "--host", "0.0.0.0", "--port", String.valueOf(PORT),
                "--tp-size", String.valueOf(getTensorParallelSize())));
        if (getDataParallelSize() > 1) {
            command.add("--dp-size");
            command.add(String.valueOf(getDataParallelSize()));
        }
        command.addAll(getServerArgs());
        return command;
    }
}
