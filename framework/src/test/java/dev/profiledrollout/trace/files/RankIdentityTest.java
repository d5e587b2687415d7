package dev.profiledrollout.trace.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RankIdentityTest {

    @Test
    void should_read_the_plain_tp_name_from_protocols_example() {
        RankIdentity rank = RankIdentity.fromSglangFileName("1773999986.4851577-TP-0.trace.json.gz").orElseThrow();

        assertThat(rank).isEqualTo(new RankIdentity(null, "1773999986.4851577", 0, OptionalInt.empty(),
                OptionalInt.empty(), OptionalInt.empty(), Optional.empty()));
        assertThat(rank.label()).isEqualTo("TP-0");
    }

    @Test
    void should_read_prefix_dp_ep_and_stage() {
        RankIdentity rank = RankIdentity.fromSglangFileName("myprefix-1773999986.4851577-TP-1-DP-0-EP-2-DECODE.trace.json.gz")
                .orElseThrow();

        assertThat(rank.prefix()).isEqualTo("myprefix");
        assertThat(rank.profileId()).isEqualTo("1773999986.4851577");
        assertThat(rank.tp()).isEqualTo(1);
        assertThat(rank.dp()).hasValue(0);
        assertThat(rank.pp()).isEmpty();
        assertThat(rank.ep()).hasValue(2);
        assertThat(rank.stage()).hasValue("DECODE");
        assertThat(rank.label()).isEqualTo("TP-1-DP-0-EP-2-DECODE");
    }

    @Test
    void should_read_pp_and_v2_lowercase_stage() {
        RankIdentity rank = RankIdentity.fromSglangFileName("1773999986.48-TP-3-PP-1-prefill.trace.json.gz").orElseThrow();

        assertThat(rank.label()).isEqualTo("TP-3-PP-1-prefill");
        assertThat(rank.prefix()).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "merged-1773999986.4851577.trace.json.gz",
        "sampled_rank-0.json.gz",
        "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
        "dp0_pp0_tp0_dcp0_ep0_rank0.1773709742341309550.pt.trace.json.gz",
        "1773999986.4851577-TP-0.trace.json",
        "1773999986.4851577-TP-x.trace.json.gz",
        "TP-0.trace.json.gz",
        "cuda_graph_capture-decode-TP-0.json.gz",
    })
    void should_not_match_other_names(String name) {
        assertThat(RankIdentity.fromSglangFileName(name)).isEmpty();
    }

    @Test
    void should_order_by_tp_then_dp_then_stage() {
        List<RankIdentity> ranks = new ArrayList<>();
        for (String name : List.of("p-TP-2.trace.json.gz", "p-TP-10.trace.json.gz", "p-TP-1-DP-1.trace.json.gz",
                "p-TP-1-DP-0-EXTEND.trace.json.gz", "p-TP-1-DP-0-DECODE.trace.json.gz")) {
            ranks.add(RankIdentity.fromSglangFileName(name).orElseThrow());
        }
        ranks.sort(null);

        assertThat(ranks).extracting(RankIdentity::label)
                .containsExactly("TP-1-DP-0-DECODE", "TP-1-DP-0-EXTEND", "TP-1-DP-1", "TP-2", "TP-10");
    }
}
