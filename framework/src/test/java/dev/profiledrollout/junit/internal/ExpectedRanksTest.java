package dev.profiledrollout.junit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.engine.ServerInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Which SGLang rank files a capture should leave, and how the missing ones are named. */
class ExpectedRanksTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ServerInfo server(String json) throws Exception {
        return ServerInfo.fromJson(JSON.readTree(json));
    }

    private static WindowSpec spec(Class<?> test) {
        return WindowSpec.of(test.getAnnotation(ProfiledRollout.class), null);
    }

    private static List<Path> files(String... names) {
        return Stream.of(names).map(n -> Path.of("/traces", n)).toList();
    }

    @ProfiledRollout
    static class Torch {
    }

    @ProfiledRollout(activities = Activity.RPD)
    static class Rpd {
    }

    @ProfiledRollout(numSteps = 3, profileByStage = true, mergeProfiles = true)
    static class MergedByStage {
    }

    @Test
    void plain_dp_behind_one_server_names_the_missing_replica_with_ep_from_its_sibling() throws Exception {
        ExpectedRanks ranks = ExpectedRanks.sglang(server(
                "{\"tp_size\":2,\"dp_size\":2,\"ep_size\":2,\"pp_size\":1}"), spec(Torch.class));

        List<String> missing = ranks.missing(files("1.5-TP-0-DP-0-EP-0.trace.json.gz",
                "1.5-TP-1-DP-0-EP-1.trace.json.gz"));

        assertThat(ranks.count()).isEqualTo(4);
        assertThat(missing).containsExactly("DP 1 · TP 0 · PP 0 · EP 0", "DP 1 · TP 1 · PP 0 · EP 1");
        assertThat(ranks.onlyOtherDpRanks(missing)).isTrue();
    }

    @Test
    void dp_attention_labels_the_global_tp_ranks_with_their_attention_dp_rank() throws Exception {
        ExpectedRanks ranks = ExpectedRanks.sglang(server(
                "{\"tp_size\":4,\"dp_size\":2,\"enable_dp_attention\":true}"), spec(Torch.class));

        List<String> missing = ranks.missing(files("7-TP-0-DP-0.trace.json.gz", "7-TP-1-DP-0.trace.json.gz",
                "7-TP-2-DP-1.trace.json.gz"));

        assertThat(ranks.count()).isEqualTo(4);
        assertThat(missing).containsExactly("DP 1 · TP 3 · PP 0 · EP 0");
    }

    @Test
    void a_missing_rank_on_dp_0_is_not_blamed_on_another_dp_rank() throws Exception {
        ExpectedRanks ranks = ExpectedRanks.sglang(server("{\"tp_size\":2}"), spec(Torch.class));

        List<String> missing = ranks.missing(files("7-TP-0.trace.json.gz"));

        assertThat(missing).containsExactly("DP 0 · TP 1 · PP 0 · EP 0");
        assertThat(ranks.onlyOtherDpRanks(missing)).isFalse();
    }

    @Test
    void rpd_expects_one_file_per_replica_and_stage_captures_one_per_stage_plus_the_merged_file() throws Exception {
        assertThat(ExpectedRanks.sglang(server("{\"tp_size\":8,\"dp_size\":2}"), spec(Rpd.class)).count())
                .isEqualTo(2);
        assertThat(ExpectedRanks.sglang(server("{\"tp_size\":8,\"dp_size\":2,\"dp_rank\":1}"), spec(Rpd.class))
                .count()).as("one replica of a group launched as separate servers").isEqualTo(1);

        ExpectedRanks staged = ExpectedRanks.sglang(server("{\"tp_size\":2}"), spec(MergedByStage.class));
        assertThat(staged.count()).isEqualTo(2 * 2 + 1);
        assertThat(staged.missing(files("9-TP-0-EXTEND.trace.json.gz", "9-TP-1-EXTEND.trace.json.gz",
                "9-TP-0-DECODE.trace.json.gz", "merged-9.trace.json.gz")))
                .containsExactly("DP 0 · TP 1 · PP 0 · EP 0 (decode)");
    }
}
