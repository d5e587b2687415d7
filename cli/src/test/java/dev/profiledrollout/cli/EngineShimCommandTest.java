package dev.profiledrollout.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.simulator.SimulatorConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The real engines' command lines, as the container images receive them, become simulator configurations. */
class EngineShimCommandTest {

    @Test
    void sglang_launch_server_arguments_and_profiler_env_are_understood() {
        EngineShimCommand shim = new EngineShimCommand();
        new CommandLine(shim).parseArgs("sglang", "--model-path", "Qwen/Qwen3-8B", "--host", "0.0.0.0",
                "--port", "30001", "--tp-size", "2", "--trust-remote-code", "--max-running-requests=48");

        SimulatorConfig config = EngineShimCommand.toConfig(shim.engine, shim.args,
                Map.of("SGLANG_TORCH_PROFILER_DIR", "/profiles"));

        assertThat(config.backend()).isEqualTo("sglang");
        assertThat(config.host()).isEqualTo("0.0.0.0");
        assertThat(config.port()).isEqualTo(30001);
        assertThat(config.tpSize()).isEqualTo(2);
        assertThat(config.maxRunningRequests()).isEqualTo(48);
        assertThat(config.servedModelName()).isEqualTo("Qwen/Qwen3-8B");
        assertThat(config.profilerDir()).isEqualTo(Path.of("/profiles"));
    }

    @Test
    void vllm_serve_arguments_with_positional_model_and_profiler_config_are_understood() {
        EngineShimCommand shim = new EngineShimCommand();
        new CommandLine(shim).parseArgs("vllm", "Qwen/Qwen3-0.6B", "--host", "0.0.0.0", "--port", "8000",
                "--tensor-parallel-size", "2", "--profiler-config",
                "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/profiles\"}");

        SimulatorConfig config = EngineShimCommand.toConfig(shim.engine, shim.args, Map.of());

        assertThat(config.backend()).isEqualTo("vllm");
        assertThat(config.port()).isEqualTo(8000);
        assertThat(config.tpSize()).isEqualTo(2);
        assertThat(config.servedModelName()).isEqualTo("Qwen/Qwen3-0.6B");
        assertThat(config.vllmProfilerConfig().torchProfilerDir()).isEqualTo(Path.of("/profiles"));
    }

    @Test
    void an_unknown_engine_is_refused_with_the_allowed_values() {
        assertThatThrownBy(() -> EngineShimCommand.toConfig("tgi", List.of(), Map.of()))
                .hasMessageContaining("allowed: sglang, vllm, trtllm");
    }

    /** {@code trtllm-serve MODEL --port P --backend pytorch --tp_size N}, its span and trace from the environment. */
    @Test
    void trtllm_serve_arguments_and_environment_become_the_trtllm_simulator() {
        var config = EngineShimCommand.toConfig("trtllm", List.of("Qwen/Qwen3-8B", "--port", "8001", "--backend",
                "pytorch", "--tp_size", "2"), Map.of("TLLM_PROFILE_START_STOP", "3-9", "TLLM_TORCH_PROFILE_TRACE",
                "/profiles/trtllm.json"));

        org.assertj.core.api.Assertions.assertThat(config.backend()).isEqualTo("trtllm");
        org.assertj.core.api.Assertions.assertThat(config.port()).isEqualTo(8001);
        org.assertj.core.api.Assertions.assertThat(config.tpSize()).isEqualTo(2);
        org.assertj.core.api.Assertions.assertThat(config.servedModelName()).isEqualTo("Qwen/Qwen3-8B");
        org.assertj.core.api.Assertions.assertThat(config.trtllmEnvironment().starts()).containsExactly(3L);
        org.assertj.core.api.Assertions.assertThat(config.trtllmEnvironment().torchTrace()).isTrue();
    }
}
