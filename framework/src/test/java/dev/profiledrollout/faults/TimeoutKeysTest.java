package dev.profiledrollout.faults;

import static dev.profiledrollout.junit.ProfiledTestKit.assertProfilerStopped;
import static dev.profiledrollout.junit.ProfiledTestKit.attach;
import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.profiledrollout.engine.EngineException;
import dev.profiledrollout.engine.nsys.NsysController;
import dev.profiledrollout.engine.nsys.NsysException;
import dev.profiledrollout.junit.Simulators;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.simulator.SimulatorFaults;
import dev.profiledrollout.simulator.SimulatorFaults.StreamFault;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every timeout the framework enforces ends with a message that names the configuration key to raise, and a wrong
 * engine URL (nothing listening) fails after {@code profiledrollout.connect.timeout} rather than the whole
 * {@code profiledrollout.health.timeout}.
 */
class TimeoutKeysTest {

    @TempDir
    Path output;

    @RegisterExtension
    final Simulators simulators = new Simulators();

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    // The health timeout is an hour: only the connect timeout can end this run before the JUnit hang guard.
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void attaching_to_a_port_where_nothing_listens_fails_fast_naming_the_url_the_cause_and_the_keys() throws Exception {
        URI url = URI.create("http://127.0.0.1:" + freePort());

        Throwable t = failure(attach(FaultCases.Profiled.class, output, url, "profiledrollout.health.timeout", "3600",
                "profiledrollout.connect.timeout", "1"));

        assertThat(t).isInstanceOf(EngineException.class)
                .hasMessageContaining(url + "/health")
                .hasMessageContaining("Connection refused")
                .hasMessageContaining("nothing accepts connections there")
                .hasMessageContaining("profiledrollout.connect.timeout")
                .hasMessageContaining("comes from profiledrollout.engine.url");
    }

    @Test
    void an_engine_that_never_becomes_healthy_names_the_health_timeout() throws Exception {
        try (MockWebServer starting = new MockWebServer()) {
            starting.setDispatcher(new Dispatcher() {
                @Override
                public MockResponse dispatch(RecordedRequest request) {
                    return new MockResponse.Builder().code(503).build();
                }
            });
            starting.start();

            Throwable t = failure(attach(FaultCases.Profiled.class, output, starting.url("/").uri(),
                    "profiledrollout.health.timeout", "1"));

            // it answered, so the connect timeout (default 5 s, longer than this health timeout) played no part
            assertThat(t).hasMessageContaining("was not healthy after").hasMessageContaining("HTTP 503")
                    .hasMessageContaining("profiledrollout.health.timeout");
        }
    }

    @Test
    void a_slow_stop_names_the_stop_timeout() throws Exception {
        EngineSimulator engine = simulators.start(SimulatorConfig.builder()
                .faults(SimulatorFaults.builder().stopProfileDelay(Duration.ofSeconds(3)).build()));

        Throwable t = failure(attach(FaultCases.Profiled.class, output, engine.baseUri(),
                "profiledrollout.stop.timeout", "1"));

        assertThat(t).hasMessageContaining("did not answer within").hasMessageContaining("profiledrollout.stop.timeout");
        assertProfilerStopped(engine.baseUri(), null);
    }

    @Test
    void missing_traces_name_the_trace_timeout() throws Exception {
        EngineSimulator engine = simulators.start(SimulatorConfig.builder());

        Throwable t = failure(attach(FaultCases.StepsNeverReached.class, output, engine.baseUri(),
                "profiledrollout.trace.timeout", "1"));

        assertThat(t).hasMessageContaining("Waited PT1S").hasMessageContaining("profiledrollout.trace.timeout");
    }

    @Test
    void a_stalled_load_names_the_load_timeout_and_a_stalled_stream_the_read_timeout() throws Exception {
        EngineSimulator engine = simulators.start(SimulatorConfig.builder()
                .faults(SimulatorFaults.builder().stream(StreamFault.STALL, 2, 1).build()));

        Throwable t = failure(attach(FaultCases.Profiled.class, output, engine.baseUri(),
                "profiledrollout.load.timeout", "1"));
        assertThat(t).hasMessageContaining("did not finish within PT1S").hasMessageContaining("profiledrollout.load.timeout");

        attach(FaultCases.Profiled.class, output, engine.baseUri(), "profiledrollout.read.timeout", "1").testEvents()
                .assertStatistics(s -> s.succeeded(1));
        assertThat(Files.readString(output.resolve("FaultCases$Profiled/profiled/requests.jsonl")))
                .contains("TIMEOUT").contains("profiledrollout.read.timeout");
    }

    @Test
    void an_nsys_command_that_outlives_its_timeout_names_the_stop_timeout() throws Exception {
        Path nsys = output.resolve("nsys");
        Files.writeString(nsys, "#!/bin/sh\nexec sleep 30 >/dev/null 2>&1\n");
        assertThat(nsys.toFile().setExecutable(true)).isTrue();

        Throwable t = catchThrowable(() -> new NsysController(nsys.toString(), Duration.ofMillis(300)).start("s1"));

        assertThat(t).isInstanceOf(NsysException.class).hasMessageContaining("did not finish within PT0.3S")
                .hasMessageContaining("profiledrollout.stop.timeout");
    }
}
