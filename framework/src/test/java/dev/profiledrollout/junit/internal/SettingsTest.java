package dev.profiledrollout.junit.internal;

import java.net.URI;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SettingsTest {

    private static Settings settings(Map<String, String> parameters) {
        return new Settings(key -> Optional.ofNullable(parameters.get(key)), Map.of());
    }

    @Test
    void should_read_several_comma_separated_engine_urls() {
        Settings s = settings(Map.of("profiledrollout.engine", "attach",
                "profiledrollout.engine.url", "http://a:30000, http://b:30000"));
        s.validate();
        assertThat(s.engineUrls()).containsExactly(URI.create("http://a:30000"), URI.create("http://b:30000"));
        assertThat(s.engineUrl()).isEqualTo(URI.create("http://a:30000"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "profiledrollout.router.url | ftp://r:1 | profiledrollout.router.url",
            "profiledrollout.engine.url | http://a:1,nope | profiledrollout.engine.url",
            "profiledrollout.prefill.url | :bad | profiledrollout.prefill.url",
            "profiledrollout.engine.ranks | 0 | profiledrollout.engine.ranks",
            "profiledrollout.vllm.max.iterations | -1 | profiledrollout.vllm.max.iterations",
            "profiledrollout.stop.timeout | soon | profiledrollout.stop.timeout",
            "profiledrollout.trace.missing.grace | 0 | profiledrollout.trace.missing.grace",
            "profiledrollout.trace.missing.grace | a minute | profiledrollout.trace.missing.grace",
            "profiledrollout.connect.timeout | 0 | profiledrollout.connect.timeout",
            "profiledrollout.shutdown.timeout | -1 | profiledrollout.shutdown.timeout",
            "profiledrollout.trace.dir.server | /srv/prof | profiledrollout.trace.dir"})
    void should_name_the_key_of_an_invalid_value(String key, String value, String named) {
        Map<String, String> p = new java.util.HashMap<>(Map.of("profiledrollout.engine", "attach",
                "profiledrollout.engine.url", "http://e:1"));
        p.put(key, value);
        assertThatThrownBy(() -> settings(p).validate()).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining(named);
    }

    @Test
    void should_refuse_a_router_url_with_the_embedded_simulator() {
        assertThatThrownBy(() -> settings(Map.of("profiledrollout.router.url", "http://r:1")).validate())
                .hasMessageContaining("profiledrollout.engine=attach");
    }

    @Test
    void should_default_the_vllm_stop_timeout_to_thirty_minutes() {
        assertThat(settings(Map.of()).stopTimeout(true)).hasMinutes(30);
        assertThat(settings(Map.of()).stopTimeout(false)).hasMinutes(10);
        assertThat(settings(Map.of("profiledrollout.stop.timeout", "PT45M")).stopTimeout(true)).hasMinutes(45);
    }

    @Test
    void should_default_the_missing_rank_grace_to_a_minute_not_the_trace_timeout() {
        assertThat(settings(Map.of()).traceMissingGrace()).hasSeconds(60);
        assertThat(settings(Map.of()).traceTimeout()).hasMinutes(5);
        assertThat(settings(Map.of("profiledrollout.trace.missing.grace", "2.5")).traceMissingGrace()).hasMillis(2500);
    }

    @Test
    void should_default_the_connect_timeout_to_five_seconds_and_the_shutdown_timeout_to_fifteen() {
        assertThat(settings(Map.of()).connectTimeout()).hasSeconds(5);
        assertThat(settings(Map.of()).shutdownTimeout()).hasSeconds(15);
        assertThat(settings(Map.of("profiledrollout.connect.timeout", "120")).connectTimeout()).hasMinutes(2);
        assertThat(settings(Map.of("profiledrollout.shutdown.timeout", "PT25S")).shutdownTimeout()).hasSeconds(25);
    }
}
