package dev.profiledrollout.junit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.metrics.ErrorKind;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.Slo;
import dev.profiledrollout.report.GoldenJson;
import dev.profiledrollout.report.RunReport;
import dev.profiledrollout.report.TestReport;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.baselines.TraceBaseline;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import dev.profiledrollout.verdict.Verdict;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code summary.json} a profiled test leaves, written the way the extension writes it ({@link RunReport}, then
 * {@link Baselines}, then {@link TestReport}) from fixed requests and real traces, against
 * {@code golden/summary.json}. The only volatile value, the baseline file's path, is replaced by a placeholder.
 */
class SummaryJsonGoldenTest {

    @TempDir
    Path dir;

    @Test
    void should_write_the_summary_json_of_the_golden_file() throws Exception {
        // GIVEN fixed requests (one failed), an SLO, two real traces, one of them under an SGLang per-rank file name
        Path sglangRank = Files.copy(TestTraces.resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz"),
                dir.resolve("golden-1700000000.5-TP-1-DP-0-EP-2-DECODE.trace.json.gz"));
        TraceSet trace = TraceSet.of(List.of(
                KinetoTraceReader.read(TestTraces.resolve("hta/ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")),
                KinetoTraceReader.read(sglangRank))).withWorkers(file -> "worker-1",
                        Map.of("worker-1", "http://gpu:30000", "worker-2", "http://gpu:30001"));
        Path baselines = Files.createDirectories(dir.resolve("baselines"));
        TraceBaseline.of(KinetoTraceReader.read(TestTraces.resolve("hta/trace_filter/sampled_rank-1.json.gz")))
                .write(baselines.resolve("GoldenTest.run.json"));
        Path run = dir.resolve("run");
        LatencyReport latency = LatencyReport.of(records(), Slo.parse(List.of("ttft:60", "e2el:120")));
        ServerInfo server = new ServerInfo(2, 1, 1, 1, "Qwen/Qwen3-8B", false, JsonNodeFactory.instance.objectNode());
        RunReport report = new RunReport(run, "GoldenTest.run", URI.create("http://user:secret@gpu:30000/?k=v"), false,
                server,
                new LoadSpec(8, 40, 128, 8, 0.0, 0, 1),
                ProfileRequest.builder().numSteps(5).activities(List.of("CPU", "GPU")).build())
                .withBackend("SGLANG")
                .withFanOut(List.of(new WorkerOutcome(URI.create("http://gpu:30000"), "decode",
                                WorkerOutcome.State.PROFILED, 0, "", StopOutcome.STOPPED),
                        new WorkerOutcome(URI.create("http://gpu:30001"), "prefill", WorkerOutcome.State.START_FAILED,
                                503, "busy", null)),
                        List.of("frontend.async_llm.1700000000000000000.pt.trace.json.gz"), "DECODE")
                .withWorkerLabels(List.of("worker-1", "worker-2"))
                .withProfiled(new RunReport.Profiled("router", "http://user:secret@router:8000/?k=v", 2, 2,
                        "router http://router:8000 → 2 workers: worker-1 decode http://gpu:30000, worker-2 prefill"
                                + " http://gpu:30001 (START_FAILED); TP 2 each"));
        // WHEN
        report.writeSummary(latency, trace, null);
        Baselines.apply(RolloutResult.builder().latency(latency).trace(trace).traceFiles(List.of()).outputDirectory(run)
                        .serverInfo(server).stopOutcome(StopOutcome.STOPPED).build(),
                new Settings(key -> Optional.ofNullable(Map.of(ProfiledRolloutKeys.BASELINE_DIR, baselines.toString()).get(key)), Map.of()),
                "GoldenTest.run");
        TestReport.finish(run, List.of(Verdict.of(Verdict.Kind.LATENCY, "p99 TTFT", "<", 61.5, 60.0, "ms", "61.5 ms", "60 ms", "", false)),
                List.of(Path.of("traces/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")), TestReport.Options.DEFAULTS,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        // THEN
        String summary = Files.readString(run.resolve("summary.json"))
                .replace(baselines.resolve("GoldenTest.run.json").toString(), "<baseline file>");
        assertThat(summary).contains("<baseline file>");
        GoldenJson.assertMatches(summary, "summary.json");
    }

    private static List<RequestRecord> records() {
        List<RequestRecord> records = new ArrayList<>();
        long ms = 1_000_000L;
        for (int i = 0; i < 12; i++) {
            long start = i * 20 * ms;
            long[] chunks = new long[4];
            for (int c = 0; c < chunks.length; c++) {
                chunks[c] = start + (40 + 3 * i) * ms + c * (4 + i % 3) * ms;
            }
            records.add(RequestRecord.success(i, 128, 4, start, chunks, 128, 4));
        }
        records.add(RequestRecord.failure(12, 128, 4, 240 * ms, new long[0], 250 * ms, -1, -1, ErrorKind.HTTP_STATUS,
                "HTTP 503"));
        return records;
    }
}
