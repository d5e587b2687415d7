package dev.profiledrollout.backend;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.Profiler;
import dev.profiledrollout.engine.EngineClient;
import dev.profiledrollout.engine.HttpEngineClient;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apiguardian.api.API;

/**
 * Everything that differs between the engines a profile window drives, behind one type per {@link Backend}. The
 * extension, the capture classes, the CLI and the containers ask the backend's support and never branch on the
 * backend themselves: a new backend is one more subclass here and one more case in {@link #of(Backend)}.
 *
 * <p>What a backend decides:
 * <ul>
 *   <li>the {@link EngineClient} of one server ({@link #client});</li>
 *   <li>how its profiler is controlled ({@link #control()}): a window per HTTP request with its own settings and
 *       output directory (SGLang), HTTP start/stop with settings fixed at server start (vLLM), or an iteration range
 *       fixed when the server is launched, with no HTTP control at all (TensorRT-LLM);</li>
 *   <li>which test attributes its capture can honour, and the error for those it cannot
 *       ({@link #checkRequest});</li>
 *   <li>where traces go ({@link #tracesWhereRequested()}) and whether it annotates its steps
 *       ({@link #annotatesSteps});</li>
 *   <li>its stop-timeout default, its server identity, its recipe mapping and its simulator mode.</li>
 * </ul>
 * Wire contracts with their upstream sources are in {@code docs/PROTOCOLS.md}.
 */
@API(status = INTERNAL, since = "0.2")
public abstract class BackendSupport {

    private static final List<BackendSupport> ALL = List.of(new SglangSupport(), new VllmSupport(),
            new TrtllmSupport());

    BackendSupport() {
    }

    /**
     * @param backend not null
     * @return the support of {@code backend}
     */
    public static BackendSupport of(Backend backend) {
        Objects.requireNonNull(backend, "backend");
        return ALL.stream().filter(s -> s.backend() == backend).findFirst()
                .orElseThrow(() -> new IllegalStateException("no support for backend " + backend));
    }

    /** @return every backend's support, in {@link Backend} order */
    public static List<BackendSupport> all() {
        return ALL;
    }

    /**
     * @param name a backend's {@link #name()} ({@code sglang}, {@code vllm}, {@code trtllm}), any case
     * @return its support, or empty for another name
     */
    public static Optional<BackendSupport> named(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        return ALL.stream().filter(s -> s.name().equals(n)).findFirst();
    }

    /**
     * @param name  a backend's name, any case
     * @param where what named it, for the message, e.g. {@code --backend}
     * @return its support
     * @throws IllegalArgumentException naming the allowed names when there is no such backend
     */
    public static BackendSupport parse(String name, String where) {
        return named(name).orElseThrow(() -> new IllegalArgumentException(where + " must be one of " + names()
                + ", was " + name));
    }

    /** @return the backends' names joined by {@code |}, e.g. {@code sglang|vllm|trtllm}, for usage texts */
    public static String names() {
        return ALL.stream().map(BackendSupport::name).collect(Collectors.joining("|"));
    }

    /**
     * @param backend an annotation's value
     * @return whether it is {@code @ProfiledRollout}'s default, i.e. a test that did not choose a backend
     */
    public static boolean isDefault(Backend backend) {
        return backend == Backend.SGLANG;
    }

    /** @return the backend this supports */
    public abstract Backend backend();

    /** @return the lower-case name used by the CLI, recipes ({@code backend.type}) and the simulator */
    public String name() {
        return backend().name().toLowerCase(Locale.ROOT);
    }

    /** @return the engine's name as its users write it: {@code SGLang}, {@code vLLM}, {@code TensorRT-LLM} */
    public abstract String displayName();

    // ---------------------------------------------------------------------------------------------- client

    /**
     * How a client is built.
     *
     * @param apiKey         the bearer key of generation routes, or null
     * @param adminKey       the key of the profile routes where the engine separates them, or null (then
     *                       {@code apiKey} is used)
     * @param stopTimeout    how long a stop may take, or null for {@link #defaultStopTimeout()}
     * @param connectTimeout how long a server may be unreachable while awaiting health, or null for the client's
     */
    public record ClientOptions(String apiKey, String adminKey, Duration stopTimeout, Duration connectTimeout) {

        /** No keys, the default timeouts. */
        public static final ClientOptions DEFAULTS = new ClientOptions(null, null, null, null);
    }

    /**
     * @param uri     the server root, absolute
     * @param options keys and timeouts
     * @return a client of one server of this backend; the caller closes it
     */
    public abstract EngineClient client(URI uri, ClientOptions options);

    /**
     * Sets on {@code builder} what every {@link HttpEngineClient} takes from {@code options}: the connect timeout as
     * its unreachable timeout, and the API key, each when given.
     *
     * @param builder the client's builder, not null
     * @param options keys and timeouts
     * @param <B>     the builder's type
     * @return {@code builder}
     */
    protected static <B extends HttpEngineClient.Builder<B>> B withOptions(B builder, ClientOptions options) {
        if (options.connectTimeout() != null) {
            builder.unreachableTimeout(options.connectTimeout());
        }
        if (options.apiKey() != null) {
            builder.apiKey(options.apiKey());
        }
        return builder;
    }

