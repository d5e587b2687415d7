package dev.profiledrollout;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;
import static org.apiguardian.api.API.Status.STABLE;

import org.apiguardian.api.API;

/**
 * The inference engine whose profiler a {@link ProfiledRollout} test drives.
 *
 * <p>The wire contract of each backend is in {@code docs/PROTOCOLS.md}: SGLang §1, vLLM §2, TensorRT-LLM §6.
 */
@API(status = STABLE, since = "0.1")
public enum Backend {

    /** SGLang ({@code sgl-project/sglang}): {@code /start_profile} takes a JSON body; auto-stops after {@code num_steps}. */
    SGLANG,

    /**
     * vLLM ({@code vllm-project/vllm}): {@code /start_profile} takes no body and exists only when the server was started
     * with {@code --profiler-config}; its per-call limits are fixed at server start (see {@link ProfiledRollout}).
     */
    VLLM,

    /**
     * TensorRT-LLM ({@code NVIDIA/TensorRT-LLM}, {@code trtllm-serve}, PyTorch executor): no profile routes; the
     * server captures the iteration range {@code TLLM_PROFILE_START_STOP} fixed in its environment at launch, under
     * nsys ({@code -c cudaProfilerApi}) or with a torch trace ({@code TLLM_TORCH_PROFILE_TRACE}). A test states the
     * range with {@code profiledrollout.trtllm.profile.start.stop}; {@code docs/PROTOCOLS.md} §6.
     */
    @API(status = EXPERIMENTAL, since = "0.2")
    TRTLLM
}
