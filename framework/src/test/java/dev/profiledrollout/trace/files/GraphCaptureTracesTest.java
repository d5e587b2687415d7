package dev.profiledrollout.trace.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * vLLM's {@code capture_torch_profiler} writes rank 0's CUDA-graph-capture trace into {@code capture_traces/} under the
 * profiler directory (vllm-project/vllm {@code vllm/config/profiler.py}): it is found, but never counted as a rank.
 */
class GraphCaptureTracesTest {

    @TempDir
    Path dir;

    @Test
    void graph_capture_traces_are_not_ranks_of_a_window() throws Exception {
        Path rank = Files.createFile(dir.resolve("dp0_pp0_tp0_dcp0_ep0_rank0.1773709742341309550.pt.trace.json.gz"));
        Path capture = Files.createDirectories(dir.resolve("capture_traces"))
                .resolve("dp0_pp0_tp0_dcp0_ep0_rank0.1773709700000000000.pt.trace.json.gz");
        Files.createFile(capture);
        Path hostCapture = Files.createDirectories(dir.resolve("node7/capture_traces"))
                .resolve("rank0.1773709700000000001.pt.trace.json.gz");
        Files.createFile(hostCapture);

        assertThat(TraceFiles.rankTraces(dir, true, Set.of())).containsExactly(rank);
        assertThat(TraceFiles.graphCaptureTraces(dir)).containsExactlyInAnyOrder(capture, hostCapture);
    }
}
