package dev.profiledrollout.containers;

import dev.profiledrollout.Backend;
import java.util.ArrayList;
import java.util.List;
import org.apiguardian.api.API;
import org.testcontainers.utility.DockerImageName;

/**
 * An SGLang server in a container, for profiled tests on GPU runners.
 *
 * <p>Supported image: {@code lmsysorg/sglang} (or an image declared a compatible substitute). Exposed port:
 * {@value #PORT}. The launch command is SGLang's own:
 * {@code python3 -m sglang.launch_server --model-path M --host 0.0.0.0 --port 30000 --tp-size T [--dp-size D] …};
 * with {@link #withProfilerDirectory(java.nio.file.Path)} the environment gets
 * {@code SGLANG_TORCH_PROFILER_DIR=/profiles} (the profiler's default {@code output_dir}).
 *
 * <h2>Image and driver</h2>
 * {@link #SglangContainer()} runs {@value #DEFAULT_TAG}, pinned rather than {@code latest}: SGLang 0.5.20, released
 * 2026-09-18, the newest release whose profile contract was checked here. SGLang's images after 0.5.19 ship CUDA 13
 * only and need a CUDA-13-capable NVIDIA driver (R580 or newer). For older drivers {@link #CUDA12_IMAGE},
 * {@value #CUDA12_TAG}, is the last CUDA 12 tag (sgl-project/sglang {@code docs/docs/get-started/install.mdx}); it
 * carries CUDA 12.9, whose minimum Linux driver is 575.51.03 (NVIDIA CUDA Toolkit release notes, "CUDA Toolkit and
 * Corresponding Driver Versions"). The parts of SGLang this project drives ({@code /start_profile},
 * {@code /stop_profile}, {@code SGLANG_TORCH_PROFILER_DIR}) are the same in both. This project's CI has no GPU, so
 * the pinned tag's command line is checked by inspection and its protocol against the engine simulator, not by
 * running the image.
 *
 * <pre>{@code
 * @RolloutEngine
 * static SglangContainer engine = new SglangContainer()      // lmsysorg/sglang:v0.5.20, host IPC
 *         .withModel("Qwen/Qwen3-8B")
 *         .withTensorParallelSize(2)
 *         .withGpus()
 *         .withModelCache(Path.of(System.getProperty("user.home"), ".cache/huggingface"))
 *         .withProfilerDirectory(Path.of("target/profiles"));
 * }</pre>
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1")
public class SglangContainer extends EngineContainer<SglangContainer> {

    /** The official image, untagged: what {@link #SglangContainer(DockerImageName)} accepts. */
    public static final DockerImageName DEFAULT_IMAGE_NAME = DockerImageName.parse("lmsysorg/sglang");

    /** The pinned tag of {@link #DEFAULT_IMAGE}: SGLang 0.5.20 on CUDA 13, needing an R580+ NVIDIA driver. */
    public static final String DEFAULT_TAG = "v0.5.20";

    /** The last CUDA 12 tag: SGLang 0.5.19 on CUDA 12.9, for R575+ drivers. */
    public static final String CUDA12_TAG = "v0.5.19-cu129";

    /** {@link #CUDA12_TAG} of the official image, for hosts whose driver predates CUDA 13. */
    public static final DockerImageName CUDA12_IMAGE = DockerImageName.parse("lmsysorg/sglang").withTag(CUDA12_TAG);

    /** The image {@link #SglangContainer()} runs. */
    public static final DockerImageName DEFAULT_IMAGE = DEFAULT_IMAGE_NAME.withTag(DEFAULT_TAG);

    /** SGLang's default HTTP port. */
    public static final int PORT = 30000;

    /** The model served when {@link #withModel(String)} is not called. */
    public static final String DEFAULT_MODEL = "meta-llama/Llama-3.1-8B-Instruct";

    /** Runs {@link #DEFAULT_IMAGE}. */
    public SglangContainer() {
        this(DEFAULT_IMAGE);
    }

    /** @param image e.g. {@code "lmsysorg/sglang:v0.5.20"} */
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
