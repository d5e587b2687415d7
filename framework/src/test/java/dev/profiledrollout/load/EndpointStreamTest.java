package dev.profiledrollout.load;

import dev.profiledrollout.metrics.ErrorKind;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class EndpointStreamTest {

    private List<RequestRecord> run(SseTestServer server, Endpoint endpoint, Workload workload, int n) throws Exception {
        LoadSpec spec = new LoadSpec(2, n, 8, 4, 0.0, 0, 1L);
        try (LoadGenerator load = new LoadGenerator(LoadTarget.of(server.base()), "m", spec, workload, endpoint,
                Duration.ofSeconds(10))) {
            return load.start().await(Duration.ofSeconds(30));
        }
    }

    @Test
    void chat_counts_the_first_role_delta_as_the_first_chunk_and_tokens_from_usage() throws Exception {
        try (SseTestServer server = new SseTestServer(-1, 0)) {
            List<RequestRecord> records = run(server, Endpoint.CHAT_COMPLETIONS,
                    PromptWorkload.fixed(List.of("hello"), 4), 3);
            assertThat(records).allSatisfy(r -> {
                assertThat(r.succeeded()).isTrue();
                assertThat(r.chunkCount()).isEqualTo(SseTestServer.TOKENS + 1);
                assertThat(r.promptTokens()).isEqualTo(21);
                assertThat(r.completionTokens()).isEqualTo(SseTestServer.TOKENS);
                assertThat(r.inputTokensRequested()).isEqualTo(-1);
            });
            assertThat(LatencyReport.of(records).inputTokens()).isEqualTo(63);
        }
    }

    @Test
    void generate_reads_the_cumulative_stream_and_splits_itl_per_token() throws Exception {
        try (SseTestServer server = new SseTestServer(-1, 0)) {
            List<RequestRecord> records = run(server, Endpoint.GENERATE,
                    new RandomTokenWorkload(new LoadSpec(1, 1, 8, 4, 0.0, 0, 1L), 100), 2);
            RequestRecord r = records.get(0);
            assertThat(r.succeeded()).isTrue();
            // two events grew completion_tokens (1, then +3); the final event did not
            assertThat(r.chunkTokens()).containsExactly(1, 3);
            assertThat(r.completionTokens()).isEqualTo(4);
            assertThat(r.promptTokens()).isEqualTo(7);
            // ITL: the one gap split into 3 per-token samples, per request
            assertThat(LatencyReport.of(records).itl().count()).isEqualTo(6);
        }
    }

    @Test
    void malformed_and_error_events_are_counted_not_thrown() throws Exception {
        try (SseTestServer server = new SseTestServer(-1, 0)) {
            server.completionsBody = "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {not json\n\ndata: [DONE]\n\n";
            List<RequestRecord> malformed = run(server, Endpoint.COMPLETIONS,
                    new RandomTokenWorkload(new LoadSpec(1, 1, 8, 4, 0.0, 0, 1L), 100), 3);
            server.completionsBody = "data: {\"error\":{\"message\":\"boom\"}}\n\ndata: [DONE]\n\n";
            List<RequestRecord> errors = run(server, Endpoint.COMPLETIONS,
                    new RandomTokenWorkload(new LoadSpec(1, 1, 8, 4, 0.0, 0, 1L), 100), 2);
            assertThat(malformed).hasSize(3).allMatch(r -> r.error() == ErrorKind.MALFORMED_STREAM);
            assertThat(errors).hasSize(2).allMatch(r -> r.error() == ErrorKind.IN_STREAM_ERROR);
            assertThat(LatencyReport.of(malformed).errors()).containsEntry(ErrorKind.MALFORMED_STREAM, 3L);
        }
    }

    @Test
    void request_bodies_follow_each_endpoint() {
        CompletionRequest ids = new CompletionRequest(0, new int[] {5, 6}, 3);
        CompletionRequest text = CompletionRequest.text(1, "hi", 3);
        assertThat(new CompletionCall("m", Endpoint.GENERATE).body(ids))
                .contains("\"input_ids\":[5,6]", "\"max_new_tokens\":3", "\"ignore_eos\":true", "\"stream\":true");
        assertThat(new CompletionCall("m", Endpoint.CHAT_COMPLETIONS).body(text))
                .contains("\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]", "\"include_usage\":true",
                        "\"max_completion_tokens\":3");
        assertThat(new CompletionCall("m", Endpoint.COMPLETIONS).body(text)).contains("\"prompt\":\"hi\"");
    }
}
