package dev.profiledrollout.load;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThatCode;

class LoadSpecTest {

    @Test
    void should_accept_a_valid_spec() {
        assertThatCode(() -> new LoadSpec(1, 1, 1, 1, 0.0, 0, 0L)).doesNotThrowAnyException();
        assertThatCode(() -> new LoadSpec(64, 1000, 1024, 128, 0.99, 4, 42L)).doesNotThrowAnyException();
    }

    @Test
    void should_fail_if_a_field_is_out_of_range_naming_the_field() {
        assertThatThrownBy(() -> new LoadSpec(0, 1, 1, 1, 0, 0, 0)).hasMessageContaining("concurrency must be ≥ 1");
        assertThatThrownBy(() -> new LoadSpec(1, 0, 1, 1, 0, 0, 0)).hasMessageContaining("requests must be ≥ 1");
        assertThatThrownBy(() -> new LoadSpec(1, 1, 0, 1, 0, 0, 0)).hasMessageContaining("inputTokens must be ≥ 1");
        assertThatThrownBy(() -> new LoadSpec(1, 1, 1, 0, 0, 0, 0)).hasMessageContaining("outputTokens must be ≥ 1");
        assertThatThrownBy(() -> new LoadSpec(1, 1, 1, 1, 1.0, 0, 0)).hasMessageContaining("rangeRatio must be in [0, 1)");
        assertThatThrownBy(() -> new LoadSpec(1, 1, 1, 1, -0.1, 0, 0)).hasMessageContaining("rangeRatio");
        assertThatThrownBy(() -> new LoadSpec(1, 1, 1, 1, Double.NaN, 0, 0)).hasMessageContaining("rangeRatio");
        assertThatThrownBy(() -> new LoadSpec(1, 1, 1, 1, 0, -1, 0)).hasMessageContaining("warmupRequests must be ≥ 0")
                .isInstanceOf(IllegalArgumentException.class);
    }
}
