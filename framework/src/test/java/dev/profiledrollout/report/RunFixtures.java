package dev.profiledrollout.report;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.files.RankIdentity;
import dev.profiledrollout.verdict.Verdict;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A run directory written by {@link RunReport} from made-up requests and a two-rank trace, as a test would leave it. */
final class RunFixtures {

    static final String GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32";
    static final String DECODE = "BatchDecodeWithPagedKVCacheKernel";
    static final String ALL_REDUCE = "cross_device_reduce_1stage";

    private RunFixtures() {
    }

    static LatencyReport latency() {
        List<RequestRecord> records = new ArrayList<>();
        long ms = 1_000_000L;
        for (int i = 0; i < 40; i++) {
            long start = i * 50 * ms;
            long[] chunks = new long[8];
            for (int c = 0; c < chunks.length; c++) {
                chunks[c] = start + (20 + i) * ms + c * (5 + i % 3) * ms;
            }
            records.add(RequestRecord.success(i, 128, 8, start, chunks, 128, 8));
        }
        return LatencyReport.of(records);
    }

    static TraceSet trace() {
        return TraceSet.of(List.of(rank(0, 40_000_000L), rank(1, 46_000_000L)));
    }

    private static TraceSummary rank(int tp, long busyNs) {
        String file = "run-TP-" + tp + ".trace.json.gz";
        Optional<RankIdentity> rank = RankIdentity.fromFileName(file);
        List<KernelStats> kernels = List.of(new KernelStats(GEMM, 100, 30_000_000L + tp, 200_000, 400_000),
                new KernelStats(DECODE, 80, 8_000_000L, 90_000, 110_000),
                new KernelStats(ALL_REDUCE, 50, 2_000_000L + tp * 1_000_000L, 30_000, 70_000));
        long total = kernels.stream().mapToLong(KernelStats::totalNs).sum();
        return new TraceSummary(Path.of(file), rank, 230, 4, kernels.size(), total,
                List.of(new DeviceStats(String.valueOf(tp), busyNs, 60_000_000L)), kernels, List.of());
    }

    /** Writes requests.jsonl, timeseries.csv, latency.hlog and summary.json into {@code dir}. */
    static Path writeRun(Path dir) {
        ServerInfo info = new ServerInfo(2, 1, 1, 1, "meta-llama/Llama-3.1-8B-Instruct", true,
                JsonNodeFactory.instance.objectNode());
        RunReport report = new RunReport(dir, "FixtureTest.budget", URI.create("http://user:secret@gpu:30000/?k=v"),
                true, info, new LoadSpec(8, 40, 128, 8, 0.0, 0, 1),
                ProfileRequest.builder().numSteps(5).activities(List.of("GPU")).build()).withBackend("SGLANG");
        LatencyReport latency = latency();
        report.writeRequests(latency);
        report.writeSummary(latency, trace(), null);
        return dir;
    }

