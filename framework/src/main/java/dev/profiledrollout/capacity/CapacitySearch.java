package dev.profiledrollout.capacity;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.load.ArrivalProcess;
import dev.profiledrollout.load.LoadFidelity;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.load.LoadStage;
import dev.profiledrollout.load.StageResult;
import dev.profiledrollout.load.SweepResult;
import dev.profiledrollout.metrics.QuantileInterval;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import org.apiguardian.api.API;

/**
 * Searches for the highest load (request rate or concurrency) at which every {@link SloTarget} holds, by bracketing
 * then bisection over stages of a staged load.
 *
 * <ol>
 *   <li><b>Bracketing.</b> From {@code start}, the level doubles after each stage that met every SLO until one does
 *       not (or the maximum is reached); if the first stage already misses, the level halves until one meets (or the
 *       minimum is passed).</li>
 *   <li><b>Bisection.</b> Between the highest level that met and the lowest that did not, the midpoint is tried, until
 *       {@code (upper − lower) / (upper + lower) ≤ precision} (the midpoint is then within ±precision of both ends) or,
 *       for a concurrency, {@code upper − lower ≤ 1}.</li>
 * </ol>
 * A stage meets the SLOs only when every SLO's confidence interval lies below its budget ({@link SloTarget#check}); an
 * inconclusive stage counts as not meeting, so {@link Capacity#lower()} is a level that was shown to hold. A stage
 * whose load the client could not deliver ({@link LoadFidelity.Limit#CLIENT}) ends the search: nothing at or above it
 * says anything about the engine. A capped open-loop stage the engine could not keep up with
 * ({@link LoadFidelity.Limit#ENGINE}) counts as not meeting. The number of stages is bounded ({@code maxStages}).
 *
 * <p>Stage length: a rate stage sends {@code max(minRequests, ⌈rate × stageSeconds⌉)} requests; a concurrency stage
 * {@code max(minRequests, lanes × requestsPerLane)}; {@code minRequests} is raised to the fewest samples for which
 * the strictest SLO's percentile interval has an upper end ({@link QuantileInterval#samplesForUpperEnd}: 368 for a p99,
 * 36 for a p90), since a smaller stage can only be inconclusive.
 */
@API(status = EXPERIMENTAL, since = "0.2")
public final class CapacitySearch {

    /** Runs one stage; {@link dev.profiledrollout.load.StageRunner#run(LoadStage)} is the usual one. */
    @FunctionalInterface
    @API(status = EXPERIMENTAL, since = "0.2")
    public interface StageExecutor {
        StageResult run(LoadStage stage) throws InterruptedException, TimeoutException;
    }

    /**
     * Interim looks at a running stage (searches run on a {@link dev.profiledrollout.load.StageRunner}): a stage is
     * ended as soon as its verdict "not met" is decided, instead of after all its requests. Look k (k = 1…L) is taken
     * once k/(L+1) of the stage's requests have ended; there, an SLO whose percentile interval at the interim
     * confidence 1 − α/L (α = 1 − {@link QuantileInterval#DEFAULT_CONFIDENCE}) starts at or above its budget is
     * missed, and the stage ends. This is a repeated confidence interval with Bonferroni-split error (Jennison and
     * Turnbull, "Interim analyses: the repeated confidence interval approach", J. R. Statist. Soc. B 51(3), 1989,
     * 305–361; "Group Sequential Methods with Applications to Clinical Trials", 2000, ch. 9): the chance that any
     * interim look ends a stage whose true percentile is below the budget is at most L × α/(2L) = α/2, the same as the
     * chance that the stage's final 95 % interval starts above it. A stage that meets the SLOs always runs to its
     * last request and is judged at 95 %, so the capacity figure is shown exactly as before; the looks only end stages
     * that miss sooner. A stage with a failed request is ended at once: it cannot meet the SLOs. An ended stage sends
     * no further request and lets those in flight finish, so that the next stage does not find the engine still busy
     * with them.
     */
    public static final int INTERIM_LOOKS = 7;
    /** The interval confidence at an interim look: 1 − α/{@link #INTERIM_LOOKS}. */
    public static final double INTERIM_CONFIDENCE = 1 - (1 - QuantileInterval.DEFAULT_CONFIDENCE) / INTERIM_LOOKS;

    /** Default precision: ±5 %. */
    public static final double DEFAULT_PRECISION = 0.05;
    /** Default bound on stages. */
    public static final int DEFAULT_MAX_STAGES = 12;

