package dev.profiledrollout.history;

import java.util.Objects;
import java.util.function.Supplier;
import org.apiguardian.api.API;

/**
 * A profiled run's access to its history, as {@code RolloutResult.history()} gives it: the store, the current run's
 * record and the configured threshold, for regression checks from the test body
 * ({@code assertThat(result).history().metric("ttft.p99").hasNoRegression()}).
 *
 * <p>The store is opened once per test class, on first use; the current record is built from the test's output
 * directory on first use ({@link RunRecords}). Neither is recorded from here: the extension records the run after the
 * body, with the outcome it ends with.
 */
@API(status = API.Status.EXPERIMENTAL)
public final class RunHistory {

    private final Supplier<HistoryStore> store;
    private final Supplier<RunRecord> current;
    private final HistoryThreshold threshold;
    private final String scope;
    private RunRecord record;
    private final java.util.List<HistoryVerdict> checked = new java.util.ArrayList<>();

    /**
     * @param store     opens (or returns the open) store; may throw {@link HistoryStoreException}
     * @param current   builds the current run's record (not yet recorded, id 0)
     * @param threshold the configured threshold ({@code profiledrollout.history.*})
     * @param scope     {@code ""} for a whole run, the phase name for one phase of a phased test
     */
    public RunHistory(Supplier<HistoryStore> store, Supplier<RunRecord> current, HistoryThreshold threshold,
            String scope) {
        this.store = Objects.requireNonNull(store, "store");
        this.current = Objects.requireNonNull(current, "current");
        this.threshold = Objects.requireNonNull(threshold, "threshold");
        this.scope = Objects.requireNonNull(scope, "scope");
    }

    /** The configured threshold. */
    public HistoryThreshold threshold() {
        return threshold;
    }

    /** {@code ""} for the whole run, else the phase ({@code "PREFILL"}); verdicts carry it as their scope. */
    public String scope() {
        return scope;
    }

    /**
     * @return the open store
     * @throws HistoryStoreException when it cannot be opened
     */
    public HistoryStore store() {
        return store.get();
    }

    /** The current run's record, built on first use. */
    public synchronized RunRecord current() {
        if (record == null) {
            record = current.get();
        }
        return record;
    }

    /**
     * Checks one metric of the current run against its history.
     *
     * @param threshold the model, boundary and window to use
     * @return the verdict, or null when the run has no figure of that metric
     * @throws HistoryStoreException    when the store cannot be opened or read
     * @throws IllegalArgumentException for an unknown metric name
     */
    public HistoryVerdict check(String metric, HistoryThreshold threshold) {
        HistoryMetrics.measure(metric); // an unknown name fails before the store is touched
        HistoryVerdict verdict = HistoryCheck.of(store(), current(), threshold).check(metric).orElse(null);
        if (verdict != null) {
            synchronized (checked) {
                checked.add(verdict);
            }
        }
        return verdict;
    }

    /** The verdicts {@link #check} returned so far, in order: the report lists them in its {@code history} block. */
    public java.util.List<HistoryVerdict> checked() {
        synchronized (checked) {
            return java.util.List.copyOf(checked);
        }
    }
}
