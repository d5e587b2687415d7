package dev.profiledrollout.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.report.ReportData;
import dev.profiledrollout.report.RunHeader;
import dev.profiledrollout.trace.KernelStats;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code summary.json} written before the run model was read by type ({@code compat/summary-cebd0e6.json}, the
 * golden file of commit cebd0e6, frozen) still reads into the model: {@link ReportData} and the history's records
 * agree with the file's own numbers, taken here by key from the raw tree.
 */
class OldSummaryJsonTest {

    private static JsonNode raw() throws IOException {
        try (InputStream in = OldSummaryJsonTest.class.getResourceAsStream("/compat/summary-cebd0e6.json")) {
            return new ObjectMapper().readTree(in);
        }
    }

    @Test
    void the_trace_of_an_old_file_reads_into_the_model_with_the_files_numbers() throws IOException {
        JsonNode raw = raw();
        ReportData.Trace trace = ReportData.Trace.of(raw);

        assertThat(trace.kernelTotalNs()).isEqualTo(raw.path("trace").path("kernelTotalNs").asLong());
        assertThat(trace.ranks()).hasSize(raw.path("trace").path("ranks").size()).isNotEmpty();
        assertThat(trace.ranks().get(0).file()).isEqualTo(raw.path("trace").path("ranks").get(0).path("file").asText());
        assertThat(trace.kernels()).extracting(KernelStats::name).first()
                .isEqualTo(raw.path("trace").path("kernels").get(0).path("name").asText());
        long busy = 0;
        long span = 0;
        for (JsonNode rank : raw.path("trace").path("ranks")) {
            for (JsonNode device : rank.path("devices")) {
                busy += device.path("busyNs").asLong();
                span += device.path("spanNs").asLong();
            }
        }
        assertThat(span).isPositive();
        assertThat(trace.gpuBusyFraction()).hasValueCloseTo((double) busy / span, within(1e-12));
    }

    @Test
    void history_records_of_an_old_file_take_the_busy_fraction_and_kernel_time_from_the_model(@TempDir Path dir)
            throws IOException {
        JsonNode raw = raw();
        SortedMap<String, Double> metrics = RunRecords.metrics(raw);
        ReportData.Trace trace = ReportData.Trace.of(raw);

        assertThat(metrics.get("trace.gpu_busy_fraction")).isEqualTo(trace.gpuBusyFraction().getAsDouble());
        assertThat(metrics.get("trace.kernel_ms")).isCloseTo(trace.kernelTotalNs() / 1e6, within(1e-9));
        assertThat(metrics.get("trace.rank_imbalance")).isEqualTo(raw.path("trace").path("busyImbalance").asDouble());
        JsonNode latency = raw.path("latency");
        for (String d : HistoryMetrics.DISTRIBUTIONS) {
            assertThat(metrics.get(d + ".p99")).isEqualTo(latency.path(d).path("p99Ms").asDouble());
            assertThat(metrics.get(d + ".mean")).isEqualTo(latency.path(d).path("meanMs").asDouble());
        }
        assertThat(metrics.get("throughput.requests")).isEqualTo(latency.path("requestThroughput").asDouble());
        assertThat(metrics.get("goodput.requests")).isEqualTo(latency.path("requestGoodput").asDouble());
        assertThat(metrics.get("errors.fraction")).isEqualTo(latency.path("failed").asDouble()
                / (latency.path("completed").asDouble() + latency.path("failed").asDouble())).isPositive();

        // the whole directory reads too, as `profiled-rollout report DIR` reads an old run
        Files.copy(OldSummaryJsonTest.class.getResourceAsStream("/compat/summary-cebd0e6.json"),
                dir.resolve("summary.json"));
        ReportData data = ReportData.read(dir);
        assertThat(RunRecords.fromDirectory(dir, new RunIdentity("OldTest#run", java.time.Instant.EPOCH, null, null,
                null, null, null)).get(0).outcome()).isEqualTo(raw.path("outcome").path("status").asText());
        assertThat(data.trace()).isEqualTo(trace);
        assertThat(data.testName()).isEqualTo(raw.path("test").asText());
        assertThat(data.verdicts()).hasSize(raw.path("verdicts").size());
    }

    @Test
    void the_head_of_an_old_file_reads_into_the_model() throws IOException {
        JsonNode raw = raw();
        RunHeader head = RunHeader.of(raw);

        assertThat(head.engine().backend()).isEqualTo(raw.path("engine").path("backend").asText());
        assertThat(head.engine().tpSize()).isEqualTo(raw.path("engine").path("tpSize").asInt());
        assertThat(head.load().concurrency()).isEqualTo(raw.path("load").path("concurrency").asInt());
        // written as the string "Infinity" for a closed loop
        assertThat(raw.path("load").path("arrival").path("requestRate").asText()).isEqualTo("Infinity");
        assertThat(head.load().arrival().requestRate()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(head.numSteps()).isEqualTo(raw.path("profileRequest").path("num_steps").asInt()).isPositive();
    }

    @Test
    void num_steps_is_one_value_whichever_block_spells_it(@TempDir Path dir) throws IOException {
        ObjectMapper json = new ObjectMapper();
        JsonNode sent = json.readTree("{\"profileRequest\":{\"num_steps\":7}}");
        JsonNode failedEarly = json.readTree("{\"attempted\":{\"num_steps\":7},\"error\":\"engine refused\"}");
        JsonNode failedEarlyBefore = json.readTree("{\"attempted\":{\"numSteps\":7},\"error\":\"engine refused\"}");

        assertThat(RunHeader.of(sent).numSteps()).isEqualTo(7);
        // the writer spells it num_steps (CaptureAttempt); files written before spelled it numSteps
        assertThat(RunHeader.of(failedEarly).numSteps()).isEqualTo(7);
        assertThat(RunHeader.of(failedEarlyBefore).numSteps()).isEqualTo(7);
        assertThat(RunHeader.of(json.readTree("{}")).numSteps()).isNull();
        // the history fingerprints both alike
        assertThat(RunRecords.configuration(dir, failedEarly, null).numSteps())
                .isEqualTo(RunRecords.configuration(dir, sent, null).numSteps()).isEqualTo(7);
    }

    @Test
    void the_configuration_of_an_old_file_spells_its_fingerprint_inputs_as_the_json_values(@TempDir Path dir)
            throws IOException {
        JsonNode raw = raw();
        RunConfiguration c = RunRecords.configuration(dir, raw, null);

        // the extras are part of the fingerprint: the texts the file's values had when they were read by key
        assertThat(c.extra()).containsExactly(
                java.util.Map.entry("endpoint", raw.path("load").path("endpoint").asText()),
                java.util.Map.entry("requests", raw.path("load").path("requests").asText()),
                java.util.Map.entry("workers", raw.path("profiled").path("workers").asText()));
        assertThat(c.backend()).isEqualTo(raw.path("engine").path("backend").asText());
        assertThat(c.engineKind()).isEqualTo(raw.path("profiled").path("kind").asText());
        assertThat(c.model()).isEqualTo(raw.path("engine").path("model").asText());
        assertThat(c.tp()).isEqualTo(raw.path("engine").path("tpSize").asInt());
        assertThat(c.concurrency()).isEqualTo(raw.path("load").path("concurrency").asInt());
        assertThat(c.requestRate()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(c.numSteps()).isEqualTo(raw.path("profileRequest").path("num_steps").asInt());
    }
}
