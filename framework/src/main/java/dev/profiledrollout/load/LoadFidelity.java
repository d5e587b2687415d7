package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.ScheduleReport;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.apiguardian.api.API;

/**
 * Whether a stage's load was delivered as asked: the load-fidelity verdict of issue 26. Immutable.
 *
 * <p><b>Definitions.</b> For an open loop, the <i>scheduled rate</i> is (n − 1) / (last − first intended send time)
 * of the stage's own schedule, and the <i>achieved rate</i> is (n − 1) / (last − first actual send time), over the n
 * requests sent. Comparing the achieved rate with the schedule rather than with the nominal rate keeps the random
 * spread of a Poisson schedule (±1/√n) from being taken for a shortfall. The stage was <b>not driven</b> when the
 * achieved rate is more than {@link #RATE_SHORTFALL} below the scheduled one, or the schedule-lag p99 exceeds the lag
 * bound. A closed loop is driven by construction (its rate is whatever the engine returns); only its failures are
 * reported.
 *
 * <p><b>Who limited the load.</b> With a {@link LoadSpec#maxInFlight()} cap, a request waits when the engine still
 * holds that many, so lag under a cap is the engine's ({@link Limit#ENGINE}). Without a cap the pacer sends every
 * request on its own schedule, so lag or a short rate is the client's ({@link Limit#CLIENT}: a slower machine, too few
 * load threads ({@code profiledrollout.load.threads}) or a CPU shared with the engine).
 *
 * @param limit          who, if anyone, kept the stage from its requested load
 * @param requestedRate  the nominal rate in requests/s; NaN for a closed loop
 * @param scheduledRate  the schedule's own rate in requests/s; NaN for a closed loop or fewer than 2 requests
 * @param achievedRate   the rate of actual sends in requests/s; NaN for fewer than 2 requests
 * @param lagP99         the schedule-lag p99 (zero for a closed loop)
 * @param lagBound       the lag p99 above which the stage counts as not driven
 * @param message        one sentence for a person: what was asked, what was delivered, and who limited it
 */
@API(status = EXPERIMENTAL, since = "0.2")
public record LoadFidelity(Limit limit, double requestedRate, double scheduledRate, double achievedRate,
                           Duration lagP99, Duration lagBound, String message) {

    /** An achieved rate more than this fraction below the scheduled one means the stage was not driven. */
    public static final double RATE_SHORTFALL = 0.05;
    /** The default lag p99 bound: {@link ScheduleReport#DEFAULT_LAG_BUDGET_MS} ms. */
    public static final Duration DEFAULT_LAG_BOUND = Duration.ofMillis(ScheduleReport.DEFAULT_LAG_BUDGET_MS);

    /** Who kept a stage from its load. */
    @API(status = EXPERIMENTAL, since = "0.2")
    public enum Limit {
        /** The load was delivered as asked. */
        NONE,
        /** The engine held the cap of requests in flight, so later requests waited. */
        ENGINE,
        /** The client could not send on schedule. */
        CLIENT
    }

    /** @return true when the stage delivered the load it asked for; a capacity figure may come only from such a stage */
    public boolean driven() {
        return limit == Limit.NONE;
    }

    /**
     * @param stage    the stage's load
     * @param records  the stage's records (successes and failures)
     * @param schedule the stage's schedule report
     * @param lagBound the lag p99 bound, not null
     * @return the verdict for the stage
     */
    public static LoadFidelity of(LoadSpec stage, List<RequestRecord> records, ScheduleReport schedule,
                                  Duration lagBound) {
        Duration lag = records.isEmpty() ? Duration.ZERO : schedule.lagPercentile(99);
        if (stage.arrival().isClosedLoop()) {
            double achieved = rate(records, false);
            return new LoadFidelity(Limit.NONE, Double.NaN, Double.NaN, achieved, lag, lagBound,
                    "closed loop of " + stage.lanes() + " lanes: driven by construction");
        }
        double requested = stage.arrival().requestRate();
        double scheduled = rate(records, true);
        double achieved = rate(records, false);
        boolean shortRate = !Double.isNaN(scheduled) && achieved < (1 - RATE_SHORTFALL) * scheduled;
        boolean lagging = lag.compareTo(lagBound) > 0;
        String asked = String.format(Locale.ROOT, "asked %.2f req/s (schedule %.2f), sent %.2f req/s, lag p99 %.1f ms"
                + " (bound %d ms)", requested, scheduled, achieved, lag.toNanos() / 1e6, lagBound.toMillis());
        if (records.size() < 2) {
            return new LoadFidelity(Limit.CLIENT, requested, scheduled, achieved, lag, lagBound,
                    asked + ": fewer than 2 requests were sent, so the rate was not delivered; lengthen the stage");
        }
        if (!shortRate && !lagging) {
            return new LoadFidelity(Limit.NONE, requested, scheduled, achieved, lag, lagBound, asked + ": driven");
        }
        if (stage.maxInFlight() > 0) {
            return new LoadFidelity(Limit.ENGINE, requested, scheduled, achieved, lag, lagBound, asked
                    + ": engine-limited, requests waited for the cap of " + stage.maxInFlight() + " in flight because"
                    + " the engine did not finish them fast enough; raise maxConcurrency or lower the rate");
        }
        return new LoadFidelity(Limit.CLIENT, requested, scheduled, achieved, lag, lagBound, asked
                + ": client-limited, the load generator could not send on schedule (no in-flight cap was set); give it"
                + " a core of its own or more load threads (profiledrollout.load.threads), or lower the rate");
    }

    /** (n − 1) / span of the intended or actual send times; NaN for fewer than 2 records. */
    private static double rate(List<RequestRecord> records, boolean intended) {
        if (records.size() < 2) {
            return Double.NaN;
        }
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (RequestRecord r : records) {
            long t = intended ? r.intendedNanos() : r.startNanos();
            first = Math.min(first, t);
            last = Math.max(last, t);
        }
        return last == first ? Double.POSITIVE_INFINITY : (records.size() - 1) * 1e9 / (last - first);
    }
}
