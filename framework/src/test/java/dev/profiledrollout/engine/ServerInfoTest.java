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
}
