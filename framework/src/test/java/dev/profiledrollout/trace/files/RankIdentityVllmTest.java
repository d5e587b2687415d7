package dev.profiledrollout.trace.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class RankIdentityVllmTest {

    @Test
    void should_read_dp_pp_tp_ep_from_the_newest_vllm_names() {
        RankIdentity r = RankIdentity.fromFileName("dp1_pp0_tp3_dcp0_ep2_rank7.1773709742343012345.pt.trace.json.gz")
                .orElseThrow();
        assertThat(r.tp()).isEqualTo(3);
        assertThat(r.dp()).isEqualTo(OptionalInt.of(1));
        assertThat(r.pp()).isEqualTo(OptionalInt.of(0));
        assertThat(r.ep()).isEqualTo(OptionalInt.of(2));
        assertThat(r.profileId()).isEqualTo("1773709742343012345");
        assertThat(r.label()).isEqualTo("TP-3-DP-1-PP-0-EP-2");
        assertThat(RankIdentity.fromVllmFileName("myrun_dp0_pp0_tp1_dcp0_ep0_rank1.1773709742343012345.pt.trace.json")
                .orElseThrow().prefix()).isEqualTo("myrun");
    }

    @Test
    void should_read_the_global_rank_of_older_vllm_names_as_tp() {
        assertThat(RankIdentity.fromVllmFileName("a1b2c-rank-3.1773709742343012345.pt.trace.json.gz").orElseThrow().tp())
                .isEqualTo(3);
        assertThat(RankIdentity.fromVllmFileName("rank2.1773709742343012345.pt.trace.json.gz").orElseThrow().tp())
                .isEqualTo(2);
        assertThat(RankIdentity.fromVllmFileName("node7_4121_rank5.1773709742343012345.pt.trace.json.gz")
                .orElseThrow().tp()).isEqualTo(5);
    }

    @Test
    void should_find_no_rank_in_frontend_or_host_pid_names() {
        assertThat(RankIdentity.fromFileName("node7_4121.async_llm.1773709742351000000.pt.trace.json.gz")).isEmpty();
        assertThat(RankIdentity.fromFileName("node7_4121.1773709742351000000.pt.trace.json.gz")).isEmpty();
        assertThat(RankIdentity.fromFileName("1773999986.4851577-TP-1.trace.json.gz").orElseThrow().tp()).isEqualTo(1);
    }
}