    private final Capacity.Mode mode;
    private final List<SloTarget> slos;
    private final double start;
    private final double min;
    private final double max;
    private final double precision;
    private final int maxStages;
    private final int minRequests;
    private final double stageSeconds;
    private final int requestsPerLane;
    private final double burstiness;

    private CapacitySearch(Builder b) {
        this.mode = b.mode;
        this.slos = List.copyOf(b.slos);
        this.start = b.start;
        this.min = b.min;
        this.max = b.max;
        this.precision = b.precision;
        this.maxStages = b.maxStages;
        // a stage too small for any SLO's percentile interval to have an upper end could never show the SLO met
        this.minRequests = Math.max(b.minRequests, b.slos.stream()
                .mapToInt(t -> QuantileInterval.samplesForUpperEnd(t.percentile(), QuantileInterval.DEFAULT_CONFIDENCE))
                .max().orElse(1));
        this.stageSeconds = b.stageSeconds;
        this.requestsPerLane = b.requestsPerLane;
        this.burstiness = b.burstiness;
    }

    /** @return the most stages this search runs */
    public int maxStages() {
        return maxStages;
    }

    /** @return a builder; set the SLOs and one of {@code byRate} or {@code byConcurrency} */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the stage run at {@code level}, derived from {@code base} (its request shape and warm-up) */
    LoadStage stageAt(LoadSpec base, double level, boolean first) {
        LoadStage stage;
        if (mode == Capacity.Mode.RATE) {
            int n = (int) Math.max(minRequests, Math.ceil(level * stageSeconds));
            stage = LoadStage.atRate(base, ArrivalProcess.gamma(level, burstiness), 0).sized(n, null);
        } else {
            int lanes = (int) Math.round(level);
            stage = LoadStage.closedLoop(base, lanes).sized(Math.max(minRequests, lanes * requestsPerLane), null);
        }
        return first ? stage : stage.withWarmup(0);
    }

    /**
     * Runs the search, one stage at a time through {@code executor}.
     *
     * @param base     the request shape of every stage, and the first stage's warm-up
     * @param executor runs one stage, not null
     * @return the capacity, with every stage tried
     * @throws TimeoutException when a stage outlives its timeout
     */
    public Capacity run(LoadSpec base, StageExecutor executor) throws InterruptedException, TimeoutException {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(executor, "executor");
        Walk walk = new Walk(base);
        java.util.Optional<LoadStage> stage = java.util.Optional.of(walk.first());
        while (stage.isPresent()) {
            stage = walk.after(executor.run(stage.get()));
        }
        return walk.result();
    }

    /**
     * Runs the search on {@code runner}, one stage at a time on this thread, each ended as soon as its miss is decided
     * ({@link #INTERIM_LOOKS}). Stages that meet run whole, as in {@link #run(LoadSpec, StageExecutor)}.
     *
     * <p>The stages are not chained through {@link dev.profiledrollout.load.StageRunner#run(LoadStage,
     * java.util.function.Function)}: measured, choosing and starting the next stage on the loop thread was no faster
     * than starting it from this thread (p50 1.2 ms against 0.9 ms, {@code bench/stage-gap}, bench/README.md), since
     * measuring the ended stage there is not compiled code after a handful of stages.
     *
     * @param base   the request shape of every stage (the runner's), and the first stage's warm-up
     * @param runner runs the stages, not null
     * @throws TimeoutException when a stage outlives its timeout
     */
    public Capacity run(LoadSpec base, dev.profiledrollout.load.StageRunner runner)
            throws InterruptedException, TimeoutException {
        return run(base, runner, r -> { });
    }

    /**
     * As {@link #run(LoadSpec, dev.profiledrollout.load.StageRunner)}, telling {@code ended} of each stage's result
     * (progress output).
     */
    public Capacity run(LoadSpec base, dev.profiledrollout.load.StageRunner runner,
            java.util.function.Consumer<StageResult> ended) throws InterruptedException, TimeoutException {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(runner, "runner");
        Objects.requireNonNull(ended, "ended");
        Walk walk = new Walk(base);
        java.util.Optional<LoadStage> stage = java.util.Optional.of(walk.first());
        while (stage.isPresent()) {
            StageResult r = runner.run(stage.get(), walk::decided);
            ended.accept(r);
            stage = walk.after(r);
        }
        return walk.result();
    }

