package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DatabindException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceDetails;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.files.RankIdentity;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one JSON mapping of the result records, written and read back. */
class ResultsModuleTest {

    private static final ObjectMapper JSON = ResultsModule.newMapper();

    @TempDir
    Path dir;

    @Test
    void should_read_back_a_real_trace_summary_as_it_was_written() throws Exception {
        // GIVEN an SGLang decode capture under an SGLang per-rank file name
        Path file = Files.copy(TestTraces.resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz"),
                dir.resolve("run-1700000000.5-TP-1-DP-0-DECODE.trace.json.gz"));
        TraceSummary original = KinetoTraceReader.read(file);
        String written = JSON.writeValueAsString(new LabeledTrace(file.toString(), original));
        // WHEN
        LabeledTrace read = JSON.readValue(written, LabeledTrace.class);
        // THEN the records come back equal, and writing them again gives the same JSON
        TraceSummary back = read.summary();
        assertThat(read.file()).isEqualTo(file.toString());
        assertThat(back.file()).isEqualTo(file);
        assertThat(back.rank()).isEqualTo(original.rank()).isPresent();
        assertThat(back.kernels()).isEqualTo(original.kernels());
        assertThat(back.devices()).isEqualTo(original.devices());
        assertThat(back.warnings()).isEqualTo(original.warnings());
        assertThat(back.kernelEvents()).isEqualTo(original.kernelEvents());
        TraceDetails d = back.details();
        assertThat(d.categories()).isEqualTo(original.details().categories()).isNotEmpty();
        assertThat(d.exact()).isEqualTo(original.details().exact());
        assertThat(d.htaCompatible()).isEqualTo(original.details().htaCompatible());
        assertThat(d.gpuTimeline()).isEqualTo(original.details().gpuTimeline());
        assertThat(d.launches()).isEqualTo(original.details().launches());
        assertThat(d.idleGaps()).isEqualTo(original.details().idleGaps());
        assertThat(d.operators()).isEqualTo(original.details().operators());
        assertThat(d.steps()).extracting(StepStats::name, StepStats::kernelNs).isEqualTo(
                original.details().steps().stream().map(s -> org.assertj.core.groups.Tuple.tuple(s.name(),
                        s.kernelNs())).toList());
        assertThat(JSON.readTree(JSON.writeValueAsString(read))).isEqualTo(JSON.readTree(written));
    }

    @Test
    void should_write_kernels_with_percentiles_and_category_and_read_them_without_the_derived_fields()
            throws Exception {
        KernelStats gemm = new KernelStats("sm90_xmma_gemm_bf16bf16_bf16f32", 4, 400, 90, 110, 100, 110);

        JsonNode json = JSON.valueToTree(gemm);

        assertThat(json.properties()).extracting(java.util.Map.Entry::getKey).containsExactly("name", "count",
                "totalNs", "minNs", "maxNs", "meanNs", "p50Ns", "p99Ns", "category");
        assertThat(json.get("meanNs").asDouble()).isEqualTo(100.0);
        assertThat(json.get("category").asText()).isEqualTo("GEMM");
        assertThat(JSON.treeToValue(json, KernelStats.class)).isEqualTo(gemm);
        // a kernel from a writer that had no percentiles yet
        assertThat(JSON.readValue("{\"name\":\"k\",\"count\":1,\"totalNs\":5,\"minNs\":5,\"maxNs\":5}",
                KernelStats.class)).isEqualTo(new KernelStats("k", 1, 5, 5, 5));
    }

    @Test
    void should_write_absent_rank_parts_as_null_and_read_them_back_as_absent() throws Exception {
        RankIdentity rank = new RankIdentity(null, "1700000000.5", 3, OptionalInt.empty(), OptionalInt.of(1),
                OptionalInt.empty(), Optional.empty());

        String json = JSON.writeValueAsString(rank);

        assertThat(JSON.readTree(json)).isEqualTo(JSON.readTree("{\"label\":\"TP-3-PP-1\",\"prefix\":null,"
                + "\"profileId\":\"1700000000.5\",\"tp\":3,\"dp\":null,\"pp\":1,\"ep\":null,\"stage\":null}"));
        assertThat(JSON.readValue(json, RankIdentity.class)).isEqualTo(rank);
    }

    @Test
    void should_name_what_is_missing_when_a_record_cannot_be_read() {
        assertThatThrownBy(() -> JSON.readValue("{\"count\":1}", KernelStats.class))
                .isInstanceOf(DatabindException.class).hasMessageContaining("a kernel needs a \"name\" string");
        assertThatThrownBy(() -> JSON.readValue("{\"label\":\"TP-0\"}", RankIdentity.class))
                .isInstanceOf(DatabindException.class)
                .hasMessageContaining("a rank needs \"profileId\" (string) and \"tp\" (number)");
        assertThatThrownBy(() -> JSON.readValue("{\"kernels\":[]}", LabeledTrace.class))
                .isInstanceOf(DatabindException.class)
                .hasMessageContaining("a trace summary needs a \"file\" string, got fields [kernels]");
    }
}
