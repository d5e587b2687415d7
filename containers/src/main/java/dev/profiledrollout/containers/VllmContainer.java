package dev.profiledrollout.containers;

import dev.profiledrollout.Backend;
import java.util.ArrayList;
import java.util.List;
import org.testcontainers.utility.DockerImageName;

/**
 * A vLLM OpenAI-compatible server in a container, for profiled tests on GPU runners.
 *
 * <p>Supported image: {@code vllm/vllm-openai} (or an image declared a compatible substitute), whose entrypoint is
 * {@code vllm serve}. Exposed port: {@value #PORT}. The launch command is
 * {@code vllm serve M --host 0.0.0.0 --port 8000 --tensor-parallel-size T [--data-parallel-size D] …}; with
 * {@link #withProfilerDirectory(java.nio.file.Path)} it adds
 * {@code --profiler-config {"profiler":"torch","torch_profiler_dir":"/profiles"}} — without a profiler config vLLM
 * does not even register {@code /start_profile} ({@code docs/PROTOCOLS.md} §2.1). {@code VLLM_RPC_TIMEOUT} is raised to
 * 30 minutes as vLLM's profiling docs advised for versions whose stop went through that RPC timeout (§2.3).
 */
public class VllmContainer extends EngineContainer<VllmContainer> {

    /** The official image. */
    public static final DockerImageName DEFAULT_IMAGE_NAME = DockerImageName.parse("vllm/vllm-openai");

    /** vLLM's default HTTP port. */
    public static final int PORT = 8000;

    /** The model served when {@link #withModel(String)} is not called. */
    public static final String DEFAULT_MODEL = "meta-llama/Llama-3.1-8B-Instruct";

    private String profilerConfig;

    /** @param image e.g. {@code "vllm/vllm-openai:v0.11.0"} */
    public VllmContainer(String image) {
        this(DockerImageName.parse(image));
    }

    /** @param image {@code vllm/vllm-openai:…} or an image declared {@code asCompatibleSubstituteFor("vllm/vllm-openai")} */
    public VllmContainer(DockerImageName image) {
        super(image, DEFAULT_IMAGE_NAME, PORT, DEFAULT_MODEL);
        addEnv("VLLM_RPC_TIMEOUT", "1800000");
    }

    /**
     * Replaces the generated {@code --profiler-config} JSON ({@code docs/PROTOCOLS.md} §2.2), e.g. to set
     * {@code max_iterations} or the {@code cuda} profiler. Its {@code torch_profiler_dir} should be
     * {@value #CONTAINER_PROFILER_DIR} for the traces to reach the mounted directory.
     */
    public VllmContainer withProfilerConfig(String json) {
        this.profilerConfig = json;
        return self();
    }

    @Override
    public Backend backend() {
        return Backend.VLLM;
    }

    @Override
    public List<String> launchCommand() {
        List<String> command = new ArrayList<>(List.of("vllm", "serve", getModel(), "--host", "0.0.0.0",
                "--port", String.valueOf(PORT), "--tensor-parallel-size", String.valueOf(getTensorParallelSize())));
        if (getDataParallelSize() > 1) {
            command.add("--data-parallel-size");
            command.add(String.valueOf(getDataParallelSize()));
        }
        String config = profilerConfig != null ? profilerConfig : hasProfilerDirectory()
                ? "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + CONTAINER_PROFILER_DIR + "\"}" : null;
        if (config != null) {
            command.add("--profiler-config");
            command.add(config);
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
}
