package dev.profiledrollout.containers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.model.DeviceRequest;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.utility.DockerImageName;

/**
 * What the real images would be given, inspected without starting anything: command line, entrypoint handling,
 * GPU device request, mounts and environment.
 */
class ContainerConfigurationTest {

    @TempDir
    Path tmp;

    @Test
    void sglang_container_gets_sglangs_launch_command_gpus_mounts_and_profiler_env() {
        // GIVEN
        SglangContainer engine = new SglangContainer("lmsysorg/sglang:v0.5.5-cu129")
                .withModel("Qwen/Qwen3-8B")
                .withTensorParallelSize(2)
                .withDataParallelSize(2)
                .withServerArgs("--enable-metrics")
                .withGpuDeviceIds("0", "1", "2", "3")
                .withModelCache(tmp)
                .withProfilerDirectory(tmp.resolve("profiles"));

        // WHEN
        engine.configure();

        // THEN
        assertThat(engine.getCommandParts()).containsExactly("python3", "-m", "sglang.launch_server",
                "--model-path", "Qwen/Qwen3-8B", "--host", "0.0.0.0", "--port", "30000", "--tp-size", "2",
                "--dp-size", "2", "--enable-metrics");
        assertThat(engine.getExposedPorts()).containsExactly(30000);
        assertThat(engine.getEnvMap()).containsEntry("SGLANG_TORCH_PROFILER_DIR", "/profiles");
        assertThat(engine.getBinds()).extracting(b -> b.getVolume().getPath() + ":" + b.getAccessMode())
                .containsExactlyInAnyOrder("/root/.cache/huggingface:ro", "/profiles:rw");
        DeviceRequest gpus = engine.gpuRequest().orElseThrow();
        assertThat(gpus.getDriver()).isEqualTo("nvidia");
        assertThat(gpus.getDeviceIds()).containsExactly("0", "1", "2", "3");
        assertThat(gpus.getCapabilities()).containsExactly(List.of("gpu"));
        assertThat(engine.traceDirectory().orElseThrow().serverPath()).isEqualTo("/profiles");
        assertThat(engine.traceDirectory().orElseThrow().localPath()).isEqualTo(tmp.resolve("profiles"));
    }

    @Test
    void vllm_container_relies_on_the_images_vllm_serve_entrypoint_and_enables_the_profiler() {
        VllmContainer engine = new VllmContainer("vllm/vllm-openai:v0.11.0")
                .withModel("Qwen/Qwen3-0.6B")
                .withGpus()
                .withProfilerDirectory(tmp);

        engine.configure();

        assertThat(engine.launchCommand()).startsWith("vllm", "serve", "Qwen/Qwen3-0.6B");
        assertThat(engine.getCommandParts()).containsExactly("Qwen/Qwen3-0.6B", "--host", "0.0.0.0", "--port",
                "8000", "--tensor-parallel-size", "1", "--profiler-config",
                "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/profiles\"}");
        assertThat(engine.getEnvMap()).containsEntry("VLLM_RPC_TIMEOUT", "1800000");
        assertThat(engine.gpuRequest().orElseThrow().getCount()).isEqualTo(-1);
    }

    @Test
    void nsys_wraps_the_launch_command_and_takes_over_the_entrypoint() {
        VllmContainer engine = new VllmContainer("vllm/vllm-openai:v0.11.0")
                .withNsys(NsysCapture.interactive("rollout"));

        engine.configure();

        assertThat(engine.getCommandParts()).containsSequence("profile", "--trace-fork-before-exec=true",
                "--cuda-graph-trace=node").contains("--start-later=true", "--session-new=rollout")
                .endsWith("vllm", "serve", VllmContainer.DEFAULT_MODEL, "--host", "0.0.0.0", "--port", "8000",
                        "--tensor-parallel-size", "1");
        assertThat(engine.nsys().orElseThrow().startCommand())
                .containsExactly("nsys", "start", "--session=rollout");
        assertThat(NsysCapture.cudaProfilerApi().wrap(List.of("python3"), "/profiles"))
                .contains("--capture-range=cudaProfilerApi", "--capture-range-end=repeat");
    }

    @Test
    void an_unrelated_image_is_refused_unless_declared_a_compatible_substitute() {
        assertThatThrownBy(() -> new SglangContainer("postgres:16"))
                .hasMessageContaining("lmsysorg/sglang");
        new SglangContainer(DockerImageName.parse("my/sglang-fork:1").asCompatibleSubstituteFor("lmsysorg/sglang"));
    }

    @Test
    void the_hf_token_never_shows_in_to_string() {
        assertThat(new SglangContainer("lmsysorg/sglang:latest").toString())
                .isEqualTo("SglangContainer[lmsysorg/sglang:latest, model meta-llama/Llama-3.1-8B-Instruct]");
    }
}
