package dev.profiledrollout;

import static org.apiguardian.api.API.Status.STABLE;

import org.apiguardian.api.API;

/**
 * The inference engine whose profiler a {@link ProfiledRollout} test drives.
 *
 * <p>The wire contract of each backend is in {@code docs/PROTOCOLS.md}: SGLang §1, vLLM §2.
 */
@API(status = STABLE, since = "0.1")
public enum Backend {

    /** SGLang ({@code sgl-project/sglang}): {@code /start_profile} takes a JSON body; auto-stops after {@code num_steps}. */
    SGLANG,

    /**
     * vLLM ({@code vllm-project/vllm}): {@code /start_profile} takes no body and exists only when the server was started
     * with {@code --profiler-config}; its per-call limits are fixed at server start (see {@link ProfiledRollout}).
     */
    VLLM
}
