package dev.profiledrollout.junit.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.SafeUrls;
import dev.profiledrollout.report.ResultsModule;
import dev.profiledrollout.report.SummaryFile;
import dev.profiledrollout.report.TestOutcome;
import dev.profiledrollout.report.TestReport;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import org.apiguardian.api.API;

/**
 * What a test tried to profile when it failed before or while opening its profile window (the engine did not start
 * or answer, a configuration error, the window's warm-up or profiler start failed), written to the test's
 * {@code summary.json} so that the report shows it instead of nothing.
 *
 * <h2>{@code summary.json}</h2>
 * {@code test}; {@code attempted}: {@code backend} ({@code SGLANG}/{@code VLLM}), {@code engineKind}
 * ({@code embedded}, {@code attach}, {@code container}, as {@code profiledrollout.engine} names them; null when not
 * known), {@code urls} (the engines, router, prefill and decode URLs configured or started, without user info or
 * query), {@code num_steps} (null without one; spelled as in {@code profileRequest}), {@code activities},
 * {@code phases} ({@code @RolloutPhase} names, in
 * order) and {@code load} (the window's {@code @RolloutLoad}; null for a phased test or when it could not be read);
 * {@code error} (the failure's message and causes); {@code outcome}
 * {@code {"status":"ERROR","verdicts":0,"failed":0,"warnings":0,"message":…}} with the failure's first line, without
 * the URLs' user info or query. A {@code summary.json} the window already wrote (per-engine {@code workers} of a
 * failed profiler start) keeps its content, its {@code error} included, and gains {@code attempted} and
 * {@code outcome}; one written here has no {@code latency}, {@code trace} or {@code workers}. {@code report.html} is
 * rendered from either.
 */
@API(status = INTERNAL, since = "0.1")
public final class CaptureAttempt {

    private static final System.Logger LOG = System.getLogger(CaptureAttempt.class.getName());
    private static final ObjectMapper JSON = ResultsModule.newMapper();

    private String backend;
    private String engineKind;
    private List<String> urls = List.of();
    private Integer numSteps;
    private List<String> activities;
    private List<String> phases;
    private JsonNode load;
    /** User info and queries of the URLs involved, kept out of {@code error}: they may hold credentials. */
    private final Set<String> secrets = new LinkedHashSet<>();

    private CaptureAttempt() {
    }

    /**
     * What a test's annotations and configuration ask for, read as far as they can be: a part that cannot be read
     * (the invalid value that failed the test) is null, or taken from the annotations as written.
     *
     * @param profile  the test's {@code @ProfiledRollout}
     * @param phases   its {@code @RolloutPhase}s, in order
     * @param settings its configuration
     * @param spec     reads the test's validated window; it may throw, being what failed
     */
    public static CaptureAttempt of(ProfiledRollout profile, List<RolloutPhase> phases, Settings settings,
            Supplier<WindowSpec> spec) {
        CaptureAttempt a = new CaptureAttempt();
        a.backend = profile.backend().name();
        a.engineKind = quietly(() -> settings.engineKind().name().toLowerCase(Locale.ROOT));
        List<URI> configured = new ArrayList<>();
        if (Boolean.TRUE.equals(quietly(() -> settings.engineKind() != Settings.EngineKind.EMBEDDED))) {
            addQuietly(configured, settings::engineUrls);
        }
        addQuietly(configured, () -> settings.routerUrl().map(List::of).orElse(List.of()));
        addQuietly(configured, settings::prefillUrls);
        addQuietly(configured, settings::decodeUrls);
        a.urls(configured);
        WindowSpec window = quietly(spec);
        if (window != null) {
            a.window(window);
            return a;
        }
        a.numSteps = profile.numSteps() > 0 ? profile.numSteps() : null;
        a.activities = Arrays.stream(profile.activities()).map(Activity::name).toList();
        a.phases = phases.stream().map(p -> p.phase().name()).toList();
        a.load = null;
        return a;
    }

