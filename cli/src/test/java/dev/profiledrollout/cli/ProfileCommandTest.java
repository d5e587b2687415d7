package dev.profiledrollout.cli;

import dev.profiledrollout.simulator.RouterSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

class ProfileCommandTest {

    @TempDir
    Path dir;

    private record Run(int exitCode, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new Main());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void should_start_and_stop_every_worker_of_simulate_router_workers_3() throws Exception {
        // GIVEN `simulate --router --workers 3`, in process
        SimulateCommand simulate = new SimulateCommand();
        new CommandLine(simulate).parseArgs("--router", "--workers", "3", "--port", "0", "--profiler-dir", dir.toString());
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (AutoCloseable servers = simulate.start(new PrintStream(printed, true, StandardCharsets.UTF_8))) {
            Matcher m = Pattern.compile("listening on (http://\\S+)").matcher(printed.toString(StandardCharsets.UTF_8));
            assertThat(m.find()).isTrue();
            String router = m.group(1);

            // WHEN
            Run workers = run("workers", "--router-url", router);
            Run start = run("profile", "--router-url", router, "--action", "start", "--num-steps", "0",
                    "--output-dir", dir.resolve("capture").toString(), "--activities", "GPU", "CPU");
            Run stop = run("profile", "--router-url", router, "--action", "stop");

            // THEN
            assertThat(workers.exitCode()).as(workers.err()).isZero();
            assertThat(workers.out()).contains("URL").contains("3 worker(s)");
            assertThat(start.exitCode()).as(start.out() + start.err()).isZero();
            assertThat(start.out()).contains("start: 3 ok, 0 failed, 0 skipped");
            assertThat(start.out().lines().filter(l -> l.contains(" STARTED"))).hasSize(3);
            assertThat(stop.exitCode()).as(stop.out() + stop.err()).isZero();
            assertThat(stop.out().lines().filter(l -> l.contains("PROFILED (STOPPED)"))).hasSize(3);
            try (var files = Files.walk(dir.resolve("capture"))) {
                assertThat(files.filter(p -> p.toString().endsWith(".trace.json.gz"))).hasSize(3);
            }
        }
    }

    @Test
    void should_exit_1_and_name_the_worker_that_failed_and_the_one_skipped() throws Exception {
        try (RouterSimulator router = RouterSimulator.builder().workers(3)
                .workerConfig(SimulatorConfig.builder().profilerDir(dir).build())
                .unhealthy(0).failStartProfile(2, 500).start()) {
            Run start = run("profile", "--router-url", router.baseUri().toString(), "--action", "start");
            Run stop = run("profile", "--router-url", router.baseUri().toString(), "--action", "stop");

            assertThat(start.exitCode()).isEqualTo(1);
            URI failing = router.workerUrls().get(2);
            assertThat(start.out()).contains(failing.toString().replaceAll("/$", "") + " regular START_FAILED: HTTP 500")
                    .contains("SKIPPED_UNHEALTHY")
                    .contains("start: 1 ok, 1 failed, 1 skipped");
            assertThat(stop.out()).contains("PROFILED");
        }
    }

    @Test
    void should_send_slime_defaults_for_sglang() {
        ProfileCommand cmd = new ProfileCommand();
        new CommandLine(cmd).parseArgs("--router-url", "http://r:1", "--action", "start");
        assertThat(cmd.request().toJson()).contains("\"num_steps\":3").contains("\"activities\":[\"GPU\"]")
                .contains("\"with_stack\":false").contains("\"record_shapes\":false")
                .contains("\"profile_by_stage\":false").contains("sglang_profile");
    }

    @Test
    void should_exit_1_when_the_router_cannot_be_read() {
        Run run = run("workers", "--router-url", "http://127.0.0.1:1");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("http://127.0.0.1:1");
    }
}