    /** The search's state: which stage comes after each result. Used by one thread at a time. */
    private final class Walk {
        private final LoadSpec base;
        private final List<StageResult> results = new ArrayList<>();
        private final List<List<SloTarget.Check>> checks = new ArrayList<>();
        private double lower = Double.NaN;
        private double upper = Double.NaN;
        private volatile double level = clamp(start);
        private volatile Capacity.Status status;
        private String clientNote = "";

        Walk(LoadSpec base) {
            this.base = base;
        }

        LoadStage first() {
            return stageAt(base, level, true);
        }

        /** @return the next stage after {@code r}, the stage run at the current level; empty when the search ended */
        java.util.Optional<LoadStage> after(StageResult r) {
            List<SloTarget.Check> c = slos.stream().map(s -> s.check(r.latency())).toList();
            results.add(r);
            checks.add(c);
            String early = endedEarly;
            endedEarly = null;
            if (early != null) {
                earlyEnds.put(results.size() - 1, early);
            }
            if (r.fidelity().limit() == LoadFidelity.Limit.CLIENT) {
                clientNote = "; stage " + r.label() + " was not driven: " + r.fidelity().message();
                status = Capacity.Status.CLIENT_LIMITED;
                return java.util.Optional.empty();
            }
            // a stage ended early was decided not to meet at its interim look; that decision stands
            boolean met = early == null && r.fidelity().driven() && r.failures() == 0
                    && c.stream().allMatch(x -> x.outcome() == SloTarget.Outcome.MET);
            if (met) {
                lower = Double.isNaN(lower) ? level : Math.max(lower, level);
            } else {
                upper = Double.isNaN(upper) ? level : Math.min(upper, level);
            }
            if (Double.isNaN(upper)) { // still bracketing upwards
                if (level >= max) {
                    status = Capacity.Status.AT_LEAST_MAX;
                } else {
                    level = clamp(level * 2);
                }
            } else if (Double.isNaN(lower)) { // bracketing downwards
                if (level <= min) {
                    status = Capacity.Status.NONE_MET;
                } else {
                    level = Math.max(min, mode == Capacity.Mode.CONCURRENCY ? Math.floor(level / 2) : level / 2);
                }
            } else if (closeEnough(lower, upper)) {
                status = Capacity.Status.FOUND;
            } else {
                level = mode == Capacity.Mode.CONCURRENCY ? Math.floor((lower + upper) / 2) : (lower + upper) / 2;
            }
            if (status == null && results.size() >= maxStages) {
                status = Capacity.Status.STAGE_BUDGET_SPENT;
            }
            if (status != null) {
                return java.util.Optional.empty();
            }
            LoadStage next = stageAt(base, level, false);
            return java.util.Optional.of(next);
        }

        /** The stage {@link #decided} looked at last, and how many looks it took there. */
        private LoadStage lookedAt;
        private int looks;
        /** Why the running stage was ended early, read by {@link #after} on the thread that ends it. */
        private volatile String endedEarly;
        /**
         * Why each stage that was ended early ended, by its index into {@link #results}: decided there, so never counted
         * as inconclusive.
         */
        private final java.util.SortedMap<Integer, String> earlyEnds = new java.util.TreeMap<>();