    /** Rewrites {@code dir}'s summary.json after {@code change}. */
    static Path editSummary(Path dir, java.util.function.Consumer<com.fasterxml.jackson.databind.node.ObjectNode> change) {
        try {
            var file = dir.resolve("summary.json").toFile();
            var root = (com.fasterxml.jackson.databind.node.ObjectNode) ResultsModule.MAPPER.readTree(file);
            change.accept(root);
            ResultsModule.MAPPER.writeValue(file, root);
            return dir;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A failed enforced verdict, a warning and a pass, as summary.json's {@code verdicts} holds them. */
    static List<Verdict> verdicts() {
        return List.of(Verdict.of(Verdict.Kind.LATENCY, "p50 TTFT", "<", 40.0, 100.0, "ms", "40 ms", "100 ms", "",
                        true),
                Verdict.of(Verdict.Kind.LATENCY, "p99 TTFT", "<", 312.0, 250.0, "ms", "312 ms", "250 ms",
                        "4 of 40 requests above budget", false),
                new Verdict(Verdict.Kind.CAPTURE, "", "steps captured", "=", 4, 5, "", "4", "5", null,
                        "set strictSteps to fail the test", false, false));
    }

    /**
     * Writes a phased, two-worker run in the shape of the summary.json contract: {@link #writeRun} plus
     * {@code outcome}, {@code profiled}, {@code steps}, labelled {@code workers}, {@code trace.ranks[].label},
     * {@code trace.straggler}, and {@code phases[]} with a {@code prefill/} directory of its own.
     */
    static Path writeRichRun(Path dir) {
        writeRun(dir);
        Path prefill = writeRun(dir.resolve("prefill"));
        editSummary(prefill, root -> root.put("phase", "PREFILL"));
        var mapper = ResultsModule.MAPPER;
        return editSummary(dir, root -> {
            root.set("verdicts", mapper.valueToTree(verdicts()));
            var outcome = root.putObject("outcome");
            outcome.put("status", "FAILED").put("verdicts", 3).put("failed", 1).put("warnings", 1)
                    .put("message", "p99 TTFT: 312 ms, budget < 250 ms");
            root.putObject("profiled").put("kind", "prefill-decode").put("url", "http://router:8000")
                    .put("workers", 2).put("ranks", 2).put("description", "router http://router:8000 → 2 workers: "
                            + "worker-1 prefill http://gpu:30001, worker-2 decode http://gpu:30000; TP 1 each");
            var steps = root.putObject("steps");
            steps.put("requested", 5);
            steps.putObject("captured").put("worker-1/TP-0", 5).put("worker-2/TP-0", 4);
            steps.put("min", 4).put("max", 5).put("strict", false);
            var workers = root.putArray("workers");
            workers.addObject().put("label", "worker-1").put("url", "http://gpu:30001").put("workerType", "prefill")
                    .put("state", "PROFILED").put("httpStatus", 0).put("reason", "").put("stopOutcome", "STOPPED")
                    .putArray("traceFiles").add("run-TP-0.trace.json.gz");
            workers.addObject().put("label", "worker-2").put("url", "http://gpu:30000").put("workerType", "decode")
                    .put("state", "START_FAILED").put("httpStatus", 503).put("reason", "busy").putNull("stopOutcome")
                    .putArray("traceFiles");
            var ranks = root.path("trace").path("ranks");
            ((com.fasterxml.jackson.databind.node.ObjectNode) ranks.get(0)).put("label", "worker-1/TP-0");
            ((com.fasterxml.jackson.databind.node.ObjectNode) ranks.get(1)).put("label", "worker-2/TP-0");
            ((com.fasterxml.jackson.databind.node.ObjectNode) root.path("trace")).put("straggler", "worker-2/TP-0");
            var baseline = root.putObject("baseline").put("kernelTimeChange", 0.25);
            baseline.putArray("kernels").addObject().put("name", GEMM).put("baseCount", 200).put("count", 200)
                    .put("baseTotalNs", 48_000_000L).put("totalNs", 60_000_001L);
            root.putNull("load");
            var phase = root.putArray("phases").addObject();
            phase.put("phase", "PREFILL").put("directory", "prefill");
            phase.set("load", mapper.valueToTree(new LoadSpec(4, 16, 2048, 1, 0.0, 0, 1)));
            var latency = root.path("latency").deepCopy();
            ((com.fasterxml.jackson.databind.node.ObjectNode) latency).putObject("itl").put("definition", "ITL")
                    .put("count", 0);
            phase.set("latency", latency);
            phase.set("verdicts", mapper.valueToTree(List.of(verdicts().get(1).withScope("PREFILL"))));
        });
    }

    /** Writes the summary.json of a test that failed before its profile window opened. */
    static Path writeEarlyFailure(Path dir) {
        try {
            java.nio.file.Files.createDirectories(dir);
            java.nio.file.Files.writeString(dir.resolve("summary.json"), """
                    {"test":"EarlyTest.boots","attempted":{"backend":"VLLM","engineKind":"container",
                     "urls":["http://gpu:8000"],"numSteps":5,"activities":["CPU","GPU"],"phases":[],"load":null},
                     "error":"engine did not become healthy within 600 s: GET /health returned 503",
                     "outcome":{"status":"ERROR","verdicts":0,"failed":0,"warnings":0,
                     "message":"engine did not become healthy within 600 s: GET /health returned 503"}}
                    """);
            return dir;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
