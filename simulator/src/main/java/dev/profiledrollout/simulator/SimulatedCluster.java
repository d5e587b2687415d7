package dev.profiledrollout.simulator;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apiguardian.api.API;

/**
 * A multi-engine topology for tests: several {@link EngineSimulator}s behind one {@link RouterSimulator}.
 *
 * <ul>
 *   <li>{@link #dataParallel}: {@code dpSize} replicas of the template, replica {@code d} told
 *   {@code dpSize}/{@code dpRank = d}, so {@code /server_info} reports them and SGLang trace names carry
 *   {@code -DP-{d}} ({@code docs/PROTOCOLS.md} §1.4), vLLM NEWEST names {@code dp{d}_…_rank{d·tp+t}}; each replica has
 *   {@code tpSize} ranks.</li>
 *   <li>{@link #prefillDecode}: one {@code prefill} and one {@code decode} worker (the srtctl / PD-disaggregation
 *   layout), listed with those {@code worker_type}s by the router. The simulator moves no KV cache between them:
 *   each is an ordinary engine, and the router sends generation to the decode worker.</li>
 * </ul>
 *
 * <p>Every engine writes to {@code profilerDir/worker-i} (see {@link RouterSimulator}). {@link #close()} closes the
 * router and every engine and joins their threads.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class SimulatedCluster implements AutoCloseable {

    private final RouterSimulator router;
    private final List<EngineSimulator> engines = new ArrayList<>();

    private SimulatedCluster(RouterSimulator router) {
        this.router = router;
    }

    /**
     * Starts {@code dpSize} DP replicas of {@code template} behind a router of {@code shape}.
     *
     * @param dpSize   at least 1
     * @param template worker configuration (backend, TP, trace directory); its own DP fields are replaced
     * @param shape    the router's {@code /workers} shape, not null
     * @throws IOException if an engine or the router cannot start; nothing is left running then
     */
    public static SimulatedCluster dataParallel(int dpSize, SimulatorConfig template, RouterShape shape)
            throws IOException {
        if (dpSize < 1) {
            throw new IllegalArgumentException("dpSize must be at least 1, was " + dpSize);
        }
        List<SimulatorConfig> configs = new ArrayList<>();
        for (int d = 0; d < dpSize; d++) {
            configs.add(template.toBuilder().dpSize(dpSize).dpRank(d).build());
        }
        return start(configs, List.of(), shape);
    }

    /**
     * Starts a prefill and a decode engine of {@code template} behind a router of {@code shape}.
     *
     * @throws IOException if an engine or the router cannot start; nothing is left running then
     */
    public static SimulatedCluster prefillDecode(SimulatorConfig template, RouterShape shape) throws IOException {
        return start(List.of(template, template), List.of("prefill", "decode"), shape);
    }

    private static SimulatedCluster start(List<SimulatorConfig> configs, List<String> types, RouterShape shape)
            throws IOException {
        List<EngineSimulator> engines = new ArrayList<>();
        try {
            RouterSimulator.Builder b = RouterSimulator.builder().shape(shape);
            for (int i = 0; i < configs.size(); i++) {
                SimulatorConfig c = configs.get(i);
                SimulatorConfig.Builder cb = c.toBuilder().port(0).profilerDir(c.profilerDir().resolve("worker-" + i));
                VllmProfilerConfig pc = c.vllmProfilerConfig();
                if (pc != null && pc.torch()) {
                    cb.vllmProfilerConfig(pc.withTorchProfilerDir(pc.torchProfilerDir().resolve("worker-" + i)));
                }
                EngineSimulator sim = EngineSimulator.start(cb.build());
                engines.add(sim);
                b.workerUrl(sim.baseUri(), types.isEmpty() ? "regular" : types.get(i));
            }
            RouterSimulator router = b.start();
            return new SimulatedCluster(router).own(engines);
        } catch (IOException | RuntimeException e) {
            engines.forEach(EngineSimulator::close);
            throw e;
        }
    }

    private SimulatedCluster own(List<EngineSimulator> started) {
        engines.addAll(started);
        return this;
    }

    /** The router in front of the engines. */
    public RouterSimulator router() {
        return router;
    }

    /** The engines, in DP-rank order (or prefill, decode). */
    public List<EngineSimulator> engines() {
        return List.copyOf(engines);
    }

    /** Closes the router, then every engine. Idempotent. */
    @Override
    public void close() {
        router.close();
        engines.forEach(EngineSimulator::close);
    }
}