        /**
         * Whether the running stage is already known not to meet the SLOs from its ended requests (on the search's
         * thread; see {@link CapacitySearch#INTERIM_LOOKS}): a request failed (a stage with a failure never meets),
         * or, at one of at most {@link CapacitySearch#INTERIM_LOOKS} interim looks, an SLO percentile's interval at
         * the interim confidence lies at or above its budget.
         */
        boolean decided(LoadStage stage, List<dev.profiledrollout.metrics.RequestRecord> ended) {
            if (stage != lookedAt) {
                lookedAt = stage;
                looks = 0;
            }
            long failed = ended.stream().filter(r -> !r.succeeded()).count();
            if (failed > 0) {
                endedEarly = String.format(Locale.ROOT, "stage %s ended after %d of %d requests: %d failed, so it"
                        + " could not meet the SLOs", stage.label(), ended.size(), stage.spec().requests(), failed);
                return true;
            }
            int n = stage.spec().requests();
            // look k happens once k/(L+1) of the stage's requests have ended, k = 1..L; the samples between looks
            // only wait for the next one, so that at most L interim looks are taken
            int due = (int) Math.min(INTERIM_LOOKS, (long) ended.size() * (INTERIM_LOOKS + 1) / n);
            if (due <= looks) {
                return false;
            }
            looks = due;
            dev.profiledrollout.metrics.LatencyReport report = dev.profiledrollout.metrics.LatencyReport.of(ended);
            for (SloTarget t : slos) {
                dev.profiledrollout.metrics.LatencyDistribution d = t.distribution(report);
                if (d.count() == 0) {
                    continue;
                }
                QuantileInterval ci = d.percentileInterval(t.percentile(), INTERIM_CONFIDENCE);
                if (ci.low().isPresent() && ci.low().get().compareTo(t.budget()) >= 0) {
                    endedEarly = String.format(Locale.ROOT, "stage %s ended after %d of %d requests: %s.p%s's"
                            + " %.4f %% interval starts at %.1f ms, at or above the budget %.1f ms (interim look %d"
                            + " of %d)", stage.label(), ended.size(), n, t.metric(), fmt(t.percentile()),
                            100 * INTERIM_CONFIDENCE, ci.low().get().toNanos() / 1e6, t.budget().toNanos() / 1e6,
                            due, INTERIM_LOOKS);
                    return true;
                }
            }
            return false;
        }

        Capacity result() {
            if (status == null) {
                throw new IllegalStateException("the capacity search has not ended");
            }
            // a stage ended at an interim look was decided there; its 95 % interval over the requests it had sent
            // may straddle the budget, but it is reported among the early ends, not as inconclusive
            long inconclusive = java.util.stream.IntStream.range(0, checks.size())
                    .filter(i -> !earlyEnds.containsKey(i))
                    .filter(i -> checks.get(i).stream().anyMatch(x -> x.outcome() == SloTarget.Outcome.INCONCLUSIVE))
                    .count();
            String hint = inconclusive == 0 ? "" : "; " + inconclusive + " stage(s) were inconclusive (the"
                    + " percentile's interval straddled the budget or had no upper end) and counted as not meeting:"
                    + " more requests per stage narrow it (p99 needs about 370, p90 about 35)";
            String early = earlyEnds.isEmpty() ? "" : "; " + earlyEnds.size() + " stage(s) ended early, their"
                    + " verdict decided (" + String.join("; ", earlyEnds.values()) + ")";
            return new Capacity(mode, status, lower, upper, precision, slos, new SweepResult(results), checks,
                    message(status, lower, upper, results.size()) + clientNote + hint + early);
        }
    }

    private boolean closeEnough(double lower, double upper) {
        return mode == Capacity.Mode.CONCURRENCY ? upper - lower <= 1 : (upper - lower) / (upper + lower) <= precision;
    }

    private double clamp(double level) {
        double l = Math.min(max, Math.max(min, level));
        return mode == Capacity.Mode.CONCURRENCY ? Math.max(1, Math.round(l)) : l;
    }

    private String message(Capacity.Status status, double lower, double upper, int stages) {
        String unit = mode == Capacity.Mode.RATE ? " req/s" : " concurrent requests";
        String slo = slos.toString();
        switch (status) {
            case FOUND:
                return String.format(Locale.ROOT, "capacity %s%s: every SLO %s held there and not at %s%s (%d stages,"
                        + " precision ±%.0f%%)", num(lower), unit, slo, num(upper), unit, stages, 100 * precision);
            case AT_LEAST_MAX:
                return String.format(Locale.ROOT, "capacity at least %s%s: every SLO %s held at the search's maximum"
                        + " (%d stages); raise the maximum to find the limit", num(lower), unit, slo, stages);
            case NONE_MET:
                return String.format(Locale.ROOT, "no capacity: no stage met every SLO %s, down to %s%s (%d stages);"
                        + " relax the SLOs or check the engine", slo, num(min), unit, stages);
            case CLIENT_LIMITED:
                return String.format(Locale.ROOT, "capacity search stopped after %d stages: the client could not drive"
                        + " the load; %s", stages, Double.isNaN(lower) ? "no capacity figure"
                        : "every SLO " + slo + " held at " + num(lower) + unit + ", the highest stage driven");
            default:
                return String.format(Locale.ROOT, "capacity search stopped after %d stages (the bound) before"
                        + " reaching ±%.0f%%: %s; raise maxStages", stages, 100 * precision, Double.isNaN(lower)
                        ? "no stage met every SLO " + slo : "every SLO " + slo + " held at " + num(lower) + unit
                        + (Double.isNaN(upper) ? "" : ", not at " + num(upper) + unit));
        }
    }

