package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A load as a sequence of stages, run back to back by {@link StageRunner}: each stage starts when the previous one
 * has ended (its last response read), without a pause. Immutable.
 *
 * <pre>{@code
 * LoadSpec base = LoadSpec.closedLoop(1, 64, 512, 64, 0, 0, 0);
 * LoadSweep sweep = LoadSweep.concurrencies(base, 1, 4, 16, 64);
 * LoadSweep rates = LoadSweep.builder(base).rate(10).rate(20).poissonRate(40).build();
 * LoadSweep windows = LoadSweep.builder(base).concurrency(1).concurrency(16).windowPerStage(true).build();
 * }</pre>
 *
 * @param stages         the stages in the order they run, at least one
 * @param windowPerStage how a profile window takes the sweep: {@code false} (the default) one window spans every
 *                       stage; {@code true} each stage gets its own window (profiler started before the stage's first
 *                       request, stopped after its last response, its traces read on their own), so that kernel
 *                       budgets can be asserted per stage. Ignored where no profiler runs ({@link StageRunner} alone)
 * @param untilTracesIn  whether a profile window over the sweep stops it once every window has closed and its traces
 *                       are in (an srtctl recipe's sweep, whose profiler is armed for a fixed step range: the later
 *                       stages would profile nothing); {@code false} (the default) runs every stage. The stages not
 *                       run are {@link SweepResult#notRun()}. Ignored where no profiler runs
 */
@API(status = EXPERIMENTAL, since = "0.2")
public record LoadSweep(List<LoadStage> stages, boolean windowPerStage, boolean untilTracesIn) {

    public LoadSweep {
        stages = List.copyOf(Objects.requireNonNull(stages, "stages"));
        if (stages.isEmpty()) {
            throw new IllegalArgumentException("a sweep needs at least one stage");
        }
    }

    /** @param stages the stages in the order they run, at least one; one profile window spans them */
    public LoadSweep(List<LoadStage> stages) {
        this(stages, false, false);
    }

    /** As the canonical constructor, every stage run. */
    public LoadSweep(List<LoadStage> stages, boolean windowPerStage) {
        this(stages, windowPerStage, false);
    }

    /** @return this sweep with each stage in its own profile window ({@code true}) or one window over all */
    @API(status = EXPERIMENTAL, since = "0.2")
    public LoadSweep withWindowPerStage(boolean perStage) {
        return new LoadSweep(stages, perStage, untilTracesIn);
    }

    /** @return this sweep stopped by its profile window once every window's traces are in ({@code true}), or run whole */
    @API(status = EXPERIMENTAL, since = "0.2")
    public LoadSweep withUntilTracesIn(boolean untilIn) {
        return new LoadSweep(stages, windowPerStage, untilIn);
    }

    /**
     * @param base          the request shape, per-stage request count, duration bound and the first stage's warm-up
     * @param concurrencies closed-loop lanes per stage, each ≥ 1
     * @return one closed-loop stage per concurrency, in the order given
     */
    public static LoadSweep concurrencies(LoadSpec base, int... concurrencies) {
        Builder b = builder(base);
        Arrays.stream(concurrencies).forEach(b::concurrency);
        return b.build();
    }

    /**
     * @param base  the request shape, per-stage request count, duration bound and the first stage's warm-up; its
     *              arrival's burstiness (1 = Poisson, +∞ = constant) and {@link LoadSpec#maxInFlight()} cap carry
     *              over to every stage when it is an open loop, else the stages are Poisson without a cap
     * @param rates open-loop mean rates in requests/s, each &gt; 0
     * @return one open-loop stage per rate, in the order given
     */
    public static LoadSweep rates(LoadSpec base, double... rates) {
        Builder b = builder(base);
        Arrays.stream(rates).forEach(b::rate);
        return b.build();
    }

    /** @return a builder whose stages share {@code base}'s request shape, count, duration and first warm-up */
    public static Builder builder(LoadSpec base) {
        return new Builder(base);
    }

    /** @return the stage count */
    public int size() {
        return stages.size();
    }

    /** Adds stages in order. Only the first stage inherits the base's warm-up requests. */
    @API(status = EXPERIMENTAL, since = "0.2")
    public static final class Builder {
        private final LoadSpec base;
        private final List<LoadStage> stages = new ArrayList<>();
        private boolean windowPerStage;

        private Builder(LoadSpec base) {
            this.base = Objects.requireNonNull(base, "base");
        }

        private LoadStage shaped(LoadStage s) {
            return stages.isEmpty() ? s : s.withWarmup(0);
        }

        /** Adds a closed-loop stage of {@code lanes} lanes. */
        public Builder concurrency(int lanes) {
            stages.add(shaped(LoadStage.closedLoop(base, lanes)));
            return this;
        }

        /** Adds an open-loop stage at {@code rate} requests/s with the base's burstiness and cap (Poisson, none). */
        public Builder rate(double rate) {
            boolean open = !base.arrival().isClosedLoop();
            double burstiness = open ? base.arrival().burstiness() : 1.0;
            stages.add(shaped(LoadStage.atRate(base, ArrivalProcess.gamma(rate, burstiness),
                    open ? base.maxInFlight() : 0)));
            return this;
        }

        /** Adds an open-loop Poisson stage at {@code rate} requests/s, without a cap. */
        public Builder poissonRate(double rate) {
            stages.add(shaped(LoadStage.atRate(base, ArrivalProcess.poisson(rate), 0)));
            return this;
        }

        /** Adds a stage as given (its warm-up kept). */
        public Builder stage(LoadStage stage) {
            stages.add(Objects.requireNonNull(stage, "stage"));
            return this;
        }

        /** Bounds every stage added so far by {@code duration} as well as by its request count. */
        public Builder maxDurationPerStage(Duration duration) {
            stages.replaceAll(s -> s.sized(s.spec().requests(), duration));
            return this;
        }

        /** @param perStage each stage in its own profile window; see {@link LoadSweep#windowPerStage()} */
        public Builder windowPerStage(boolean perStage) {
            this.windowPerStage = perStage;
            return this;
        }

        /** @throws IllegalArgumentException when no stage was added */
        public LoadSweep build() {
            return new LoadSweep(stages, windowPerStage);
        }
    }
}
