package dev.profiledrollout.load;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PromptWorkloadTest {

    @Test
    void jsonl_reads_prompt_or_text_and_optional_max_tokens(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("p.jsonl");
        Files.writeString(file, "{\"prompt\":\"a\",\"max_tokens\":7}\n\n{\"text\":\"b\"}\n");
        PromptWorkload w = PromptWorkload.fromJsonl(file, 32);
        assertThat(w.size()).isEqualTo(2);
        assertThat(w.request(0)).isEqualTo(CompletionRequest.text(0, "a", 7));
        assertThat(w.request(1)).isEqualTo(CompletionRequest.text(1, "b", 32));
        assertThat(w.request(2).promptText()).isEqualTo("a");
        assertThat(w.request(0).promptTokensRequested()).isEqualTo(-1);
    }

    @Test
    void jsonl_errors_name_the_line(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("p.jsonl");
        Files.writeString(file, "{\"prompt\":\"a\"}\n{\"nope\":1}\n");
        assertThatThrownBy(() -> PromptWorkload.fromJsonl(file, 8)).hasMessageContaining("p.jsonl:2");
    }

    @Test
    void sharegpt_takes_the_first_turn_skips_short_conversations_and_shuffles_by_seed(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("sg.json");
        StringBuilder json = new StringBuilder("[{\"id\":\"x\",\"conversations\":[{\"from\":\"human\",\"value\":\"only\"}]}");
        for (int i = 0; i < 20; i++) {
            json.append(",{\"conversations\":[{\"from\":\"human\",\"value\":\"q").append(i)
                    .append("\"},{\"from\":\"gpt\",\"value\":\"12345678\"}]}");
        }
        Files.writeString(file, json.append(']').toString());
        PromptWorkload w = PromptWorkload.fromShareGpt(file, 0, 1);
        assertThat(w.size()).isEqualTo(20);
        Set<String> prompts = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            prompts.add(w.request(i).promptText());
            assertThat(w.request(i).maxTokens()).isEqualTo(2);
        }
        assertThat(prompts).hasSize(20).doesNotContain("only");
        assertThat(PromptWorkload.fromShareGpt(file, 5, 1).request(3)).isEqualTo(
                CompletionRequest.text(3, w.request(3).promptText(), 5));
        List<String> other = List.of(PromptWorkload.fromShareGpt(file, 0, 2).request(0).promptText(),
                PromptWorkload.fromShareGpt(file, 0, 2).request(1).promptText());
        assertThat(other).isNotEqualTo(List.of(w.request(0).promptText(), w.request(1).promptText()));
    }

    @Test
    void random_prefix_is_shared_by_every_request() {
        LoadSpec spec = new LoadSpec(1, 10, 8, 4, 0.0, 0, 5L).withPrefixTokens(6);
        RandomTokenWorkload w = new RandomTokenWorkload(spec, 1000);
        int[] a = w.request(0).promptTokenIds();
        int[] b = w.request(7).promptTokenIds();
        assertThat(a).hasSize(14);
        assertThat(java.util.Arrays.copyOf(a, 6)).containsExactly(java.util.Arrays.copyOf(b, 6));
        assertThat(java.util.Arrays.copyOfRange(a, 6, 14)).isNotEqualTo(java.util.Arrays.copyOfRange(b, 6, 14));
    }
}