    private static String fmt(double percentile) {
        return percentile == Math.rint(percentile) ? String.valueOf((long) percentile) : String.valueOf(percentile);
    }

    private String num(double v) {
        return mode == Capacity.Mode.CONCURRENCY ? String.valueOf(Math.round(v))
                : String.format(Locale.ROOT, "%.2f", v);
    }

    /** Builds a {@link CapacitySearch}. */
    @API(status = EXPERIMENTAL, since = "0.2")
    public static final class Builder {
        private Capacity.Mode mode;
        private final List<SloTarget> slos = new ArrayList<>();
        private double start;
        private double min;
        private double max;
        private double precision = DEFAULT_PRECISION;
        private int maxStages = DEFAULT_MAX_STAGES;
        private int minRequests = 40;
        private double stageSeconds = 3;
        private int requestsPerLane = 4;
        private double burstiness = 1.0;

        /** Adds SLOs such as {@code "ttft.p99<500ms"} ({@link SloTarget#parse}). */
        public Builder slo(String... texts) {
            for (String t : texts) {
                slos.add(SloTarget.parse(t));
            }
            return this;
        }

        /**
         * Searches open-loop request rates (Poisson unless {@link #burstiness(double)}) from {@code start} req/s,
         * between {@code start / 64} and {@code max}.
         */
        public Builder byRate(double start, double max) {
            this.mode = Capacity.Mode.RATE;
            this.start = start;
            this.min = start / 64;
            this.max = max;
            return this;
        }

        /** Searches closed-loop concurrencies from {@code start} lanes, between 1 and {@code max}. */
        public Builder byConcurrency(int start, int max) {
            this.mode = Capacity.Mode.CONCURRENCY;
            this.start = start;
            this.min = 1;
            this.max = max;
            return this;
        }

        /** The relative half-width to stop at, in (0, 0.5); default {@value #DEFAULT_PRECISION}. */
        public Builder precision(double p) {
            this.precision = p;
            return this;
        }

        /** The most stages the search runs, ≥ 2; default {@value #DEFAULT_MAX_STAGES}. */
        public Builder maxStages(int n) {
            this.maxStages = n;
            return this;
        }

        /**
         * @param minRequests     the fewest requests of a stage (≥ 1; default 40; p99 SLOs need ~370 for a verdict)
         * @param stageSeconds    a rate stage's nominal length: {@code rate × stageSeconds} requests (default 3)
         * @param requestsPerLane a concurrency stage's requests per lane (default 4)
         */
        public Builder stageSize(int minRequests, double stageSeconds, int requestsPerLane) {
            this.minRequests = minRequests;
            this.stageSeconds = stageSeconds;
            this.requestsPerLane = requestsPerLane;
            return this;
        }

        /** The gamma shape of rate stages' gaps: 1 Poisson (default), +∞ constant. */
        public Builder burstiness(double b) {
            this.burstiness = b;
            return this;
        }

        /** @throws IllegalArgumentException naming the attribute and the fix */
        public CapacitySearch build() {
            if (mode == null) {
                throw new IllegalArgumentException("no load to search: call byRate(start, max) or"
                        + " byConcurrency(start, max)");
            }
            if (slos.isEmpty()) {
                throw new IllegalArgumentException("a capacity search needs at least one SLO, e.g."
                        + " slo(\"ttft.p99<500ms\")");
            }
            if (!(start > 0) || !(max >= start) || Double.isInfinite(max)) {
                throw new IllegalArgumentException("the search needs 0 < start ≤ max < ∞, was start " + start
                        + ", max " + max);
            }
            if (!(precision > 0 && precision < 0.5)) {
                throw new IllegalArgumentException("precision must be in (0, 0.5), e.g. 0.05 for ±5 %, was "
                        + precision);
            }
            if (maxStages < 2 || minRequests < 1 || !(stageSeconds > 0) || requestsPerLane < 1) {
                throw new IllegalArgumentException("maxStages ≥ 2, minRequests ≥ 1, stageSeconds > 0 and"
                        + " requestsPerLane ≥ 1 are needed, were " + maxStages + ", " + minRequests + ", "
                        + stageSeconds + ", " + requestsPerLane);
            }
            return new CapacitySearch(this);
        }
    }
}
