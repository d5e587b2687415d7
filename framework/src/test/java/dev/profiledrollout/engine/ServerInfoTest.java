package dev.profiledrollout.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ServerInfoTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ServerInfo parse(String json) throws Exception {
        return ServerInfo.fromJson(JSON.readTree(json));
    }

    @Test
    void should_count_tp_times_pp_rank_files_under_dp_attention() throws Exception {
        ServerInfo info = parse("{\"tp_size\":8,\"dp_size\":4,\"pp_size\":2,\"ep_size\":8,"
                + "\"enable_dp_attention\":true,\"served_model_name\":\"llama\"}");
        assertThat(info.tpSize()).isEqualTo(8);
        assertThat(info.dpSize()).isEqualTo(4);
        assertThat(info.epSize()).isEqualTo(8);
        assertThat(info.servedModelName()).isEqualTo("llama");
        assertThat(info.simulator()).isFalse();
        assertThat(info.expectedRankFiles()).isEqualTo(16);
    }

    @Test
    void should_count_every_replica_with_plain_data_parallelism() throws Exception {
        assertThat(parse("{\"tp_size\":2,\"dp_size\":3,\"pp_size\":1}").expectedRankFiles()).isEqualTo(6);
    }

    @Test
    void should_default_missing_sizes_to_one_and_detect_the_simulator() throws Exception {
        ServerInfo info = parse("{\"engine\":\"simulator\",\"model_path\":\"m\"}");
        assertThat(info.expectedRankFiles()).isEqualTo(1);
        assertThat(info.simulator()).isTrue();
        assertThat(info.servedModelName()).isEqualTo("m");
    }

    @Test
    void should_read_the_largest_step_count_and_the_summed_queue_over_dp_schedulers() throws Exception {
        ServerInfo info = parse("{\"internal_states\":[{\"forward_ct\":40,\"waiting_queue_size\":1,"
                + "\"running_batch_size\":2},{\"forward_ct\":42,\"waiting_queue_size\":0,\"running_batch_size\":3}]}");
        assertThat(info.forwardCount()).hasValue(42);
        assertThat(info.queuedRequests()).hasValue(6);
    }

    @Test
    void should_report_no_step_count_or_queue_when_a_scheduler_lacks_them() throws Exception {
        ServerInfo sglang = parse("{\"internal_states\":[{\"last_gen_throughput\":0.0}]}");
        assertThat(sglang.forwardCount()).isEmpty();
        assertThat(sglang.queuedRequests()).isEmpty();
        ServerInfo partly = parse("{\"internal_states\":[{\"forward_ct\":4,\"waiting_queue_size\":0,"
                + "\"running_batch_size\":0},{\"waiting_queue_size\":0}]}");
        assertThat(partly.forwardCount()).isEmpty();
        assertThat(partly.queuedRequests()).isEmpty();
        assertThat(parse("{}").forwardCount()).isEmpty();
        assertThat(parse("{\"internal_states\":[]}").queuedRequests()).isEmpty();
    }
}
