package dev.profiledrollout.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.trace.files.TraceFileName;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * RPD traces of one engine with DP &gt; 1 or PP &gt; 1 in one container: each TP-0 process converts the shared
 * {@code trace.rpd}, so two files can hold the same events. Those are counted once, and differing files are flagged.
 */
class RpdCopiesTest {

    private static TraceSummary rpd(String name, long kernels, long totalNs) {
        return new TraceSummary(Path.of(name), TraceFileName.rank(name), kernels, 0, 1, totalNs,
                List.of(new DeviceStats("0", totalNs, 2 * totalNs)),
                List.of(new KernelStats("gemm", kernels, totalNs, totalNs / Math.max(1, kernels),
                        totalNs / Math.max(1, kernels))), List.of());
    }

    @Test
    void a_repeated_rpd_trace_is_counted_once_with_a_warning() {
        TraceSet set = TraceSet.of(List.of(rpd("rpd-1700000000.1-TP-0.trace.json.gz", 10, 5_000),
                rpd("rpd-1700000000.2-TP-0.trace.json.gz", 10, 5_000)));

        TraceSet.RpdCheck checked = set.withoutRpdCopies();

        assertThat(set.kernelTotalNs()).isEqualTo(10_000);
        assertThat(checked.traces().traces()).hasSize(1);
        assertThat(checked.traces().kernelTotalNs()).isEqualTo(5_000);
        assertThat(checked.warnings()).singleElement().asString().contains("repeats the kernel events")
                .contains("nothing is counted twice");
    }

    @Test
    void differing_rpd_traces_of_one_engine_are_kept_and_flagged_and_other_traces_are_left_alone() {
        TraceSet.RpdCheck mixed = TraceSet.of(List.of(rpd("rpd-1700000000.1-TP-0.trace.json.gz", 10, 5_000),
                rpd("rpd-1700000000.2-TP-0.trace.json.gz", 7, 3_000))).withoutRpdCopies();
        assertThat(mixed.traces().traces()).hasSize(2);
        assertThat(mixed.warnings()).singleElement().asString().contains("may hold another replica's events");

        TraceSet.RpdCheck torch = TraceSet.of(List.of(rpd("1-TP-0.trace.json.gz", 10, 5_000),
                rpd("1-TP-1.trace.json.gz", 10, 5_000))).withoutRpdCopies();
        assertThat(torch.traces().traces()).hasSize(2);
        assertThat(torch.warnings()).isEmpty();
    }
}
