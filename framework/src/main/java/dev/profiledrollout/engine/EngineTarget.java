package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.ProfiledRolloutKeys;
import java.net.URI;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apiguardian.api.API;

/**
 * A deployment the test class started itself (a simulator, a router on a free port), as the configuration keys that
 * would name it: returned by a static {@link dev.profiledrollout.RolloutEngine @RolloutEngine} method, or held in such
 * a static field, it is what that class's profiled tests attach to.
 *
 * <pre>{@code
 * @RolloutEngine // a stand-in; -Dprofiledrollout.engine=attach -Dprofiledrollout.router.url=… profiles a real one
 * static EngineTarget router() throws IOException {
 *     RouterSimulator router = RouterSimulator.builder().workers(2).start();
 *     return EngineTarget.router(router.baseUri()).closeAfterClass(router);
 * }
 * }</pre>
 *
 * Its keys take precedence over every configuration source, but the target is not used at all (a method is not even
 * called) when the configuration names the engine itself: {@code profiledrollout.engine} set to {@code embedded} or
 * {@code attach}, globally or in the class's {@code @EngineProfile}. Immutable; each {@code with…} returns a copy.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class EngineTarget {

    private final Map<String, String> keys;
    private final List<AutoCloseable> closeAfterClass;

    private EngineTarget(Map<String, String> keys, List<AutoCloseable> closeAfterClass) {
        this.keys = keys;
        this.closeAfterClass = closeAfterClass;
    }

    /**
     * @param engines one engine base URL, or several: every one is profiled, the load goes to the first
     *                ({@link ProfiledRolloutKeys#ENGINE_URL})
     */
    public static EngineTarget attach(URI... engines) {
        if (engines.length == 0) {
            throw new IllegalArgumentException("EngineTarget.attach needs at least one engine URL");
        }
        return new EngineTarget(Map.of(), List.of()).with(ProfiledRolloutKeys.ENGINE, "attach")
                .with(ProfiledRolloutKeys.ENGINE_URL, join(Arrays.asList(engines)));
    }

    /** @param router a router whose {@code GET /workers} are profiled; the load goes through it */
    public static EngineTarget router(URI router) {
        Objects.requireNonNull(router, "router");
        return new EngineTarget(Map.of(), List.of()).with(ProfiledRolloutKeys.ENGINE, "attach")
                .with(ProfiledRolloutKeys.ROUTER_URL, router.toString());
    }

    /**
     * @param load    where the load goes (the PD router), {@link ProfiledRolloutKeys#ENGINE_URL}
     * @param prefill the prefill engines, {@link ProfiledRolloutKeys#PREFILL_URL}; not empty
     * @param decode  the decode engines, {@link ProfiledRolloutKeys#DECODE_URL}; not empty
     */
    public static EngineTarget prefillDecode(URI load, List<URI> prefill, List<URI> decode) {
        if (prefill.isEmpty() || decode.isEmpty()) {
            throw new IllegalArgumentException("EngineTarget.prefillDecode needs at least one prefill and one decode"
                    + " engine URL");
        }
        return attach(load).with(ProfiledRolloutKeys.PREFILL_URL, join(prefill))
                .with(ProfiledRolloutKeys.DECODE_URL, join(decode));
    }

    /**
     * @param local where this machine reads the engine's trace files, which is also where the engine writes them
     *              ({@link ProfiledRolloutKeys#TRACE_DIR})
     */
    public EngineTarget traceDirectory(Path local) {
        return with(ProfiledRolloutKeys.TRACE_DIR, local.toString());
    }

    /**
     * @param local  {@link ProfiledRolloutKeys#TRACE_DIR}
     * @param server the same directory as the engine sees it, {@link ProfiledRolloutKeys#TRACE_DIR_SERVER}
     */
    public EngineTarget traceDirectory(Path local, String server) {
        return traceDirectory(local).with(ProfiledRolloutKeys.TRACE_DIR_SERVER, server);
    }

    /** @param ranks rank trace files one vLLM engine writes per capture, {@link ProfiledRolloutKeys#ENGINE_RANKS} */
    public EngineTarget ranks(int ranks) {
        return with(ProfiledRolloutKeys.ENGINE_RANKS, String.valueOf(ranks));
    }

    /** @param maxIterations the vLLM server's {@code max_iterations}, {@link ProfiledRolloutKeys#VLLM_MAX_ITERATIONS} */
    public EngineTarget vllmMaxIterations(int maxIterations) {
        return with(ProfiledRolloutKeys.VLLM_MAX_ITERATIONS, String.valueOf(maxIterations));
    }

    /**
     * @param key   any key of {@link ProfiledRolloutKeys#all()} the extension reads, e.g.
     *              {@link ProfiledRolloutKeys#API_KEY}
     * @param value its value, in the key's format (validated with the rest of the configuration)
     * @throws IllegalArgumentException when {@code key} is not such a key
     */
    public EngineTarget with(String key, String value) {
        Optional<ProfiledRolloutKeys.Key> known = ProfiledRolloutKeys.find(key);
        if (known.isEmpty() || known.get().scope() == ProfiledRolloutKeys.Scope.SYSTEM_PROPERTY
                || key.equals(ProfiledRolloutKeys.PROFILE_KEY_PATTERN)) {
            throw new IllegalArgumentException("'" + key + "' is not a key the extension reads; see"
                    + " ProfiledRolloutKeys.all()");
        }
        Objects.requireNonNull(value, "value");
        Map<String, String> copy = new LinkedHashMap<>(keys);
        copy.put(key, value);
        return new EngineTarget(Map.copyOf(copy), closeAfterClass);
    }

    /**
     * @param resource closed after the test class, e.g. the simulator or router this target names
     */
    public EngineTarget closeAfterClass(AutoCloseable resource) {
        Objects.requireNonNull(resource, "resource");
        List<AutoCloseable> copy = new java.util.ArrayList<>(closeAfterClass);
        copy.add(resource);
        return new EngineTarget(keys, List.copyOf(copy));
    }

    /** @return the configuration keys and values this target stands for */
    public Map<String, String> keys() {
        return keys;
    }

    /** @return what is closed after the class, in the order given */
    public List<AutoCloseable> resourcesToClose() {
        return closeAfterClass;
    }

    @Override
    public String toString() {
        return keys.entrySet().stream().filter(e -> !e.getKey().equals(ProfiledRolloutKeys.API_KEY)
                        && !e.getKey().equals(ProfiledRolloutKeys.ADMIN_API_KEY))
                .map(e -> e.getKey() + "=" + e.getValue()).sorted().collect(Collectors.joining(", ", "EngineTarget[",
                        "]"));
    }

    private static String join(List<URI> urls) {
        return urls.stream().map(u -> Objects.requireNonNull(u, "url").toString()).collect(Collectors.joining(","));
    }
}
