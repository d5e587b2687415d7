package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.apiguardian.api.API;

/**
 * Text prompts: fixed strings, a JSONL file, or ShareGPT-format conversations. Request {@code i} is prompt
 * {@code i mod size}; warm-up (negative indices) reuses prompts from the start. Immutable and thread-safe.
 *
 * <p>No tokenizer runs client-side, so the prompt length in tokens is unknown here: every record's
 * {@code inputTokensRequested} is −1 and the input-token sums come from the server's {@code usage} /
 * {@code meta_info} ({@code docs/METRICS.md} §1 and §3: token counts are the server's).
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class PromptWorkload implements Workload {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A prompt and its {@code max_tokens}. */
    record Prompt(String text, int maxTokens) {
    }

    private final List<Prompt> prompts;

    private PromptWorkload(List<Prompt> prompts) {
        if (prompts.isEmpty()) {
            throw new IllegalArgumentException("a prompt workload needs at least one prompt");
        }
        this.prompts = List.copyOf(prompts);
    }

    /**
     * @param texts     the prompts, not empty
     * @param maxTokens {@code max_tokens} of every request, ≥ 1
     */
    public static PromptWorkload fixed(List<String> texts, int maxTokens) {
        List<Prompt> list = new ArrayList<>();
        texts.forEach(t -> list.add(new Prompt(Objects.requireNonNull(t), maxTokens)));
        return new PromptWorkload(list);
    }

    /**
     * One JSON object per line: {@code {"prompt": "…"}} (or {@code "text"}), optionally {@code "max_tokens"}
     * (or {@code "output_len"}); blank lines are skipped.
     *
     * @param file             the JSONL file
     * @param outputTokens     {@code max_tokens} for lines that give none, ≥ 1
     * @throws IllegalArgumentException naming the line that is not such an object
     * @throws UncheckedIOException     when the file cannot be read
     */
    public static PromptWorkload fromJsonl(Path file, int outputTokens) {
        List<Prompt> list = new ArrayList<>();
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int number = 0;
            while ((line = reader.readLine()) != null) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                JsonNode node;
                try {
                    node = JSON.readTree(line);
                } catch (IOException e) {
                    throw new IllegalArgumentException(file + ":" + number + " is not JSON: " + e.getMessage(), e);
                }
                JsonNode text = node.has("prompt") ? node.get("prompt") : node.get("text");
                if (text == null || !text.isTextual()) {
                    throw new IllegalArgumentException(file + ":" + number
                            + " has no string \"prompt\" (or \"text\"); expected {\"prompt\": \"…\", \"max_tokens\": 128}");
                }
                int max = node.has("max_tokens") ? node.get("max_tokens").asInt()
                        : node.has("output_len") ? node.get("output_len").asInt() : outputTokens;
                list.add(new Prompt(text.asText(), Math.max(1, max)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the JSONL prompts " + file, e);
        }
        return new PromptWorkload(list);
    }

    /**
     * ShareGPT conversations, as {@code vllm bench serve --dataset-name sharegpt} reads them: a JSON list of
     * {@code {"conversations": [{"from": "human", "value": …}, {"from": "gpt", "value": …}, …]}}; entries with
     * fewer than two turns are skipped; the prompt is the first turn; shuffled with {@code seed}.
     *
     * @param outputTokens {@code max_tokens} for every request (vLLM's {@code --sharegpt-output-len}), or 0 to
     *                     estimate it from the reply as ⌈characters/4⌉ (no tokenizer here; the server's usage
     *                     reports the real count)
     * @throws IllegalArgumentException when the file is not such a list or holds no usable conversation
     */
    public static PromptWorkload fromShareGpt(Path file, int outputTokens, long seed) {
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read ShareGPT JSON " + file + ": " + e.getMessage(), e);
        }
        if (root == null || !root.isArray()) {
            throw new IllegalArgumentException(file + " is not a JSON list of {\"conversations\": [{\"from\", \"value\"}]}");
        }
        List<Prompt> list = new ArrayList<>();
        for (JsonNode entry : root) {
            JsonNode turns = entry.path("conversations");
            if (!turns.isArray() || turns.size() < 2) {
                continue;
            }
            String prompt = turns.get(0).path("value").asText("");
            String reply = turns.get(1).path("value").asText("");
            if (prompt.isEmpty()) {
                continue;
            }
            int max = outputTokens > 0 ? outputTokens : Math.max(1, (reply.length() + 3) / 4);
            list.add(new Prompt(prompt, max));
        }
        if (list.isEmpty()) {
            throw new IllegalArgumentException(file + " holds no conversation with at least two turns");
        }
        Collections.shuffle(list, new Random(seed));
        return new PromptWorkload(list);
    }

    @Override
    public CompletionRequest request(int index) {
        Prompt p = prompts.get(Math.floorMod(index, prompts.size()));
        return CompletionRequest.text(index, p.text(), p.maxTokens());
    }

    /** @return the number of distinct prompts */
    public int size() {
        return prompts.size();
    }
}
