package dev.profiledrollout.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** analyze's --by, --all-ranks, --baseline/--write-baseline and --format csv on the real traces in testdata/traces. */
class AnalyzeViewsCommandTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = new CommandLine(new AnalyzeCommand());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    private static final String DECODE = "tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz";

    @Test
    void by_roofline_lists_gemm_efficiency_with_tracelens_gflops() throws IOException {
        String trace = TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz").toString();
        assertThat(run("--by", "roofline", "--format", "csv", trace)).isZero();
        List<String> csv = out.toString().lines().toList();
        assertThat(csv.get(0)).isEqualTo("file,operator,inputDims,inputTypes,precision,calls,count,gflops,"
                + "dataMovedMiB,flopsPerByte,kernelMeanUs,kernelMedianUs,kernelMinUs,kernelMaxUs,tflopsMean,"
                + "tflopsMedian,tbpsMedian,peakTflops,peakFraction,rooflineFraction,gpu");
        // aten::mm [2048,110]·[110,18030] fp32: 2·2048·18030·110 FLOPs = 8.1236 GFLOPs in 7 calls, median 264 µs
        assertThat(csv).anySatisfy(l -> assertThat(l).contains("aten::mm,\"[[2048, 110], [110, 18030]]\"")
                .contains(",fp32,7,7,8.1236,").contains(",264.000,261.000,360.000,"));
        // the trace has no deviceProperties: no peak, so the peak columns are empty
        assertThat(csv.get(1)).endsWith(",,,");

        out.getBuffer().setLength(0);
        assertThat(run("--by", "roofline", trace)).isZero();
        assertThat(out.toString()).contains("tflopsMedian").contains("aten::bmm");
    }

    @Test
    void by_category_prints_ms_and_percent_largest_share_first_in_every_format() throws IOException {
        assertThat(run("--by", "category", TestTraces.resolve(DECODE).toString())).isZero();
        assertThat(out.toString()).contains("temporal (HTA definitions, exact ns)");
        List<String> table = out.toString().lines().dropWhile(l -> !l.contains("category")).toList();
        assertThat(table.get(0).trim().split("\\s+")).containsExactly("category", "count", "total", "ms", "share");
        List<String[]> rows = table.subList(1, table.size()).stream().filter(l -> !l.isBlank())
                .map(l -> l.trim().split("\\s+")).toList();
        assertThat(rows).isNotEmpty().allSatisfy(r -> {
            assertThat(r[2]).matches("\\d+\\.\\d{3}");
            assertThat(r[3]).matches("\\d+\\.\\d%");
        });
        assertThat(rows.stream().map(r -> Double.parseDouble(r[2])).toList()).isSortedAccordingTo(
                Comparator.reverseOrder());

        out.getBuffer().setLength(0);
        assertThat(run("--by", "category", "--format", "csv", TestTraces.resolve(DECODE).toString())).isZero();
        List<String> csv = out.toString().lines().toList();
        assertThat(csv.get(0)).isEqualTo("file,category,count,totalNs,share");
        List<String> csvOrder = csv.subList(1, csv.size()).stream().map(l -> l.split(",")[1]).toList();
        assertThat(csv.subList(1, csv.size()).stream().map(l -> Long.parseLong(l.split(",")[3])).toList())
                .isSortedAccordingTo(Comparator.reverseOrder());

        out.getBuffer().setLength(0);
        assertThat(run("--format", "json", TestTraces.resolve(DECODE).toString())).isZero();
        List<String> jsonOrder = new ArrayList<>();
        new ObjectMapper().readTree(out.toString()).get("traces").get(0).get("categories")
                .forEach(c -> jsonOrder.add(c.get("category").asText()));
        assertThat(jsonOrder).isEqualTo(csvOrder).hasSize(rows.size());
        assertThat(rows.stream().map(r -> r[0]).toList()).isEqualTo(csvOrder);
    }

    @Test
    void csv_by_kernel_has_a_file_column_and_every_kernel() throws IOException {
        assertThat(run("--format", "csv", "--by", "kernel", TestTraces.resolve(DECODE).toString())).isZero();
        String[] lines = out.toString().split("\n");
        assertThat(lines[0]).isEqualTo("file,kernel,category,count,totalNs,meanNs,minNs,maxNs,p50Ns,p99Ns,share");
        JsonNode expected = new ObjectMapper().readTree(TestTraces.resolve("expected/sglang_Qwen3-8B_decode.summary.json").toFile());
        assertThat(lines).hasSize(1 + expected.get("distinct_kernels").asInt());
        assertThat(lines[1]).contains(",GEMM,36,2417659,");
    }

    @Test
    void all_ranks_prints_the_cross_rank_table_with_the_straggler() {
        assertThat(run("--all-ranks", TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz").toString(),
                TestTraces.resolve("hta/trace_filter/sampled_rank-1.json.gz").toString())).isZero();
        assertThat(out.toString()).contains("All ranks: 2 traces, busy imbalance (max/mean)")
                .contains("rank 0").contains("rank 1").contains("Kernel time spread across ranks")
                // HTA's two real ranks: ProfilerStep#551 and #552 on both; in #552 rank 1 is 36.82 ms busier
                .contains("Step timeline: 2 steps matched by profilerStepNumber; largest gap to a straggler "
                        + "36.820 ms (step ProfilerStep#552); straggler per step: rank 0 ×1, rank 1 ×1");
        out.getBuffer().setLength(0);
        assertThat(run("--all-ranks", "--format", "json", TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz")
                .toString(), TestTraces.resolve("hta/trace_filter/sampled_rank-1.json.gz").toString())).isZero();
        com.fasterxml.jackson.databind.JsonNode timeline = json(out.toString()).path("allRanks").path("rankSets").get(0)
                .path("stepTimeline");
        assertThat(timeline.path("matchedSteps").asInt()).isEqualTo(2);
        assertThat(timeline.path("steps").get(1).path("gapNs").get(0).asLong()).isEqualTo(36_820_000L);
        assertThat(timeline.path("steps").get(1).path("straggler").asInt()).isEqualTo(1);
        out.getBuffer().setLength(0);
        assertThat(run("--all-ranks", "--format", "csv", TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz").toString(),
                TestTraces.resolve("hta/trace_filter/sampled_rank-1.json.gz").toString())).isZero();
        assertThat(out.toString().split("\n")).hasSize(3);
        assertThat(out.toString()).startsWith("rank,file,kernelEvents,kernelTotalNs,busyNs,spanNs,idleFraction");
    }

    @Test
    void all_ranks_over_two_worker_directories_labels_rows_by_worker_and_finds_the_straggler_per_worker()
            throws IOException {
        // GIVEN two engines' traces/worker-<n>/ directories, each with its TP-0 and TP-1 under the same names
        String event = "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"ts\":0,\"dur\":%d}]";
        Path w1 = Files.createDirectories(dir.resolve("traces/worker-1"));
        Path w2 = Files.createDirectories(dir.resolve("traces/worker-2"));
        Files.writeString(w1.resolve("1.5-TP-0.trace.json.gz"), event.formatted(1));
        Files.writeString(w1.resolve("1.5-TP-1.trace.json.gz"), event.formatted(3));
        Files.writeString(w2.resolve("1.6-TP-0.trace.json.gz"), event.formatted(6));
        Files.writeString(w2.resolve("1.6-TP-1.trace.json.gz"), event.formatted(2));

        // WHEN
        assertThat(run("--all-ranks", "--format", "csv", w1.toString(), w2.toString())).isZero();

        // THEN every row has its own label and each worker its own straggler
        String[] lines = out.toString().split("\n");
        assertThat(lines).hasSize(5);
        assertThat(lines[1]).startsWith("worker-1/TP-0,").endsWith(",");
        assertThat(lines[2]).startsWith("worker-1/TP-1,").endsWith(",yes");
        assertThat(lines[3]).startsWith("worker-2/TP-0,").endsWith(",yes");
        assertThat(lines[4]).startsWith("worker-2/TP-1,").endsWith(",");

        out.getBuffer().setLength(0);
        assertThat(run("--all-ranks", w1.toString(), w2.toString())).isZero();
        assertThat(out.toString()).contains("All ranks: 4 traces from 2 directories")
                .contains("worker-1: 2 rank(s), busy imbalance 1.500, straggler worker-1/TP-1")
                .contains("worker-2: 2 rank(s), busy imbalance 1.500, straggler worker-2/TP-0");

        out.getBuffer().setLength(0);
        assertThat(run("--all-ranks", "--format", "json", w1.toString(), w2.toString())).isZero();
        JsonNode sets = new ObjectMapper().readTree(out.toString()).get("allRanks").get("rankSets");
        assertThat(sets).hasSize(2);
        assertThat(sets.get(0).get("directory").asText()).isEqualTo("worker-1");
        assertThat(sets.get(1).get("straggler").asText()).isEqualTo("worker-2/TP-0");
    }

    @Test
    void all_ranks_marks_no_straggler_among_single_ranks_of_different_directories() {
        // two single-rank traces of different runs: nobody waits for anybody
        assertThat(run("--all-ranks", "--format", "csv",
                TestTraces.resolve("hta/ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz").toString(),
                TestTraces.resolve(DECODE).toString())).isZero();
        String[] lines = out.toString().split("\n");
        assertThat(lines).hasSize(3);
        assertThat(lines[1]).startsWith("ns_resolution/rank 0,").doesNotContain("yes");
        assertThat(lines[2]).startsWith("sglang_decode/rank 0,").doesNotContain("yes");
    }

    @Test
    void a_written_baseline_compares_equal_and_json_keeps_the_original_fields() throws IOException {
        Path baseline = dir.resolve("baseline.json");
        assertThat(run("--write-baseline", baseline.toString(), "--format", "json", TestTraces.resolve(DECODE).toString())).isZero();
        JsonNode first = new ObjectMapper().readTree(out.toString()).get("traces").get(0);
        for (String field : new String[] {"file", "kernelEvents", "memoryEvents", "distinctKernels", "kernelTotalNs",
                "devices", "kernels", "rank", "warnings", "categories", "temporal", "steps", "launches", "operators"}) {
            assertThat(first.has(field)).as(field).isTrue();
        }
        assertThat(first.get("kernels").get(0).has("p50Ns")).isTrue();
        assertThat(baseline).exists();

        out.getBuffer().setLength(0);
        assertThat(run("--baseline", baseline.toString(), "--format", "json", TestTraces.resolve(DECODE).toString())).isZero();
        JsonNode diff = new ObjectMapper().readTree(out.toString()).get("baselineDiff");
        assertThat(diff.get("kernelTotalNs").asLong()).isEqualTo(diff.get("baseKernelTotalNs").asLong());
        assertThat(diff.has("baselineKernelTotalNs")).as("one spelling of the baseline's kernel time").isFalse();
        diff.get("kernels").forEach(k -> assertThat(k.get("deltaNs").asLong()).isZero());

        out.getBuffer().setLength(0);
        assertThat(run("--baseline", baseline.toString(), TestTraces.resolve("hta/ns_resolution/"
                + "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz").toString())).isZero();
        assertThat(out.toString()).contains("Baseline: kernel time").contains("77 new, 27 vanished kernels")
                .contains(" NEW ");
    }

    @Test
    void an_rpd_file_is_analysed_like_a_trace() {
        assertThat(run("--format", "csv", "--by", "category", TestTraces.resolve("rpd/matmul_result.rpd").toString())).isZero();
        // the Tensile GEMM alone; MEMORY = 56 copy/fill ops + copy kernels
        assertThat(out.toString()).contains(",GEMM,1,26211956,").contains(",MEMORY,64,");
    }

    @Test
    void steps_and_stages_views() {
        assertThat(run("--by", "step", TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz").toString())).isZero();
        assertThat(out.toString()).contains("ProfilerStep#551").contains("ProfilerStep#552");
        out.getBuffer().setLength(0);
        assertThat(run("--by", "stage", "--format", "csv", TestTraces.resolve("hta/trace_filter/sampled_rank-0.json.gz").toString()))
                .isZero();
        assertThat(out.toString()).contains(",UNKNOWN,2,");
        assertThat(run("--by", "bogus", TestTraces.resolve(DECODE).toString())).isEqualTo(2);
    }

    @Test
    void by_idle_splits_each_stream_into_hta_idle_categories() {
        assertThat(run("--by", "idle", "--format", "csv", TestTraces.resolve(DECODE).toString())).isZero();
        List<String> csv = out.toString().lines().toList();
        assertThat(csv.get(0)).isEqualTo("file,device,stream,events,idleNs,hostWaitNs,kernelWaitNs,otherNs,"
                + "hostWaitShare,kernelWaitShare,otherShare");
        // stream 3: 556 decode kernels; 405 + 558 + 275 µs idle, HTA's own figures (expected/hta_real.json)
        assertThat(csv).anySatisfy(l -> assertThat(l).contains(",9,3,556,1238000,405000,558000,275000,"));

        out.getBuffer().setLength(0);
        assertThat(run("--by", "queue", "--format", "csv", TestTraces.resolve(DECODE).toString())).isZero();
        List<String> queue = out.toString().lines().toList();
        assertThat(queue.get(0)).isEqualTo("file,device,stream,points,meanQueueLength,stdQueueLength,"
                + "minQueueLength,p25QueueLength,p50QueueLength,p75QueueLength,maxQueueLength");
        // stream 3: 11 launched (not graph-replayed) GPU events, up to 5 waiting; HTA's own summary: count 22,
        // mean 1.6818, std 1.4601, quartiles 1, 1, 2.75 (expected/hta_real.json)
        assertThat(queue).anySatisfy(l -> assertThat(l).endsWith(",9,3,22,1.68182,1.46015,0,1.00000,1.00000,2.75000,5"));

        out.getBuffer().setLength(0);
        assertThat(run("--by", "queue-series", "--format", "csv", TestTraces.resolve(DECODE).toString())).isZero();
        List<String> series = out.toString().lines().toList();
        assertThat(series.get(0)).isEqualTo("file,device,stream,tsNs,queueLength");
        // the series behind that summary: 22 points on stream 3, whole µs, starting with a launch and back to 0
        List<String> stream3 = series.stream().filter(l -> l.contains(",9,3,")).toList();
        assertThat(stream3).hasSize(22);
        assertThat(stream3.get(0)).endsWith(",1");
        assertThat(stream3.get(21)).endsWith(",0");
        assertThat(stream3).allSatisfy(l -> assertThat(Long.parseLong(l.split(",")[3]) % 1000).isZero());
        assertThat(stream3.stream().mapToLong(l -> Long.parseLong(l.split(",")[4])).max().getAsLong()).isEqualTo(5);
    }

    private static com.fasterxml.jackson.databind.JsonNode json(String text) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
