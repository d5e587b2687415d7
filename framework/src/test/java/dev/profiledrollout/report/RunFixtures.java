package dev.profiledrollout.report;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.RankIdentity;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
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
}
