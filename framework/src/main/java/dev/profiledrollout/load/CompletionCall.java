package dev.profiledrollout.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What one streamed request of a load sends: the JSON body for an {@link Endpoint}, in the shape of
 * {@code vllm bench serve} (OpenAI endpoints) or SGLang's {@code bench_serving} (native {@code /generate}).
 */
final class CompletionCall {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String model;
    private final Endpoint endpoint;
    private final RequestParameters parameters;

    CompletionCall(String model, Endpoint endpoint) {
        this(model, endpoint, RequestParameters.GREEDY_IGNORE_EOS);
    }

    CompletionCall(String model, Endpoint endpoint, RequestParameters parameters) {
        this.model = model;
        this.endpoint = endpoint;
        this.parameters = parameters;
    }

    Endpoint endpoint() {
        return endpoint;
    }

    /**
     * The request body {@code vllm bench serve} (OpenAI endpoints) or SGLang's {@code bench_serving} (native
     * {@code /generate}) sends: streamed, usage included, with the {@link RequestParameters} ({@code ignore_eos} and
     * sampling parameters; greedy and {@code ignore_eos} by default).
     */
    String body(CompletionRequest request) {
        ObjectNode node = JSON.createObjectNode();
        String text = request.promptText();
        switch (endpoint) {
            case COMPLETIONS -> {
                node.put("model", model);
                if (text != null) {
                    node.put("prompt", text);
                } else {
                    ids(node.putArray("prompt"), request);
                }
                node.put("max_tokens", request.maxTokens());
                openAiStreamOptions(node);
                parameters(node);
            }
            case CHAT_COMPLETIONS -> {
                node.put("model", model);
                ObjectNode message = node.putArray("messages").addObject();
                message.put("role", "user");
                message.put("content", text != null ? text : idsAsText(request));
                node.put("max_completion_tokens", request.maxTokens());
                openAiStreamOptions(node);
                parameters(node);
            }
            case GENERATE -> {
                if (text != null) {
                    node.put("text", text);
                } else {
                    ids(node.putArray("input_ids"), request);
                }
                ObjectNode sampling = node.putObject("sampling_params");
                sampling.put("max_new_tokens", request.maxTokens());
                parameters(sampling);
                node.put("stream", true);
            }
            default -> throw new IllegalStateException(endpoint.name());
        }
        return node.toString();
    }

    private static void openAiStreamOptions(ObjectNode node) {
        node.put("stream", true);
        node.putObject("stream_options").put("include_usage", true);
    }

    private void parameters(ObjectNode node) {
        if (parameters.ignoreEos()) {
            node.put("ignore_eos", true);
        }
        parameters.sampling().forEach((name, value) -> node.set(name, JSON.valueToTree(value)));
    }

    private static void ids(ArrayNode array, CompletionRequest request) {
        for (int id : request.promptTokenIds()) {
            array.add(id);
        }
    }

    private static String idsAsText(CompletionRequest request) {
        StringBuilder sb = new StringBuilder();
        for (int id : request.promptTokenIds()) {
            sb.append(sb.length() == 0 ? "" : " ").append(id);
        }
        return sb.toString();
    }
}
