package dev.profiledrollout.junit.internal;

import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.load.ArrivalProcess;
import dev.profiledrollout.load.Endpoint;
import dev.profiledrollout.load.LoadSpec;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * The validated content of {@code @ProfiledRollout} and {@code @RolloutLoad} for one test: what to ask the profiler
 * for and what load to send. Validation happens before anything is started, with errors that name the attribute and
 * the allowed values.
 */
public record WindowSpec(
        Backend backend,
        Integer numSteps,
        Integer startStep,
        Set<Activity> activities,
        boolean profileByStage,
        boolean withStack,
        boolean recordShapes,
        String outputDir,
        String profilePrefix,
        LoadSpec load) {

    /** The defaults of {@code @RolloutLoad} when the test has none. */
    @RolloutLoad
    private static final class Defaults {
    }

    public static WindowSpec of(ProfiledRollout profile, RolloutLoad load) {
        RolloutLoad l = load != null ? load : Defaults.class.getAnnotation(RolloutLoad.class);
        if (profile.backend() != Backend.SGLANG) {
            throw new ExtensionConfigurationException("@ProfiledRollout(backend = " + profile.backend()
                    + ") is not supported yet: only SGLANG is; vLLM support is tracked as its own issue");
        }
        check(profile.numSteps() >= 0, "@ProfiledRollout(numSteps = " + profile.numSteps() + ")",
                "0 (profile until the window ends) or a positive number of scheduler steps");
        check(profile.startStep() >= -1, "@ProfiledRollout(startStep = " + profile.startStep() + ")",
                "-1 (start with the next batch) or an absolute step number ≥ 0");
        check(profile.activities().length > 0, "@ProfiledRollout(activities = {})",
                "at least one of " + Arrays.toString(Activity.values()));
        check(!profile.profileByStage() || profile.numSteps() > 0, "@ProfiledRollout(profileByStage = true)",
                "needs numSteps > 0: SGLang raises a TypeError at the next prefill otherwise (PROTOCOLS.md §1.2)");
        check(l.concurrency() >= 1, "@RolloutLoad(concurrency = " + l.concurrency() + ")", "at least 1");
        check(l.requests() >= 1, "@RolloutLoad(requests = " + l.requests() + ")", "at least 1");
        check(l.inputTokens() >= 1, "@RolloutLoad(inputTokens = " + l.inputTokens() + ")", "at least 1");
        check(l.outputTokens() >= 1, "@RolloutLoad(outputTokens = " + l.outputTokens() + ")", "at least 1");
        check(l.rangeRatio() >= 0 && l.rangeRatio() < 1, "@RolloutLoad(rangeRatio = " + l.rangeRatio() + ")",
                "in [0, 1)");
        check(l.warmupRequests() >= 0, "@RolloutLoad(warmupRequests = " + l.warmupRequests() + ")", "0 or more");
        LoadSpec loadSpec = loadShape(l);
        return new WindowSpec(
                profile.backend(),
                profile.numSteps() > 0 ? profile.numSteps() : null,
                profile.startStep() >= 0 ? profile.startStep() : null,
                EnumSet.copyOf(Arrays.asList(profile.activities())),
                profile.profileByStage(),
                profile.withStack(),
                profile.recordShapes(),
                profile.outputDir(),
                profile.profilePrefix(),
                loadSpec);
    }

    /** Maps the arrival, prefix, duration and endpoint attributes of {@code @RolloutLoad} onto a {@link LoadSpec}. */
    private static LoadSpec loadShape(RolloutLoad l) {
        try {
            boolean ramp = l.rampUpStartRate() > 0 || l.rampUpEndRate() > 0;
            ArrivalProcess arrival = ramp ? ArrivalProcess.linearRamp(l.rampUpStartRate(), l.rampUpEndRate(), l.burstiness())
                    : new ArrivalProcess(l.requestRate(), l.burstiness(), Double.NaN);
            LoadSpec spec = new LoadSpec(l.concurrency(), l.requests(), l.inputTokens(), l.outputTokens(),
                    l.rangeRatio(), l.warmupRequests(), l.seed())
                    .withPrefixTokens(l.prefixTokens()).withEndpoint(Endpoint.parse(l.endpoint()));
            if (!arrival.isClosedLoop()) {
                spec = spec.withArrival(arrival, l.maxConcurrency());
            }
            return l.durationSeconds() > 0
                    ? spec.withMaxDuration(Duration.ofNanos(Math.round(l.durationSeconds() * 1e9))) : spec;
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException("@RolloutLoad: " + e.getMessage(), e);
        }
    }

    /** Activities as SGLang's wire values, in enum order. */
    public List<String> activityNames() {
        return activities.stream().map(Activity::name).collect(Collectors.toList());
    }

    /** Whether the capture writes {@code .trace.json.gz} files: the torch profiler (CPU, GPU) or RPD. */
    public boolean writesTraceFiles() {
        return activities.contains(Activity.CPU) || activities.contains(Activity.GPU)
                || activities.contains(Activity.RPD);
    }

    private static void check(boolean ok, String what, String allowed) {
        if (!ok) {
            throw new ExtensionConfigurationException(what + " is invalid: " + allowed);
        }
    }
}
