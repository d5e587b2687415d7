package dev.profiledrollout.backend;

import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.engine.EngineClient;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.engine.ServerProbe;
import dev.profiledrollout.engine.SglangClient;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;

/**
 * SGLang ({@code docs/PROTOCOLS.md} §1): {@code POST /start_profile} takes the window's settings and its
 * {@code output_dir}, stops by itself after {@code num_steps}; file names carry no host
 * (sgl-project/sglang {@code python/sglang/srt/managers/scheduler_profiler_mixin.py}), so several engines sharing a
 * directory each get their own sub-directory; steps are annotated by the {@code CPU} activity's
 * {@code step[…]} spans.
 */
final class SglangSupport extends BackendSupport {

    @Override
    public Backend backend() {
        return Backend.SGLANG;
    }

    @Override
    public String displayName() {
        return "SGLang";
    }

    @Override
    public EngineClient client(URI uri, ClientOptions options) {
        SglangClient.Builder b = SglangClient.builder(uri)
                .stopProfileTimeout(options.stopTimeout() != null ? options.stopTimeout() : defaultStopTimeout());
        if (options.connectTimeout() != null) {
            b.unreachableTimeout(options.connectTimeout());
        }
        if (options.apiKey() != null) {
            b.apiKey(options.apiKey());
        }
        if (options.adminKey() != null) {
            b.adminApiKey(options.adminKey());
        }
        return b.build();
    }

    /** 10 min: SGLang's stop returns once every rank has exported, which with_stack makes slow (PROTOCOLS.md §1.3). */
    @Override
    public Duration defaultStopTimeout() {
        return Duration.ofMinutes(10);
    }

    /** {@code GET /server_info} of the first engine. */
    @Override
    public ServerInfo serverInfo(EngineClient first, OptionalInt ranks, int embeddedTp) {
        return ((SglangClient) first).serverInfo();
    }

    @Override
    public Optional<String> otherBackendAt(EngineClient client, String source) {
        URI url = client.baseUri();
        return ServerProbe.vllmVersion(client.httpClient(), url).map(version -> url + " (" + source + ") answers like"
                + " vLLM (GET /version is \"" + version + "\" and there is no GET /server_info), but the test declares"
                + " @ProfiledRollout(backend = SGLANG). Set backend = VLLM (and configure its capture:"
                + " profiledrollout.trace.dir, docs/USER-GUIDE.md), or point " + source + " at the SGLang server");
    }

    @Override
    public Control control() {
        return Control.PER_REQUEST;
    }

    @Override
    public String fixedTraceDirectory() {
        return "the output_dir of each /start_profile";
    }

    /** SGLang records its {@code step[…]} spans only with the {@code CPU} activity. */
    @Override
    public boolean annotatesSteps(Set<Activity> activities) {
        return activities.contains(Activity.CPU);
    }

    @Override
    public boolean stepAnnotationsGuaranteed() {
        return true;
    }

    @Override
    public String overCaptureFix(int n) {
        return "the server recorded past num_steps=" + n + " until /stop_profile: a server that ignores num_steps"
                + " records the whole window; check the SGLang version";
    }

    /**
     * Everything is sent per request. {@code shape_discovery} is sent but warned about: it is not a field of
     * {@code ProfileReq} on SGLang's main ({@code python/sglang/srt/managers/io_struct.py}), only of servers patched
     * with an unmerged PR, and an unpatched server drops the unknown key without a word.
     */
    @Override
    public Verdict checkRequest(CaptureRequest request, Function<String, Optional<String>> settings) {
        List<String> warnings = request.shapeDiscovery() ? List.of("@ProfiledRollout(shapeDiscovery = true): SGLang's"
                + " main has no shape_discovery field in ProfileReq (python/sglang/srt/managers/io_struct.py); only a"
                + " server patched with the unmerged PR reads it, and any other drops it silently, so the trace will"
                + " carry no Triton/FlashInfer shape metadata unless the server is patched") : List.of();
        return new Verdict(List.of(), warnings);
    }

    /** The default mode of the simulator; traces go where each request says. */
    @Override
    public Optional<Path> configureSimulator(SimulatorConfig.Builder config, Path outputDir,
            Function<String, Optional<String>> settings) {
        config.backend(name());
        return Optional.empty();
    }
}
