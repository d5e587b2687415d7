package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.BaselineDiff;
import dev.profiledrollout.trace.KernelDelta;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions that a run stays within a baseline ({@link dev.profiledrollout.trace.TraceBaseline#diff}): per-kernel
 * time within ± a relative tolerance, total kernel time within ± a tolerance, no new or vanished kernels. Failure
 * messages name each offending kernel with baseline → actual time, its change and the budget.
 *
 * <pre>{@code
 * BaselineDiff diff = TraceBaseline.read(Path.of("baseline.json")).diff(result.trace().traces());
 * assertThat(diff).kernelTimeWithin(0.10, Duration.ofMillis(1)).hasNoNewKernels();
 * }</pre>
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class BaselineDiffAssert extends AbstractAssert<BaselineDiffAssert, BaselineDiff> {

    private static final int LISTED = 5;

    public BaselineDiffAssert(BaselineDiff actual) {
        super(actual, BaselineDiffAssert.class);
    }

    /**
     * Each kernel present in both runs has {@code |Δtime| ≤ tolerance × baseline time}; kernels whose baseline and run
     * times are both below {@code ignoreBelow} are not checked (noise).
     *
     * @param tolerance relative, e.g. 0.10 for ±10 %
     */
    public BaselineDiffAssert kernelTimeWithin(double tolerance, Duration ignoreBelow) {
        isNotNull();
        long floor = ignoreBelow.toNanos();
        List<KernelDelta> outside = actual.kernels().stream()
                .filter(k -> k.status() == KernelDelta.Status.PRESENT)
                .filter(k -> k.baseTotalNs() >= floor || k.totalNs() >= floor)
                .filter(k -> Math.abs(k.relativeChange()) > tolerance)
                .toList();
        if (!outside.isEmpty()) {
            KernelDelta worst = outside.get(0);
            failWithMessage("%s", "kernel time of " + worst.name() + " was " + describe(worst) + ", budget ±"
                    + Formats.percent(tolerance) + " of baseline; " + outside.size() + " kernel(s) outside: "
                    + outside.stream().limit(LISTED).map(k -> k.name() + " " + change(k))
                    .collect(Collectors.joining(", ")));
        }
        return myself;
    }

    /** Total kernel time within ± {@code tolerance} of the baseline's. */
    public BaselineDiffAssert totalKernelTimeWithin(double tolerance) {
        isNotNull();
        double change = actual.kernelTimeChange();
        if (Math.abs(change) > tolerance) {
            failWithMessage("%s", "total kernel time was " + Formats.duration(Duration.ofNanos(actual.run().kernelTotalNs()))
                    + " vs baseline " + Formats.duration(Duration.ofNanos(actual.baseline().kernelTotalNs())) + " ("
                    + String.format(Locale.ROOT, "%+.1f%%", 100 * change) + "), budget ±" + Formats.percent(tolerance)
                    + "; largest changes: " + actual.kernels().stream().limit(LISTED)
                    .map(k -> k.name() + " " + change(k)).collect(Collectors.joining(", ")));
        }
        return myself;
    }

    /** Fails when the run has kernels the baseline lacks. */
    public BaselineDiffAssert hasNoNewKernels() {
        isNotNull();
        List<KernelDelta> fresh = actual.newKernels();
        if (!fresh.isEmpty()) {
            failWithMessage("%s", fresh.size() + " kernel(s) not in the baseline, budget 0: " + fresh.stream().limit(LISTED)
                    .map(k -> k.name() + " (" + k.count() + "×, " + Formats.duration(Duration.ofNanos(k.totalNs())) + ")")
                    .collect(Collectors.joining(", ")));
        }
        return myself;
    }

    /** Fails when baseline kernels are missing from the run. */
    public BaselineDiffAssert hasNoVanishedKernels() {
        isNotNull();
        List<KernelDelta> gone = actual.vanishedKernels();
        if (!gone.isEmpty()) {
            failWithMessage("%s", gone.size() + " baseline kernel(s) missing from the run, budget 0: " + gone.stream()
                    .limit(LISTED).map(k -> k.name() + " (baseline " + k.baseCount() + "×, "
                            + Formats.duration(Duration.ofNanos(k.baseTotalNs())) + ")")
                    .collect(Collectors.joining(", ")));
        }
        return myself;
    }

    private static String describe(KernelDelta k) {
        return Formats.duration(Duration.ofNanos(k.totalNs())) + " vs baseline "
                + Formats.duration(Duration.ofNanos(k.baseTotalNs())) + " (" + change(k) + ", count "
                + k.baseCount() + " → " + k.count() + ")";
    }

    private static String change(KernelDelta k) {
        return String.format(Locale.ROOT, "%+.1f%%", 100 * k.relativeChange());
    }
}
