package dev.profiledrollout.simulator;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/**
 * Which era of vLLM's worker trace-file names a simulated vLLM server writes ({@code docs/PROTOCOLS.md} §2.4; the name
 * is the {@code worker_name} passed to torch's {@code tensorboard_trace_handler}, followed by
 * {@code .<time_ns, 19 digits>.pt.trace.json[.gz]}).
 */
@API(status = EXPERIMENTAL, since = "0.1")
public enum VllmNamingEra {
    /** ≈ v0.16+: {@code dp{d}_pp{p}_tp{t}_dcp{c}_ep{e}_rank{global}}, e.g. {@code dp0_pp0_tp1_dcp0_ep0_rank1}. */
    NEWEST,
    /** v0.11 – ≈ v0.15: {@code {instance_id}-rank-{rank}}, the instance id being 5 uuid characters. */
    INSTANCE_RANK,
    /** ≤ v0.10: {@code {hostname}_{pid}}, one pid per worker process. */
    HOST_PID
}
