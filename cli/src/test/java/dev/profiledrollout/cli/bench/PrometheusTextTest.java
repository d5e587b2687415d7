package dev.profiledrollout.cli.bench;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class PrometheusTextTest {

    private static final String EXPOSITION = """
            # HELP sglang:num_running_reqs The number of running requests.
            # TYPE sglang:num_running_reqs gauge
            sglang:num_running_reqs{engine_type="unified",model_name="qwen",moe_ep_rank="0",pp_rank="0",tp_rank="0"} 12.0
            sglang:num_queue_reqs{model_name="qwen",tp_rank="0"} 3
            # TYPE sglang:prompt_tokens_total counter
            sglang:prompt_tokens_total{model_name="qwen"} 1.2345e+06
            vllm:request_success_total{engine="0",finished_reason="length",model_name="m"} 640 1700000000000
            vllm:kv_cache_usage_perc{engine="0",model_name="m"} NaN
            sglang:time_to_first_token_seconds_bucket{le="+Inf",model_name="qwen"} 99
            weird{label="a \\"quoted\\" value, with comma"} -Inf
            process_open_fds 17

            this line is broken {
            """;

    @Test
    void parses_gauges_counters_labels_timestamps_and_special_values() {
        PrometheusText.Exposition e = PrometheusText.parse(EXPOSITION);
        assertThat(e.samples()).hasSize(8);
        assertThat(e.skippedLines()).isEqualTo(1);
        PrometheusText.Sample running = e.first("sglang:num_running_reqs");
        assertThat(running.value()).isEqualTo(12.0);
        assertThat(running.labels()).containsEntry("tp_rank", "0").containsEntry("engine_type", "unified").hasSize(5);
        assertThat(e.first("sglang:prompt_tokens_total").value()).isEqualTo(1_234_500.0);
        assertThat(e.first("vllm:request_success_total").labels()).containsEntry("finished_reason", "length");
        assertThat(e.first("vllm:request_success_total").value()).isEqualTo(640);
        assertThat(e.first("vllm:kv_cache_usage_perc").value()).isNaN();
        assertThat(e.first("sglang:time_to_first_token_seconds_bucket").labels()).containsEntry("le", "+Inf");
        assertThat(e.first("weird").labels()).isEqualTo(Map.of("label", "a \"quoted\" value, with comma"));
        assertThat(e.first("weird").value()).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(e.first("process_open_fds").labels()).isEmpty();
    }
}
