package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.profiledrollout.verdict.Verdict;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SummaryFile}: what is written reads back equal, and a file read and written again keeps its bytes. */
class SummaryFileTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void the_golden_summary_read_and_written_again_keeps_every_byte() throws Exception {
        // GIVEN the golden file, as the extension's writers leave it (RunReport, Baselines, TestReport)
        String golden;
        try (InputStream in = SummaryFileTest.class.getResourceAsStream("/golden/summary.json")) {
            golden = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Path file = Files.writeString(dir.resolve("summary.json"), golden);

        // WHEN it is read into the model and written from it
        SummaryFile.read(file).write(file);

        // THEN nothing moved or changed (the golden file ends with a newline, which Jackson does not write)
        assertThat(Files.readString(file) + "\n").isEqualTo(golden);
    }

    @Test
    void a_model_with_every_block_reads_back_equal() throws Exception {
        // GIVEN a phased test's summary with each block a later stage adds
        Verdict verdict = new Verdict(Verdict.Kind.HISTORY, "PREFILL", "history store", "=", 0, 0, "", "unavailable",
                "writable", null, "no store", false, false);
        JsonNode load = JSON.readTree("{\"concurrency\":8,\"requests\":40}");
        SummaryFile.PhaseBlock prefill = new SummaryFile.PhaseBlock("PREFILL", "prefill", load,
                JSON.readTree("{\"num_steps\":5}"), NullNode.getInstance(),
                List.of(new RunHeader.Worker("http://gpu:30000", "prefill", "PROFILED", 0, "", "STOPPED", "worker-1",
                        null, List.of("TP-0.trace.json.gz"))),
                new CapturedSteps(5, Map.of("TP-0", 5), 5, 5, true), null, List.of(verdict),
                JSON.readTree("{\"store\":\"sqlite\",\"runId\":3}"));
        SummaryFile model = SummaryFile.builder()
                .test("PhasedTest.run")
                .engine(new RunHeader.Engine("SGLANG", "http://gpu:30000", "attached", "m", 2, 1, 1, 1, null, null,
                        "0.5.2"))
                .load(NullNode.getInstance())
                .profileRequest(NullNode.getInstance())
                .attempted(new SummaryFile.Attempted("SGLANG", null, List.of("http://gpu:30000"), null,
                        List.of("CPU", "GPU"), List.of("PREFILL"), null))
                .trace(JSON.readTree("{\"kernelTotalNs\":12}"))
                .error(null)
                .phases(List.of(prefill))
                .stageWindows(List.of(new RunHeader.StageWindow("concurrency 16", "stage-1-concurrency-16", 2, null,
                        1.5, "gemm", null)))
                .baseline(JSON.readTree("{\"file\":\"b.json\",\"kernelTimeChange\":0.25}"))
                .history(JSON.readTree("{\"store\":\"sqlite\",\"runId\":null}"))
                .verdicts(List.of(verdict))
                .traceFiles(List.of("traces/TP-0.trace.json.gz"))
                .outcome(new TestOutcome(TestOutcome.Status.PASSED, 1, 0, 0, ""))
                .build();
        Path file = dir.resolve("summary.json");

        // WHEN
        model.write(file);
        SummaryFile read = SummaryFile.read(file);

        // THEN equal, with the explicit nulls kept apart from the absent fields
        assertThat(read).isEqualTo(model);
        JsonNode tree = JSON.readTree(file.toFile());
        assertThat(tree.has("load")).isTrue();
        assertThat(tree.get("load").isNull()).isTrue();
        assertThat(tree.has("error")).isTrue();
        assertThat(tree.has("latency")).isFalse();
        assertThat(tree.has("workers")).isFalse();
        assertThat(tree.get("attempted").get("load").isNull()).isTrue();
        assertThat(tree.get("phases").get(0).get("latency").isNull()).isTrue();
        assertThat(tree.get("phases").get(0).has("stagePlacement")).isFalse();
        assertThat(RunHeader.of(tree).phases().get(0).directoryName()).isEqualTo("prefill");
        assertThat(RunHeader.of(tree).attempted().activities()).containsExactly("CPU", "GPU");
    }

    @Test
    void a_phase_page_without_its_own_history_block_takes_the_one_given_and_keeps_the_rest() throws Exception {
        // GIVEN a phase's summary.json without a history block
        SummaryFile.builder().test("PhasedTest.run").phase("PREFILL").error(null).build()
                .write(dir.resolve("summary.json"));
        ReportData data = ReportData.read(dir);
        ReportData.History history = new ReportData.History("sqlite", 7L, "PhasedTest#run/PREFILL", "f1", true, null,
                new ReportData.Threshold("relative", 10, null, 0.1), List.of(), List.of());

        // WHEN
        ReportData with = data.withHistory(history);

        // THEN the block reads back as given, and the file's other fields and the original data are untouched
        assertThat(data.history()).isEmpty();
        assertThat(with.history()).contains(history);
        assertThat(with.head().test()).isEqualTo("PhasedTest.run");
        assertThat(with.head().phase()).isEqualTo("PREFILL");
        assertThat(data.summary().has("history")).isFalse();
    }
}
