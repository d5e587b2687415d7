package dev.profiledrollout.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class ProfilerTest {

    @TempDir
    Path dir;

    private EngineSimulator start(int tp) throws Exception {
        return EngineSimulator.start(SimulatorConfig.builder().tpSize(tp).profilerDir(dir.resolve("default")).build());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void should_write_one_file_per_rank_at_the_batch_after_num_steps(int tp) throws Exception {
        try (EngineSimulator sim = start(tp)) {
            SimClient client = new SimClient(sim);
            Path out = dir.resolve("run");
            long c = sim.forwardCount();
            // GIVEN a capture of the next 3 steps
            HttpResponse<String> started = client.post("/start_profile", "{\"output_dir\":\"" + out
                    + "\",\"num_steps\":\"3\",\"profile_id\":\"pid42\",\"unknown_key\":1}");
            assertThat(started.statusCode()).isEqualTo(200);
            assertThat(started.body()).isEqualTo("Start profiling.\n");
            // WHEN exactly 3 batches run (1 prefill + 2 decode)
            client.complete(3);
            // THEN the capture is still open and nothing is written: only the start of batch c+4 ends it
            assertThat(sim.forwardCount()).isEqualTo(c + 3);
            assertThat(sim.profiling()).isTrue();
            assertThat(SimClient.traceFiles(out)).isEmpty();
            // WHEN one more batch runs
            assertThat(client.get("/health").statusCode()).isEqualTo(200);
            // THEN that batch is c+4 (the idle server ran none in between), and it wrote every rank's file before it
            // ran, with SGLang's name
            assertThat(sim.forwardCount()).isEqualTo(c + 4);
            assertThat(sim.profiling()).isFalse();
            List<Path> files = SimClient.traceFiles(out);
            assertThat(SimClient.names(files)).containsExactlyElementsOf(
                    tp == 1 ? List.of("pid42-TP-0.trace.json.gz")
                            : List.of("pid42-TP-0.trace.json.gz", "pid42-TP-1.trace.json.gz"));
            for (int rank = 0; rank < tp; rank++) {
                checkTrace(SimClient.readTrace(out.resolve("pid42-TP-" + rank + ".trace.json.gz")), rank, tp);
            }
            // a stop after the auto-stop is refused
            assertThat(client.post("/stop_profile", "").statusCode()).isEqualTo(500);
        }
    }

    @Test
    void should_report_profiling_from_start_until_stop_or_auto_stop_and_count_finished_requests() throws Exception {
        try (EngineSimulator sim = start(1)) {
            SimClient client = new SimClient(sim);
            // the simulator's own warm-up request
            assertThat(sim.finishedRequests()).isEqualTo(1);
            assertThat(sim.profiling()).isFalse();
            // GIVEN a capture without num_steps
            assertThat(client.post("/start_profile", "{\"output_dir\":\"" + dir.resolve("open") + "\"}")
                    .statusCode()).isEqualTo(200);
            // THEN it stays open whatever runs, until /stop_profile
            client.complete(4);
            client.complete(2);
            assertThat(sim.profiling()).isTrue();
            assertThat(sim.finishedRequests()).isEqualTo(3);
            assertThat(client.post("/stop_profile", "").statusCode()).isEqualTo(200);
            assertThat(sim.profiling()).isFalse();
            // GIVEN a capture armed for a later step: it counts as profiling before it records
            assertThat(client.post("/start_profile", "{\"output_dir\":\"" + dir.resolve("armed")
                    + "\",\"start_step\":1000000,\"num_steps\":1}").statusCode()).isEqualTo(200);
            assertThat(sim.profiling()).isTrue();
            assertThat(client.post("/stop_profile", "").statusCode()).isEqualTo(500);
        }
    }

    private static void checkTrace(JsonNode trace, int rank, int tp) {
        Iterator<String> keys = trace.fieldNames();
        List<String> order = new java.util.ArrayList<>();
        keys.forEachRemaining(order::add);
        assertThat(order.get(0)).isEqualTo("schemaVersion");
        assertThat(order.get(order.size() - 1)).isEqualTo("traceName");
        assertThat(order.get(order.size() - 2)).isEqualTo("traceEvents");
        assertThat(trace.get("engine").asText()).isEqualTo("simulator");
        assertThat(trace.at("/distributedInfo/rank").asInt()).isEqualTo(rank);
        assertThat(trace.at("/distributedInfo/world_size").asInt()).isEqualTo(tp);
        assertThat(trace.at("/deviceProperties/0/id").asInt()).isEqualTo(rank);
        assertThat(trace.at("/deviceProperties/0/numSms").asInt()).isEqualTo(132);
        assertThat(trace.get("baseTimeNanoseconds").asLong()).isGreaterThan(1_600_000_000_000_000_000L);

        // Kineto's fmtTs: every timestamp is µs with exactly three decimals
        assertThat(trace.get("traceEvents")).allSatisfy(e -> assertThat(e.get("ts").decimalValue().scale())
                .isEqualTo(3));
        List<JsonNode> steps = SimClient.events(trace, "user_annotation");
        assertThat(steps).extracting(e -> e.get("name").asText()).containsExactly(
                "step[EXTEND bs=1 toks=8]", "step[DECODE bs=1]", "step[DECODE bs=1]");
        assertThat(SimClient.events(trace, "gpu_user_annotation")).hasSize(3);
        List<JsonNode> kernels = SimClient.events(trace, "kernel");
        assertThat(kernels).isNotEmpty().allSatisfy(k -> {
            assertThat(k.get("pid").asInt()).isEqualTo(rank);
            assertThat(k.get("tid").asInt()).isEqualTo(7);
            assertThat(k.get("ts").decimalValue().scale()).isEqualTo(3);
            assertThat(k.get("dur").decimalValue().scale()).isEqualTo(3);
        });
        assertThat(kernels).anySatisfy(k -> assertThat(k.get("name").asText()).contains("nvjet"));
        assertThat(kernels).anySatisfy(k -> assertThat(k.get("name").asText())
                .contains("BatchPrefillWithPagedKVCacheKernel"));
        assertThat(kernels).anySatisfy(k -> assertThat(k.get("name").asText())
                .contains("BatchDecodeWithPagedKVCacheKernel"));
        boolean allReduce = kernels.stream().anyMatch(k -> k.get("name").asText().contains("cross_device_reduce"));
        assertThat(allReduce).isEqualTo(tp > 1);
        // kernels on the stream do not overlap
        long end = Long.MIN_VALUE;
        for (JsonNode k : kernels) {
            assertThat(SimClient.ns(k.get("ts"))).isGreaterThanOrEqualTo(end);
            end = SimClient.ns(k.get("ts")) + SimClient.ns(k.get("dur"));
        }
        // every launch's correlation matches exactly one kernel
        List<JsonNode> launches = SimClient.events(trace, "cuda_runtime").stream()
                .filter(e -> e.get("name").asText().equals("cudaLaunchKernel")).toList();
        assertThat(launches).hasSameSizeAs(kernels);
        assertThat(launches).extracting(l -> l.at("/args/correlation").asLong())
                .containsExactlyElementsOf(kernels.stream().map(k -> k.at("/args/correlation").asLong()).toList());
        assertThat(SimClient.events(trace, "ac2g")).hasSize(2 * kernels.size());
        // per step: a memset and an HtoD copy before its kernels, a DtoH copy after them, each from its runtime call
        List<JsonNode> copies = SimClient.events(trace, "gpu_memcpy");
        assertThat(copies).hasSize(2 * 3).extracting(e -> e.get("name").asText()).containsOnly(
                "Memcpy HtoD (Pinned -> Device)", "Memcpy DtoH (Device -> Pinned)");
        assertThat(SimClient.events(trace, "gpu_memset")).hasSize(3);
        assertThat(SimClient.events(trace, "cuda_runtime")).filteredOn(e -> e.get("name").asText()
                .startsWith("cudaMem")).hasSize(3 * 3);
        assertThat(trace.get("traceEvents")).anySatisfy(e -> {
            assertThat(e.get("name").asText()).isEqualTo("thread_name");
            assertThat(e.at("/args/name").asText()).isEqualTo("stream 7 ");
        });
    }

    @Test
    void should_record_from_start_step_and_clamp_a_past_one() throws Exception {
        try (EngineSimulator sim = start(1)) {
            SimClient client = new SimClient(sim);
            long c = sim.forwardCount();
            Path out = dir.resolve("future");
            assertThat(client.post("/start_profile", "{\"output_dir\":\"" + out + "\",\"start_step\":" + (c + 3)
                    + ",\"num_steps\":2}").statusCode()).isEqualTo(200);
            // batches c+1 (prefill) .. c+6; recorded c+3, c+4; written at the start of c+5
            client.complete(6);
            JsonNode trace = SimClient.readTrace(SimClient.awaitTraceFiles(out, 1).get(0));
            assertThat(SimClient.events(trace, "user_annotation")).extracting(e -> e.get("name").asText())
                    .containsExactly("step[DECODE bs=1]", "step[DECODE bs=1]");

            Path past = dir.resolve("past");
            assertThat(client.post("/start_profile", "{\"output_dir\":\"" + past
                    + "\",\"start_step\":1,\"num_steps\":1}").statusCode()).isEqualTo(200);
            client.complete(2);
            JsonNode clamped = SimClient.readTrace(SimClient.awaitTraceFiles(past, 1).get(0));
            assertThat(SimClient.events(clamped, "user_annotation")).extracting(e -> e.get("name").asText())
                    .containsExactly("step[EXTEND bs=1 toks=8]");
        }
    }

    @Test
    void should_refuse_stop_without_start_and_a_second_start() throws Exception {
        try (EngineSimulator sim = start(2)) {
            SimClient client = new SimClient(sim);
            HttpResponse<String> stop = client.get("/stop_profile");
            assertThat(stop.statusCode()).isEqualTo(500);
            assertThat(stop.body()).isEqualTo("Internal Server Error");

            Path out = dir.resolve("manual");
            assertThat(client.get("/start_profile").statusCode()).isEqualTo(200);
            assertThat(client.post("/start_profile", "{\"output_dir\":\"" + out + "\"}").statusCode())
                    .isEqualTo(500);
            client.complete(4);
            // the first (default-directory) capture is still open; its stop writes before answering
            HttpResponse<String> stopped = client.post("/stop_profile", "{\"ignored\":true}");
            assertThat(stopped.statusCode()).isEqualTo(200);
            assertThat(stopped.body()).isEqualTo("Stop profiling. This will take some time.\n");
            List<Path> files = SimClient.traceFiles(dir.resolve("default"));
            assertThat(files).hasSize(2);
            assertThat(SimClient.names(files)).allMatch(n -> n.matches("\\d+\\.\\d{7}-TP-[01]\\.trace\\.json\\.gz"));
            assertThat(SimClient.events(SimClient.readTrace(files.get(1)), "user_annotation")).hasSize(4);
            assertThat(client.post("/stop_profile", "").statusCode()).isEqualTo(500);
        }
    }

    @Test
    void should_block_stop_until_files_are_written_under_load() throws Exception {
        try (EngineSimulator sim = start(2)) {
            SimClient client = new SimClient(sim);
            Path out = dir.resolve("load");
            long c = sim.forwardCount();
            assertThat(client.post("/start_profile", "{\"output_dir\":\"" + out + "\",\"profile_prefix\":\"pre\","
                    + "\"profile_id\":\"x\"}").statusCode()).isEqualTo(200);
            Thread load = new Thread(() -> {
                try {
                    client.complete(40);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            load.start();
            // the 40-step request is under way: its prefill and a first decode are recorded
            await().atMost(Duration.ofSeconds(20)).until(() -> sim.forwardCount() >= c + 2);
            HttpResponse<String> stopped = client.post("/stop_profile", "");
            List<Path> files = SimClient.traceFiles(out);
            assertThat(stopped.statusCode()).isEqualTo(200);
            assertThat(SimClient.names(files)).containsExactly("pre-x-TP-0.trace.json.gz", "pre-x-TP-1.trace.json.gz");
            for (Path f : files) {
                assertThat(SimClient.events(SimClient.readTrace(f), "user_annotation")).isNotEmpty();
            }
            load.join();
        }
    }

    @Test
    void should_write_extend_and_decode_files_by_stage() throws Exception {
        try (EngineSimulator sim = start(1)) {
            SimClient client = new SimClient(sim);
            Path out = dir.resolve("stage");
            assertThat(client.post("/start_profile", "{\"output_dir\":\"" + out + "\",\"profile_by_stage\":true,"
                    + "\"num_steps\":2,\"profile_id\":\"s\"}").statusCode()).isEqualTo(200);
            client.complete(6);
            List<Path> files = SimClient.awaitTraceFiles(out, 2);
            assertThat(SimClient.names(files)).containsExactly("s-TP-0-DECODE.trace.json.gz",
                    "s-TP-0-EXTEND.trace.json.gz");
            assertThat(SimClient.events(SimClient.readTrace(out.resolve("s-TP-0-EXTEND.trace.json.gz")),
                    "user_annotation")).extracting(e -> e.get("name").asText())
                    .containsExactly("step[EXTEND bs=1 toks=8]");
            assertThat(SimClient.events(SimClient.readTrace(out.resolve("s-TP-0-DECODE.trace.json.gz")),
                    "user_annotation")).hasSize(2);

            // without num_steps the start is accepted but nothing is captured
            Path none = dir.resolve("none");
            assertThat(client.post("/start_profile", "{\"output_dir\":\"" + none
                    + "\",\"profile_by_stage\":true}").statusCode()).isEqualTo(200);
            client.complete(3);
            assertThat(client.post("/stop_profile", "").statusCode()).isEqualTo(500);
            assertThat(SimClient.traceFiles(none)).isEmpty();
        }
    }

    @Test
    void should_answer_400_to_mistyped_fields() throws Exception {
        try (EngineSimulator sim = start(1)) {
            SimClient client = new SimClient(sim);
            for (String body : List.of("{\"num_steps\":\"five\"}", "{\"activities\":\"CPU\"}",
                    "{\"output_dir\":5}", "{\"profile_by_stage\":\"maybe\"}", "[1,2]", "{not json")) {
                HttpResponse<String> r = client.post("/start_profile", body);
                assertThat(r.statusCode()).as(body).isEqualTo(400);
                JsonNode err = SimClient.EXACT.readTree(r.body());
                assertThat(err.get("object").asText()).isEqualTo("error");
                assertThat(err.get("code").asInt()).isEqualTo(400);
            }
            // nothing was started by the rejected requests
            assertThat(client.post("/stop_profile", "").statusCode()).isEqualTo(500);
        }
    }

    @Test
    void should_write_merged_file_and_cpu_only_traces() throws Exception {
        try (EngineSimulator sim = start(2)) {
            SimClient client = new SimClient(sim);
            Path out = dir.resolve("merge");
            assertThat(client.post("/start_profile", "{\"output_dir\":\"" + out + "\",\"num_steps\":2,"
                    + "\"merge_profiles\":true,\"profile_id\":\"m\",\"activities\":[\"CPU\",\"BOGUS\"]}")
                    .statusCode()).isEqualTo(200);
            client.complete(3);
            List<Path> files = SimClient.awaitTraceFiles(out, 3);
            assertThat(SimClient.names(files)).containsExactly("m-TP-0.trace.json.gz", "m-TP-1.trace.json.gz",
                    "merged-m.trace.json.gz");
            JsonNode merged = SimClient.readTrace(out.resolve("merged-m.trace.json.gz"));
            assertThat(merged.get("traceEvents")).allSatisfy(e -> assertThat(e.get("pid").asText())
                    .matches("\\[TP0[01]] \\d+"));
            assertThat(SimClient.events(merged, "user_annotation")).hasSize(4);
            assertThat(SimClient.events(merged, "kernel")).isEmpty();
        }
    }

    @Test
    void should_write_one_rpd_file_on_tp_rank_0_and_nothing_for_mem_or_unknown_activities() throws Exception {
        try (EngineSimulator sim = start(2)) {
            SimClient client = new SimClient(sim);
            Path rpd = dir.resolve("rpd");
            client.post("/start_profile", "{\"output_dir\":\"" + rpd + "\",\"activities\":[\"RPD\"]}");
            client.complete(2);
            assertThat(client.post("/stop_profile", "").statusCode()).isEqualTo(200);
            // SGLang converts the RPD capture once, on TP rank 0 (scheduler_components/profiler_manager.py)
            assertThat(SimClient.names(SimClient.traceFiles(rpd)))
                    .singleElement().asString().matches("rpd-\\d+\\.\\d{7}-TP-0\\.trace\\.json\\.gz");

            Path mem = dir.resolve("mem");
            client.post("/start_profile", "{\"output_dir\":\"" + mem + "\",\"activities\":[\"MEM\"]}");
            client.complete(2);
            assertThat(client.post("/stop_profile", "").statusCode()).isEqualTo(200);
            assertThat(SimClient.traceFiles(mem)).isEmpty();

            // activities that start nothing: 200, then the stop gets 500
            assertThat(client.post("/start_profile", "{\"activities\":[\"TPU\"]}").statusCode()).isEqualTo(200);
            assertThat(client.post("/stop_profile", "").statusCode()).isEqualTo(500);
        }
    }

    @Test
    void a_dp_controller_writes_every_dp_ranks_files_and_reports_no_dp_rank() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().tpSize(2).dpSize(2)
                .dpController(true).profilerDir(dir.resolve("default")).build())) {
            SimClient client = new SimClient(sim);
            JsonNode info = SimClient.EXACT.readTree(client.get("/server_info").body());
            assertThat(info.get("dp_size").asInt()).isEqualTo(2);
            assertThat(info.has("dp_rank")).as("a DP controller is no single replica").isFalse();

            Path out = dir.resolve("dp");
            client.post("/start_profile", "{\"output_dir\":\"" + out + "\",\"profile_id\":\"p\"}");
            client.complete(2);
            assertThat(client.post("/stop_profile", "").statusCode()).isEqualTo(200);
            assertThat(SimClient.names(SimClient.traceFiles(out))).containsExactly("p-TP-0-DP-0.trace.json.gz",
                    "p-TP-0-DP-1.trace.json.gz", "p-TP-1-DP-0.trace.json.gz", "p-TP-1-DP-1.trace.json.gz");

            Path rpd = dir.resolve("dp-rpd");
            client.post("/start_profile", "{\"output_dir\":\"" + rpd + "\",\"activities\":[\"RPD\"]}");
            client.complete(2);
            assertThat(client.post("/stop_profile", "").statusCode()).isEqualTo(200);
            // each replica's TP rank 0 converts its own RPD capture
            assertThat(SimClient.names(SimClient.traceFiles(rpd))).hasSize(2)
                    .allMatch(n -> n.matches("rpd-\\d+\\.\\d{7}-TP-0\\.trace\\.json\\.gz"));

            Path merged = dir.resolve("dp-merged");
            client.post("/start_profile", "{\"output_dir\":\"" + merged + "\",\"profile_id\":\"q\","
                    + "\"merge_profiles\":true}");
            client.complete(2);
            assertThat(client.post("/stop_profile", "").statusCode()).isEqualTo(200);
            // SGLang's merger globs {profile_id}*.trace.json.gz and labels pids with every rank part
            JsonNode trace = SimClient.readTrace(merged.resolve("merged-q.trace.json.gz"));
            assertThat(trace.get("traceEvents")).extracting(e -> e.get("pid").asText().replaceAll("] .*", "]"))
                    .containsOnly("[TP00-DP00]", "[TP00-DP01]", "[TP01-DP00]", "[TP01-DP01]");
        }
    }

    @Test
    void a_profiler_failing_on_dp_rank_1_is_answered_as_rank_0_answers_and_writes_no_files() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().tpSize(2).dpSize(2)
                .dpController(true).faults(SimulatorFaults.builder().profilerFailsOnDpRank(1).build())
                .profilerDir(dir.resolve("default")).build())) {
            SimClient client = new SimClient(sim);
            Path out = dir.resolve("dp");

            assertThat(client.post("/start_profile", "{\"output_dir\":\"" + out + "\",\"profile_id\":\"p\"}")
                    .statusCode()).isEqualTo(200);
            client.complete(2);
            assertThat(client.post("/stop_profile", "").statusCode()).isEqualTo(200);

            assertThat(SimClient.names(SimClient.traceFiles(out)))
                    .containsExactly("p-TP-0-DP-0.trace.json.gz", "p-TP-1-DP-0.trace.json.gz");
        }
    }

    @Test
    void a_profiler_failing_on_dp_rank_0_fails_the_start() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().dpSize(2).dpController(true)
                .faults(SimulatorFaults.builder().profilerFailsOnDpRank(0).build())
                .profilerDir(dir.resolve("default")).build())) {
            SimClient client = new SimClient(sim);

            assertThat(client.post("/start_profile", "{}").statusCode()).isEqualTo(500);
            assertThat(client.post("/stop_profile", "").statusCode()).isEqualTo(500);
        }
    }

    @Test
    void a_dp_rank_fault_needs_a_dp_controller_that_has_that_rank() {
        SimulatorFaults rank2 = SimulatorFaults.builder().profilerFailsOnDpRank(2).build();

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SimulatorConfig.builder().dpSize(2)
                        .dpController(true).faults(rank2).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("profilerFailsOnDpRank(2)")
                .hasMessageContaining("dpSize 2");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SimulatorConfig.builder().dpSize(4).faults(rank2)
                        .build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dpController(true)");
    }
}
