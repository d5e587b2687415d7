package dev.profiledrollout.load;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LoadSpecTest {

    @Test
    void the_short_constructor_is_a_closed_loop_to_completions_without_prefix_or_time_bound() {
        LoadSpec spec = new LoadSpec(64, 1000, 1024, 128, 0.99, 4, 42L);
        assertThat(spec.concurrency()).isEqualTo(64);
        assertThat(spec.requests()).isEqualTo(1000);
        assertThat(spec.inputTokens()).isEqualTo(1024);
        assertThat(spec.outputTokens()).isEqualTo(128);
        assertThat(spec.rangeRatio()).isEqualTo(0.99);
        assertThat(spec.warmupRequests()).isEqualTo(4);
        assertThat(spec.seed()).isEqualTo(42L);
        assertThat(spec.arrival()).isEqualTo(ArrivalProcess.closedLoop());
        assertThat(spec.arrival().isClosedLoop()).isTrue();
        assertThat(spec.prefixTokens()).isZero();
        assertThat(spec.maxDuration()).isNull();
        assertThat(spec.endpoint()).isEqualTo(Endpoint.COMPLETIONS);
        // the smallest valid values
        LoadSpec least = new LoadSpec(1, 1, 1, 1, 0.0, 0, 0L);
        assertThat(least.rangeRatio()).isZero();
        assertThat(least.warmupRequests()).isZero();
    }

    @Test
    void each_with_changes_one_field_and_keeps_the_others() {
        LoadSpec base = new LoadSpec(8, 100, 512, 64, 0.5, 2, 7L);
        LoadSpec open = base.withArrival(ArrivalProcess.poisson(10), 0);
        assertThat(open.arrival()).isEqualTo(ArrivalProcess.poisson(10));
        assertThat(open.concurrency()).isZero(); // an open loop without a cap
        assertThat(open).isEqualTo(new LoadSpec(0, 100, 512, 64, 0.5, 2, 7L, ArrivalProcess.poisson(10), 0, null,
                Endpoint.COMPLETIONS));
        assertThat(base.withPrefixTokens(256)).isEqualTo(new LoadSpec(8, 100, 512, 64, 0.5, 2, 7L,
                ArrivalProcess.closedLoop(), 256, null, Endpoint.COMPLETIONS));
        assertThat(base.withMaxDuration(Duration.ofSeconds(30)).maxDuration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(base.withMaxDuration(Duration.ofSeconds(30)).withMaxDuration(null).maxDuration()).isNull();
        assertThat(base.withEndpoint(Endpoint.GENERATE)).isEqualTo(new LoadSpec(8, 100, 512, 64, 0.5, 2, 7L,
                ArrivalProcess.closedLoop(), 0, null, Endpoint.GENERATE));
    }

    @Test
    void should_fail_if_a_field_is_out_of_range_naming_the_field() {
        assertThatThrownBy(() -> new LoadSpec(0, 1, 1, 1, 0, 0, 0)).hasMessage("concurrency must be ≥ 1, was 0");
        assertThatThrownBy(() -> new LoadSpec(1, 0, 1, 1, 0, 0, 0)).hasMessage("requests must be ≥ 1, was 0");
        assertThatThrownBy(() -> new LoadSpec(1, 1, 0, 1, 0, 0, 0)).hasMessage("inputTokens must be ≥ 1, was 0");
        assertThatThrownBy(() -> new LoadSpec(1, 1, 1, 0, 0, 0, 0)).hasMessage("outputTokens must be ≥ 1, was 0");
        assertThatThrownBy(() -> new LoadSpec(1, 1, 1, 1, 1.0, 0, 0)).hasMessageContaining("rangeRatio must be in [0, 1)");
        assertThatThrownBy(() -> new LoadSpec(1, 1, 1, 1, -0.1, 0, 0)).hasMessageContaining("rangeRatio");
        assertThatThrownBy(() -> new LoadSpec(1, 1, 1, 1, Double.NaN, 0, 0)).hasMessageContaining("rangeRatio");
        assertThatThrownBy(() -> new LoadSpec(1, 1, 1, 1, 0, -1, 0)).hasMessage("warmupRequests must be ≥ 0, was -1")
                .isInstanceOf(IllegalArgumentException.class);
        LoadSpec base = new LoadSpec(1, 1, 1, 1, 0, 0, 0);
        assertThatThrownBy(() -> base.withPrefixTokens(-1)).hasMessage("prefixTokens must be ≥ 0, was -1");
        assertThatThrownBy(() -> base.withMaxDuration(Duration.ZERO)).hasMessageContaining("maxDuration must be positive");
        assertThatThrownBy(() -> base.withMaxDuration(Duration.ofSeconds(-1))).hasMessageContaining("maxDuration");
        assertThatThrownBy(() -> base.withEndpoint(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> base.withArrival(null, 1)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void an_open_loop_cap_may_be_zero_but_not_negative() {
        LoadSpec base = new LoadSpec(1, 1, 1, 1, 0, 0, 0);
        assertThat(base.withArrival(ArrivalProcess.constant(5), 0).concurrency()).isZero();
        assertThatThrownBy(() -> base.withArrival(ArrivalProcess.constant(5), -1))
                .hasMessage("concurrency (max-concurrency cap, 0 = none) must be ≥ 0, was -1");
        assertThatThrownBy(() -> base.withArrival(ArrivalProcess.closedLoop(), 0))
                .hasMessage("concurrency must be ≥ 1, was 0");
    }
}