    /** @return how long a stop waits by default for the engine's trace export */
    public abstract Duration defaultStopTimeout();

    /**
     * @param first       the client of the first healthy engine
     * @param ranks       {@code profiledrollout.engine.ranks} when configured
     * @param embeddedTp  the embedded simulator's TP size, or 0 for an attached engine
     * @return the layout and identity of the engine, from the engine where it reports them, else from configuration
     */
    public abstract ServerInfo serverInfo(EngineClient first, OptionalInt ranks, int embeddedTp);

    /**
     * The layout of an engine that cannot report it (vLLM, TensorRT-LLM): TP size from {@code profiledrollout.engine.ranks}
     * (else the embedded simulator's, else 1), and the version the engine reports, which history records.
     *
     * @param version the engine's {@code GET /version}, when it answers one
     */
    static ServerInfo configuredLayout(String backend, OptionalInt ranks, int embeddedTp, Optional<String> version) {
        com.fasterxml.jackson.databind.node.ObjectNode raw =
                com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        raw.put("backend", backend);
        if (embeddedTp > 0) {
            raw.put("engine", "simulator");
        }
        raw.put("tp_size", ranks.orElse(Math.max(1, embeddedTp)));
        version.ifPresent(v -> raw.put("version", v));
        return ServerInfo.fromJson(raw);
    }

    /**
     * @param client an engine's client (with its keys)
     * @param source the configuration key that named it, for the message
     * @return why the server is of another backend than this one, with the fix; empty when it is not recognisably so
     */
    public abstract Optional<String> otherBackendAt(EngineClient client, String source);

    // ---------------------------------------------------------------------------------------------- capture

    /** How a backend's profiler is started and stopped. */
    public enum Control {
        /** {@code POST /start_profile} with the window's settings and output directory; {@code /stop_profile}. */
        PER_REQUEST,
        /** {@code POST /start_profile} / {@code /stop_profile} without a body; settings fixed at server start. */
        SERVER_CONFIG,
        /** No HTTP control: the server captures an iteration range fixed in its environment at launch. */
        LAUNCH_RANGE
    }

    /** @return how this backend's profiler is controlled */
    public abstract Control control();

    /**
     * @return what a user driving the profile routes by hand should know about what is sent, e.g. that vLLM's
     *         {@code /start_profile} has no body; empty when the request carries the window's settings
     */
    public Optional<String> startNote() {
        return Optional.empty();
    }

    /**
     * @return whether the server writes each capture where the request says ({@code output_dir}); false when the
     *         directory is fixed at server start and {@code profiledrollout.trace.dir} must name it
     */
    public boolean tracesWhereRequested() {
        return control() == Control.PER_REQUEST;
    }

    /**
     * @return what the fixed trace directory is on the server, for the message when {@code profiledrollout.trace.dir}
     *         is missing, e.g. "the server's torch_profiler_dir (from its --profiler-config)"
     */
    public abstract String fixedTraceDirectory();

    /**
     * @param activities the window's activities
     * @return whether this backend's traces carry step annotations the analyser counts, so a capture's steps can be
     *         checked against {@code numSteps}
     */
    public abstract boolean annotatesSteps(Set<Activity> activities);

    /**
     * @return whether a trace with kernels but no step annotation means no batch ran (the engine always annotates
     *         its steps), rather than an engine version that does not annotate
     */
    public abstract boolean stepAnnotationsGuaranteed();

    /**
     * @param n the requested steps
     * @return what to change when a capture recorded more steps than {@code n}
     */
    public abstract String overCaptureFix(int n);

    /**
     * @return the configuration key that states the steps a server captures, fixed at its start, or empty when the
     *         test sets them per window
     */
    public Optional<String> serverStepsKey() {
        return Optional.empty();
    }

    /**
     * @param settings the configuration, by key
     * @return the steps the server captures per window as configuration states them (0: until stopped); empty when
     *         not stated or set per window
     * @throws IllegalArgumentException when the stated value is malformed, naming the key
     */
    public OptionalInt serverSteps(Function<String, Optional<String>> settings) {
        return OptionalInt.empty();
    }

    /** @return how the server's fixed step count is called, e.g. {@code max_iterations}; only with {@link #serverStepsKey()} */
    public String serverStepsName() {
        throw new UnsupportedOperationException(displayName() + " takes its steps per window");
    }

    /**
     * @param steps     the steps a window asks for
     * @param startStep the absolute step it starts at, or null
     * @return how the server must have been started to capture them, e.g. {@code "max_iterations":10}
     */
    public String serverStartedWith(int steps, Integer startStep) {
        throw new UnsupportedOperationException(displayName() + " takes its steps per window");
    }

