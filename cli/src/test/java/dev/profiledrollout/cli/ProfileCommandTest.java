package dev.profiledrollout.cli;

import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.RouterShape;
import dev.profiledrollout.simulator.RouterSimulator;
import dev.profiledrollout.simulator.SimulatedCluster;
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
        CommandLine cli = Main.commandLine();
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
            assertThat(servers).isInstanceOfSatisfying(RouterSimulator.class,
                    r -> assertThat(r.baseUri()).hasToString(router));

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
            for (int n = 1; n <= 3; n++) {
                assertThat(traces(dir.resolve("capture/worker-" + n))).as("worker-%d", n).hasSize(1);
            }
        }
    }

    private static java.util.List<Path> traces(Path directory) throws java.io.IOException {
        if (!Files.isDirectory(directory)) {
            return java.util.List.of();
        }
        try (var files = Files.list(directory)) {
            return files.filter(p -> p.toString().endsWith(".trace.json.gz")).toList();
        }
    }

    @Test
    void should_profile_one_engine_by_url_into_the_output_dir_itself() throws Exception {
        try (EngineSimulator engine = EngineSimulator.start(SimulatorConfig.builder().profilerDir(dir).build())) {
            String url = engine.baseUri().toString();
            Run start = run("profile", "--url", url, "--action", "start", "--num-steps", "0",
                    "--output-dir", dir.resolve("one").toString());
            Run stop = run("profile", "--url", url, "--action", "stop");

            assertThat(start.exitCode()).as(start.out() + start.err()).isZero();
            assertThat(start.out()).contains("worker-1 ").contains(" STARTED")
                    .contains("→ " + dir.resolve("one")).contains("start: 1 ok, 0 failed, 0 skipped");
            assertThat(stop.exitCode()).as(stop.out() + stop.err()).isZero();
            assertThat(stop.out()).contains("worker-1 ").contains("PROFILED (STOPPED)");
            assertThat(engine.profiling()).isFalse();
            assertThat(traces(dir.resolve("one"))).hasSize(1);
            assertThat(dir.resolve("one/worker-1")).doesNotExist();
        }
    }

    @Test
    void should_give_each_of_several_engines_by_url_its_own_worker_directory_in_the_order_given() throws Exception {
        try (EngineSimulator a = EngineSimulator.start(SimulatorConfig.builder().profilerDir(dir).build());
             EngineSimulator b = EngineSimulator.start(SimulatorConfig.builder().profilerDir(dir).build())) {
            Run start = run("profile", "--url", b.baseUri().toString(), "--url", a.baseUri().toString(),
                    "--action", "start", "--num-steps", "0", "--output-dir", dir.resolve("two").toString());
            Run stop = run("profile", "--url", b.baseUri().toString(), "--url", a.baseUri().toString(),
                    "--action", "stop");

            assertThat(start.exitCode()).as(start.out() + start.err()).isZero();
            String bUrl = b.baseUri().toString().replaceAll("/$", "");
            assertThat(start.out().lines().filter(l -> l.startsWith("worker-1 ")).findFirst().orElseThrow())
                    .contains(bUrl).endsWith("→ " + dir.resolve("two") + "/worker-1");
            assertThat(stop.exitCode()).as(stop.out() + stop.err()).isZero();
            assertThat(traces(dir.resolve("two/worker-1"))).hasSize(1);
            assertThat(traces(dir.resolve("two/worker-2"))).hasSize(1);
            assertThat(traces(dir.resolve("two"))).isEmpty();
        }
    }

    @Test
    void should_number_a_routers_two_workers_in_its_order() throws Exception {
        try (RouterSimulator router = RouterSimulator.builder().workers(2)
                .workerConfig(SimulatorConfig.builder().profilerDir(dir).build()).start()) {
            String url = router.baseUri().toString();
            Run start = run("profile", "--router-url", url, "--action", "start", "--num-steps", "0",
                    "--output-dir", dir.resolve("routed").toString());
            Run stop = run("profile", "--router-url", url, "--action", "stop");

            assertThat(start.exitCode()).as(start.out() + start.err()).isZero();
            for (int n = 1; n <= 2; n++) {
                String worker = router.workerUrls().get(n - 1).toString().replaceAll("/$", "");
                int label = n;
                assertThat(start.out().lines().filter(l -> l.startsWith("worker-" + label + " ")).findFirst()
                        .orElseThrow()).contains(worker).endsWith("/routed/worker-" + n);
            }
            assertThat(stop.exitCode()).as(stop.out() + stop.err()).isZero();
            assertThat(traces(dir.resolve("routed/worker-1"))).hasSize(1);
            assertThat(traces(dir.resolve("routed/worker-2"))).hasSize(1);
        }
    }

    @Test
    void should_exit_2_unless_exactly_one_of_router_url_and_url_is_given() throws Exception {
        Run both = run("profile", "--router-url", "http://127.0.0.1:1", "--url", "http://127.0.0.1:2",
                "--action", "start");
        Run neither = run("profile", "--action", "start");
        Path recipe = Files.writeString(dir.resolve("recipe.yaml"), RECIPE);
        Run recipeOnTwo = run("profile", "--url", "http://127.0.0.1:1", "--url", "http://127.0.0.1:2",
                "--recipe", recipe.toString());

        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.err()).contains("Give --router-url URL", "--url URL", "not both");
        assertThat(neither.exitCode()).isEqualTo(2);
        assertThat(recipeOnTwo.exitCode()).isEqualTo(2);
        assertThat(recipeOnTwo.err()).contains("give --router-url, or a single --url");
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

    private static final String RECIPE = """
            # srtctl's current job-file shape: steps per phase under profiling, the load in the sa-bench benchmark
            name: "cli-disagg"
            model: {path: "sim-model", container: "sglang-sim.sqsh", precision: "bf16"}
            resources: {gpu_type: "h100", prefill_nodes: 1, decode_nodes: 1, prefill_workers: 1, decode_workers: 1}
            slurm: {account: "perf", partition: "batch"}
            backend:
              type: sglang
              sglang_config:
                decode: {cuda-graph-max-bs: 64}
            benchmark: {type: "sa-bench", isl: 64, osl: 8, concurrencies: [2], req_rate: "inf"}
            profiling:
              type: "torch"
              prefill: {start_step: 0, stop_step: 2}
              decode: {start_step: 0, stop_step: 5}
            """;

    @Test
    void should_run_each_window_of_a_recipe_on_its_own_workers_through_a_prefill_decode_router() throws Exception {
        // GIVEN a prefill and a decode simulator behind a router, and the recipe in a file
        Path recipe = Files.writeString(dir.resolve("recipe.yaml"), RECIPE);
        try (SimulatedCluster cluster = SimulatedCluster.prefillDecode(SimulatorConfig.builder().profilerDir(dir.resolve("default")).build(),
                RouterShape.SGL_MODEL_GATEWAY)) {
            String router = cluster.router().baseUri().toString();
            URI prefillUrl = URI.create(cluster.engines().get(0).baseUri().toString().replaceAll("/$", ""));

            // WHEN
            Run run = run("profile", "--router-url", router, "--recipe", recipe.toString(), "--requests", "4",
                    "--output-dir", dir.resolve("capture").toString());

            // THEN a window per phase, in order, each with its steps and load, on its own worker
            assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
            assertThat(run.out()).contains("Recipe " + recipe + " (cli-disagg): sglang, torch, 2 window(s)")
                    .contains("prefill: steps 0..2 (num_steps 2) on 1 worker(s); load ISL 64, OSL 8, concurrency 2,"
                            + " 4 requests")
                    .contains("decode: steps 0..5 (num_steps 5) on 1 worker(s)");
            String prefillPart = run.out().substring(run.out().indexOf("prefill: "), run.out().indexOf("decode: "));
            assertThat(prefillPart).contains(prefillUrl + " prefill PROFILED").doesNotContain(" decode PROFILED");
            assertThat(run.out().substring(run.out().indexOf("decode: "))).contains(" decode PROFILED");
            assertThat(run.out().lines().filter(l -> l.startsWith("  load: ") && l.contains(" completed"))).hasSize(2);
            try (var files = Files.walk(dir.resolve("capture/decode"))) {
                assertThat(files.filter(p -> p.toString().endsWith(".trace.json.gz"))).isNotEmpty();
            }
        }
    }

    @Test
    void should_give_each_worker_of_an_aggregated_window_its_own_directory() throws Exception {
        Path recipe = Files.writeString(dir.resolve("agg.yaml"), """
                backend: {type: sglang}
                resources: {gpu_type: h100, agg_nodes: 1, agg_workers: 2}
                benchmark: {type: sa-bench, isl: 32, osl: 4, concurrencies: [2], req_rate: "inf"}
                profiling:
                  type: torch
                  aggregated: {start_step: 0, stop_step: 3}
                """);
        try (RouterSimulator router = RouterSimulator.builder().workers(2)
                .workerConfig(SimulatorConfig.builder().profilerDir(dir).build()).start()) {
            Run run = run("profile", "--router-url", router.baseUri().toString(), "--recipe", recipe.toString(),
                    "--requests", "4", "--output-dir", dir.resolve("capture").toString());

            assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
            assertThat(run.out()).contains("agg: steps 0..3 (num_steps 3) on 2 worker(s)")
                    .contains("  worker-1 " + router.workerUrls().get(0).toString().replaceAll("/$", ""))
                    .contains("/capture/agg/worker-2");
            assertThat(traces(dir.resolve("capture/agg/worker-1"))).hasSize(1);
            assertThat(traces(dir.resolve("capture/agg/worker-2"))).hasSize(1);
        }
    }

    @Test
    void should_exit_2_naming_the_field_of_a_recipe_that_cannot_be_run() throws Exception {
        Path recipe = Files.writeString(dir.resolve("timed.yaml"), RECIPE.replace("type: \"torch\"",
                "type: \"nsys-time\""));

        Run run = run("profile", "--router-url", "http://127.0.0.1:1", "--recipe", recipe.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("srtctl recipe " + recipe + ": profiling.type nsys-time cannot be honoured");
    }

    @Test
    void should_exit_2_for_flags_the_recipe_already_gives() throws Exception {
        Path recipe = Files.writeString(dir.resolve("recipe.yaml"), RECIPE);

        Run steps = run("profile", "--router-url", "http://127.0.0.1:1", "--recipe", recipe.toString(),
                "--num-steps", "5");
        Run backend = run("profile", "--router-url", "http://127.0.0.1:1", "--recipe", recipe.toString(),
                "--backend", "vllm");
        Run both = run("profile", "--router-url", "http://127.0.0.1:1", "--recipe", recipe.toString(),
                "--action", "start");
        Run neither = run("profile", "--router-url", "http://127.0.0.1:1");

        assertThat(steps.exitCode()).isEqualTo(2);
        assertThat(steps.err()).contains("--num-steps cannot go with --recipe");
        assertThat(backend.exitCode()).isEqualTo(2);
        assertThat(backend.err()).contains("--backend vllm disagrees with the recipe's backend.type sglang");
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(neither.exitCode()).isEqualTo(2);
        assertThat(neither.err()).contains("Give --action start|stop, or --recipe FILE");
    }

    @Test
    void should_exit_1_when_the_router_cannot_be_read() {
        Run run = run("workers", "--router-url", "http://127.0.0.1:1");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("http://127.0.0.1:1");
    }
}
