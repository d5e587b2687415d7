package dev.profiledrollout.containers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRolloutKeys;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a TensorRT-LLM container would be launched with, inspected without starting it: {@code trtllm-serve}'s command
 * line, the profiling span in its environment, the torch trace under the profiler directory, and nsys wrapping.
 */
class TrtllmContainerTest {

    @TempDir
    Path tmp;

    @Test
    void trtllm_serve_is_launched_with_the_span_and_the_torch_trace_in_its_environment() {
        TrtllmContainer engine = new TrtllmContainer().withModel("Qwen/Qwen3-8B").withTensorParallelSize(2)
                .withProfileRange(10, 20).withProfilerDirectory(tmp.resolve("profiles"));

        engine.configure();

        assertThat(engine.imageName().asCanonicalNameString()).isEqualTo("nvcr.io/nvidia/tensorrt-llm/release:1.2.1");
        assertThat(engine.getCommandParts()).containsExactly("trtllm-serve", "Qwen/Qwen3-8B", "--host", "0.0.0.0",
                "--port", "8000", "--backend", "pytorch", "--tp_size", "2");
        assertThat(engine.getEnvMap()).containsEntry("TLLM_PROFILE_START_STOP", "10-20")
                .containsEntry("TLLM_TORCH_PROFILE_TRACE", "/profiles/trtllm.json");
        assertThat(engine.traceDirectory().orElseThrow().serverPath()).isEqualTo("/profiles");
        assertThat(engine.backend()).isEqualTo(Backend.TRTLLM);
    }

    @Test
    void under_nsys_the_server_runs_inside_a_cuda_profiler_api_capture() {
        TrtllmContainer engine = new TrtllmContainer().withProfileRange(5, 15).withNsys(NsysCapture.cudaProfilerApi());

        engine.configure();

        assertThat(String.join(" ", engine.getCommandParts())).contains("--capture-range=cudaProfilerApi")
                .contains("trtllm-serve");
        assertThat(engine.getEnvMap()).containsEntry("TLLM_PROFILE_START_STOP", "5-15")
                .doesNotContainKey("TLLM_TORCH_PROFILE_TRACE");
    }

    @Test
    void the_container_engine_takes_the_span_from_its_key_and_names_the_key_when_it_is_malformed() {
        DefaultContainerEngines engines = new DefaultContainerEngines();
        TrtllmContainer engine = (TrtllmContainer) engines.create(Backend.TRTLLM, key -> Optional.ofNullable(
                Map.of(ProfiledRolloutKeys.TRTLLM_PROFILE_START_STOP, "3-8").get(key)), tmp.resolve("p"));
        assertThat(engine.getProfileRange()).isEqualTo("3-8");

        assertThatThrownBy(() -> engines.create(Backend.TRTLLM, key -> Optional.ofNullable(
                Map.of(ProfiledRolloutKeys.TRTLLM_PROFILE_START_STOP, "8-3").get(key)), tmp.resolve("p")))
                .hasMessageContaining(ProfiledRolloutKeys.TRTLLM_PROFILE_START_STOP).hasMessageContaining("8-3");
        assertThatThrownBy(() -> new TrtllmContainer().withProfileRange(4, 4))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