    /**
     * @param info what the engine reported, with its {@code version} when it has one
     * @return why this engine's version cannot bound a capture to {@code numSteps}, empty when it can (or when its
     *         version is unknown)
     */
    public Optional<String> stepLimitUnsupported(ServerInfo info) {
        return Optional.empty();
    }

    /**
     * One window of a capture, as a test or a recipe asks for it.
     *
     * @param name      the phase or recipe field, e.g. {@code decode}, or null for a whole window
     * @param numSteps  the steps to capture, or null
     * @param startStep the absolute step to start at, or null
     */
    public record Window(String name, Integer numSteps, Integer startStep) {
    }

    /**
     * What a test asks of a capture, beside its windows.
     *
     * @param windows        the windows (phases, or one for the whole test)
     * @param profiler       the profiler
     * @param activities     the activities
     * @param profileByStage {@code profileByStage}
     * @param outputDir      {@code outputDir}, empty when unset
     * @param withStack      {@code withStack}
     * @param recordShapes   {@code recordShapes}
     * @param profilePrefix  {@code profilePrefix}, empty when unset
     * @param perCallFields  whether any of {@code profileId}, {@code mergeProfiles}, {@code profileStages},
     *                       {@code shapeDiscovery} is set
     * @param shapeDiscovery whether {@code shapeDiscovery} is set
     */
    public record CaptureRequest(List<Window> windows, Profiler profiler, Set<Activity> activities,
            boolean profileByStage, String outputDir, boolean withStack, boolean recordShapes, String profilePrefix,
            boolean perCallFields, boolean shapeDiscovery) {
    }

    /**
     * An attribute this backend cannot honour.
     *
     * @param subject what was set, e.g. {@code @ProfiledRollout(startStep = 5) with backend = VLLM}
     * @param fix     why not, and what to do
     */
    public record Problem(String subject, String fix) {
    }

    /**
     * What the checks found: every attribute that cannot be honoured, and warnings to print.
     *
     * @param problems each a configuration error
     * @param warnings each a line to print
     */
    public record Verdict(List<Problem> problems, List<String> warnings) {

        public Verdict {
            problems = List.copyOf(problems);
            warnings = List.copyOf(warnings);
        }
    }

    /**
     * Checks a test's capture against what this backend can do per window.
     *
     * @param request  what the test asks
     * @param settings the configuration, by key (e.g. the steps the server was started with)
     * @return every attribute that cannot be honoured, and warnings
     */
    public abstract Verdict checkRequest(CaptureRequest request, Function<String, Optional<String>> settings);

    /**
     * @param profiler   the test's profiler
     * @param activities its activities
     * @return why this backend cannot take that combination, empty when it can
     */
    public Optional<Problem> checkProfiler(Profiler profiler, Set<Activity> activities) {
        return Optional.empty();
    }

    // ---------------------------------------------------------------------------------------------- recipes

    /**
     * @param type the recipe's {@code profiling.type} ({@code torch}, {@code nsys})
     * @return why this backend's recipes cannot be profiled with that type here, empty when they can
     */
    public Optional<String> refuseRecipeProfiler(String type) {
        return Optional.empty();
    }

    /**
     * @param field     the recipe field, e.g. {@code profiling.decode.start_step}
     * @param startStep its value
     * @return why the step cannot be honoured, empty when it can
     */
    public Optional<String> refuseRecipeStartStep(String field, int startStep) {
        return Optional.empty();
    }

    /**
     * @param field     the recipe field, e.g. {@code profiling.decode.start_step}
     * @param startStep its value
     * @param type      the recipe's {@code profiling.type} ({@code torch}, {@code nsys})
     * @return why the step cannot be honoured with that profiler, empty when it can; by default as
     *         {@link #refuseRecipeStartStep(String, int)}
     */
    public Optional<String> refuseRecipeStartStep(String field, int startStep, String type) {
        return refuseRecipeStartStep(field, startStep);
    }

    /**
     * @param startStep the window's {@code start_step}
     * @param steps     {@code stop_step − start_step}
     * @return the server-start profiler configuration an nsys recipe needs on this backend (vLLM's
     *         {@code --profiler-config}), empty when the window's {@code /start_profile} carries the steps
     */
    public Optional<String> recipeNsysServerConfig(int startStep, int steps) {
        return Optional.empty();
    }

    // ---------------------------------------------------------------------------------------------- simulator

    /**
     * Sets up the embedded simulator as a user's server of this backend would be started for a window.
     *
     * @param config    the simulator's configuration, to which the backend mode is added
     * @param outputDir the test's output root, where a fixed trace directory may be created
     * @param settings  the configuration, by key
     * @return the trace directory the simulated server writes to when it is fixed at start, else empty
     * @throws java.io.UncheckedIOException when that directory cannot be created
     */
    public abstract Optional<Path> configureSimulator(SimulatorConfig.Builder config, Path outputDir,
            Function<String, Optional<String>> settings);

    /** @return the allowed names, for messages */
    static String allowed(Object[] values) {
        return Arrays.toString(values);
    }
}
