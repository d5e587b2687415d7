package dev.profiledrollout.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CompletionCallTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final CompletionRequest REQUEST = new CompletionRequest(0, new int[]{1, 2, 3}, 8);

    private static JsonNode body(Endpoint endpoint, RequestParameters parameters) throws Exception {
        return JSON.readTree(new CompletionCall("m", endpoint, parameters).body(REQUEST));
    }

    private static RequestParameters topPAndTemperature(boolean ignoreEos) {
        Map<String, Number> sampling = new LinkedHashMap<>();
        sampling.put("temperature", 0.7);
        sampling.put("top_p", 0.9);
        sampling.put("top_k", 20);
        return new RequestParameters(ignoreEos, sampling);
    }

    @Test
    void the_default_body_is_greedy_with_ignore_eos_on_every_endpoint() throws Exception {
        JsonNode completions = JSON.readTree(new CompletionCall("m", Endpoint.COMPLETIONS).body(REQUEST));
        assertThat(completions.get("temperature").asDouble()).isZero();
        assertThat(completions.get("ignore_eos").asBoolean()).isTrue();
        assertThat(completions.get("max_tokens").asInt()).isEqualTo(8);
        JsonNode generate = JSON.readTree(new CompletionCall("m", Endpoint.GENERATE).body(REQUEST)).get("sampling_params");
        assertThat(generate.get("temperature").asDouble()).isZero();
        assertThat(generate.get("ignore_eos").asBoolean()).isTrue();
        assertThat(generate.get("max_new_tokens").asInt()).isEqualTo(8);
    }

    @Test
    void sampling_parameters_go_top_level_on_openai_endpoints_and_into_sampling_params_on_generate() throws Exception {
        JsonNode completions = body(Endpoint.COMPLETIONS, topPAndTemperature(true));
        assertThat(completions.get("temperature").asDouble()).isEqualTo(0.7);
        assertThat(completions.get("top_p").asDouble()).isEqualTo(0.9);
        assertThat(completions.get("top_k").isIntegralNumber()).isTrue();
        assertThat(completions.get("top_k").asInt()).isEqualTo(20);
        assertThat(completions.get("ignore_eos").asBoolean()).isTrue();
        assertThat(completions.get("stream").asBoolean()).isTrue();

        JsonNode chat = body(Endpoint.CHAT_COMPLETIONS, topPAndTemperature(true));
        assertThat(chat.get("top_p").asDouble()).isEqualTo(0.9);
        assertThat(chat.get("max_completion_tokens").asInt()).isEqualTo(8);

        JsonNode generate = body(Endpoint.GENERATE, topPAndTemperature(true));
        assertThat(generate.has("top_p")).isFalse();
        assertThat(generate.get("sampling_params").get("top_p").asDouble()).isEqualTo(0.9);
        assertThat(generate.get("sampling_params").get("ignore_eos").asBoolean()).isTrue();
    }

    @Test
    void without_ignore_eos_or_sampling_parameters_the_server_defaults_apply() throws Exception {
        RequestParameters serverDefaults = new RequestParameters(false, Map.of());
        JsonNode completions = body(Endpoint.COMPLETIONS, serverDefaults);
        assertThat(completions.has("ignore_eos")).isFalse();
        assertThat(completions.has("temperature")).isFalse();
        JsonNode generate = body(Endpoint.GENERATE, serverDefaults).get("sampling_params");
        assertThat(generate.has("ignore_eos")).isFalse();
        assertThat(generate.has("temperature")).isFalse();
    }

    @Test
    void a_sampling_parameter_without_a_value_is_refused() {
        Map<String, Number> sampling = new LinkedHashMap<>();
        sampling.put("top_p", null);
        assertThatThrownBy(() -> new RequestParameters(false, sampling)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("top_p");
    }
}
