package dev.profiledrollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.baselines.BaselineDiff;
import dev.profiledrollout.trace.baselines.TraceBaseline;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RolloutResultTest {

    private static Path traceFile;
    private static TraceSummary summary;
    private static ServerInfo serverInfo;

    @BeforeAll
    static void readRealTrace() throws Exception {
        traceFile = TestTraces.resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz");
        summary = KinetoTraceReader.read(traceFile);
        serverInfo = ServerInfo.fromJson(new ObjectMapper().readTree("{\"tp_size\":1,\"dp_size\":1}"));
    }

    private static RolloutResult.Builder complete(Path outputDirectory) {
        return RolloutResult.builder().latency(LatencyReport.of(List.of())).trace(TraceSet.of(List.of(summary)))
                .outputDirectory(outputDirectory).serverInfo(serverInfo).stopOutcome(StopOutcome.STOPPED);
    }

    @Test
    void a_result_with_only_the_required_values_has_no_files_workers_phases_or_baseline() {
        RolloutResult result = complete(Path.of("out/T/m")).build();

        assertThat(result.trace().traces()).containsExactly(summary);
        assertThat(result.outputDirectory()).isEqualTo(Path.of("out/T/m"));
        assertThat(result.stopOutcome()).isEqualTo(StopOutcome.STOPPED);
        assertThat(result.traceFiles()).isEmpty();
        assertThat(result.workers()).isEmpty();
        assertThat(result.frontendTraceFiles()).isEmpty();
        assertThat(result.phases()).isEmpty();
        assertThat(result.baseline()).isEmpty();
    }

    @Test
    void a_missing_required_value_is_named() {
        assertThatThrownBy(() -> RolloutResult.builder().latency(LatencyReport.of(List.of()))
                .trace(TraceSet.of(List.of(summary))).serverInfo(serverInfo).stopOutcome(StopOutcome.STOPPED).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("outputDirectory");
    }

    @Test
    void phases_keep_their_order_and_an_undeclared_phase_is_refused() {
        RolloutResult decode = complete(Path.of("out/T/m/decode")).build();
        RolloutResult prefill = complete(Path.of("out/T/m/prefill")).build();
        Map<Phase, RolloutResult> phases = new LinkedHashMap<>();
        phases.put(Phase.DECODE, decode);
        phases.put(Phase.PREFILL, prefill);
        WorkerOutcome worker = new WorkerOutcome(URI.create("http://e:1"), "decode", WorkerOutcome.State.PROFILED,
                200, null, StopOutcome.STOPPED);

        RolloutResult result = complete(Path.of("out/T/m")).phases(phases).workers(List.of(worker)).build();
        phases.clear();

        assertThat(result.phases().keySet()).containsExactly(Phase.DECODE, Phase.PREFILL);
        assertThat(result.phase(Phase.PREFILL)).isSameAs(prefill);
        assertThat(result.workers()).containsExactly(worker);
        assertThatThrownBy(() -> result.phases().clear()).isInstanceOf(UnsupportedOperationException.class);
        RolloutResult single = complete(Path.of("out/T/m")).build();
        assertThatThrownBy(() -> single.phase(Phase.DECODE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("No DECODE phase");
    }

    @Test
    void with_baseline_adds_the_comparison_and_keeps_everything_else() {
        RolloutResult result = complete(Path.of("out/T/m")).traceFiles(List.of(traceFile)).build();
        BaselineDiff diff = TraceBaseline.of(summary).diff(result.trace().traces());

        RolloutResult compared = result.withBaseline(diff);

        assertThat(compared.baseline()).containsSame(diff);
        assertThat(compared.baseline().orElseThrow().kernelTimeChange()).isZero();
        assertThat(compared.traceFiles()).containsExactly(traceFile);
        assertThat(compared.trace()).isSameAs(result.trace());
        assertThat(result.baseline()).isEmpty();
    }
}
