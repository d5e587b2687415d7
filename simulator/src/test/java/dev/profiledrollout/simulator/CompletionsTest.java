package dev.profiledrollout.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CompletionsTest {

    private static EngineSimulator sim;
    private static SimClient client;

    @BeforeAll
    static void start() throws Exception {
        sim = EngineSimulator.start(SimulatorConfig.builder().seed(7).build());
        client = new SimClient(sim);
    }

    @AfterAll
    static void stop() {
        sim.close();
    }

    private static List<String> sseData(String body) {
        List<String> out = new ArrayList<>();
        for (String event : body.split("\n\n")) {
            if (!event.isEmpty()) {
                assertThat(event).startsWith("data: ");
                out.add(event.substring("data: ".length()));
            }
        }
        return out;
    }

    @Test
    void should_stream_exactly_max_tokens_chunks_then_usage_then_done() throws Exception {
        // WHEN
        HttpResponse<String> r = client.post("/v1/completions", "{\"model\":\"x\",\"prompt\":[1,2,3,4,5,6,7,8,9,10],"
                + "\"max_tokens\":12,\"ignore_eos\":true,\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
        // THEN
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).get().asString().startsWith("text/event-stream");
        List<String> data = sseData(r.body());
        assertThat(data).hasSize(12 + 2);
        assertThat(data.get(data.size() - 1)).isEqualTo("[DONE]");
        for (int i = 0; i < 12; i++) {
            JsonNode chunk = SimClient.EXACT.readTree(data.get(i));
            assertThat(chunk.get("object").asText()).isEqualTo("text_completion");
            assertThat(chunk.get("usage").isNull()).isTrue();
            assertThat(chunk.at("/choices/0/text").asText()).isNotEmpty();
            assertThat(chunk.at("/choices/0/finish_reason").isNull()).isEqualTo(i < 11);
        }
        JsonNode usage = SimClient.EXACT.readTree(data.get(12));
        assertThat(usage.get("choices")).isEmpty();
        assertThat(usage.at("/usage/prompt_tokens").asInt()).isEqualTo(10);
        assertThat(usage.at("/usage/completion_tokens").asInt()).isEqualTo(12);
        assertThat(usage.at("/usage/total_tokens").asInt()).isEqualTo(22);
    }

    @Test
    void should_stream_without_usage_chunk_unless_asked() throws Exception {
        HttpResponse<String> r = client.post("/v1/completions",
                "{\"prompt\":[1,2,3],\"max_tokens\":3,\"ignore_eos\":true,\"stream\":true}");
        assertThat(sseData(r.body())).hasSize(3 + 1);
    }

    @Test
    void should_return_usage_for_non_streaming_string_prompt() throws Exception {
        HttpResponse<String> r = client.post("/v1/completions",
                "{\"prompt\":\"" + "a".repeat(40) + "\",\"max_tokens\":5,\"ignore_eos\":true}");
        JsonNode body = SimClient.EXACT.readTree(r.body());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(body.at("/usage/prompt_tokens").asInt()).isEqualTo(10);
        assertThat(body.at("/usage/completion_tokens").asInt()).isEqualTo(5);
        assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("length");
    }

    @Test
    void should_default_max_tokens_to_16_and_stop_early_without_ignore_eos() throws Exception {
        JsonNode fixed = SimClient.EXACT.readTree(client.post("/v1/completions",
                "{\"prompt\":[1],\"ignore_eos\":true}").body());
        assertThat(fixed.at("/usage/completion_tokens").asInt()).isEqualTo(16);
        for (int i = 0; i < 5; i++) {
            JsonNode r = SimClient.EXACT.readTree(client.post("/v1/completions",
                    "{\"prompt\":[1],\"max_tokens\":50}").body());
            assertThat(r.at("/usage/completion_tokens").asInt()).isBetween(1, 50);
        }
    }

    @Test
    void should_reject_non_json_content_type() throws Exception {
        HttpResponse<String> r = client.post("/v1/completions", "{\"prompt\":[1]}", "text/plain");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(client.get("/v1/completions").statusCode()).isEqualTo(405);
    }

    @Test
    void should_stream_cumulative_output_from_native_generate() throws Exception {
        HttpResponse<String> r = client.post("/generate", "{\"input_ids\":[5,6,7],\"stream\":true,"
                + "\"sampling_params\":{\"max_new_tokens\":4,\"ignore_eos\":true}}");
        List<String> data = sseData(r.body());
        assertThat(data.get(data.size() - 1)).isEqualTo("[DONE]");
        JsonNode last = SimClient.EXACT.readTree(data.get(data.size() - 2));
        assertThat(last.get("output_ids")).hasSize(4);
        assertThat(last.at("/meta_info/prompt_tokens").asInt()).isEqualTo(3);
        assertThat(last.at("/meta_info/completion_tokens").asInt()).isEqualTo(4);
        assertThat(last.at("/meta_info/finish_reason/type").asText()).isEqualTo("length");
        int previous = 0;
        for (String d : data.subList(0, data.size() - 1)) {
            int tokens = SimClient.EXACT.readTree(d).at("/meta_info/completion_tokens").asInt();
            assertThat(tokens).isGreaterThan(previous);
            previous = tokens;
        }
        JsonNode single = SimClient.EXACT.readTree(client.post("/generate",
                "{\"text\":\"hello world!\",\"sampling_params\":{\"max_new_tokens\":2,\"ignore_eos\":true}}").body());
        assertThat(single.at("/meta_info/completion_tokens").asInt()).isEqualTo(2);
        assertThat(single.at("/meta_info/prompt_tokens").asInt()).isEqualTo(3);
    }
}
