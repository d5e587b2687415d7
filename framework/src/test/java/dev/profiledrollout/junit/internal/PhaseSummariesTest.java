package dev.profiledrollout.junit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.report.RunReport;
import dev.profiledrollout.verdict.Verdict;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The top-level {@code summary.json} of a phased test and the verdicts each phase gets, from written summaries. */
class PhaseSummariesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MS = 1_000_000L;
    private static final ServerInfo SERVER = new ServerInfo(1, 1, 1, 1, "Qwen/Qwen3-8B", false,
            JsonNodeFactory.instance.objectNode());

    @TempDir
    Path test;

    @Test
    void should_replace_the_merged_latency_and_unused_load_by_each_phases_own() throws Exception {
        // GIVEN a prefill phase of 1-token outputs and a decode phase of 8-token outputs, each summary written
        Map<String, Path> phases = writePhases();
        write(test, "Test.run", null, null, merged());

        // WHEN
        PhaseSummaries.writeCombined(test, phases);

        // THEN
        JsonNode top = read(test);
        assertThat(top.get("load").isNull()).isTrue();
        assertThat(top.get("profileRequest").isNull()).isTrue();
        assertThat(top.has("latency")).isFalse();
        assertThat(top.path("test").asText()).isEqualTo("Test.run");
        JsonNode prefill = top.path("phases").get(0);
        assertThat(prefill.path("phase").asText()).isEqualTo("PREFILL");
        assertThat(prefill.path("directory").asText()).isEqualTo("prefill");
        assertThat(prefill.path("load").path("inputTokens").asInt()).isEqualTo(4096);
        assertThat(prefill.path("profileRequest").path("num_steps").asInt()).isEqualTo(3);
        assertThat(prefill.path("latency").path("ttft").path("count").asInt()).isEqualTo(2);
        assertThat(prefill.path("latency").path("itl").path("count").asInt()).isZero();
        assertThat(prefill.path("latency").path("itl").has("p99Ms")).isFalse();
        assertThat(prefill.path("verdicts")).isEmpty();
        JsonNode decode = top.path("phases").get(1);
        assertThat(decode.path("phase").asText()).isEqualTo("DECODE");
        assertThat(decode.path("load").path("inputTokens").asInt()).isEqualTo(128);
        assertThat(decode.path("latency").path("itl").path("count").asInt()).isEqualTo(2 * 7);
        assertThat(top.path("phases")).hasSize(2);
    }

    @Test
    void should_give_each_phase_the_verdicts_of_its_scope_and_its_own_report() throws Exception {
        // GIVEN a written phased summary
        Map<String, Path> phases = writePhases();
        write(test, "Test.run", null, null, merged());
        PhaseSummaries.writeCombined(test, phases);
        List<Verdict> verdicts = List.of(verdict("p99 TTFT", "PREFILL"), verdict("p90 TPOT", "DECODE"),
                verdict("kernel time", "DECODE · TP-0"), verdict("p99 E2E latency", PhaseSummaries.ALL_PHASES),
                verdict("GPU busy fraction", ""));

        // WHEN
        PhaseSummaries.finish(test, phases, verdicts);

        // THEN
        JsonNode entries = read(test).path("phases");
        assertThat(entries.get(0).path("verdicts")).extracting(v -> v.path("measure").asText())
                .containsExactly("p99 TTFT");
        assertThat(entries.get(1).path("verdicts")).extracting(v -> v.path("measure").asText())
                .containsExactly("p90 TPOT", "kernel time");
        assertThat(entries.get(1).path("verdicts").get(1).path("scope").asText()).isEqualTo("DECODE · TP-0");
        assertThat(read(phases.get("PREFILL")).path("verdicts")).extracting(v -> v.path("measure").asText())
                .containsExactly("p99 TTFT");
        assertThat(phases.get("PREFILL").resolve("report.html")).content().contains("p99 TTFT")
                .doesNotContain("p90 TPOT");
        assertThat(phases.get("DECODE").resolve("report.html")).content().contains("p90 TPOT");
    }

    @Test
    void should_render_the_phases_that_ran_when_the_test_has_no_combined_summary() throws Exception {
        // GIVEN only the prefill phase ran, and the test failed before a combined summary was written
        Path prefill = test.resolve("prefill");
        write(prefill, "Test.run[PREFILL]", new LoadSpec(4, 2, 4096, 1, 0.0, 0, 1),
                ProfileRequest.builder().numSteps(3).build(), LatencyReport.of(prefillRecords()));
        Map<String, Path> phases = new LinkedHashMap<>();
        phases.put("PREFILL", prefill);
        phases.put("DECODE", test.resolve("decode"));

        // WHEN
        PhaseSummaries.finish(test, phases, List.of(verdict("p99 TTFT", "PREFILL")));

        // THEN
        assertThat(read(prefill).path("verdicts")).hasSize(1);
        assertThat(prefill.resolve("report.html")).isNotEmptyFile();
        assertThat(test.resolve("decode/report.html")).doesNotExist();
        assertThat(test.resolve("summary.json")).doesNotExist();
    }

    private Map<String, Path> writePhases() {
        Map<String, Path> phases = new LinkedHashMap<>();
        phases.put("PREFILL", test.resolve("prefill"));
        phases.put("DECODE", test.resolve("decode"));
        write(phases.get("PREFILL"), "Test.run[PREFILL]", new LoadSpec(4, 2, 4096, 1, 0.0, 0, 1),
                ProfileRequest.builder().numSteps(3).build(), LatencyReport.of(prefillRecords()));
        write(phases.get("DECODE"), "Test.run[DECODE]", new LoadSpec(16, 2, 128, 8, 0.0, 0, 1),
                ProfileRequest.builder().numSteps(10).build(), LatencyReport.of(decodeRecords()));
        return phases;
    }

    private static LatencyReport merged() {
        List<RequestRecord> all = new ArrayList<>(prefillRecords());
        all.addAll(decodeRecords());
        return LatencyReport.of(all).withScope(PhaseSummaries.ALL_PHASES);
    }

    /** Two 4,096-token prompts with one output token each: one chunk, no gap. */
    private static List<RequestRecord> prefillRecords() {
        return List.of(RequestRecord.success(0, 4096, 1, 0, new long[] {300 * MS}, 4096, 1),
                RequestRecord.success(1, 4096, 1, 10 * MS, new long[] {320 * MS}, 4096, 1));
    }

    /** Two 128-token prompts with 8 output tokens each, one chunk per token. */
    private static List<RequestRecord> decodeRecords() {
        List<RequestRecord> records = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            long start = (1000 + r * 5) * MS;
            long[] chunks = new long[8];
            for (int c = 0; c < chunks.length; c++) {
                chunks[c] = start + (20 + 5 * c) * MS;
            }
            records.add(RequestRecord.success(2 + r, 128, 8, start, chunks, 128, 8));
        }
        return records;
    }

    private static void write(Path dir, String test, LoadSpec load, ProfileRequest request, LatencyReport latency) {
        RunReport report = new RunReport(dir, test, URI.create("http://localhost:30000"), true, SERVER,
                load == null ? new LoadSpec(3, 5, 40, 5, 0.0, 0, 1) : load,
                request == null ? ProfileRequest.builder().numSteps(10).build() : request);
        report.writeRequests(latency);
        report.writeSummary(latency, null, null);
    }

    private static Verdict verdict(String measure, String scope) {
        return Verdict.of(Verdict.Kind.LATENCY, measure, "<", 10.0, 20.0, "ms", "10 ms", "20 ms", "", true)
                .withScope(scope);
    }

    private static JsonNode read(Path dir) throws Exception {
        return JSON.readTree(dir.resolve("summary.json").toFile());
    }
}
