package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/**
 * The streaming endpoint a load is sent to, and how its stream is read ({@code docs/PROTOCOLS.md} §1.5, §2.5).
 *
 * <ul>
 *   <li>{@link #COMPLETIONS}: {@code POST /v1/completions}, token ids or text as {@code prompt}; a chunk is a
 *       data event with non-empty {@code choices}; tokens from the final {@code usage} chunk
 *       ({@code stream_options.include_usage}).</li>
 *   <li>{@link #CHAT_COMPLETIONS}: {@code POST /v1/chat/completions}, one user message; a chunk is a data event
 *       with non-empty {@code choices}, the first delta ({@code {"role":"assistant","content":""}}) included,
 *       as vLLM's chat request function times it; tokens from {@code usage}. Token-id prompts are sent as their
 *       ids written out as text, so the prompt length the server reports differs: check
 *       {@code usage.prompt_tokens}.</li>
 *   <li>{@link #GENERATE}: SGLang's native {@code POST /generate} with {@code input_ids} or {@code text} and
 *       {@code sampling_params}; the stream is cumulative, so a chunk is an event whose
 *       {@code meta_info.completion_tokens} grew, carrying that many new tokens; tokens from {@code meta_info}.</li>
 * </ul>
 */
@API(status = EXPERIMENTAL, since = "0.1")
public enum Endpoint {
    /** OpenAI-compatible text completions. */
    COMPLETIONS("/v1/completions"),
    /** OpenAI-compatible chat completions. */
    CHAT_COMPLETIONS("/v1/chat/completions"),
    /** SGLang's native generate endpoint (cumulative streaming). */
    GENERATE("/generate");

    private final String path;

    Endpoint(String path) {
        this.path = path;
    }

    /** @return the request path, e.g. {@code /v1/completions} */
    public String path() {
        return path;
    }

    /**
     * @param pathOrName a path ({@code /v1/chat/completions}) or a constant name, case-insensitive
     * @return the endpoint
     * @throws IllegalArgumentException naming the accepted values
     */
    public static Endpoint parse(String pathOrName) {
        for (Endpoint e : values()) {
            if (e.path.equalsIgnoreCase(pathOrName) || e.name().equalsIgnoreCase(pathOrName)) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown endpoint '" + pathOrName
                + "': use /v1/completions, /v1/chat/completions or /generate");
    }
}
