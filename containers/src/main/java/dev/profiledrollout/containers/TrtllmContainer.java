package dev.profiledrollout.containers;

import dev.profiledrollout.Backend;
import java.util.ArrayList;
import java.util.List;
import org.apiguardian.api.API;
import org.testcontainers.utility.DockerImageName;

/**
 * A TensorRT-LLM server ({@code trtllm-serve}, PyTorch backend) in a container, for profiled tests on GPU runners.
 *
 * <p>Supported image: {@code nvcr.io/nvidia/tensorrt-llm/release} (or an image declared a compatible substitute).
 * Exposed port: {@value #PORT}. The launch command is TensorRT-LLM's own:
 * {@code trtllm-serve M --host 0.0.0.0 --port 8000 --backend pytorch --tp_size T …} (NVIDIA/TensorRT-LLM
 * {@code tensorrt_llm/commands/serve.py}).
 *
 * <h2>Profiling is set at launch</h2>
 * {@code trtllm-serve} has no profile routes: {@link #withProfileRange(int, int)} sets
 * {@code TLLM_PROFILE_START_STOP=<start>-<stop>} in the container's environment, and the executor captures iterations
 * {@code start … stop-1} ({@code tensorrt_llm/_torch/pyexecutor/py_executor.py}, {@code _profiler};
 * {@code docs/PROTOCOLS.md} §6). With {@link #withProfilerDirectory(java.nio.file.Path)} it also sets
 * {@code TLLM_TORCH_PROFILE_TRACE=/profiles/trtllm.json}, so each rank writes {@code /profiles/trtllm-rank-<r>.json}
 * when the span ends; with {@link #withNsys(NsysCapture) withNsys(NsysCapture.cudaProfilerApi())} the server runs
 * under {@code nsys profile -c cudaProfilerApi}, as srt-slurm wraps its TensorRT-LLM workers
 * ({@code src/srtctl/core/schema.py}, {@code _get_nsys_prefix_trtllm}). A test states the same span with
 * {@code profiledrollout.trtllm.profile.start.stop}; the {@code container} engine sets it from there.
 *
 * <h2>Image and driver</h2>
 * {@link #TrtllmContainer()} runs {@value #DEFAULT_TAG}, pinned rather than {@code latest}: the newest stable release
 * tag seen in public use on the day this was written (1.3.0 tags were release candidates). TensorRT-LLM 1.2 images
 * carry CUDA 13 and need an R580 or newer NVIDIA driver; for older drivers pass an earlier tag (1.0.x, CUDA 12.9,
 * R575+) to {@link #TrtllmContainer(String)}. The profiling environment above is the same in both. This project's CI
 * has no GPU: the command line and environment are checked by inspection, the protocol against the engine simulator.
 *
 * <p>Experimental, as the backend is.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.9")
public class TrtllmContainer extends EngineContainer<TrtllmContainer> {

    /** The official image, untagged: what {@link #TrtllmContainer(DockerImageName)} accepts. */
    public static final DockerImageName DEFAULT_IMAGE_NAME = DockerImageName.parse("nvcr.io/nvidia/tensorrt-llm/release");

    /** The pinned tag of {@link #DEFAULT_IMAGE}: TensorRT-LLM 1.2.1 on CUDA 13, needing an R580+ NVIDIA driver. */
    public static final String DEFAULT_TAG = "1.2.1";

    /** The image {@link #TrtllmContainer()} runs. */
    public static final DockerImageName DEFAULT_IMAGE = DEFAULT_IMAGE_NAME.withTag(DEFAULT_TAG);

    /** {@code trtllm-serve}'s default HTTP port. */
    public static final int PORT = 8000;

    /** The model served when {@link #withModel(String)} is not called. */
    public static final String DEFAULT_MODEL = "meta-llama/Llama-3.1-8B-Instruct";

    /** The torch trace path inside the container, under the profiler directory. */
    public static final String TRACE_FILE = CONTAINER_PROFILER_DIR + "/trtllm.json";

    private String profileRange;

    /** Runs {@link #DEFAULT_IMAGE}. */
    public TrtllmContainer() {
        this(DEFAULT_IMAGE);
    }

    /** @param image e.g. {@code "nvcr.io/nvidia/tensorrt-llm/release:1.2.1"} */
    public TrtllmContainer(String image) {
        this(DockerImageName.parse(image));
    }

    /** @param image the official image or one declared {@code asCompatibleSubstituteFor} it */
    public TrtllmContainer(DockerImageName image) {
        super(image, DEFAULT_IMAGE_NAME, PORT, DEFAULT_MODEL);
    }

    /**
     * Launches the server with {@code TLLM_PROFILE_START_STOP=<start>-<stop>}: it captures iterations
     * {@code start … stop-1}.
     *
     * @param start first captured iteration, ≥ 0
     * @param stop  iteration at whose top the capture stops, &gt; start
     * @return this container
     * @throws IllegalArgumentException for an empty or negative span
     */
    public TrtllmContainer withProfileRange(int start, int stop) {
        if (start < 0 || stop <= start) {
            throw new IllegalArgumentException("TLLM_PROFILE_START_STOP needs 0 <= start < stop, was " + start + "-"
                    + stop);
        }
        this.profileRange = start + "-" + stop;
        return self();
    }

    /** @return the {@code TLLM_PROFILE_START_STOP} value, or null when none is set */
    public String getProfileRange() {
        return profileRange;
    }

    @Override
    public Backend backend() {
        return Backend.TRTLLM;
    }

    @Override
    protected void configure() {
        if (profileRange != null) {
            addEnv("TLLM_PROFILE_START_STOP", profileRange);
            if (hasProfilerDirectory()) {
                addEnv("TLLM_TORCH_PROFILE_TRACE", TRACE_FILE);
            }
        }
        super.configure();
    }

    @Override
    public List<String> launchCommand() {
        List<String> command = new ArrayList<>(List.of("trtllm-serve", getModel(), "--host", "0.0.0.0", "--port",
                String.valueOf(PORT), "--backend", "pytorch", "--tp_size", String.valueOf(getTensorParallelSize())));
        command.addAll(getServerArgs());
        return command;
    }
}
