package dev.profiledrollout.trace;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The HTA-compatible temporal breakdown and comm/compute overlap against the values HTA @ f4d0062 computes with
 * default settings on the real traces ({@code docs/TRACES.md} §3.3, "Reference values").
 */
class HtaOracleTest {

    private static TemporalBreakdown hta(Path file) throws IOException {
        return KinetoTraceReader.read(file).details().htaCompatible();
    }

    @Test
    void trace_filter_rank_0_matches_hta() throws IOException {
        TemporalBreakdown t = hta(TestTraces.traceFilter(0));
        assertThat(t.kernelTimeNs()).isEqualTo(600_058_000L);
        assertThat(t.idleNs()).isEqualTo(321_378_000L);
        assertThat(t.computeNs()).isEqualTo(106_252_000L);
        assertThat(t.nonComputeNs()).isEqualTo(172_428_000L);
        assertThat(t.overlapPercent()).isCloseTo(11.81, within(0.005));
    }

    @Test
    void trace_filter_rank_1_matches_hta() throws IOException {
        TemporalBreakdown t = hta(TestTraces.traceFilter(1));
        assertThat(t.kernelTimeNs()).isEqualTo(600_674_000L);
        assertThat(t.idleNs()).isEqualTo(328_671_000L);
        assertThat(t.computeNs()).isEqualTo(135_548_000L);
        assertThat(t.nonComputeNs()).isEqualTo(136_455_000L);
        assertThat(t.overlapPercent()).isCloseTo(20.05, within(0.005));
    }

    @Test
    void ns_resolution_matches_hta_including_its_float64_microsecond_rounding() throws IOException {
        TraceSummary s = KinetoTraceReader.read(TestTraces.root()
                .resolve("hta/ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"));
        TemporalBreakdown t = s.details().htaCompatible();
        assertThat(t.kernelTimeNs()).isCloseTo(384_634_000L, within(0L));
        assertThat(t.idleNs()).isCloseTo(10_113_000L, within(0L));
        assertThat(t.computeNs()).isCloseTo(372_150_000L, within(0L));
        assertThat(t.nonComputeNs()).isCloseTo(2_371_000L, within(0L));
        assertThat(t.overlapPercent()).isNaN();
        // The exact mode keeps ns and the last step, so it differs from HTA's numbers.
        assertThat(s.details().exact().kernelTimeNs()).isEqualTo(480_029_179L);
        assertThat(s.details().exact().idleNs() + s.devices().get(0).busyNs())
                .isEqualTo(s.details().exact().kernelTimeNs());
    }
}
