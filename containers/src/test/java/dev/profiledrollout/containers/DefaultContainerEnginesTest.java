package dev.profiledrollout.containers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.containers.VllmContainer.ProfilerMechanism;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** The {@code profiledrollout.container.*} keys turned into containers, inspected without starting them. */
class DefaultContainerEnginesTest {

    @TempDir
    Path tmp;

    private EngineContainer<?> create(Backend backend, Map<String, String> settings) {
        return (EngineContainer<?>) new DefaultContainerEngines()
                .create(backend, key -> Optional.ofNullable(settings.get(key)), tmp.resolve("profiles"));
    }

    @ParameterizedTest
    @EnumSource(names = {"SGLANG", "VLLM"})
    void no_default_image_is_latest(Backend backend) {
        EngineContainer<?> engine = create(backend, Map.of());

        assertThat(engine.imageName().asCanonicalNameString()).doesNotEndWith(":latest").contains(":v");
        assertThat(engine.imageName().asCanonicalNameString()).isEqualTo(backend == Backend.VLLM
                ? VllmContainer.DEFAULT_IMAGE.asCanonicalNameString()
                : SglangContainer.DEFAULT_IMAGE.asCanonicalNameString());
        assertThat(engine.getIpcMode()).isEqualTo("host");
        assertThat(engine.getShmSize()).isNull();
    }

    @ParameterizedTest
    @EnumSource(names = {"SGLANG", "VLLM"})
    void without_keys_the_container_has_the_defaults_the_keys_document(Backend backend) {
        EngineContainer<?> engine = create(backend, Map.of());

        assertThat(engine.getModel()).isEqualTo(documentedDefault(ProfiledRolloutKeys.CONTAINER_MODEL));
        assertThat(engine.getTensorParallelSize())
                .isEqualTo(Integer.parseInt(documentedDefault(ProfiledRolloutKeys.CONTAINER_TP)));
        assertThat(engine.getIpcMode()).isEqualTo(documentedDefault(ProfiledRolloutKeys.CONTAINER_IPC));
        assertThat(EngineContainer.DEFAULT_STARTUP_TIMEOUT.toSeconds())
                .isEqualTo(Long.parseLong(documentedDefault(ProfiledRolloutKeys.CONTAINER_STARTUP_TIMEOUT)));
    }

    private static String documentedDefault(String key) {
        return ProfiledRolloutKeys.defaultValue(key).orElseThrow();
    }

    @Test
    void ipc_shared_memory_and_a_read_only_model_cache_come_from_their_keys() {
        EngineContainer<?> engine = create(Backend.SGLANG, Map.of(
                ProfiledRolloutKeys.CONTAINER_IPC, "private",
                ProfiledRolloutKeys.CONTAINER_SHM_SIZE, "16g",
                ProfiledRolloutKeys.CONTAINER_MODEL_CACHE, tmp.toString(),
                ProfiledRolloutKeys.CONTAINER_MODEL_CACHE_READONLY, "true",
                ProfiledRolloutKeys.CONTAINER_TP, "2"));

        assertThat(engine.getIpcMode()).isEqualTo("private");
        assertThat(engine.getShmSize()).isEqualTo(16L << 30);
        assertThat(engine.getBinds()).extracting(b -> b.getVolume().getPath() + ":" + b.getAccessMode())
                .containsExactlyInAnyOrder("/root/.cache/huggingface:ro", "/profiles:rw");
        assertThat(engine.getTensorParallelSize()).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0} = {1} bytes")
    @CsvSource({"1073741824, 1073741824", "512m, 536870912", "64K, 65536", "16gb, 17179869184", "2GiB, 2147483648",
            "100b, 100"})
    void shared_memory_sizes_read_like_docker_run_shm_size(String value, long bytes) {
        assertThat(create(Backend.VLLM, Map.of(ProfiledRolloutKeys.CONTAINER_SHM_SIZE, value)).getShmSize())
                .isEqualTo(bytes);
    }

    @Test
    void the_model_cache_is_mounted_read_write_by_default() {
        EngineContainer<?> engine = create(Backend.VLLM,
                Map.of(ProfiledRolloutKeys.CONTAINER_MODEL_CACHE, tmp.toString()));

        assertThat(engine.isModelCacheReadOnly()).isFalse();
        assertThat(engine.getBinds()).extracting(b -> b.getVolume().getPath() + ":" + b.getAccessMode())
                .contains("/root/.cache/huggingface:rw");
    }

    @Test
    void the_vllm_version_key_picks_the_profiler_mechanism_for_a_tag_that_does_not_say() {
        VllmContainer engine = (VllmContainer) create(Backend.VLLM, Map.of(
                ProfiledRolloutKeys.CONTAINER_IMAGE, "registry.example/vllm/vllm-openai:nightly",
                ProfiledRolloutKeys.CONTAINER_VLLM_VERSION, "0.11.0"));

        engine.configure();

        assertThat(engine.profilerMechanism()).isEqualTo(ProfilerMechanism.ENVIRONMENT);
        assertThat(engine.getEnvMap()).containsEntry("VLLM_TORCH_PROFILER_DIR", "/profiles");
        assertThat(engine.getCommandParts()).doesNotContain("--profiler-config");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "profiledrollout.container.ipc                 | hots   | expected host, private, shareable, none",
            "profiledrollout.container.shm.size            | lots   | expected a positive size",
            "profiledrollout.container.shm.size            | 0g     | expected a positive size",
            "profiledrollout.container.model.cache.readonly | yes   | expected true or false",
            "profiledrollout.container.vllm.version        | eleven | expected a vLLM version such as 0.11.0",
            "profiledrollout.container.tp                  | 0      | expected a positive integer"})
    void a_bad_value_names_its_key_and_what_it_accepts(String key, String value, String expected) {
        assertThatThrownBy(() -> create(Backend.VLLM, Map.of(key, value)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Invalid " + key + "='" + value + "': ")
                .hasMessageContaining(expected);
    }
}
