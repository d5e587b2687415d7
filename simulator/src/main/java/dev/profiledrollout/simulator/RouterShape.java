package dev.profiledrollout.simulator;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/** The {@code GET /workers} body a {@link RouterSimulator} serves ({@code docs/PROTOCOLS.md} §3). */
@API(status = EXPERIMENTAL, since = "0.1")
public enum RouterShape {
    /**
     * sgl-model-gateway ({@code sgl-model-gateway/src/server.rs}): each worker has {@code id} (uuid), {@code url},
     * {@code model_id}, {@code priority} 50, {@code cost} 1.0, {@code worker_type}, {@code is_healthy}, {@code load},
     * {@code connection_mode "HTTP"}, {@code disable_health_check false}.
     */
    SGL_MODEL_GATEWAY,
    /**
     * vllm-router ({@code vllm-project/router}, {@code src/server.rs}) without {@code --enable-igw}: each worker has
     * {@code url}, {@code model_id "unknown"}, {@code worker_type}, {@code is_healthy}, {@code load},
     * {@code connection_mode "Http"}, {@code priority}, {@code cost}; no id.
     */
    VLLM_ROUTER
}
