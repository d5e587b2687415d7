package dev.profiledrollout.capacity;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.load.StageResult;
import dev.profiledrollout.load.SweepResult;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The highest load at which every SLO held, as a {@link CapacitySearch} found it. Immutable.
 *
 * @param mode      whether the load was a request rate (open loop) or a concurrency (closed loop)
 * @param status    how the search ended
 * @param lower     the highest level every SLO was shown to meet (requests/s or lanes); NaN when none did
 * @param upper     the lowest level shown not to meet one (or not driven by the engine); NaN when none was found below
 *                  the search's maximum
 * @param precision the relative half-width the search aimed for, e.g. 0.05
 * @param slos      the SLOs
 * @param stages    every stage tried, in run order, with {@link #checks()} giving each stage's SLO verdicts
 * @param checks    per stage (same order as {@code stages}), the SLO checks
 * @param message   one paragraph for a person: the figure, its interval, how the search ended
 */
@API(status = EXPERIMENTAL, since = "0.2")
public record Capacity(Mode mode, Status status, double lower, double upper, double precision, List<SloTarget> slos,
                       SweepResult stages, List<List<SloTarget.Check>> checks, String message) {

    /** What load was searched over. */
    @API(status = EXPERIMENTAL, since = "0.2")
    public enum Mode {
        /** Open-loop request rate, requests/s. */
        RATE,
        /** Closed-loop concurrency, lanes. */
        CONCURRENCY
    }

    /** How the search ended. */
    @API(status = EXPERIMENTAL, since = "0.2")
    public enum Status {
        /** Bracketed to the precision: the capacity lies in [lower, upper). */
        FOUND,
        /** The SLOs held at the search's maximum; the capacity is at least {@code lower}. */
        AT_LEAST_MAX,
        /** No stage met every SLO, down to the search's minimum: no capacity figure. */
        NONE_MET,
        /** A stage could not be driven by the client: the search stopped, no figure from that stage or above. */
        CLIENT_LIMITED,
        /** The stage budget ran out before the bracket reached the precision; {@code lower} is still shown to hold. */
        STAGE_BUDGET_SPENT
    }

    public Capacity {
        slos = List.copyOf(slos);
        checks = checks.stream().map(List::copyOf).toList();
    }

    /** @return true when at least one stage met every SLO, so that {@link #lower()} is a figure */
    public boolean found() {
        return !Double.isNaN(lower);
    }

    /**
     * @return the capacity as a request rate in requests/s: the search's level in {@link Mode#RATE}; in
     *         {@link Mode#CONCURRENCY}, the completed-request throughput of the capacity stage; NaN without a figure
     */
    public double requestRate() {
        if (!found()) {
            return Double.NaN;
        }
        return mode == Mode.RATE ? lower : capacityStage().map(StageResult::throughput).orElse(Double.NaN);
    }

    /** @return the capacity in lanes in {@link Mode#CONCURRENCY}; NaN in rate mode or without a figure */
    public double concurrency() {
        return mode == Mode.CONCURRENCY ? lower : Double.NaN;
    }

    /** @return the stage run at the capacity level, when there is one */
    public Optional<StageResult> capacityStage() {
        if (!found()) {
            return Optional.empty();
        }
        List<StageResult> all = stages.stages();
        for (int i = all.size() - 1; i >= 0; i--) {
            if (all.get(i).stage().level() == lower && passed(i)) {
                return Optional.of(all.get(i));
            }
        }
        return Optional.empty();
    }

    /** @return true when stage {@code i} met every SLO and was driven */
    public boolean passed(int i) {
        return stages.stages().get(i).fidelity().driven()
                && checks.get(i).stream().allMatch(c -> c.outcome() == SloTarget.Outcome.MET);
    }

    /** @return the saturation knee over the stages tried ({@link SweepResult#knee()}) */
    public Optional<StageResult> knee() {
        return stages.knee();
    }

    /** @return stages the client could not drive, or the engine held at the cap */
    public List<StageResult> undriven() {
        return stages.stages().stream().filter(s -> !s.fidelity().driven()).toList();
    }

    /** @return the figure and the stage table, for a console */
    public String toTable() {
        StringBuilder b = new StringBuilder(message).append(System.lineSeparator());
        b.append(stages.toTable());
        for (int i = 0; i < checks.size(); i++) {
            b.append(String.format(Locale.ROOT, "  %-18s %s%n", stages.stages().get(i).label(),
                    String.join("; ", checks.get(i).stream().map(SloTarget.Check::text).toList())));
        }
        return b.toString();
    }
}
