package dev.profiledrollout.trace.files;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TensorRT-LLM's per-rank torch traces: {@code TLLM_TORCH_PROFILE_TRACE} with {@code -rank-<r>} inserted before its last
 * extension (NVIDIA/TensorRT-LLM {@code tensorrt_llm/_torch/pyexecutor/py_executor.py}, {@code _profiler}).
 */
class TrtllmTraceNamesTest {

    @ParameterizedTest
    @CsvSource({"trtllm-rank-0.json, 0, trtllm", "run.2026-rank-13.json, 13, run.2026", "t.json-rank-3.gz, 3, t"})
    void a_trtllm_rank_trace_is_a_trace_with_its_global_rank(String name, int rank, String base) {
        assertThat(TraceFileName.isTrace(name)).isTrue();
        assertThat(TraceFileName.isRankTrace(name)).isTrue();
        assertThat(TraceFileName.rank(name)).hasValueSatisfying(r -> {
            assertThat(r.tp()).isEqualTo(rank);
            assertThat(r.profileId()).isEqualTo(base);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"trtllm.json", "summary.json", "trtllm-rank-x.json", "t.json.gz", "rank-0.json.gz"})
    void other_json_files_are_not_rank_traces(String name) {
        assertThat(TraceFileName.isTrace(name)).isFalse();
        assertThat(TraceFileName.rank(name)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"abcde-rank-2.1773709742343012346.pt.trace.json.gz", "1-TP-0.trace.json.gz"})
    void sglang_and_vllm_names_keep_their_own_reading(String name) {
        assertThat(TraceFileName.trtllmRank(name)).isEmpty();
        assertThat(TraceFileName.rank(name)).isPresent();
    }
}
