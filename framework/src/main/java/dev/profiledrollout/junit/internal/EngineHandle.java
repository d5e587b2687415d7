package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.DECODE_URL;
import static dev.profiledrollout.ProfiledRolloutKeys.ENGINE_URL;
import static dev.profiledrollout.ProfiledRolloutKeys.PREFILL_URL;
import static dev.profiledrollout.ProfiledRolloutKeys.ROUTER_URL;
import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.Backend;
import dev.profiledrollout.SimulatedEngine;
import dev.profiledrollout.backend.BackendSupport;
import dev.profiledrollout.engine.EngineClient;
import dev.profiledrollout.engine.EngineException;
import dev.profiledrollout.engine.FanOut;
import dev.profiledrollout.engine.RouterClient;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apiguardian.api.API;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * The engines of one test class and where the load goes: the embedded simulator this handle started (and stops on
 * {@link #close()}), one attached server, several attached servers (comma-separated {@code profiledrollout.engine.url}),
 * the workers behind a router ({@code profiledrollout.router.url}), or prefill/decode engines
 * ({@code profiledrollout.prefill.url} / {@code .decode.url}). Kept in the class-level {@code ExtensionContext.Store},
 * so JUnit closes it after the class.
 *
 * <p>Every profiled engine is a {@link Worker} with an {@link EngineClient} of the test's backend, driven together
 * through a {@link FanOut}. The load goes to the router when there is one, else to the first engine URL.
 */
@API(status = INTERNAL, since = "0.1")
public final class EngineHandle implements AutoCloseable {

    private final EngineSimulator simulator; // null when attached
    private final Backend backend;
    private final List<Worker> workers;
    private final FanOut fanOut;
    private final EngineClient loadClient;
    private final URI loadUri;
    private final ServerInfo serverInfo;
    private final String model;
    private final Settings settings;
    private volatile boolean container;
    private Path embeddedTraceDir; // set once by open()

    private EngineHandle(EngineSimulator simulator, Backend backend, List<Worker> workers, FanOut fanOut,
            EngineClient loadClient, URI loadUri, ServerInfo serverInfo, String model, Settings settings) {
        this.settings = settings;
        this.simulator = simulator;
        this.backend = backend;
        this.workers = workers;
        this.fanOut = fanOut;
        this.loadClient = loadClient;
        this.loadUri = loadUri;
        this.serverInfo = serverInfo;
        this.model = model;
    }

    /** Resolves the engines from the settings, awaits each healthy one's {@code /health} and reads its identity. */
    public static EngineHandle open(Settings settings, Optional<SimulatedEngine> shape, Backend backend) {
        settings.validate();
        EngineSimulator simulator = null;
        Path[] traceDir = new Path[1];
        List<Worker> workers;
        URI loadUri;
        if (settings.engineKind() == Settings.EngineKind.EMBEDDED) {
            simulator = startSimulator(shape, backend, settings, traceDir);
            loadUri = simulator.baseUri();
            workers = List.of(new Worker(loadUri, "regular", true, 0, null));
        } else {
            Resolved resolved = resolveAttached(settings, backend);
            workers = resolved.workers;
            loadUri = resolved.loadUri;
        }
        EngineClient loadClient = client(backend, loadUri, settings);
        FanOut fanOut = new FanOut(workers, w -> client(backend, w.url(), settings));
        try {
            try {
                fanOut.awaitHealthy(settings.healthTimeout());
                if (!workers.stream().anyMatch(w -> w.url().equals(loadUri))) {
                    loadClient.awaitHealthy(settings.healthTimeout());
                }
            } catch (EngineException e) {
                throw simulator != null ? e : new EngineException(e.getMessage() + " (" + e.uri().resolve("/")
                        + " comes from " + urlSource(settings, e.uri()) + ".)", e.uri(), e.status(), e.responseBody(),
                        e.getCause());
            }
            if (simulator == null) {
                checkTargets(settings, backend, workers, fanOut);
            }
            ServerInfo info = serverInfo(backend, fanOut, settings, simulator == null ? 0 : simulator.config().tpSize());
            String model = loadClient.models().stream().findFirst().orElse(info.servedModelName());
            EngineHandle handle = new EngineHandle(simulator, backend, workers, fanOut, loadClient, loadUri, info,
                    model, settings);
            handle.embeddedTraceDir = traceDir[0];
            return handle;
        } catch (RuntimeException e) {
            fanOut.close();
            loadClient.close();
            if (simulator != null) {
                simulator.close();
            }
            throw e;
        }
    }

    private record Resolved(List<Worker> workers, URI loadUri) {
    }

    /** The configuration key that named the engine at {@code called}, for messages. */
    private static String urlSource(Settings settings, URI called) {
        Map<String, List<URI>> configured = new LinkedHashMap<>();
        configured.put(ENGINE_URL, settings.engineUrls());
        configured.put(PREFILL_URL, settings.prefillUrls());
        configured.put(DECODE_URL, settings.decodeUrls());
        configured.put(ROUTER_URL, settings.routerUrl().stream().toList());
        for (Map.Entry<String, List<URI>> entry : configured.entrySet()) {
            for (URI url : entry.getValue()) {
                if (called.toString().startsWith(url.toString().replaceAll("/+$", "") + "/")) {
                    return entry.getKey();
                }
            }
        }
        return "the router's GET /workers (" + ROUTER_URL + ")";
    }

    /**
     * The attached URLs point at the kind of server their keys say ({@link TargetCheck}): no router among the engines
     * (unless the router is {@code router.url} itself), and a first engine of the declared backend.
     */
    private static void checkTargets(Settings settings, Backend backend, List<Worker> workers, FanOut fanOut) {
        if (settings.routerUrl().isEmpty()) {
            for (int i = 0; i < workers.size(); i++) {
                EngineClient client = fanOut.clients().get(i);
                if (client != null) {
                    TargetCheck.notARouter(client, keyOf(settings, workers.get(i).url()));
                }
            }
        }
        for (EngineClient client : fanOut.clients()) {
            if (client != null) {
                TargetCheck.backendMatches(client, keyOf(settings, client.baseUri()), BackendSupport.of(backend));
                return;
            }
        }
    }

    /** The key (read through the class's profile) that named the engine at {@code url}, for messages. */
    private static String keyOf(Settings settings, URI url) {
        String source = urlSource(settings, URI.create(url.toString().replaceAll("/+$", "") + "/"));
        return source.startsWith("profiledrollout.") ? settings.source(source) : source;
    }

    private static Resolved resolveAttached(Settings settings, Backend backend) {
        List<Worker> pd = new ArrayList<>();
        settings.prefillUrls().forEach(u -> pd.add(new Worker(u, "prefill", true, 0, null)));
        settings.decodeUrls().forEach(u -> pd.add(new Worker(u, "decode", true, 0, null)));
        Optional<URI> router = settings.routerUrl();
        if (router.isPresent()) {
            List<Worker> listed;
            EngineClient routerHttp = client(backend, router.get(), settings);
            try {
                listed = new RouterClient(router.get(), routerHttp.httpClient()).workers();
            } finally {
                routerHttp.close();
            }
            if (listed.isEmpty()) {
                throw new ExtensionConfigurationException("The router at " + router.get() + " (" + ROUTER_URL
                        + ") lists no workers in GET /workers; register the engines with it first, or set "
                        + ENGINE_URL + " to the engines themselves");
            }
            return new Resolved(pd.isEmpty() ? listed : pd, router.get());
        }
        List<URI> urls = settings.engineUrls();
        if (!pd.isEmpty()) {
            if (urls.isEmpty()) {
                throw new ExtensionConfigurationException(PREFILL_URL + " / " + DECODE_URL
                        + " name the engines to profile, but the load needs a URL that serves completions across"
                        + " both: set " + ROUTER_URL + " (the PD router) or " + ENGINE_URL);
            }
            return new Resolved(pd, urls.get(0));
        }
        URI first = settings.engineUrl();
        List<Worker> workers = new ArrayList<>();
        urls.forEach(u -> workers.add(new Worker(u, "regular", true, 0, null)));
        return new Resolved(workers, first);
    }

    private static EngineClient client(Backend backend, URI uri, Settings settings) {
        BackendSupport support = BackendSupport.of(backend);
        return support.client(uri, new BackendSupport.ClientOptions(settings.apiKey().orElse(null),
                settings.adminApiKey().orElse(null),
                settings.stopTimeout(support.defaultStopTimeout()), settings.connectTimeout()));
    }

    /** The engine's layout and identity, as its backend learns them ({@link BackendSupport#serverInfo}). */
    private static ServerInfo serverInfo(Backend backend, FanOut fanOut, Settings settings, int embeddedTp) {
        EngineClient first = fanOut.clients().stream().filter(java.util.Objects::nonNull).findFirst()
                .orElseThrow(() -> new ExtensionConfigurationException("Every engine is reported unhealthy by the"
                        + " router; nothing can be profiled. Check the router's GET /workers."));
        boolean embedded = fanOut.workers().size() == 1 && settings.engineKind() == Settings.EngineKind.EMBEDDED;
        return BackendSupport.of(backend).serverInfo(first, settings.engineRanks(), embedded ? embeddedTp : 0);
    }

    /** Makes fresh noise seeds of simulators started in the same nanosecond differ. */
    private static final java.util.concurrent.atomic.AtomicLong NOISE_SEEDS = new java.util.concurrent.atomic.AtomicLong();

    private static EngineSimulator startSimulator(Optional<SimulatedEngine> shape, Backend backend, Settings settings,
            Path[] traceDir) {
        SimulatorConfig.Builder config = SimulatorConfig.builder();
        traceDir[0] = BackendSupport.of(backend).configureSimulator(config, settings.outputDir(), settings::get)
                .orElse(null);
        if (shape.isPresent()) {
            SimulatedEngine s = shape.get();
            ConfigurationProblems problems = new ConfigurationProblems();
            checkShape(s, problems);
            problems.throwIfAny();
            config.tpSize(s.tpSize()).maxRunningRequests(s.maxRunningRequests());
            if (!s.slowKernel().isEmpty()) {
                config.slowKernel(s.slowKernel(), s.slowKernelFactor());
            }
            if (s.slowRank() >= 0) {
                config.slowRank(s.slowRank(), s.slowRankFactor());
            }
            config.slowDecode(s.slowDecode()).slowHost(s.slowHost()).kernelJitter(s.kernelJitter())
                    .clockSpread(s.clockSpread())
                    .noiseSeed(s.noiseSeed() == -1 ? System.nanoTime() ^ NOISE_SEEDS.incrementAndGet() : s.noiseSeed());
        }
        try {
            return EngineSimulator.start(config.build());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start the embedded engine simulator: " + e.getMessage(), e);
        }
    }

    /**
     * Adds each invalid {@code @SimulatedEngine} attribute to {@code problems}, and each fault factor that would be
     * ignored because its fault is not set.
     */
    public static void checkShape(SimulatedEngine s, ConfigurationProblems problems) {
        SimulatedEngine d = ShapeDefaults.class.getAnnotation(SimulatedEngine.class);
        problems.check(s.tpSize() >= 1, "@SimulatedEngine(tpSize = " + s.tpSize() + ")", "at least 1");
        problems.check(s.maxRunningRequests() >= 1, "@SimulatedEngine(maxRunningRequests = " + s.maxRunningRequests()
                + ")", "at least 1");
        problems.check(s.slowDecode() >= 1 && Double.isFinite(s.slowDecode()),
                "@SimulatedEngine(slowDecode = " + s.slowDecode() + ")", "a finite factor of at least 1");
        problems.check(s.slowHost() >= 1 && Double.isFinite(s.slowHost()),
                "@SimulatedEngine(slowHost = " + s.slowHost() + ")", "a finite factor of at least 1");
        problems.check(s.kernelJitter() >= 0 && s.kernelJitter() <= 1,
                "@SimulatedEngine(kernelJitter = " + s.kernelJitter() + ")", "a log-normal sigma in [0, 1], e.g. 0.03");
        problems.check(s.clockSpread() >= 0 && s.clockSpread() <= 1,
                "@SimulatedEngine(clockSpread = " + s.clockSpread() + ")", "a log-normal sigma in [0, 1], e.g. 0.03");
        problems.check(s.slowKernelFactor() >= 1, "@SimulatedEngine(slowKernelFactor = " + s.slowKernelFactor() + ")",
                "at least 1");
        problems.check(s.slowRankFactor() >= 1, "@SimulatedEngine(slowRankFactor = " + s.slowRankFactor() + ")",
                "at least 1");
        problems.check(s.slowRank() >= -1 && (s.slowRank() < s.tpSize() || s.tpSize() < 1),
                "@SimulatedEngine(slowRank = " + s.slowRank() + ")", "-1 (none) or a TP rank below tpSize");
        problems.check(!s.slowKernel().isEmpty() || s.slowKernelFactor() == d.slowKernelFactor(),
                "@SimulatedEngine(slowKernelFactor = " + s.slowKernelFactor() + ") without slowKernel",
                "the factor slows the kernels slowKernel matches and would be ignored; set slowKernel (a regex of"
                        + " kernel names) or remove slowKernelFactor");
        problems.check(s.slowRank() >= 0 || s.slowRankFactor() == d.slowRankFactor(),
                "@SimulatedEngine(slowRankFactor = " + s.slowRankFactor() + ") without slowRank",
                "the factor slows the TP rank slowRank names and would be ignored; set slowRank or remove"
                        + " slowRankFactor");
        if (!s.slowKernel().isEmpty()) {
            try {
                java.util.regex.Pattern.compile(s.slowKernel());
            } catch (java.util.regex.PatternSyntaxException e) {
                problems.add(dev.profiledrollout.trace.KernelMatchers.invalid("@SimulatedEngine(slowKernel)", e));
            }
        }
    }

    /** The defaults of {@code @SimulatedEngine}. */
    @SimulatedEngine
    private static final class ShapeDefaults {
    }

    /** @return the client of the engine the load goes to (the router, or the first engine) */
    public EngineClient loadClient() {
        return loadClient;
    }

    /** @return the profiled engines, driven together */
    public FanOut fanOut() {
        return fanOut;
    }

    /**
     * A fresh fan-out over some of the engines, with its own clients and outcomes, for one capture; the caller closes it.
     */
    public FanOut newFanOut(List<Worker> subset) {
        return new FanOut(subset, w -> client(backend, w.url(), settings));
    }

    /** @return the profiled engines, in router (or configuration) order */
    public List<Worker> workers() {
        return workers;
    }

    public Backend backend() {
        return backend;
    }

    /** @return what the first engine reported ({@code /server_info}), or the configured layout for vLLM */
    public ServerInfo serverInfo() {
        return serverInfo;
    }

    public String model() {
        return model;
    }

    /** @return where the load is sent: the router, or the first engine */
    public URI baseUri() {
        return loadUri;
    }

    /**
     * @return the trace directory the embedded simulator was started with, when its backend fixes it at server start
     *         (vLLM's {@code torch_profiler_dir}); empty for any other engine
     */
    public Optional<Path> embeddedTraceDir() {
        return simulator == null ? Optional.empty() : Optional.ofNullable(embeddedTraceDir);
    }

    /**
     * @return what these engines are, as {@code summary.json}'s {@code profiled.kind} says: {@code embedded simulator},
     *         {@code container} (a {@code @RolloutEngine} or {@code profiledrollout.engine=container}), {@code router} ({@code profiledrollout.router.url}, the workers from its {@code GET /workers}),
     *         {@code prefill-decode} (engines named by {@code profiledrollout.prefill.url} / {@code .decode.url}) or
     *         {@code attached engine} (one or more {@code profiledrollout.engine.url})
     */
    public String kind() {
        if (simulator != null) {
            return "embedded simulator";
        }
        if (container) {
            return "container";
        }
        if (settings.routerUrl().isPresent()) {
            return "router";
        }
        if (!settings.prefillUrls().isEmpty() || !settings.decodeUrls().isEmpty()) {
            return "prefill-decode";
        }
        return "attached engine";
    }

    /**
     * @return {@code worker-<n>}, n the 1-based position of the engine at {@code url} in {@link #workers()} (the
     *         router's order); {@code worker-?} for a URL that is not one of them
     */
    public String workerLabel(URI url) {
        for (int i = 0; i < workers.size(); i++) {
            if (workers.get(i).url().equals(url)) {
                return "worker-" + (i + 1);
            }
        }
        return "worker-?";
    }

    /**
     * Marks the attached engine as one the extension manages in a container ({@code @RolloutEngine}, or
     * {@code profiledrollout.engine=container}), which the settings it attaches with do not show.
     *
     * @param managed whether it is
     * @return this handle
     */
    public EngineHandle inContainer(boolean managed) {
        this.container = managed;
        return this;
    }

    /** @return whether this handle started the embedded simulator (reports then say {@code engine: simulator}) */
    public boolean embedded() {
        return simulator != null;
    }

    @Override
    public void close() {
        try {
            fanOut.close();
            loadClient.close();
        } finally {
            if (simulator != null) {
                simulator.close();
            }
        }
    }
}
