package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.capacity.Capacity;
import dev.profiledrollout.load.StageResult;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on a {@link Capacity}: {@code assertThat(capacity).requestRate().isGreaterThan(40)}. A search that found no
 * figure (no stage met every SLO, or the client could not drive the load) fails every budget on the figure, whatever
 * it is compared with: a verdict without data never passes.
 */
@API(status = EXPERIMENTAL, since = "0.2")
public final class CapacityAssert extends AbstractAssert<CapacityAssert, Capacity> {

    public CapacityAssert(Capacity actual) {
        super(actual, CapacityAssert.class);
    }

    /** The capacity in requests/s ({@link Capacity#requestRate()}), a THROUGHPUT verdict scoped {@code capacity}. */
    public NumberBudgetAssert requestRate() {
        isNotNull();
        return figure(actual.requestRate(), "capacity request rate",
                v -> String.format(Locale.ROOT, "%.2f req/s", v));
    }

    /** The capacity in concurrent requests (concurrency searches only), a THROUGHPUT verdict. */
    public NumberBudgetAssert concurrency() {
        isNotNull();
        if (actual.mode() != Capacity.Mode.CONCURRENCY) {
            return new NumberBudgetAssert(Double.NaN, Verdict.Kind.THROUGHPUT, "capacity", "capacity concurrency",
                    v -> String.format(Locale.ROOT, "%.0f", v), null).withoutData("the search was over request"
                    + " rates; use requestRate(), or search byConcurrency");
        }
        return figure(actual.concurrency(), "capacity concurrency", v -> String.format(Locale.ROOT, "%.0f", v));
    }

    private NumberBudgetAssert figure(double value, String measure, java.util.function.DoubleFunction<String> f) {
        NumberBudgetAssert a = new NumberBudgetAssert(value, Verdict.Kind.THROUGHPUT, "capacity", measure, f,
                actual.message());
        return actual.found() ? a : a.withoutData(actual.message());
    }

    /**
     * Every stage's load was delivered ({@link dev.profiledrollout.load.LoadFidelity}). A stage that was not is a
     * WARN verdict, or a FAIL with {@code strict}; the message says whether the engine or the client limited it.
     */
    public CapacityAssert everyStageDriven(boolean strict) {
        isNotNull();
        List<StageResult> undriven = actual.undriven();
        String detail = undriven.isEmpty() ? "all " + actual.stages().stages().size() + " stages driven"
                : undriven.stream().map(s -> s.label() + ": " + s.fidelity().message())
                .collect(Collectors.joining("; "));
        Verdict v = Checks.count(Verdict.Kind.THROUGHPUT, "capacity", "stages not driven (load fidelity)", "≤",
                undriven.size(), 0, detail, undriven.isEmpty());
        if (!strict && !undriven.isEmpty()) {
            Verdicts.record(v.asWarning());
            return myself;
        }
        Verdicts.check(v, () -> failure("%s", "[capacity] " + undriven.size() + " stage(s) not driven: " + detail));
        return myself;
    }
}
