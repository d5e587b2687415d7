package dev.profiledrollout.engine.nsys;

import dev.profiledrollout.trace.KernelStats;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KernelSummaryCsvTest {

    @Test
    void should_read_the_2022_gpukernsum_form_with_grid_block_and_long_headings() {
        String csv = "Time (%),Total Time (ns),Instances,Average (ns),Median (ns),Minimum (ns),Maximum (ns),"
                + "StdDev (ns),GridXYZ,BlockXYZ,Name\n"
                + "100.0,1000,4,250.0,250.0,200,300,40.8,\"  132    1    1\",\"  128    1    1\",\"k<a, \"\"b\"\">\"\n";
        List<KernelStats> kernels = KernelSummaryCsv.parse(csv);
        assertThat(kernels).containsExactly(new KernelStats("k<a, \"b\">", 4, 1000, 200, 300));
    }

    @Test
    void should_say_what_to_check_when_there_is_no_header() {
        assertThatThrownBy(() -> KernelSummaryCsv.parse("SKIPPED: report does not contain CUDA kernel data.\n"))
                .hasMessageContaining("cuda-graph-trace=node");
    }
}
