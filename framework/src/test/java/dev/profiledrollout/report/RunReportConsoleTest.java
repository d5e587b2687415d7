package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.trace.TraceSet;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The console summary names each rank with its worker and says what was profiled. */
class RunReportConsoleTest {

    @TempDir
    Path dir;

    @Test
    void should_print_one_labelled_gpu_line_per_rank_and_the_imbalance_per_worker() throws Exception {
        // GIVEN two workers' TP-0 and TP-1, written under the same file names in their own directories
        String event = "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"ts\":0,\"dur\":%d}]";
        List<Path> files = new ArrayList<>();
        int[][] durations = {{1, 3}, {6, 2}};
        for (int w = 0; w < 2; w++) {
            Path worker = Files.createDirectories(dir.resolve("traces/worker-" + (w + 1)));
            for (int tp = 0; tp < 2; tp++) {
                files.add(Files.writeString(worker.resolve("1.5-TP-" + tp + ".trace.json.gz"),
                        event.formatted(durations[w][tp])));
            }
        }
        Map<String, String> urls = new LinkedHashMap<>();
        urls.put("worker-1", "http://a:30000");
        urls.put("worker-2", "http://b:30000");
        TraceSet trace = TraceSet.read(files).withWorkers(f -> f.getParent().getFileName().toString(), urls);
        RunReport report = new RunReport(dir, "ConsoleTest.run", URI.create("http://router:8000"), false,
                new ServerInfo(2, 1, 1, 1, "m", true, JsonNodeFactory.instance.objectNode()),
                new LoadSpec(1, 1, 16, 4, 0.0, 0, 0), ProfileRequest.builder().build())
                .withProfiled(new RunReport.Profiled("router", "http://router:8000", 2, 4,
                        "router http://router:8000 → 2 workers: worker-1 http://a:30000, worker-2 http://b:30000;"
                                + " TP 2 each"));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        // WHEN
        report.printConsoleSummary(RunFixtures.latency(), trace, new PrintStream(bytes, true, StandardCharsets.UTF_8));

        // THEN
        String console = bytes.toString(StandardCharsets.UTF_8);
        assertThat(console).contains("=== Profiled rollout: ConsoleTest.run — router http://router:8000 → 2 workers: "
                + "worker-1 http://a:30000, worker-2 http://b:30000; TP 2 each");
        assertThat(console.lines().filter(l -> l.contains(" GPU ")).map(l -> l.trim().split(" +")[0]))
                .containsExactly("worker-1/TP-0", "worker-1/TP-1", "worker-2/TP-0", "worker-2/TP-1");
        assertThat(console).contains("busy imbalance (max/mean over worker-1's ranks): 1.500, straggler worker-1/TP-1")
                .contains("busy imbalance (max/mean over worker-2's ranks): 1.500, straggler worker-2/TP-0")
                .contains("worker imbalance (max/mean of per-worker busy time over 2 workers): 1.333");
    }

    @Test
    void should_print_the_step_timeline_and_the_busiest_ops_roofline_of_real_ranks() throws Exception {
        // GIVEN HTA's two real training ranks: ProfilerStep#551 and #552, GEMMs recorded with their shapes
        TraceSet trace = TraceSet.read(List.of(dev.profiledrollout.trace.TestTraces.resolve(
                        "hta/trace_filter/sampled_rank-0.json.gz"),
                dev.profiledrollout.trace.TestTraces.resolve("hta/trace_filter/sampled_rank-1.json.gz")));
        RunReport report = new RunReport(dir, "ConsoleTest.ranks", URI.create("http://127.0.0.1:30000"), false,
                new ServerInfo(2, 1, 1, 1, "m", true, JsonNodeFactory.instance.objectNode()),
                new LoadSpec(1, 1, 16, 4, 0.0, 0, 0), ProfileRequest.builder().build());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        // WHEN
        report.printConsoleSummary(RunFixtures.latency(), trace, new PrintStream(bytes, true, StandardCharsets.UTF_8));

        // THEN one line for the steps × ranks timeline (in #552 rank 1 is 36.82 ms busier) and one for the roofline
        String console = bytes.toString(StandardCharsets.UTF_8);
        assertThat(console).contains("  step timeline: 2 steps matched by profilerStepNumber, largest gap to a step's"
                + " straggler 36.820 ms (ProfilerStep#552, rank 1)");
        dev.profiledrollout.trace.roofline.OperatorRoofline top = trace.traces().stream()
                .flatMap(t -> t.details().roofline().stream()).filter(r -> r.count() > 0)
                .max(java.util.Comparator.comparingDouble(r -> r.kernelNs().mean() * r.count())).orElseThrow();
        assertThat(console).contains(String.format(java.util.Locale.ROOT, "  roofline: %s ", top.name()))
                .contains(String.format(java.util.Locale.ROOT, ", %d calls, median %.1f TFLOPS/s at ", top.count(),
                        top.tflops().median()));
    }
}
