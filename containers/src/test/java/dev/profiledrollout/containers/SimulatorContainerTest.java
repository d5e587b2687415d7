package dev.profiledrollout.containers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.SglangClient;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.trace.TraceSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.testcontainers.containers.Container.ExecResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container path for real: the simulator image run through {@link SglangContainer} exactly as a GPU user runs
 * {@code lmsysorg/sglang}: port mapping, {@code /health} readiness, a profile window, and traces written inside the
 * container and read on the host through the bind mount.
 */
class SimulatorContainerTest {

    @TempDir
    static Path profiles;

    @BeforeAll
    static void docker() {
        SimulatorImage.requireDocker();
    }

    @Test
    void sglang_container_serves_profiles_and_writes_traces_into_the_mounted_directory() throws Exception {
        try (SglangContainer engine = new SglangContainer(SimulatorImage.sglang())
                .withTensorParallelSize(2)
                .withProfilerDirectory(profiles.resolve("sglang"))
                .withStartupTimeout(Duration.ofMinutes(2))) {
            engine.start();
            // what Docker actually created, not just what was asked for
            assertThat(engine.getContainerInfo().getHostConfig().getIpcMode()).isEqualTo("host");
            try (SglangClient client = SglangClient.builder(engine.engineUri()).build()) {
                assertThat(client.serverInfo().tpSize()).isEqualTo(2);
                assertThat(client.serverInfo().simulator()).isTrue();

                String serverDir = engine.traceDirectory().orElseThrow().serverPath() + "/window-1";
                client.startProfile(ProfileRequest.builder().outputDir(serverDir).activities(List.of("GPU")).build());
                client.awaitHealthy(Duration.ofSeconds(30)); // /health runs a batch through the scheduler
                assertThat(client.stopProfile()).isEqualTo(StopOutcome.STOPPED);
            }
            Path local = engine.traceDirectory().orElseThrow().localPath().resolve("window-1");
            List<Path> files;
            try (Stream<Path> list = Files.list(local)) {
                files = list.sorted().toList();
            }
            assertThat(files).extracting(p -> p.getFileName().toString())
                    .allMatch(n -> n.matches(".+-TP-[01]\\.trace\\.json\\.gz")).hasSize(2);
            TraceSet traces = TraceSet.read(files);
            assertThat(traces.kernelTotalNs()).isPositive();
            assertThat(traces.rank(1)).isPresent();
        }
    }

    @Test
    void a_private_ipc_namespace_gets_the_requested_shared_memory() throws Exception {
        try (VllmContainer engine = new VllmContainer(SimulatorImage.vllm())
                .withIpcMode("private")
                .withSharedMemorySize(256L << 20)
                .withStartupTimeout(Duration.ofMinutes(2))) {
            engine.start();

            assertThat(engine.getContainerInfo().getHostConfig().getIpcMode()).isEqualTo("private");
            assertThat(engine.getContainerInfo().getHostConfig().getShmSize()).isEqualTo(256L << 20);
            // the image has no df: read the tmpfs mount of /dev/shm with the shell's own builtins
            ExecResult mounts = engine.execInContainer("sh", "-c",
                    "while read -r line; do case \"$line\" in *' /dev/shm '*) echo \"$line\";; esac; done"
                            + " < /proc/mounts");
            assertThat(mounts.getStdout()).contains("tmpfs").contains("size=262144k");
        }
    }
}