    /** What an opened window's spec and engine ask for. */
    static CaptureAttempt of(WindowSpec spec, Settings settings, EngineHandle engine) {
        CaptureAttempt a = new CaptureAttempt();
        a.backend = spec.backend().name();
        a.engineKind = quietly(() -> settings.engineKind().name().toLowerCase(Locale.ROOT));
        List<URI> urls = new ArrayList<>(List.of(engine.baseUri()));
        List<Worker> workers = quietly(engine::workers);
        if (workers != null) {
            workers.forEach(w -> urls.add(w.url()));
        }
        a.urls(urls);
        a.window(spec);
        return a;
    }

    private void urls(List<URI> urls) {
        Set<String> safe = new LinkedHashSet<>();
        for (URI u : urls) {
            safe.add(SafeUrls.of(u.toString()));
            secret(u);
        }
        this.urls = List.copyOf(safe);
    }

    /** Backend, step bound, activities, phases and load ({@code null} for a phased window) of {@code spec}. */
    private void window(WindowSpec spec) {
        backend = spec.backend().name();
        numSteps = spec.numSteps();
        activities = spec.activities().stream().sorted().map(Enum::name).toList();
        phases = spec.phases().stream().map(p -> p.phase().name()).toList();
        load = spec.phases().isEmpty() ? JSON.valueToTree(spec.load()) : null;
    }

    private void secret(URI url) {
        if (url.getRawUserInfo() != null) {
            secrets.add(url.getRawUserInfo() + "@");
        }
        if (url.getRawQuery() != null) {
            secrets.add("?" + url.getRawQuery());
        }
    }

    /** @return the {@code attempted} block */
    SummaryFile.Attempted attempted() {
        return new SummaryFile.Attempted(backend, engineKind, urls, numSteps, activities, phases, load);
    }

    /**
     * Writes (or completes) {@code directory/summary.json} for a test that failed with {@code failure}, then renders
     * its {@code report.html} and, under Allure, attaches it ({@link TestReport#finish}). Never throws: a problem
     * writing is added to {@code failure} as a suppressed exception, so that the test still reports its own cause.
     */
    public void write(Path directory, String testName, Throwable failure, TestReport.Options options,
            PrintStream console) {
        try {
            Path file = directory.resolve("summary.json");
            SummaryFile existing = Files.isRegularFile(file) ? SummaryFile.read(file) : SummaryFile.builder().build();
            String error = redact(describe(failure));
            existing.toBuilder()
                    .test(existing.test() != null ? existing.test() : testName)
                    .attempted(attempted())
                    .error(existing.error() != null ? existing.error() : error)
                    .outcome(null) // TestReport.finish writes it
                    .build().write(file);
            String message = failure.getMessage() != null ? failure.getMessage() : error;
            TestReport.finish(directory, List.of(), List.of(), options, console, new TestOutcome(
                    TestOutcome.Status.ERROR, 0, 0, 0, redact(message.lines().findFirst().orElse(""))));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Could not write the report of the failed test " + testName + " to "
                    + directory, e);
            failure.addSuppressed(e);
        }
    }

    private String redact(String text) {
        String redacted = text;
        for (String secret : secrets) {
            redacted = redacted.replace(secret, "");
        }
        return redacted;
    }

    /** The failure's message, followed by each cause's that it does not already contain. */
    static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder(failure.getMessage() != null ? failure.getMessage()
                : failure.getClass().getName());
        Set<Throwable> seen = new LinkedHashSet<>();
        for (Throwable c = failure.getCause(); c != null && seen.add(c); c = c.getCause()) {
            String m = c.getMessage() != null ? c.getMessage() : c.getClass().getName();
            if (!text.toString().contains(m)) {
                text.append(" (caused by ").append(c.getClass().getSimpleName()).append(": ").append(m).append(')');
            }
        }
        return text.toString();
    }

    private static <T> T quietly(Supplier<T> read) {
        try {
            return read.get();
        } catch (RuntimeException invalid) {
            return null;
        }
    }

    private static void addQuietly(List<URI> to, Supplier<List<URI>> read) {
        List<URI> urls = quietly(read);
        if (urls != null) {
            to.addAll(urls);
        }
    }
}
