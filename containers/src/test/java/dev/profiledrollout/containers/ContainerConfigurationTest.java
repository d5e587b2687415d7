package dev.profiledrollout.containers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.model.DeviceRequest;
import com.github.dockerjava.api.model.HostConfig;
import dev.profiledrollout.containers.VllmContainer.ProfilerMechanism;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.testcontainers.shaded.com.github.dockerjava.core.command.CreateContainerCmdImpl;
import org.testcontainers.utility.DockerImageName;

/**
 * What the real images would be given, inspected without starting anything: command line, entrypoint handling,
 * GPU device request, IPC namespace and shared memory, mounts and environment.
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
                .containsExactlyInAnyOrder("/root/.cache/huggingface:rw", "/profiles:rw");
        HostConfig host = hostConfig(engine);
        assertThat(host.getIpcMode()).isEqualTo("host");
        assertThat(host.getDeviceRequests()).containsExactly(engine.gpuRequest().orElseThrow());
        DeviceRequest gpus = engine.gpuRequest().orElseThrow();
        assertThat(gpus.getDriver()).isEqualTo("nvidia");
        assertThat(gpus.getDeviceIds()).containsExactly("0", "1", "2", "3");
        assertThat(gpus.getCapabilities()).containsExactly(List.of("gpu"));
        assertThat(engine.traceDirectory().orElseThrow().serverPath()).isEqualTo("/profiles");
        assertThat(engine.traceDirectory().orElseThrow().localPath()).isEqualTo(tmp.resolve("profiles"));
    }

    @Test
    void vllm_from_0_13_gets_the_profiler_config_flag_and_no_profiler_environment() {
        VllmContainer engine = new VllmContainer("vllm/vllm-openai:v0.13.0")
                .withModel("Qwen/Qwen3-0.6B")
                .withGpus()
                .withProfilerDirectory(tmp);

        engine.configure();

        assertThat(engine.profilerMechanism()).isEqualTo(ProfilerMechanism.PROFILER_CONFIG_FLAG);
        assertThat(engine.launchCommand()).startsWith("vllm", "serve", "Qwen/Qwen3-0.6B");
        assertThat(engine.getCommandParts()).containsExactly("Qwen/Qwen3-0.6B", "--host", "0.0.0.0", "--port",
                "8000", "--tensor-parallel-size", "1", "--profiler-config",
                "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/profiles\"}");
        assertThat(engine.getEnvMap()).containsEntry("VLLM_RPC_TIMEOUT", "1800000")
                .doesNotContainKey("VLLM_TORCH_PROFILER_DIR");
        assertThat(engine.gpuRequest().orElseThrow().getCount()).isEqualTo(-1);
    }

    @Test
    void vllm_before_0_13_gets_the_profiler_directory_in_its_environment_and_no_flag() {
        VllmContainer engine = new VllmContainer("vllm/vllm-openai:v0.11.0")
                .withModel("Qwen/Qwen3-0.6B")
                .withProfilerDirectory(tmp);

        engine.configure();

        assertThat(engine.profilerMechanism()).isEqualTo(ProfilerMechanism.ENVIRONMENT);
        assertThat(engine.getCommandParts()).containsExactly("Qwen/Qwen3-0.6B", "--host", "0.0.0.0", "--port",
                "8000", "--tensor-parallel-size", "1");
        assertThat(engine.getEnvMap()).containsEntry("VLLM_TORCH_PROFILER_DIR", "/profiles")
                .containsEntry("VLLM_RPC_TIMEOUT", "1800000");
    }

    @ParameterizedTest(name = "{0} -> {1} {2}")
    @CsvSource(nullValues = "-", value = {
            "vllm/vllm-openai:v0.11.0,              ENVIRONMENT,          0.11.0",
            "vllm/vllm-openai:0.12.0,               ENVIRONMENT,          0.12.0",
            "vllm/vllm-openai:v0.10.1.1,            ENVIRONMENT,          0.10.1",
            "vllm/vllm-openai:v0.12.0rc1,           ENVIRONMENT,          0.12.0",
            "vllm/vllm-openai:v0.13.0,              PROFILER_CONFIG_FLAG, 0.13.0",
            "vllm/vllm-openai:v0.15.1,              PROFILER_CONFIG_FLAG, 0.15.1",
            "vllm/vllm-openai:v0.20.0-cu129,        PROFILER_CONFIG_FLAG, 0.20.0",
            "vllm/vllm-openai:v1.0,                 PROFILER_CONFIG_FLAG, 1.0.0",
            "vllm/vllm-openai:latest,               PROFILER_CONFIG_FLAG, -",
            "vllm/vllm-openai:nightly,              PROFILER_CONFIG_FLAG, -",
            "vllm/vllm-openai:latest-cu129,         PROFILER_CONFIG_FLAG, -",
            "vllm/vllm-openai,                      PROFILER_CONFIG_FLAG, -",
            "vllm/vllm-openai@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef, "
                    + "PROFILER_CONFIG_FLAG, -"})
    void the_profiler_mechanism_follows_the_vllm_version_in_the_image_tag(String image, ProfilerMechanism mechanism,
            String version) {
        VllmContainer engine = new VllmContainer(image);

        assertThat(engine.profilerMechanism()).isEqualTo(mechanism);
        assertThat(engine.vllmVersion().orElse(null)).isEqualTo(version);
    }

    @Test
    void a_declared_version_or_mechanism_overrides_the_tag() {
        assertThat(new VllmContainer("vllm/vllm-openai:nightly").withVllmVersion("0.11.2").profilerMechanism())
                .isEqualTo(ProfilerMechanism.ENVIRONMENT);
        assertThat(new VllmContainer("vllm/vllm-openai:v0.11.0").withVllmVersion("v0.14.0").vllmVersion())
                .contains("0.14.0");
        VllmContainer forced = new VllmContainer("vllm/vllm-openai:v0.19.0")
                .withProfilerMechanism(ProfilerMechanism.ENVIRONMENT)
                .withProfilerDirectory(tmp);
        forced.configure();
        assertThat(forced.getEnvMap()).containsEntry("VLLM_TORCH_PROFILER_DIR", "/profiles");
        assertThat(forced.getCommandParts()).doesNotContain("--profiler-config");
        assertThatThrownBy(() -> new VllmContainer().withVllmVersion("eleven"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'eleven'")
                .hasMessageContaining("0.11.0");
    }

    @Test
    void a_profiler_config_becomes_vllms_environment_variables_before_0_13() {
        VllmContainer engine = new VllmContainer("vllm/vllm-openai:v0.12.0")
                .withProfilerConfig("{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/profiles\","
                        + "\"torch_profiler_with_stack\":false,\"torch_profiler_record_shapes\":true,"
                        + "\"max_iterations\":5,\"delay_iterations\":2,\"ignore_frontend\":true}");

        assertThat(engine.profilerEnvironment()).isEqualTo(Map.of(
                "VLLM_TORCH_PROFILER_DIR", "/profiles",
                "VLLM_TORCH_PROFILER_WITH_STACK", "0",
                "VLLM_TORCH_PROFILER_RECORD_SHAPES", "1",
                "VLLM_PROFILER_MAX_ITERS", "5",
                "VLLM_PROFILER_DELAY_ITERS", "2",
                "VLLM_TORCH_PROFILER_DISABLE_ASYNC_LLM", "1"));
        assertThat(new VllmContainer("vllm/vllm-openai:v0.12.0").withProfilerConfig("{\"profiler\":\"cuda\"}")
                .profilerEnvironment()).isEqualTo(Map.of("VLLM_TORCH_CUDA_PROFILE", "1"));
        // the same config on a newer image goes to the flag, verbatim
        String json = "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/profiles\",\"warmup_iterations\":2}";
        VllmContainer newer = new VllmContainer("vllm/vllm-openai:v0.19.0").withProfilerConfig(json);
        assertThat(newer.profilerEnvironment()).isEmpty();
        assertThat(newer.launchCommand()).endsWith("--profiler-config", json);
    }

    @Test
    void a_profiler_config_that_an_old_vllm_cannot_express_is_refused_naming_the_field() {
        VllmContainer engine = new VllmContainer("vllm/vllm-openai:v0.11.0")
                .withProfilerConfig("{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/profiles\","
                        + "\"warmup_iterations\":2}");

        assertThatThrownBy(engine::configure).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("warmup_iterations").hasMessageContaining("0.13");
        assertThatThrownBy(() -> new VllmContainer("vllm/vllm-openai:v0.11.0")
                .withProfilerConfig("{\"profiler\":\"torch\"}").profilerEnvironment())
                .hasMessageContaining("torch_profiler_dir");
        // v0.11 has no iteration limit (VLLM_PROFILER_MAX_ITERS came in 0.12, PR #28987): refused, not ignored
        assertThatThrownBy(() -> new VllmContainer("vllm/vllm-openai:v0.11.0").withProfilerConfig(
                "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/p\",\"max_iterations\":5}").profilerEnvironment())
                .hasMessageContaining("max_iterations=5").hasMessageContaining("VLLM_PROFILER_MAX_ITERS")
                .hasMessageContaining("numSteps cannot be enforced");
        assertThatThrownBy(() -> new VllmContainer("vllm/vllm-openai:v0.11.0").withProfilerConfig(
                "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/p\",\"torch_profiler_use_gzip\":false}")
                .profilerEnvironment()).hasMessageContaining("VLLM_TORCH_PROFILER_USE_GZIP");
        // their defaults are what v0.11 does anyway, so they are left out rather than refused
        assertThat(new VllmContainer("vllm/vllm-openai:v0.11.0").withProfilerConfig(
                "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/p\",\"max_iterations\":0,"
                        + "\"torch_profiler_use_gzip\":true}").profilerEnvironment())
                .isEqualTo(Map.of("VLLM_TORCH_PROFILER_DIR", "/p"));
        // an unknown key aborts vLLM at start (ProfilerConfig forbids extras): refused, with the nearest field
        assertThatThrownBy(() -> new VllmContainer().withProfilerConfig(
                "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/p\",\"max_iteration\":5}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'max_iteration'")
                .hasMessageContaining("did you mean 'max_iterations'");
        assertThat(new VllmContainer().withProfilerConfig("{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/p\","
                + "\"detailed_trace_annotation\":true}").launchCommand()).contains("--profiler-config");
        assertThatThrownBy(() -> new VllmContainer().withProfilerConfig("{profiler: torch"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not valid JSON");
        assertThatThrownBy(() -> new VllmContainer().withProfilerConfig("[\"torch\"]"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("JSON object");
    }

    @Test
    void engines_share_the_hosts_ipc_namespace_unless_told_otherwise() {
        SglangContainer isolated = new SglangContainer().withIpcMode("private").withSharedMemorySize(16L << 30);
        VllmContainer alsoIsolated = new VllmContainer().withHostIpc(false);

        isolated.configure();
        alsoIsolated.configure();

        assertThat(new SglangContainer().getIpcMode()).isEqualTo("host");
        assertThat(hostConfig(isolated).getIpcMode()).isEqualTo("private");
        assertThat(isolated.getShmSize()).isEqualTo(16L << 30);
        assertThat(hostConfig(alsoIsolated).getIpcMode()).isEqualTo("private");
        assertThat(new VllmContainer().withIpcMode("container:engine-1").getIpcMode())
                .isEqualTo("container:engine-1");
        assertThatThrownBy(() -> new VllmContainer().withIpcMode("hots"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'hots'")
                .hasMessageContaining("host, private, shareable, none or container:<name|id>");
    }

    @Test
    void the_model_cache_is_writable_unless_mounted_read_only() {
        SglangContainer engine = new SglangContainer().withModelCache(tmp);
        assertThat(engine.getBinds()).extracting(b -> b.getPath() + "->" + b.getVolume().getPath() + ":"
                + b.getAccessMode()).containsExactly(tmp.toAbsolutePath() + "->/root/.cache/huggingface:rw");
        assertThat(engine.isModelCacheReadOnly()).isFalse();

        engine.withModelCache(tmp, true);

        assertThat(engine.getBinds()).extracting(b -> b.getVolume().getPath() + ":" + b.getAccessMode())
                .containsExactly("/root/.cache/huggingface:ro");
        assertThat(engine.modelCache()).contains(tmp.toAbsolutePath());
        assertThatThrownBy(() -> engine.withModelCache(tmp.resolve("missing")))
                .hasMessageContaining("is not a directory");
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
    void the_default_images_are_pinned_tags_of_the_official_images() {
        assertThat(new SglangContainer().imageName().asCanonicalNameString()).isEqualTo("lmsysorg/sglang:v0.5.20");
        assertThat(new VllmContainer().imageName().asCanonicalNameString()).isEqualTo("vllm/vllm-openai:v0.30.0");
        // the CUDA 12 variants for drivers older than R580, also with the profiler config flag
        assertThat(new SglangContainer(SglangContainer.CUDA12_IMAGE).imageName().getVersionPart())
                .isEqualTo("v0.5.19-cu129");
        assertThat(new VllmContainer(VllmContainer.CUDA12_IMAGE).profilerMechanism())
                .isEqualTo(ProfilerMechanism.PROFILER_CONFIG_FLAG);
        assertThat(new VllmContainer().profilerMechanism()).isEqualTo(ProfilerMechanism.PROFILER_CONFIG_FLAG);
    }

    @Test
    void the_hf_token_never_shows_in_to_string() {
        assertThat(new SglangContainer("lmsysorg/sglang:latest").toString())
                .isEqualTo("SglangContainer[lmsysorg/sglang:latest, model meta-llama/Llama-3.1-8B-Instruct]");
    }

    /** The Docker HostConfig the container's create command would carry (what docker inspect shows as HostConfig). */
    private static HostConfig hostConfig(EngineContainer<?> engine) {
        // Testcontainers' own command implementation, with no Docker client behind it: built, never executed.
        CreateContainerCmd cmd = new CreateContainerCmdImpl(command -> {
            throw new AssertionError("not to be executed");
        }, null, engine.imageName().asCanonicalNameString());
        engine.getCreateContainerCmdModifiers().forEach(modifier -> modifier.modify(cmd));
        return cmd.getHostConfig();
    }
}
